"""Layout: where every shown element of a document sits, and scrolling the viewport over it.

Nothing is measured: elements without explicit bounds stack in rows of fixed height and text wraps at a fixed
character count, so every box is a pure function of the document and the viewport, the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

from browser_toolset.driver_errors import DriverError
from browser_toolset.values import Point, Rect, Size

from .document import NAME_FROM_CONTENT, TEXT_ENTRY, LiveElement, _collapse, _describe, _Document

MARGIN = 16
ROW_HEIGHT = 32
GAP = 8
PAD = 8
INDENT = 16
CHAR_WIDTH = 8
LINE_HEIGHT = 20
FIELD_WIDTH = 320
TEXTAREA_HEIGHT = 80


@attrs.frozen
class _Layout:
    """Where every shown element sits, in page coordinates, and how big the page is."""

    boxes: Mapping[LiveElement, Rect]
    width: float
    height: float


def _rendered_text(element: LiveElement) -> str:
    """The text an element shows on the page itself (what `innerText` would hold for it alone)."""
    if element.spec.text:
        return _collapse(element.spec.text)
    return element.name if element.role in NAME_FROM_CONTENT else ""


def _label(element: LiveElement) -> str:
    """What a capture writes inside an element's box (which is also what sizes the box)."""
    role, name = element.role, element.name
    if element.spec.concealed and role in ("checkbox", "radio"):
        return name  # the page's own drawing of it: the label a person sees and clicks
    if role in ("checkbox", "switch", "menuitemcheckbox"):
        return f"[{'x' if element.checked else ' '}] {name}"
    if role in ("radio", "menuitemradio"):
        return f"({'o' if element.checked else ' '}) {name}"
    if element.options and role == "combobox":
        return f"{element.value} v"
    if element.spec.file_input:
        return f"{name}: {element.value or 'No file chosen'}"
    if role in TEXT_ENTRY:
        return element.spec.value or element.spec.placeholder or name
    return _rendered_text(element) or name


def _natural_size(element: LiveElement, width: float) -> tuple[float, float]:
    role = element.role
    if element.spec.multiline:
        return min(FIELD_WIDTH, width), TEXTAREA_HEIGHT
    if role in TEXT_ENTRY:
        return min(FIELD_WIDTH, width), ROW_HEIGHT
    label = _label(element)
    if role in ("paragraph", "text") or len(label) * CHAR_WIDTH + 24 > width:
        lines = max(1, math.ceil(len(label) / _chars_per_line(width)))
        return width, max(ROW_HEIGHT, lines * LINE_HEIGHT + 12)
    if role in NAME_FROM_CONTENT or element.spec.file_input:
        return min(width, max(64, len(label) * CHAR_WIDTH + 24)), ROW_HEIGHT
    return width, ROW_HEIGHT


def _chars_per_line(width: float) -> int:
    """Text wraps at a fixed character count (no word wrap), so a paragraph's height is known without laying
    out its words, and a capture can draw just the lines that are on screen."""
    return max(1, int((width - 12) // CHAR_WIDTH))


def _layout(root: LiveElement, viewport: Size) -> _Layout:
    """Explicit bounds where given; otherwise a vertical flow of 40 px rows, containers wrapping their children."""
    boxes: dict[LiveElement, Rect] = {}

    def flow(children: Sequence[LiveElement], x: float, y: float, width: float) -> float:
        for element in children:
            if not element.spec.visible:
                continue
            bounds = element.spec.bounds
            if bounds is not None:
                boxes[element] = bounds
                flow(element.children, bounds.x + PAD, bounds.y + PAD, bounds.width - 2 * PAD)
                continue
            shown = [child for child in element.children if child.spec.visible]
            if shown and element.role != "combobox":
                top = y
                inner = y + PAD + (ROW_HEIGHT + GAP if _rendered_text(element) else 0)
                end = flow(element.children, x + INDENT, inner, width - 2 * INDENT)
                boxes[element] = Rect(x, top, width, end - top)
                y = end + GAP
            else:
                w, h = _natural_size(element, width)
                boxes[element] = Rect(x, y, w, h)
                y += h + GAP
        return y

    flow(root.children, MARGIN, MARGIN, viewport.width - 2 * MARGIN)
    right = max((box.x + box.width for box in boxes.values()), default=0.0)
    bottom = max((box.y + box.height for box in boxes.values()), default=0.0)
    width, height = max(float(viewport.width), right + MARGIN), max(float(viewport.height), bottom + MARGIN)
    boxes[root] = Rect(0, 0, width, height)
    return _Layout(boxes, width, height)


# --- the viewport over the page -------------------------------------------------------------------------------------


def _hit(doc: _Document, viewport: Size, point: Point) -> LiveElement:
    """The topmost shown element under a viewport point: the last in document order whose box holds it."""
    boxes = _layout(doc.root, viewport).boxes
    x, y = point.x + doc.scroll_x, point.y + doc.scroll_y
    hit = doc.root
    for element in doc.root.walk():
        box = boxes.get(element)
        if box is not None and box.x <= x < box.x + box.width and box.y <= y < box.y + box.height:
            hit = element
    return hit


def _scroll_by(doc: _Document, viewport: Size, delta_x: float, delta_y: float) -> None:
    layout = _layout(doc.root, viewport)
    limit_x = max(0.0, layout.width - viewport.width)
    limit_y = max(0.0, layout.height - viewport.height)
    doc.scroll_x = min(max(doc.scroll_x + delta_x, 0.0), limit_x)
    doc.scroll_y = min(max(doc.scroll_y + delta_y, 0.0), limit_y)


def _scroll_into_view(doc: _Document, viewport: Size, element: LiveElement) -> Rect:
    """Scroll (if needed) so the element is in view, centred when it fits; return its viewport box."""
    layout = _layout(doc.root, viewport)
    box = layout.boxes.get(element)
    if box is None or box.width <= 0 or box.height <= 0:
        raise DriverError(f"element {element.key} ({_describe(element)}) is hidden, so it has no box on screen")

    def axis(start: float, size: float, scroll: float, view: float, page: float) -> float:
        if start >= scroll and start + size <= scroll + view:
            return scroll
        wanted = start + size / 2 - view / 2 if size <= view else start
        return min(max(wanted, 0.0), max(0.0, page - view))

    doc.scroll_x = axis(box.x, box.width, doc.scroll_x, viewport.width, layout.width)
    doc.scroll_y = axis(box.y, box.height, doc.scroll_y, viewport.height, layout.height)
    return Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
