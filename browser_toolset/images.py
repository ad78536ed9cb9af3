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

from .errors import ActionError
from .values import Capture, Point, Size

__all__ = ["Frame", "ImageLimits", "encode_image", "frame_for", "screenshot_image", "zoom_image"]

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


def zoom_image(
    capture: Capture, frame: Frame, limits: ImageLimits, region: tuple[int, int, int, int]
) -> BetaScreenshotResult:
    """The region (in the frame's image pixels, end-exclusive) cropped from the capture at its full resolution and
    enlarged to the limits with its aspect ratio kept."""
    x0, y0, x1, y1 = region
    image = _open(capture)
    # image pixels -> CSS pixels -> capture pixels (the capture may be at a device-pixel-ratio above 1)
    per_css_x = image.width / capture.viewport.width
    per_css_y = image.height / capture.viewport.height
    box = (
        round(x0 * frame.scale_x * per_css_x),
        round(y0 * frame.scale_y * per_css_y),
        round(x1 * frame.scale_x * per_css_x),
        round(y1 * frame.scale_y * per_css_y),
    )
    box = (box[0], box[1], max(box[2], box[0] + 1), max(box[3], box[1] + 1))
    cropped = image.crop(box)
    css_width = (x1 - x0) * frame.scale_x
    css_height = (y1 - y0) * frame.scale_y
    return encode_image(_resized(cropped, limits.fit(css_width, css_height, enlarge=True)), limits)
