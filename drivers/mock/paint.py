"""Captures: a real PNG of the viewport (drawn with Pillow), boxes where the layout puts elements and their labels
inside, so a test (or a person looking at a failing one) can see what Claude would see."""

from __future__ import annotations

import functools
import io
import math

import attrs
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
def _font(size: float = 14) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (OSError, ValueError):  # a Pillow without FreeType has only its bitmap font, which does not scale
        return ImageFont.load_default()


@attrs.frozen
class _Pen:
    """Viewport CSS pixels -> pixels of the image being drawn: the region `origin` shows, at `scale` image pixels
    per CSS pixel. Everything is drawn at the scale (outlines, text), so a capture at scale 3 has three times the
    detail of one at scale 1, as a browser rendering at that device-pixel ratio would."""

    origin_x: float = 0.0
    origin_y: float = 0.0
    scale: float = 1.0

    def x(self, css: float) -> float:
        return (css - self.origin_x) * self.scale

    def y(self, css: float) -> float:
        return (css - self.origin_y) * self.scale

    def width(self, css: float) -> int:
        return max(1, round(css * self.scale))


def _render(doc: _Document, layout: _Layout, viewport: Size, clip: Rect | None = None, scale: float = 1.0) -> bytes:
    """The viewport, or its `clip` (viewport CSS pixels), drawn at `scale` image pixels per CSS pixel."""
    shown = clip or Rect(0, 0, viewport.width, viewport.height)
    pen = _Pen(shown.x, shown.y, scale)
    size = (max(1, round(shown.width * scale)), max(1, round(shown.height * scale)))
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for element in doc.root.walk():
        box = layout.boxes.get(element)
        if element is doc.root or box is None:
            continue
        rect = Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
        if rect.intersects(viewport):
            _draw(draw, pen, element, rect, viewport, focused=element is doc.focused)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _draw(
    draw: ImageDraw.ImageDraw, pen: _Pen, element: LiveElement, rect: Rect, viewport: Size, *, focused: bool
) -> None:
    x0, y0 = rect.x, rect.y
    container = element.role != "combobox" and any(child.spec.visible for child in element.children)
    if element.role != "text":
        outline = _FOCUS_BLUE if focused else (_FAINT if container else _INK)
        fill = _BUTTON_FILL if element.role == "button" else None
        # the box covers its CSS pixels: the last image pixel drawn is one before the box's far edge
        corners = (
            pen.x(x0),
            pen.y(y0),
            max(pen.x(x0), pen.x(x0 + rect.width) - 1),
            max(pen.y(y0), pen.y(y0 + rect.height) - 1),
        )
        draw.rectangle(corners, fill=fill, outline=outline, width=pen.width(2 if focused else 1))
    label = _rendered_text(element) if container else _label(element)
    if not label:
        return
    colour = _LINK_BLUE if element.role == "link" else _BLACK
    if element.role in TEXT_ENTRY and not element.spec.value:
        colour = _GREY_TEXT
    font = _font(14 * pen.scale)
    wraps = element.role in ("paragraph", "text") or len(label) * CHAR_WIDTH + 24 > rect.width
    if not wraps:
        top = y0 + 6 if container else y0 + (rect.height - LINE_HEIGHT) / 2 + 2
        draw.text((pen.x(x0 + 6), pen.y(top)), label[: 4 * viewport.width // CHAR_WIDTH], fill=colour, font=font)
        return
    per_line = _chars_per_line(rect.width)
    first = max(0, int(-(y0 + 6) // LINE_HEIGHT))
    last = min(math.ceil(len(label) / per_line), first + viewport.height // LINE_HEIGHT + 2)
    for number in range(first, last):
        line = label[number * per_line : (number + 1) * per_line]
        draw.text((pen.x(x0 + 6), pen.y(y0 + 6 + number * LINE_HEIGHT)), line, fill=colour, font=font)
