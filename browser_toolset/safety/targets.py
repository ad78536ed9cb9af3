"""What the confirmation gate learns about the element a call acts on, and how a key call names it.

Kept apart from `confirm` so that the executor, which answers the gate's lookups (`BrowserToolset.describe_ref`),
can build these without importing the gate.
"""

from __future__ import annotations

import attrs

__all__ = ["Found", "KeyPress"]


@attrs.frozen
class Found:
    """What a lookup knows about an element: its role and name, the names of the forms, dialogs and regions around
    it (nearest first), the origin of the frame it is in (None on the page's own document) and what activating it
    loads (`browser_toolset.values.ACTION_FORMS`; empty when unknown)."""

    role: str
    name: str
    context: tuple[str, ...] = ()
    frame: str | None = None
    action: str = ""


@attrs.frozen
class KeyPress:
    """The element a key call acts on: whatever `key` (`Enter`, or `" "` for the space bar) activates at the focused
    element. `moved`: keys pressed before it in the same call move the focus (Tab), so the element focused now is
    not the one pressed."""

    key: str
    moved: bool = False
