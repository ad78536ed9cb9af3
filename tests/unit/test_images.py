"""Screenshot limits and the exact image-pixel <-> CSS-pixel mapping, at the viewports the issue names."""

from __future__ import annotations

import base64
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from browser_toolset.executor.errors import ActionError
from browser_toolset.executor.images import ImageLimits, frame_for, screenshot_image, zoom_image
from browser_toolset.values import Capture, Size

VIEWPORTS = [Size(1280, 800), Size(1920, 1080), Size(2560, 1440), Size(800, 1280)]


def _png(width: int, height: int, colour: tuple[int, int, int] = (255, 255, 255)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def _decoded(data: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data)))


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_frames_fit_the_default_limits(viewport: Size) -> None:
    limits = ImageLimits()
    frame = frame_for(viewport, limits)
    assert frame.image.width <= 1568 and frame.image.height <= 1568
    assert frame.image.width * frame.image.height <= 1_150_000
    # aspect ratio kept to within a pixel of rounding
    assert abs(frame.image.width / frame.image.height - viewport.width / viewport.height) < 0.01
    if viewport.width * viewport.height <= 1_150_000 and max(viewport.width, viewport.height) <= 1568:
        assert frame.image == viewport  # never enlarged, never needlessly shrunk


def test_known_frame_sizes() -> None:
    limits = ImageLimits()
    assert frame_for(Size(1280, 800), limits).image == Size(1280, 800)
    assert frame_for(Size(2560, 1440), limits).image == Size(1429, 804)
    assert frame_for(Size(1920, 1080), limits).image == Size(1429, 804)
    assert frame_for(Size(800, 1280), limits).image == Size(800, 1280)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_image_pixel_maps_into_the_css_pixel_it_shows(viewport: Size) -> None:
    frame = frame_for(viewport, ImageLimits())
    for x in [0, 1, frame.image.width // 3, frame.image.width - 1]:
        for y in [0, 1, frame.image.height // 2, frame.image.height - 1]:
            point = frame.to_css(x, y)
            # the CSS point lies inside the strip of CSS pixels that image pixel x covers
            assert x * frame.scale_x <= point.x < (x + 1) * frame.scale_x
            assert y * frame.scale_y <= point.y < (y + 1) * frame.scale_y
            assert 0 <= point.x < viewport.width and 0 <= point.y < viewport.height
            assert frame.to_image(point) == (x, y)


@given(
    width=st.integers(200, 4000),
    height=st.integers(200, 4000),
    fx=st.floats(0, 0.999),
    fy=st.floats(0, 0.999),
)
def test_round_trip_for_any_viewport(width: int, height: int, fx: float, fy: float) -> None:
    frame = frame_for(Size(width, height), ImageLimits())
    assert max(frame.image.width, frame.image.height) <= 2000
    x, y = int(fx * frame.image.width), int(fy * frame.image.height)
    assert frame.to_image(frame.to_css(x, y)) == (x, y)


def test_coordinates_outside_the_image_name_the_valid_range() -> None:
    frame = frame_for(Size(2560, 1440), ImageLimits())
    frame.check(1428, 803)
    with pytest.raises(ActionError) as caught:
        frame.check(1429, 10)
    assert "x must be 0-1428 and y 0-803" in str(caught.value)
    with pytest.raises(ActionError):
        frame.check(-1, 0)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_screenshots_are_resized_to_the_frame_at_any_device_pixel_ratio(viewport: Size) -> None:
    limits = ImageLimits()
    frame = frame_for(viewport, limits)
    for ratio in (1, 2):
        capture = Capture(png=_png(viewport.width * ratio, viewport.height * ratio), viewport=viewport)
        result = screenshot_image(capture, frame, limits)
        assert result.media_type == "image/png"
        assert _decoded(result.data).size == (frame.image.width, frame.image.height)


@pytest.mark.parametrize(("fmt", "media"), [("jpeg", "image/jpeg"), ("webp", "image/webp")])
def test_other_formats(fmt: str, media: str) -> None:
    limits = ImageLimits(format=fmt, quality=60)  # type: ignore[arg-type]
    frame = frame_for(Size(1280, 800), limits)
    result = screenshot_image(Capture(png=_png(1280, 800), viewport=Size(1280, 800)), frame, limits)
    assert result.media_type == media
    assert _decoded(result.data).format == fmt.upper()


def test_zoom_crops_the_region_and_enlarges_it_keeping_the_aspect_ratio() -> None:
    limits = ImageLimits()
    viewport = Size(2560, 1440)
    # a capture whose right half is red: a region inside it must come back all red
    image = Image.new("RGB", (2560, 1440), (255, 255, 255))
    image.paste((255, 0, 0), (1280, 0, 2560, 1440))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    frame = frame_for(viewport, limits)
    region = (800, 100, 1000, 200)  # image pixels: x 800 -> CSS ~1433, inside the red half
    result = _decoded(zoom_image(Capture(buffer.getvalue(), viewport), frame, limits, region).data)
    assert result.width / result.height == pytest.approx(2.0, rel=0.01)
    assert max(result.size) <= 1568 and result.width * result.height <= 1_150_000
    assert result.width > 200  # enlarged
    assert result.convert("RGB").getpixel((result.width // 2, result.height // 2)) == (255, 0, 0)


def test_limits_validate_their_settings() -> None:
    with pytest.raises(ValueError):
        ImageLimits(max_edge=2500)
    with pytest.raises(ValueError):
        ImageLimits(quality=0)
    with pytest.raises(ValueError):
        ImageLimits(format="gif")  # type: ignore[arg-type]
    small = ImageLimits(max_long_edge=800, max_pixels=400_000)
    frame = frame_for(Size(1280, 800), small)
    assert frame.image.width <= 800 and frame.image.width * frame.image.height <= 400_000
