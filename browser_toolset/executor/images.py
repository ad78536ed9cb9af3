"""Screenshots that fit Claude's image limits, and the exact mapping between their pixels and the viewport's.

The API does not downscale toolset images: one over the limit fails the request. So every image leaves here
already fitted, and every coordinate Claude sends comes back through the same `Frame`, which knows the one
consistent image size Claude sees for a viewport. The frame depends only on the viewport's CSS size and the
limits, never on the capture's device resolution, so a coordinate can be mapped before any screenshot is taken.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Literal

import attrs
from anthropic.tools.browser import BetaScreenshotResult
from PIL import Image

from ..values import Capture, Point, Rect, Size
from .errors import ActionError

__all__ = [
    "MAX_ZOOM_SCALE",
    "ZOOM_SCALE_STEP",
    "Frame",
    "ImageLimits",
    "encode_image",
    "frame_for",
    "screenshot_image",
    "zoom_clip",
    "zoom_image",
    "zoom_region",
    "zoom_scale",
]

ImageFormat = Literal["png", "jpeg", "webp"]

MEDIA_TYPES: dict[str, Literal["image/png", "image/jpeg", "image/webp"]] = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
}

HARD_EDGE_MAX = 2000
"""The per-image limit once a request carries more than 20 images: images are kept within it always, so a long
session never crosses into rejection."""


def _check_limits(instance: ImageLimits, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be positive, not {value}")


@attrs.frozen
class ImageLimits:
    """How large an image Claude may be sent. The defaults are the published sweet spot (long edge 1568 px, about
    1.15 megapixels): beyond them an image costs latency without adding detail. `max_edge` is a hard cap on both
    edges and may not exceed 2000."""

    max_long_edge: int = attrs.field(default=1568, validator=_check_limits)
    max_pixels: int = attrs.field(default=1_150_000, validator=_check_limits)
    max_edge: int = attrs.field(default=HARD_EDGE_MAX, validator=_check_limits)
    format: ImageFormat = attrs.field(default="png", validator=attrs.validators.in_(tuple(MEDIA_TYPES)))
    quality: int = attrs.field(default=85, validator=[attrs.validators.ge(1), attrs.validators.le(100)])

    def __attrs_post_init__(self) -> None:
        if self.max_edge > HARD_EDGE_MAX:
            raise ValueError(f"max_edge may not exceed {HARD_EDGE_MAX} px (the API's per-image limit)")

    def fit(self, width: float, height: float, *, enlarge: bool = False) -> Size:
        """The largest size with the aspect ratio of `width`×`height` that fits every limit. Without `enlarge`, a
        size already within the limits is kept as it is."""
        scale = min(
            self.max_long_edge / max(width, height),
            self.max_edge / max(width, height),
            math.sqrt(self.max_pixels / (width * height)),
        )
        if not enlarge:
            scale = min(scale, 1.0)
        # flooring both edges keeps them, and so their product, within the scaled limits
        return Size(max(1, math.floor(width * scale)), max(1, math.floor(height * scale)))


@attrs.frozen
class Frame:
    """The pixel space Claude sees for one viewport: `image` is the screenshot size, `viewport` the CSS size it
    shows. Separate x and y factors keep the mapping exact after each edge is rounded."""

    viewport: Size
    image: Size

    @property
    def scale_x(self) -> float:
        return self.viewport.width / self.image.width

    @property
    def scale_y(self) -> float:
        return self.viewport.height / self.image.height

    def check(self, x: int, y: int, what: str = "Coordinate") -> None:
        """Refuse a point outside the screenshot, naming the valid range."""
        if not (0 <= x < self.image.width and 0 <= y < self.image.height):
            raise ActionError(
                f"{what} ({x}, {y}) is outside the viewport. Screenshots of this tab are "
                f"{self.image.width}x{self.image.height} pixels: x must be 0-{self.image.width - 1} and "
                f"y 0-{self.image.height - 1}."
            )

    def to_css(self, x: int, y: int) -> Point:
        """The CSS point shown at the centre of image pixel (x, y)."""
        return Point((x + 0.5) * self.scale_x, (y + 0.5) * self.scale_y)

    def to_image(self, point: Point) -> tuple[int, int]:
        """The image pixel that shows CSS point `point` (for reporting positions back to Claude)."""
        return (
            min(self.image.width - 1, max(0, math.floor(point.x / self.scale_x))),
            min(self.image.height - 1, max(0, math.floor(point.y / self.scale_y))),
        )


def frame_for(viewport: Size, limits: ImageLimits) -> Frame:
    return Frame(viewport=viewport, image=limits.fit(viewport.width, viewport.height))


def _open(capture: Capture, *, decode: bool = True) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(capture.png))
        if decode:
            image.load()
    except Exception as exc:  # a driver handing us something that is not an image is reported, not crashed on
        raise ActionError(f"The browser returned an unreadable screenshot ({type(exc).__name__}).") from exc
    return image


def encode_image(image: Image.Image, limits: ImageLimits) -> BetaScreenshotResult:
    buffer = io.BytesIO()
    if limits.format == "png":
        image.save(buffer, format="PNG", optimize=False, compress_level=6)
    else:
        rgb = image.convert("RGB")
        rgb.save(buffer, format=limits.format.upper(), quality=limits.quality)
    return BetaScreenshotResult(
        data=base64.b64encode(buffer.getvalue()).decode("ascii"), media_type=MEDIA_TYPES[limits.format]
    )


def _resized(image: Image.Image, size: Size) -> Image.Image:
    if image.size == (size.width, size.height):
        return image
    return image.resize((size.width, size.height), Image.Resampling.LANCZOS)


def screenshot_image(capture: Capture, frame: Frame, limits: ImageLimits) -> BetaScreenshotResult:
    """The capture resized to the frame's image size (whatever resolution the browser captured at). A PNG capture
    that already has that size is passed through untouched: decoding and re-encoding it would cost more than the
    capture itself."""
    image = _open(capture, decode=False)  # reads the header only
    if limits.format == "png" and image.format == "PNG" and image.size == (frame.image.width, frame.image.height):
        return BetaScreenshotResult(data=base64.b64encode(capture.png).decode("ascii"), media_type="image/png")
    return encode_image(_resized(_open(capture), frame.image), limits)


MAX_ZOOM_SCALE = 4.0
"""The highest device-pixel ratio a zoom asks the browser to render at. Past it a region is small enough that its
image is small too: Claude gets the pixels the page has at 4x, never an enlargement of them."""

ZOOM_SCALE_STEP = 0.25
"""Zoom ratios are whole quarters (1.25, 2.5, ...)."""


def zoom_region(frame: Frame, region: tuple[int, int, int, int]) -> Rect:
    """The region (in the frame's image pixels, end-exclusive) as the exact viewport CSS rectangle it shows."""
    x0, y0, x1, y1 = region
    return Rect(x0 * frame.scale_x, y0 * frame.scale_y, (x1 - x0) * frame.scale_x, (y1 - y0) * frame.scale_y)


def zoom_clip(css: Rect, viewport: Size) -> Rect:
    """`css` widened to whole CSS pixels and kept inside the viewport: what a driver is asked to capture (browsers
    clip on whole pixels). The exact region is cropped from it afterwards."""
    x0 = min(max(0, math.floor(css.x)), viewport.width - 1)
    y0 = min(max(0, math.floor(css.y)), viewport.height - 1)
    x1 = max(min(viewport.width, math.ceil(css.x + css.width)), x0 + 1)
    y1 = max(min(viewport.height, math.ceil(css.y + css.height)), y0 + 1)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def zoom_scale(css: Rect, limits: ImageLimits) -> float:
    """The device-pixel ratio to capture `css` at: enough to fill the largest image the limits allow for the region,
    rounded up to a quarter (ratios browsers commonly render at, exact in binary arithmetic), at most
    `MAX_ZOOM_SCALE`, at least 1. The quarter step overshoots by less than a quarter; the image is brought down to
    the limits, which costs a resampling, never detail."""
    target = limits.fit(css.width, css.height, enlarge=True)
    needed = max(target.width / css.width, target.height / css.height)
    # the tolerance absorbs float error in a ratio that is a whole number of steps in exact arithmetic
    steps = math.ceil(needed / ZOOM_SCALE_STEP - 1e-6)
    return max(1.0, min(MAX_ZOOM_SCALE, steps * ZOOM_SCALE_STEP))


def zoom_image(
    capture: Capture, frame: Frame, limits: ImageLimits, region: tuple[int, int, int, int]
) -> BetaScreenshotResult:
    """The region (in the frame's image pixels, end-exclusive) cropped from the capture, which shows the whole
    viewport or its `clip`, at the capture's full resolution. The image is as large as the limits allow but never
    larger than the pixels captured for the region: enlarging a capture adds image tokens, not detail."""
    css = zoom_region(frame, region)
    image = _open(capture)
    shown = capture.clip or Rect(0, 0, capture.viewport.width, capture.viewport.height)
    # CSS pixels -> capture pixels (the capture may be at a device-pixel ratio above 1)
    per_css_x = image.width / shown.width
    per_css_y = image.height / shown.height
    left = min(max(0, round((css.x - shown.x) * per_css_x)), image.width - 1)
    top = min(max(0, round((css.y - shown.y) * per_css_y)), image.height - 1)
    right = min(max(left + 1, round((css.x + css.width - shown.x) * per_css_x)), image.width)
    bottom = min(max(top + 1, round((css.y + css.height - shown.y) * per_css_y)), image.height)
    cropped = image.crop((left, top, right, bottom))
    detail = min(per_css_x, per_css_y)
    # fitting the captured size without `enlarge` keeps the region's aspect ratio and never upscales
    return encode_image(_resized(cropped, limits.fit(css.width * detail, css.height * detail)), limits)
