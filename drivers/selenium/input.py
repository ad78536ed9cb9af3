"""Input through WebDriver BiDi `input.performActions`, and key holding through the Chrome DevTools Protocol.

Firefox runs a frame of another site in a process of its own and does not pass the tab's input into it: a click on
the frame's button, or a key typed while the frame's field has the focus, reaches nothing there. In such a browser
(`ROUTED_FAMILIES`) input goes to the frame's own browsing context instead, pointer input with the point in the
frame's viewport (BiDi takes a frame's context for `input.performActions`), whenever it lands in such a frame
(`FrameRouter`).

Selenium's ActionChains moves the pointer over 250 ms per move; a raw action list with `duration: 0` does a click
in one round trip. Keys are the canonical names of `browser_toolset.key_names`, mapped here once to WebDriver's
private-use key codes (for BiDi) and to the DOM `key`/`code`/virtual-key triple (for CDP, whose
`Input.dispatchKeyEvent` is the only way to produce real auto-repeat: BiDi has no notion of it).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol

import attrs

from browser_toolset.driver_errors import NotSupported
from browser_toolset.values import HoldOutcome, MouseButton, Point, Size

from .connection import BidiConnection, BidiError
from .contexts import Contexts
from .documents import Documents
from .errors import ContextGone, bidi_errors
from .navigation import Navigator
from .options import SeleniumConfig
from .script import Scripts
from .tabs import Tabs

__all__ = [
    "AUTO_REPEAT_DELAY",
    "AUTO_REPEAT_INTERVAL",
    "BUTTONS",
    "ROUTED_FAMILIES",
    "CdpKey",
    "FrameRouter",
    "Input",
    "cdp_key",
    "cdp_modifier_bit",
    "click_actions",
    "drag_actions",
    "key_actions",
    "move_actions",
    "pointer_button_actions",
    "type_actions",
    "webdriver_key",
    "wheel_actions",
]

log = logging.getLogger(__name__)

AUTO_REPEAT_DELAY = 0.5
AUTO_REPEAT_INTERVAL = 1 / 30
"""Typical desktop keyboard settings: repeats start after half a second, thirty per second."""

ROUTED_FAMILIES = frozenset({"firefox"})
"""Browsers whose top-level input does not reach a frame of another site (measured: Firefox delivers neither a click
nor a key there; Chromium delivers both)."""


class FrameRouter(Protocol):
    """Where input into a tab's frames of other origins must go (`Elements`)."""

    def frame_at(self, handle: str, point: Point) -> tuple[str, Point] | None:
        """The innermost such frame a point falls in, and the point in its viewport; None outside them."""
        ...

    def focused_frame(self, handle: str) -> str | None:
        """The innermost such frame that has the keyboard focus; None when the tab's document has it."""
        ...


