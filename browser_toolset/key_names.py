"""The canonical key vocabulary of the `Driver` protocol: W3C `KeyboardEvent.key` names.

The executor resolves Claude's spellings (`Return`, `ctrl`, `Page_Down`) to these names before it calls a driver
(`browser_toolset.executor.keys`), so a driver maps each name to its backend once and never sees an alias. This module
imports nothing, so a third-party driver can use it without importing the executor or the anthropic SDK.
"""

from __future__ import annotations

__all__ = ["CANONICAL_KEYS", "MODIFIERS", "NAMED_KEYS"]

MODIFIERS: frozenset[str] = frozenset({"Control", "Shift", "Alt", "Meta"})

# Canonical names for keys that are not a single printable character.
NAMED_KEYS: tuple[str, ...] = (
    "Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Home", "End", "PageUp", "PageDown",
    "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Control", "Shift", "Alt", "Meta", "CapsLock",
    "ContextMenu", "Pause", "PrintScreen", "ScrollLock", "NumLock", " ",
    *(f"F{n}" for n in range(1, 13)),
)  # fmt: skip

CANONICAL_KEYS: frozenset[str] = frozenset(NAMED_KEYS)
"""Every canonical multi-character key name (plus `" "` for the space bar). Any single printable character is
also a canonical key name, standing for itself."""
