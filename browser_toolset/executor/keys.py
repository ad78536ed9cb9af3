"""Key names: Claude's spellings in, canonical W3C `KeyboardEvent.key` names out.

Claude writes keys the way people and xdotool do (`Return`, `ctrl+a`, `Page_Down`, `cmd+shift+p`,
`BackSpace BackSpace`); drivers want one spelling per key. `parse_sequence` turns the `text` of `key` and
`hold_key` (and the `modifiers` of clicks) into chords of canonical names, or raises `ActionError` naming the
key it does not know. The tables are data: add a spelling by adding a row.
"""

from __future__ import annotations

import re

from ..key_names import MODIFIERS
from .errors import ActionError

__all__ = ["canonical", "parse_chord", "parse_modifiers", "parse_sequence"]

# Other spellings, matched case-insensitively after removing `_`, `-` and spaces.
ALIASES: dict[str, str] = {
    "enter": "Enter", "return": "Enter", "ret": "Enter", "kpenter": "Enter",
    "tab": "Tab",
    "escape": "Escape", "esc": "Escape",
    "backspace": "Backspace", "bksp": "Backspace", "back": "Backspace",
    "delete": "Delete", "del": "Delete",
    "insert": "Insert", "ins": "Insert",
    "home": "Home", "end": "End",
    "pageup": "PageUp", "pgup": "PageUp", "prior": "PageUp",
    "pagedown": "PageDown", "pgdn": "PageDown", "pgdown": "PageDown", "next": "PageDown",
    "arrowup": "ArrowUp", "up": "ArrowUp", "uparrow": "ArrowUp",
    "arrowdown": "ArrowDown", "down": "ArrowDown", "downarrow": "ArrowDown",
    "arrowleft": "ArrowLeft", "left": "ArrowLeft", "leftarrow": "ArrowLeft",
    "arrowright": "ArrowRight", "right": "ArrowRight", "rightarrow": "ArrowRight",
    "control": "Control", "ctrl": "Control", "controll": "Control", "controlr": "Control",
    "ctrll": "Control", "ctrlr": "Control",
    "shift": "Shift", "shiftl": "Shift", "shiftr": "Shift",
    "alt": "Alt", "altl": "Alt", "altr": "Alt", "option": "Alt", "opt": "Alt", "menu": "ContextMenu",
    "meta": "Meta", "metal": "Meta", "metar": "Meta", "cmd": "Meta", "command": "Meta", "super": "Meta",
    "superl": "Meta", "superr": "Meta", "win": "Meta", "windows": "Meta", "os": "Meta",
    "capslock": "CapsLock", "contextmenu": "ContextMenu", "apps": "ContextMenu",
    "pause": "Pause", "break": "Pause",
    "printscreen": "PrintScreen", "print": "PrintScreen", "prtsc": "PrintScreen", "sysrq": "PrintScreen",
    "scrolllock": "ScrollLock", "numlock": "NumLock",
    "space": " ", "spacebar": " ",
    # xdotool / X keysym names of printable characters
    "plus": "+", "minus": "-", "equal": "=", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
    "semicolon": ";", "apostrophe": "'", "quote": "'", "grave": "`", "backtick": "`",
    "bracketleft": "[", "bracketright": "]", "braceleft": "{", "braceright": "}",
    "exclam": "!", "at": "@", "numbersign": "#", "hash": "#", "dollar": "$", "percent": "%",
    "asciicircum": "^", "ampersand": "&", "asterisk": "*", "parenleft": "(", "parenright": ")",
    "underscore": "_", "colon": ":", "quotedbl": '"', "less": "<", "greater": ">", "question": "?",
    "bar": "|", "asciitilde": "~",
}  # fmt: skip

FUNCTION_KEY_RE = re.compile(r"^f([1-9]|1[0-2])$")
MAX_SEQUENCE = 100
"""The most key presses one `key` text may name; `repeat` multiplies it."""


def canonical(name: str) -> str:
    """The canonical name of one key as Claude spelled it, or `ActionError` naming it."""
    if len(name) == 1 and name.isprintable():
        return name
    folded = re.sub(r"[_\-\s]", "", name).lower()
    if folded in ALIASES:
        return ALIASES[folded]
    match = FUNCTION_KEY_RE.match(folded)
    if match:
        return f"F{match.group(1)}"
    shown = name if len(name) <= 40 else name[:40] + "…"
    raise ActionError(
        f"Unknown key {shown!r}. Use key names such as Enter, Tab, Escape, Backspace, Delete, ArrowUp, PageDown, "
        'Home, F5, single characters, and "+" for chords (ctrl+a, cmd+shift+p).'
    )


def parse_chord(text: str) -> tuple[str, ...]:
    """One `+`-joined chord (`ctrl+shift+t`) as canonical names, modifiers first as written. A lone `+` is the
    plus key, and `ctrl++` is Control with plus."""
    if text == "+":
        return ("+",)
    parts = text.split("+")
    if text.endswith("++"):
        parts = [*parts[:-2], "+"]
    if any(part == "" for part in parts):
        raise ActionError(f"Malformed key chord {text!r}: join keys with a single '+', as in ctrl+shift+t.")
    chord = tuple(canonical(part) for part in parts)
    if len(set(chord)) != len(chord):
        raise ActionError(f"Key chord {text!r} names the same key twice.")
    return chord


def parse_sequence(text: str) -> list[tuple[str, ...]]:
    """The space-separated chords of a `key` text. `"space"` or a lone `" "` is the space bar."""
    if text == " ":
        return [(" ",)]
    words = text.split()
    if not words:
        raise ActionError("The key text is empty. Name a key such as Enter, or a chord such as ctrl+a.")
    if len(words) > MAX_SEQUENCE:
        raise ActionError(f"The key text names {len(words)} presses; at most {MAX_SEQUENCE} fit in one call.")
    return [parse_chord(word) for word in words]


def parse_modifiers(text: str | None) -> tuple[str, ...]:
    """The `modifiers` of a click (`"shift"`, `"ctrl+shift"`): every key must be a modifier."""
    if text is None or not text.strip():
        return ()
    chord = parse_chord(text.strip())
    others = [key for key in chord if key not in MODIFIERS]
    if others:
        raise ActionError(
            f"modifiers {text!r} includes {others[0]!r}, which is not a modifier key. Use shift, ctrl, alt or cmd."
        )
    return chord