class Input:
    """Pointer and keyboard input into one tab. Every input waits, once it has succeeded, for the document a
    navigation it started to be readable (see `Navigator.following`)."""

    def __init__(
        self,
        connection: BidiConnection,
        config: SeleniumConfig,
        documents: Documents,
        contexts: Contexts,
        tabs: Tabs,
        scripts: Scripts,
        navigation: Navigator,
        frames: FrameRouter | None = None,
    ) -> None:
        self._conn = connection
        self._config = config
        self._documents = documents
        self._contexts = contexts
        self._tabs = tabs
        self._scripts = scripts
        self._navigation = navigation
        self._frames = frames if config.family in ROUTED_FAMILIES else None
        self._lock = threading.Lock()
        self._cdp_sessions: dict[str, str] = {}

    def forget_contexts(self, handles: frozenset[str]) -> None:
        with self._lock:
            for handle in handles:
                self._cdp_sessions.pop(handle, None)

    def perform(self, handle: str, actions: list[dict[str, Any]], context: str | None = None) -> None:
        """`actions` in the tab, or in `context` (one of its frames: see `ROUTED_FAMILIES`)."""
        self._tabs.check(handle)
        target = context or handle
        with self._navigation.following(handle), bidi_errors("perform the input"):
            self._documents.command(target, "input.performActions", {"context": target, "actions": actions})

    def _at(self, handle: str, point: Point) -> tuple[str | None, Point]:
        """Where pointer input at `point` goes: the tab (None) at that point, or the frame it lands in at the point in
        the frame's viewport, in a browser that does not pass the tab's input into the frame."""
        self._tabs.check(handle)
        routed = self._frames.frame_at(handle, point) if self._frames is not None else None
        return (None, point) if routed is None else routed

    def _keys_to(self, handle: str) -> str | None:
        """Where key input goes: the frame with the focus in a browser that does not pass the tab's keys into it."""
        self._tabs.check(handle)
        return self._frames.focused_frame(handle) if self._frames is not None else None

    # --- pointer --------------------------------------------------------------------------------------------------

    def click(self, handle: str, point: Point, button: MouseButton, count: int, modifiers: Sequence[str]) -> None:
        context, point = self._at(handle, point)
        self.perform(handle, click_actions(point, self._config.viewport, button, max(1, count), modifiers), context)

    def move(self, handle: str, point: Point) -> None:
        context, point = self._at(handle, point)
        self.perform(handle, move_actions(point, self._config.viewport), context)

    def button(self, handle: str, point: Point, *, down: bool) -> None:
        context, point = self._at(handle, point)
        self.perform(handle, pointer_button_actions(point, self._config.viewport, "left", down=down), context)

    def drag(self, handle: str, start: Point, end: Point) -> None:
        context, local = self._at(handle, start)
        # The whole drag goes where it starts, in that frame's coordinates.
        end = Point(end.x - (start.x - local.x), end.y - (start.y - local.y))
        self.perform(handle, drag_actions(local, end, self._config.viewport), context)

    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        context, point = self._at(handle, point)
        target = context or handle
        since = self._contexts.seq
        with bidi_errors("perform the input"):
            actions = wheel_actions(point, self._config.viewport, delta_x, delta_y)
            self._documents.command(target, "input.performActions", {"context": target, "actions": actions})
        # Scrolling is asynchronous: let the page apply it before anything reads positions or captures. Chromium has
        # applied a wheel scroll by the next animation frame, Firefox by the second (measured: after one frame
        # Firefox still shows the old position). That round trip through the page is also the one a navigation the
        # input started needs to be announced.
        expression = WHEEL_SETTLED.get(self._config.family, TWO_FRAMES)
        self._scripts.peek(handle, expression, timeout=2, await_promise=True)
        self._navigation.after_input(handle, since, probed=True)

    # --- keyboard -------------------------------------------------------------------------------------------------

    def type_text(self, handle: str, text: str) -> None:
        if text:
            self.perform(handle, type_actions(text), self._keys_to(handle))

    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        self.perform(handle, key_actions(chord), self._keys_to(handle))

    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        self._tabs.check(handle)
        if not chord:
            time.sleep(max(0.0, seconds))
            return HoldOutcome(repeated=False)
        with bidi_errors("hold the keys"):
            session = self._cdp_session(handle)
            if session is not None:
                with self._navigation.following(handle):
                    repeated = self._hold_with_cdp(session, chord, seconds)
                return HoldOutcome(repeated=repeated)
        context = self._keys_to(handle)
        self.perform(handle, key_actions(chord, up=False), context)
        try:
            time.sleep(max(0.0, seconds))
        finally:
            self.perform(handle, key_actions(chord, down=False), context)
        return HoldOutcome(repeated=False)

    def _cdp_session(self, handle: str) -> str | None:
        """A CDP session for the tab through BiDi's `goog:cdp` extension (Chromium only). Over BiDi, not
        `execute_cdp_cmd`, so no classic HTTP command can ever wait on a navigation the intercept holds."""
        if self._config.family != "chromium":
            return None
        with self._lock:
            session = self._cdp_sessions.get(handle)
        if session is None:
            try:
                reply = self._documents.command(handle, "goog:cdp.getSession", {"context": handle}, timeout=5)
            except ContextGone:
                raise
            except BidiError:
                log.info("selenium-%s offers no CDP session; keys are held without auto-repeat", self._config.browser)
                return None
            session = str(reply.get("session"))
            with self._lock:
                self._cdp_sessions[handle] = session
        return session

    def _cdp_key_event(self, session: str, kind: str, key: CdpKey, modifiers: int, repeat: bool = False) -> None:
        params: dict[str, Any] = {
            "type": kind,
            "key": key.key,
            "code": key.code,
            "windowsVirtualKeyCode": key.key_code,
            "nativeVirtualKeyCode": key.key_code,
            "modifiers": modifiers,
            "autoRepeat": repeat,
        }
        # With Control, Alt or Meta down a key is a shortcut and types nothing, as on a real keyboard.
        if kind == "keyDown" and key.text and not modifiers & ~8:
            params["text"] = key.text
            params["unmodifiedText"] = key.text
        self._conn.command(
            "goog:cdp.sendCommand",
            {"method": "Input.dispatchKeyEvent", "params": params, "session": session},
            timeout=5,
        )

    def _hold_with_cdp(self, session: str, chord: Sequence[str], seconds: float) -> bool:
        """Press the chord, repeat its last key the way a keyboard does while held, release in reverse. Returns
        whether any repeat was sent."""
        described = [cdp_key(name) for name in chord]
        pressed: list[tuple[CdpKey, int]] = []
        modifiers = 0
        repeats = 0
        try:
            for name, key in zip(chord, described):
                modifiers |= cdp_modifier_bit(name)
                self._cdp_key_event(session, "keyDown" if key.text else "rawKeyDown", key, modifiers)
                pressed.append((key, cdp_modifier_bit(name)))
            main = described[-1]
            start = time.monotonic()
            deadline = start + max(0.0, seconds)
            next_repeat = start + AUTO_REPEAT_DELAY
            while True:
                now = time.monotonic()
                if now >= deadline:
                    break
                if now >= next_repeat:
                    self._cdp_key_event(session, "keyDown" if main.text else "rawKeyDown", main, modifiers, True)
                    repeats += 1
                    next_repeat += AUTO_REPEAT_INTERVAL
                time.sleep(max(0.0, min(next_repeat, deadline) - time.monotonic()))
        finally:
            for key, bit in reversed(pressed):
                try:
                    self._cdp_key_event(session, "keyUp", key, modifiers)
                except BidiError:
                    log.debug("could not release %s", key.key, exc_info=True)
                modifiers &= ~bit
        return repeats > 0


