"""The tab inventory: `tab-N` ids for the driver's handles, the active tab, and each tab's refs.

The application is the source of truth for tabs (docs/contract.md §5), so this is where the invariants live: ids are
`tab-1`, `tab-2`, … in the order tabs are first seen and never reused; exactly one tab is active whenever any is
open; closing the active tab activates a neighbour (the next one, else the previous). The browser's own notion of
focus is not trusted for this: a popup that steals focus does not change which tab Claude is working in.
"""

from __future__ import annotations

import attrs

from ..safety.sanitize import one_line
from ..values import CONTEXT_ROLES, AXNode
from .errors import ActionError
from .refs import RefTable

__all__ = ["Tab", "TabInventory", "check_tab_id", "named_context"]

TAB_ID_MAX = 4096
TAB_ID_UNSAFE = frozenset(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029))


def check_tab_id(tab_id: str) -> None:
    """Refuse a `tab_id` that breaks the API's limits (docs/contract.md §5): the API renders it in the result text."""
    if not isinstance(tab_id, str) or not tab_id:
        raise ActionError("tab_id is empty. Call list_tabs to see the open tabs' ids.")
    if len(tab_id) > TAB_ID_MAX:
        raise ActionError(f"tab_id is {len(tab_id):,} characters long; tab ids are at most {TAB_ID_MAX:,}.")
    if any(char in TAB_ID_UNSAFE for char in tab_id):
        raise ActionError("tab_id contains control or line-separator characters. Call list_tabs to see the ids.")


@attrs.define
class Tab:
    tab_id: str
    handle: str
    refs: RefTable = attrs.field(factory=RefTable)
    tree: AXNode | None = None
    """The accessibility tree of the tab's last read, which the refs Claude holds came from."""


def find_node(tree: AXNode | None, key: str) -> AXNode | None:
    """The node of the element `key` in `tree`, or None."""
    if tree is None:
        return None
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.key == key:
            return node
        stack.extend(node.children)
    return None


def named_context(tree: AXNode | None, key: str) -> tuple[str, ...]:
    """The names of the named forms, dialogs and regions around the element `key` in `tree`, nearest first."""
    if tree is None:
        return ()
    stack: list[tuple[AXNode, tuple[str, ...]]] = [(tree, ())]
    while stack:
        node, around = stack.pop()
        if node.key == key:
            return around
        if node.role in CONTEXT_ROLES and node.name:
            around = (node.name, *around)
        stack.extend((child, around) for child in node.children)
    return ()


@attrs.define
class TabInventory:
    """Open tabs in the order they were first seen, and which one is active."""

    tabs: dict[str, Tab] = attrs.field(factory=dict)  # by handle
    active: str | None = None  # a handle
    next_number: int = 1

    def add(self, handle: str) -> Tab:
        tab = self.tabs.get(handle)
        if tab is None:
            tab = Tab(tab_id=f"tab-{self.next_number}", handle=handle)
            self.next_number += 1
            self.tabs[handle] = tab
        if self.active is None:
            self.active = handle
        return tab

    def remove(self, handle: str) -> None:
        """Forget a closed tab; when it was active, its neighbour becomes active."""
        handles = list(self.tabs)
        if handle not in self.tabs:
            return
        index = handles.index(handle)
        del self.tabs[handle]
        if self.active == handle:
            rest = handles[:index] + handles[index + 1 :]
            self.active = rest[min(index, len(rest) - 1)] if rest else None

    def by_id(self, tab_id: str) -> Tab:
        check_tab_id(tab_id)
        for tab in self.tabs.values():
            if tab.tab_id == tab_id:
                return tab
        open_ids = ", ".join(tab.tab_id for tab in self.tabs.values()) or "none"
        raise ActionError(
            f"No open tab has tab_id {one_line(tab_id, 80)!r}. Open tabs: {open_ids}. Call list_tabs to see them."
        )

    def target(self, tab_id: str | None) -> Tab:
        """The tab a call acts on: the one it names (an empty name is an error, not the active tab), else the
        active tab."""
        if tab_id is not None:
            return self.by_id(tab_id)
        if self.active is None:
            raise ActionError("No tab is open. Call new_tab to open one, then navigate it.")
        return self.tabs[self.active]

    def activate(self, handle: str) -> None:
        self.active = handle

    def ordered(self, handles: list[str]) -> list[Tab]:
        """The known tabs in the browser's order `handles`."""
        return [self.tabs[handle] for handle in handles if handle in self.tabs]
