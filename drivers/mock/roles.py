"""The role an element a site declares reads as: the rules a browser applies to ARIA roles, so that a mock page
reads as the same markup would in Chromium or Firefox (docs/read-page-format.md, "Roles as browsers have them").

A site declares roles directly, as a page writes `role="…"` on a `div`, and they are read as a browser reads such
a `div`. Some roles only hold in context: a `listitem` needs a `list` around it, an `option` a `listbox` (or a
select's `combobox`), a `treeitem` a `tree` or `group`, with wrappers (`generic`, `none`) in between left out of
account; and a `region` or `form` needs a name to be one. An element outside its context, or a region or form
without a name, reads as `generic`, which has no name from its content and is no control. (A browser's rules for
tags, such as `role="none"` on a `<table>` reaching its rows, have no counterpart here: a declared role has no
tag.)
"""

from __future__ import annotations

from .document import INTERACTIVE, NAME_FROM_CONTENT, LiveElement, _collapse

__all__ = ["SYNONYMS", "shown_interactive", "shown_name", "shown_role"]

SYNONYMS = {"presentation": "none", "image": "img", "directory": "list"}
"""Roles that are another role under an older name."""

REQUIRED_CONTEXT: dict[str, frozenset[str]] = {
    "listitem": frozenset({"list"}),
    "option": frozenset({"listbox", "group", "combobox"}),
    "treeitem": frozenset({"tree", "group"}),
}
"""The roles an element of these roles needs around it (a select's options sit in its `combobox`)."""

NAMED_ONLY = frozenset({"region", "form"})
"""Roles that need a name: without one, the element is a plain container."""

WRAPPERS = frozenset({"generic", "none"})


def _declared(element: LiveElement) -> str:
    return SYNONYMS.get(element.role, element.role)


def shown_role(element: LiveElement) -> str:
    """The role `element` reads as: its declared role, unless a rule above sets it aside."""
    role = _declared(element)
    if role in NAMED_ONLY and not element.name:
        return "generic"
    context = REQUIRED_CONTEXT.get(role)
    if context is not None and _context(element) not in context:
        return "generic"
    return role


def _context(element: LiveElement) -> str | None:
    """The role of the nearest ancestor that is not a wrapper (as it reads), or None at the top."""
    parent = element.parent
    while parent is not None and parent.parent is not None:
        role = shown_role(parent)
        if role not in WRAPPERS:
            return role
        parent = parent.parent
    return None


def shown_name(element: LiveElement, role: str) -> str:
    """The accessible name under the role it reads as: one whose role lost its name from content has none."""
    if role == _declared(element) or element.spec.name or role in NAME_FROM_CONTENT:
        return element.name
    return _collapse(element.spec.name)


def shown_interactive(element: LiveElement, role: str, declared_interactive: bool) -> bool:
    """Whether `element` is interactive under the role it reads as: a control role set aside leaves only what the
    element does by itself (a link's `href`, a click behaviour)."""
    if role == _declared(element) or role in INTERACTIVE:
        return declared_interactive
    if element.disabled:
        return False
    return element.spec.href is not None or bool(element.spec.on_click) or element.spec.file_input