# --- action lists -------------------------------------------------------------------------------------------------

BUTTONS: dict[MouseButton, int] = {"left": 0, "middle": 1, "right": 2}

# WebDriver's key codes (W3C WebDriver, "keyboard actions") for the canonical names that are not a character.
_WEBDRIVER_KEYS: dict[str, str] = {
    "Backspace": "\ue003",
    "Tab": "\ue004",
    "Enter": "\ue007",
    "Shift": "\ue008",
    "Control": "\ue009",
    "Alt": "\ue00a",
    "Pause": "\ue00b",
    "Escape": "\ue00c",
    " ": " ",
    "PageUp": "\ue00e",
    "PageDown": "\ue00f",
    "End": "\ue010",
    "Home": "\ue011",
    "ArrowLeft": "\ue012",
    "ArrowUp": "\ue013",
    "ArrowRight": "\ue014",
    "ArrowDown": "\ue015",
    "Insert": "\ue016",
    "Delete": "\ue017",
    "Meta": "\ue03d",
    **{f"F{n}": chr(0xE031 + n - 1) for n in range(1, 13)},
}

# Characters of `type_text` that mean a key rather than themselves.
_TYPED_AS_KEY = {"\n": "\ue007", "\r": "\ue007", "\t": "\ue004", "\b": "\ue003"}


def webdriver_key(name: str) -> str:
    """The BiDi `value` for a canonical key name. Raises `NotSupported` for keys WebDriver has no code for."""
    if name in _WEBDRIVER_KEYS:
        return _WEBDRIVER_KEYS[name]
    if len(name) == 1:
        return name
    raise NotSupported(f"the {name} key cannot be pressed through WebDriver; only standard keys are available")


# --- pointer ------------------------------------------------------------------------------------------------------


def _pixel(value: float, limit: int) -> int:
    """The CSS pixel containing coordinate `value`, kept inside the viewport (Chromium truncates fractional input
    coordinates and Firefox rounds them: choosing the pixel here makes both land on the same one)."""
    return min(max(math.floor(value + 1e-6), 0), max(limit - 1, 0))


def _move(point: Point, viewport: Size, duration: int = 0) -> dict[str, Any]:
    return {
        "type": "pointerMove",
        "x": _pixel(point.x, viewport.width),
        "y": _pixel(point.y, viewport.height),
        "origin": "viewport",
        "duration": duration,
    }


