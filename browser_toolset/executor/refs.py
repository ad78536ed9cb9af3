"""Element refs: the `ref_N` names Claude uses for elements, one table per tab.

The contract's rules, and how this table keeps them:

- A ref is handed out when an element first appears in a `read_page` or `find` result, and names that element
  for as long as its document lives: re-reads and layout changes return the same ref (the driver's element key
  is stable, and the table maps key -> ref).
- An element whose role or name changed gets a new number, and its old ref becomes stale: Claude chose the old
  ref for what it said it was, so acting on a "Save" button that now says "Delete" must not happen silently.
- A new document (navigation, reload, history) makes every ref of the tab stale. Numbers are never reused in a
  tab, so a ref Claude still holds from the old page can never name an element of the new one.
"""

from __future__ import annotations

import attrs

from ..values import AXNode
from .errors import StaleRefError

__all__ = ["RefTable"]


@attrs.frozen
class RefEntry:
    key: str
    role: str
    name: str


@attrs.define
class RefTable:
    """The refs of one tab. `document` is the document the live refs belong to."""

    document: str | None = None
    next_number: int = 1
    by_ref: dict[str, RefEntry] = attrs.field(factory=dict)
    by_key: dict[str, str] = attrs.field(factory=dict)

    def observe(self, document: str) -> None:
        """Note the tab's current document; a different one retires every ref."""
        if document != self.document:
            self.document = document
            self.by_ref.clear()
            self.by_key.clear()

    def ref_for(self, node: AXNode) -> str | None:
        """The ref for a node about to be shown (None for a node with no key): its existing ref when the element's
        role and name are unchanged, else a new one, retiring the old."""
        if node.key is None:
            return None
        ref = self.by_key.get(node.key)
        if ref is not None:
            entry = self.by_ref[ref]
            if entry.role == node.role and entry.name == node.name:
                return ref
            del self.by_ref[ref]
        ref = f"ref_{self.next_number}"
        self.next_number += 1
        self.by_ref[ref] = RefEntry(node.key, node.role, node.name)
        self.by_key[node.key] = ref
        return ref

    def key_of(self, ref: str) -> str:
        """The element key a live ref names, or the contract's stale-ref error."""
        entry = self.by_ref.get(ref.strip())
        if entry is None:
            raise StaleRefError(ref)
        return entry.key

    def entry(self, ref: str) -> RefEntry:
        self.key_of(ref)
        return self.by_ref[ref.strip()]

    def retire(self, ref: str) -> None:
        """Forget a ref whose element is gone, so it reads as stale from now on."""
        entry = self.by_ref.pop(ref.strip(), None)
        if entry is not None:
            self.by_key.pop(entry.key, None)

    def check_live(self, snapshot_keys: dict[str, AXNode]) -> None:
        """Retire refs whose element is no longer in the document, or whose role or name changed."""
        for ref, entry in list(self.by_ref.items()):
            node = snapshot_keys.get(entry.key)
            if node is None or node.role != entry.role or node.name != entry.name:
                self.retire(ref)
