"""What the user's pointer and keys do to a page: hovering, pressing and releasing (a click is both on one element),
typing into the focused field, moving focus with Tab, and the keys that scroll.

Each step runs the page's behaviours through the `_Browser`, so a click on a link and a page's own `Navigate`
reach the same loading code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from browser_toolset.driver_errors import DriverError
from browser_toolset.key_names import MODIFIERS
from browser_toolset.values import MouseButton, Point, Size

from .browser import _Browser, _Tab
from .document import (
    CHECKABLE,
    LiveElement,
    _activated_by,
    _choose_option,
    _Document,
    _editable,
    _enclosing_form,
    _focusable,
    _handles_click,
    _set_checked,
)
from .layout import _hit, _layout, _scroll_by, _scroll_into_view

SCROLL_LINE = 40
SCROLL_PAGE_FRACTION = 0.875


def _check_point(viewport: Size, point: Point) -> None:
    width, height = viewport.width, viewport.height
    if not (0 <= point.x < width and 0 <= point.y < height):
        raise DriverError(f"point ({point.x:g}, {point.y:g}) is outside the {width}x{height} viewport")


# --- pointer ------------------------------------------------------------------------------------------------------


def _hover(browser: _Browser, tab: _Tab, point: Point) -> LiveElement:
    """Move the pointer, running `on_hover` of each element the pointer newly entered, outermost first."""
    doc = tab.doc
    target = _hit(doc, browser.viewport, point)
    if target is not doc.hovered:
        before = set(doc.hovered.ancestors()) if doc.hovered is not None else set()
        doc.hovered = target
        for element in reversed(list(target.ancestors())):
            if element not in before and element.spec.on_hover:
                browser.run(tab, element.spec.on_hover, element, depth=0)
    return target


def _press(browser: _Browser, tab: _Tab, point: Point, button: MouseButton) -> None:
    target = _hover(browser, tab, point)
    doc = tab.doc
    if target.document is not doc:
        return
    doc.pressed = (target, button)
    doc.focused = next((e for e in target.ancestors() if _focusable(e)), None)
    doc.select_all = False


def _release(browser: _Browser, tab: _Tab, point: Point, button: MouseButton, modifiers: frozenset[str]) -> None:
    target = _hover(browser, tab, point)
    doc = tab.doc
    pressed, doc.pressed = doc.pressed, None
    if pressed == (target, button):
        _activate(browser, tab, target, button, modifiers)


def _activate(
    browser: _Browser, tab: _Tab, target: LiveElement, button: MouseButton, modifiers: frozenset[str]
) -> None:
    """What a click on `target` does: the nearest element that handles clicks gets it (it bubbles)."""
    handler = next((e for e in target.ancestors() if _handles_click(e)), None)
    if handler is None or handler.disabled or button == "right":
        return
    doc = tab.doc
    if button == "left":
        if handler.role in CHECKABLE:
            _set_checked(handler, handler.role in ("radio", "menuitemradio") or not handler.checked)
        elif handler.role == "option" and handler.parent is not None:
            _choose_option(handler.parent, handler.spec.value or handler.name)
        browser.run(tab, handler.spec.on_click, handler, depth=0)
    href = handler.spec.href
    if href is None or tab.doc is not doc or tab.handle not in browser.tabs:
        return
    url = browser.resolve(doc, handler, href)
    if handler.spec.new_tab or button == "middle" or modifiers & {"Control", "Meta", "Shift"}:
        browser.open_from_page(tab, url, depth=0)
    elif button == "left":
        browser.load(tab, url, by_page=True, entry="push")


# --- keyboard -----------------------------------------------------------------------------------------------------


def _chord(browser: _Browser, tab: _Tab, chord: Sequence[str]) -> None:
    modifiers = frozenset(key for key in chord if key in MODIFIERS)
    for key in chord:
        if key not in MODIFIERS and tab.handle in browser.tabs:
            _key(browser, tab, key, modifiers)


def _key(browser: _Browser, tab: _Tab, key: str, modifiers: frozenset[str]) -> None:
    """One key press at the focused element, with the browser's default actions for it."""
    doc = tab.doc
    focused = doc.focused
    command = bool(modifiers & {"Control", "Meta"})
    if key == "Tab":
        _move_focus(doc, browser.viewport, backwards="Shift" in modifiers)
    elif focused is not None and _editable(focused):
        _edit(browser, tab, focused, key, modifiers, command)
    elif focused is not None and _activated_by(focused, key):
        _activate(browser, tab, focused, "left", modifiers)
    else:
        _scroll_key(doc, browser.viewport, key, modifiers)


def _edit(browser: _Browser, tab: _Tab, field: LiveElement, key: str, modifiers: frozenset[str], command: bool) -> None:
    doc = tab.doc
    if command and key.lower() == "a":
        doc.select_all = True
        return
    current = "" if doc.select_all else field.spec.value or ""
    if key in ("Backspace", "Delete"):
        updated = current if key == "Delete" and not doc.select_all else current[:-1] if key == "Backspace" else ""
    elif key == "Enter" and not field.spec.multiline:
        doc.select_all = False
        _implicit_submit(browser, tab, field)
        return
    elif key == "Enter" or (len(key) == 1 and not command and "Alt" not in modifiers):
        char = "\n" if key == "Enter" else key.upper() if "Shift" in modifiers else key
        updated = current + char
    else:
        if key.startswith("Arrow") or key in ("Home", "End"):
            doc.select_all = False
        return
    if not field.disabled and "readonly" not in field.spec.states:
        field.spec = attrs.evolve(field.spec, value=updated)
    doc.select_all = False


def _implicit_submit(browser: _Browser, tab: _Tab, field: LiveElement) -> None:
    """Enter in a single-line field submits its form: its `on_submit`, else a click on its first button."""
    form = _enclosing_form(field)
    if form is None:
        return
    if form.spec.on_submit:
        browser.run(tab, form.spec.on_submit, field, depth=0)
        return
    default = next((e for e in form.walk() if e.role == "button" and not e.spec.file_input), None)
    if default is not None:
        _activate(browser, tab, default, "left", frozenset())


def _move_focus(doc: _Document, viewport: Size, *, backwards: bool) -> None:
    order = [e for e in doc.root.walk() if _focusable(e) and e.visible]
    if not order:
        return
    position = -1 if backwards else 0
    if doc.focused in order:
        position = order.index(doc.focused) + (-1 if backwards else 1)
    doc.focused = order[position % len(order)]
    doc.select_all = _editable(doc.focused)
    if doc.focused in _layout(doc.root, viewport).boxes:
        _scroll_into_view(doc, viewport, doc.focused)


def _scroll_key(doc: _Document, viewport: Size, key: str, modifiers: frozenset[str]) -> None:
    page = viewport.height * SCROLL_PAGE_FRACTION
    if key == " ":
        key = "PageUp" if "Shift" in modifiers else "PageDown"
    deltas = {
        "ArrowDown": (0.0, SCROLL_LINE),
        "ArrowUp": (0.0, -SCROLL_LINE),
        "ArrowRight": (SCROLL_LINE, 0.0),
        "ArrowLeft": (-SCROLL_LINE, 0.0),
        "PageDown": (0.0, page),
        "PageUp": (0.0, -page),
        "Home": (0.0, -math.inf),
        "End": (0.0, math.inf),
    }
    if key in deltas:
        _scroll_by(doc, viewport, *deltas[key])