def _pointer(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}


def _pause() -> dict[str, Any]:
    return {"type": "pause", "duration": 0}


def click_actions(
    point: Point, viewport: Size, button: MouseButton, count: int, modifiers: Sequence[str]
) -> list[dict[str, Any]]:
    """One action list: modifiers down, move, `count` presses, modifiers up. Sources advance tick by tick, so the
    pointer source pauses while the keyboard presses the modifiers and the other way round."""
    code = BUTTONS[button]
    pointer = [_move(point, viewport)]
    for _ in range(count):
        pointer += [{"type": "pointerDown", "button": code}, {"type": "pointerUp", "button": code}]
    if not modifiers:
        return [_pointer(pointer)]
    keys = [webdriver_key(key) for key in modifiers]
    key_source = [{"type": "keyDown", "value": key} for key in keys]
    key_source += [_pause() for _ in pointer]
    key_source += [{"type": "keyUp", "value": key} for key in reversed(keys)]
    pointer = [_pause() for _ in keys] + pointer
    return [{"type": "key", "id": "keyboard", "actions": key_source}, _pointer(pointer)]


def move_actions(point: Point, viewport: Size) -> list[dict[str, Any]]:
    """Arrive at `point` from the next pixel (left of it, or right at the viewport's left edge): Chromium dispatches
    nothing for a move to where the pointer already is, so a hover there would not reopen a menu that closed
    meanwhile. Coming from one pixel away makes every hover a real move, in the same round trip."""
    x, y = _pixel(point.x, viewport.width), _pixel(point.y, viewport.height)
    near = Point(x - 1 if x > 0 else min(x + 1, viewport.width - 1), y)
    return [_pointer([_move(near, viewport), _move(Point(x, y), viewport)])]


def pointer_button_actions(point: Point, viewport: Size, button: MouseButton, *, down: bool) -> list[dict[str, Any]]:
    """Move and press (or release) without the other half: BiDi keeps the button state of the tab's input
    source between calls, so a later release completes the drag the page saw start."""
    kind = "pointerDown" if down else "pointerUp"
    return [_pointer([_move(point, viewport), {"type": kind, "button": BUTTONS[button]}])]


def drag_actions(start: Point, end: Point, viewport: Size, steps: int = 10) -> list[dict[str, Any]]:
    """Press at `start`, move in `steps` small timed moves (drag-and-drop code often ignores a single jump), release
    at `end`."""
    actions = [_move(start, viewport), {"type": "pointerDown", "button": 0}]
    for step in range(1, steps + 1):
        fraction = step / steps
        waypoint = Point(start.x + (end.x - start.x) * fraction, start.y + (end.y - start.y) * fraction)
        actions.append(_move(waypoint, viewport, duration=10))
    actions.append({"type": "pointerUp", "button": 0})
    return [_pointer(actions)]


ONE_FRAME = "new Promise(r => requestAnimationFrame(() => r()))"
TWO_FRAMES = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))"
WHEEL_SETTLED = {"chromium": ONE_FRAME, "firefox": TWO_FRAMES}
"""The wait after a wheel input, by browser family (two frames for any other)."""


def wheel_actions(point: Point, viewport: Size, delta_x: float, delta_y: float) -> list[dict[str, Any]]:
    scroll = {
        "type": "scroll",
        "x": _pixel(point.x, viewport.width),
        "y": _pixel(point.y, viewport.height),
        "deltaX": round(delta_x),
        "deltaY": round(delta_y),
        "origin": "viewport",
    }
    return [{"type": "wheel", "id": "wheel", "actions": [scroll]}]


# --- keyboard -----------------------------------------------------------------------------------------------------


def key_actions(chord: Sequence[str], *, down: bool = True, up: bool = True) -> list[dict[str, Any]]:
    """Press the keys of `chord` in order and release them in reverse (or only one half, for holding)."""
    keys = [webdriver_key(key) for key in chord]
    actions: list[dict[str, Any]] = []
    if down:
        actions += [{"type": "keyDown", "value": key} for key in keys]
    if up:
        actions += [{"type": "keyUp", "value": key} for key in reversed(keys)]
    return [{"type": "key", "id": "keyboard", "actions": actions}]


