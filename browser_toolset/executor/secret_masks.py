"""Painting over what holds a secret in a capture: an opaque box per element, before any image leaves the executor.

The boxes come from the driver just before the capture (`Driver.secret_boxes`), in viewport CSS pixels; a capture
may be at any device-pixel ratio and of a region (`Capture.clip`), so each box is mapped to the image's pixels first.
The box is padded, so antialiased glyph edges just outside an element's border box are covered too.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import attrs
from PIL import Image, ImageDraw

from ..values import Capture, Rect

__all__ = ["MASK_COLOUR", "MASK_PAD", "masked"]

MASK_COLOUR = (32, 32, 32)
MASK_PAD = 2
"""CSS pixels added on every side of a box."""


def masked(capture: Capture, boxes: Sequence[Rect]) -> Capture:
    """`capture` with every box in `boxes` painted over in `MASK_COLOUR`; the same capture when no box shows."""
    if not boxes:
        return capture
    image = Image.open(io.BytesIO(capture.png))
    image.load()
    shown = capture.clip or Rect(0, 0, capture.viewport.width, capture.viewport.height)
    scale = image.width / shown.width if shown.width else 1.0
    rgb = image.convert("RGB")
    draw = ImageDraw.Draw(rgb)
    painted = False
    for box in boxes:
        left = math.floor((box.x - MASK_PAD - shown.x) * scale)
        top = math.floor((box.y - MASK_PAD - shown.y) * scale)
        right = math.ceil((box.x + box.width + MASK_PAD - shown.x) * scale)
        bottom = math.ceil((box.y + box.height + MASK_PAD - shown.y) * scale)
        left, top = max(left, 0), max(top, 0)
        right, bottom = min(right, rgb.width), min(bottom, rgb.height)
        if right <= left or bottom <= top:
            continue
        draw.rectangle((left, top, right - 1, bottom - 1), fill=MASK_COLOUR)
        painted = True
    if not painted:
        return capture
    out = io.BytesIO()
    rgb.save(out, format="PNG")
    return attrs.evolve(capture, png=out.getvalue())
