"""Claude's key spellings resolve to canonical names; unknown keys are errors that name the key."""

from __future__ import annotations

import pytest

from browser_toolset.executor.errors import ActionError
from browser_toolset.executor.keys import parse_chord, parse_modifiers, parse_sequence


@pytest.mark.parametrize(
    ("text", "chord"),
    [
        ("Enter", ("Enter",)),
        ("Return", ("Enter",)),
        ("KP_Enter", ("Enter",)),
        ("ctrl+a", ("Control", "a")),
        ("control+A", ("Control", "A")),
        ("cmd+shift+p", ("Meta", "Shift", "p")),
        ("super+l", ("Meta", "l")),
        ("meta+c", ("Meta", "c")),
        ("alt+F4", ("Alt", "F4")),
        ("Page_Down", ("PageDown",)),
        ("PageDown", ("PageDown",)),
        ("pgup", ("PageUp",)),
        ("Up", ("ArrowUp",)),
        ("ArrowUp", ("ArrowUp",)),
        ("BackSpace", ("Backspace",)),
        ("Escape", ("Escape",)),
        ("esc", ("Escape",)),
        ("space", (" ",)),
        ("f12", ("F12",)),
        ("F1", ("F1",)),
        ("Delete", ("Delete",)),
        ("+", ("+",)),
        ("ctrl++", ("Control", "+")),
        ("ctrl+minus", ("Control", "-")),
        ("é", ("é",)),
    ],
)
def test_chords(text: str, chord: tuple[str, ...]) -> None:
    assert parse_chord(text) == chord


def test_sequences_split_on_spaces() -> None:
    assert parse_sequence("Backspace Backspace Delete") == [("Backspace",), ("Backspace",), ("Delete",)]
    assert parse_sequence("ctrl+a Delete") == [("Control", "a"), ("Delete",)]
    assert parse_sequence(" ") == [(" ",)]


@pytest.mark.parametrize("text", ["Hyper", "F13", "ctrl+Foo", "Enterr"])
def test_unknown_keys_are_named_in_the_error(text: str) -> None:
    with pytest.raises(ActionError) as caught:
        parse_sequence(text)
    message = str(caught.value)
    assert message.startswith("Error: Unknown key ")
    assert repr(text.split("+")[-1]) in message


def test_malformed_chords_and_empty_text() -> None:
    for text in ["ctrl+", "+a+", "ctrl++a"]:
        with pytest.raises(ActionError):
            parse_chord(text)
    with pytest.raises(ActionError, match="empty"):
        parse_sequence("")
    with pytest.raises(ActionError, match="same key twice"):
        parse_chord("ctrl+control")
    with pytest.raises(ActionError, match="at most 100"):
        parse_sequence(" ".join(["a"] * 101))


def test_click_modifiers_must_be_modifiers() -> None:
    assert parse_modifiers(None) == ()
    assert parse_modifiers("shift") == ("Shift",)
    assert parse_modifiers("ctrl+shift") == ("Control", "Shift")
    assert parse_modifiers("cmd+alt") == ("Meta", "Alt")
    with pytest.raises(ActionError, match="not a modifier"):
        parse_modifiers("ctrl+a")