def type_actions(text: str) -> list[dict[str, Any]]:
    """Each character as a key press. Newlines and tabs press Enter and Tab, as typing them would."""
    actions: list[dict[str, Any]] = []
    for char in text:
        value = _TYPED_AS_KEY.get(char, char)
        actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
    return [{"type": "key", "id": "keyboard", "actions": actions}]


@attrs.frozen
class CdpKey:
    """What `Input.dispatchKeyEvent` needs to know about a key (US layout)."""

    key: str
    code: str
    key_code: int
    text: str = ""


_CDP_NAMED: dict[str, CdpKey] = {
    "Enter": CdpKey("Enter", "Enter", 13, "\r"),
    "Tab": CdpKey("Tab", "Tab", 9),
    "Escape": CdpKey("Escape", "Escape", 27),
    "Backspace": CdpKey("Backspace", "Backspace", 8),
    "Delete": CdpKey("Delete", "Delete", 46),
    "Insert": CdpKey("Insert", "Insert", 45),
    "Home": CdpKey("Home", "Home", 36),
    "End": CdpKey("End", "End", 35),
    "PageUp": CdpKey("PageUp", "PageUp", 33),
    "PageDown": CdpKey("PageDown", "PageDown", 34),
    "ArrowLeft": CdpKey("ArrowLeft", "ArrowLeft", 37),
    "ArrowUp": CdpKey("ArrowUp", "ArrowUp", 38),
    "ArrowRight": CdpKey("ArrowRight", "ArrowRight", 39),
    "ArrowDown": CdpKey("ArrowDown", "ArrowDown", 40),
    "Control": CdpKey("Control", "ControlLeft", 17),
    "Shift": CdpKey("Shift", "ShiftLeft", 16),
    "Alt": CdpKey("Alt", "AltLeft", 18),
    "Meta": CdpKey("Meta", "MetaLeft", 91),
    "CapsLock": CdpKey("CapsLock", "CapsLock", 20),
    "ContextMenu": CdpKey("ContextMenu", "ContextMenu", 93),
    "Pause": CdpKey("Pause", "Pause", 19),
    "PrintScreen": CdpKey("PrintScreen", "PrintScreen", 44),
    "ScrollLock": CdpKey("ScrollLock", "ScrollLock", 145),
    "NumLock": CdpKey("NumLock", "NumLock", 144),
    " ": CdpKey(" ", "Space", 32, " "),
    **{f"F{n}": CdpKey(f"F{n}", f"F{n}", 111 + n) for n in range(1, 13)},
}

# US-layout punctuation: character -> (code, virtual key code); the shifted characters share their key's code.
_PUNCTUATION: dict[str, tuple[str, int]] = {
    **{c: ("Semicolon", 186) for c in ";:"},
    **{c: ("Equal", 187) for c in "=+"},
    **{c: ("Comma", 188) for c in ",<"},
    **{c: ("Minus", 189) for c in "-_"},
    **{c: ("Period", 190) for c in ".>"},
    **{c: ("Slash", 191) for c in "/?"},
    **{c: ("Backquote", 192) for c in "`~"},
    **{c: ("BracketLeft", 219) for c in "[{"},
    **{c: ("Backslash", 220) for c in "\\|"},
    **{c: ("BracketRight", 221) for c in "]}"},
    **{c: ("Quote", 222) for c in "'\""},
    **{c: (f"Digit{d}", 48 + d) for d, c in enumerate(")!@#$%^&*(")},
}

_MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}


def cdp_key(name: str) -> CdpKey:
    """The CDP description of a canonical key name (any single character is its own key)."""
    if name in _CDP_NAMED:
        return _CDP_NAMED[name]
    if len(name) != 1:
        raise NotSupported(f"the {name} key cannot be held")
    if name.isascii() and name.isalpha():
        return CdpKey(name, f"Key{name.upper()}", ord(name.upper()), name)
    if name.isascii() and name.isdigit():
        return CdpKey(name, f"Digit{name}", ord(name), name)
    if name in _PUNCTUATION:
        code, key_code = _PUNCTUATION[name]
        return CdpKey(name, code, key_code, name)
    return CdpKey(name, "", 0, name)


def cdp_modifier_bit(name: str) -> int:
    """The bit of CDP's `modifiers` mask a key sets while down (0 for keys that are no modifier)."""
    return _MODIFIER_BITS.get(name, 0)
