"""Captures: a real PNG of the viewport (drawn with Pillow), boxes where the layout puts elements and their labels
inside, so a test (or a person looking at a failing one) can see what Claude would see."""

from __future__ import annotations

import functools
import io
import math

from PIL import Image, ImageDraw, ImageFont

from browser_toolset.values import Rect, Size

from .document import TEXT_ENTRY, LiveElement, _Document
from .layout import CHAR_WIDTH, LINE_HEIGHT, _chars_per_line, _label, _Layout, _rendered_text

_BLACK = (0, 0, 0)
_INK = (60, 60, 60)
_FAINT = (200, 200, 200)
_GREY_TEXT = (117, 117, 117)
_LINK_BLUE = (0, 0, 238)
_FOCUS_BLUE = (0, 95, 204)
_BUTTON_FILL = (233, 233, 237)


@functools.cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=14)
    except (OSError, ValueError):  # a Pillow without FreeType has only its bitmap font
        return ImageFont.load_default()


def _render(doc: _Document, layout: _Layout, viewport: Size) -> bytes:
    image = Image.new("RGB", (viewport.width, viewport.height), "white")
    draw = ImageDraw.Draw(image)
    for element in doc.root.walk():
        box = layout.boxes.get(element)
        if element is doc.root or box is None:
            continue
        rect = Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
        if rect.intersects(viewport):
            _draw(draw, element, rect, viewport, focused=element is doc.focused)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _draw(draw: ImageDraw.ImageDraw, element: LiveElement, rect: Rect, viewport: Size, *, focused: bool) -> None:
    x0, y0 = rect.x, rect.y
    x1, y1 = rect.x + max(rect.width - 1, 0), rect.y + max(rect.height - 1, 0)
    container = element.role != "combobox" and any(child.spec.visible for child in element.children)
    if element.role != "text":
        outline = _FOCUS_BLUE if focused else (_FAINT if container else _INK)
        fill = _BUTTON_FILL if element.role == "button" else None
        draw.rectangle((x0, y0, x1, y1), fill=fill, outline=outline, width=2 if focused else 1)
    label = _rendered_text(element) if container else _label(element)
    if not label:
        return
    colour = _LINK_BLUE if element.role == "link" else _BLACK
    if element.role in TEXT_ENTRY and not element.spec.value:
        colour = _GREY_TEXT
    wraps = element.role in ("paragraph", "text") or len(label) * CHAR_WIDTH + 24 > rect.width
    if not wraps:
        top = y0 + 6 if container else y0 + (rect.height - LINE_HEIGHT) / 2 + 2
        draw.text((x0 + 6, top), label[: 4 * viewport.width // CHAR_WIDTH], fill=colour, font=_font())
        return
    per_line = _chars_per_line(rect.width)
    first = max(0, int(-(y0 + 6) // LINE_HEIGHT))
    last = min(math.ceil(len(label) / per_line), first + viewport.height // LINE_HEIGHT + 2)
    for number in range(first, last):
        line = label[number * per_line : (number + 1) * per_line]
        draw.text((x0 + 6, y0 + 6 + number * LINE_HEIGHT), line, fill=colour, font=_font())
