"""`zoom` with real detail, on the mock driver and at the image level: the region is captured at the device-pixel
ratio its image needs (at most `MAX_ZOOM_SCALE`), the image is never enlarged beyond the pixels captured, it keeps
within the image limits, and the screenshot frame that coordinates map through is left alone.

The browsers' side (Chromium and Firefox rendering at the raised ratio, and putting it back) is in
`tests/browser/test_zoom_browsers.py`.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from PIL import Image, ImageChops

from browser_toolset import BrowserToolset, ImageLimits
from browser_toolset.driver import Driver
from browser_toolset.drivers.mock import MockDriver, Site, button, heading, paragraph
from browser_toolset.drivers.selenium.capture import ScaledCapture
from browser_toolset.drivers.selenium.connection import BidiError, BidiTimeout
from browser_toolset.executor.images import MAX_ZOOM_SCALE, frame_for, zoom_clip, zoom_image, zoom_region, zoom_scale
from browser_toolset.values import Capture, Point, Rect, Size
from tests.support.session import Session, error, images, ok


def site() -> Site:
    site = Site(base_url="https://zoom.test/")
    site.page(
        "/",
        "Zoom",
        heading("Small print", 1),
        paragraph("Terms and conditions apply to every order placed on this site."),
        button("Accept"),
    )
    site.start = "/"
    return site


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(site(), sleep=lambda seconds: None) as mock:
        yield mock


def make(driver: Driver, **options: Any) -> Session:
    return Session(BrowserToolset(driver, sleep=lambda seconds: None, **options))


def decoded(result: Mapping[str, Any]) -> Image.Image:
    (block,) = images(result)
    return Image.open(io.BytesIO(base64.b64decode(block["source"]["data"]))).convert("RGB")


def png(capture: Capture) -> Image.Image:
    return Image.open(io.BytesIO(capture.png)).convert("RGB")


def region_around(box: Rect) -> list[int]:
    return [int(box.x), int(box.y), int(box.x + box.width) + 1, int(box.y + box.height) + 1]


# --- choosing the scale -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height", "scale"),
    [
        (20, 10, MAX_ZOOM_SCALE),  # a tiny region: capped, its image is small rather than enlarged
        (320, 200, 4),  # the limits allow 4.24x; capped at 4
        (400, 200, 4),  # 3.79x allowed: captured at 4, brought down a little
        (640, 360, 2.25),  # 2.23x allowed
        (1000, 600, 1.5),  # 1.38x allowed
        (1280, 800, 1.25),  # 1.06x allowed
        (1600, 1000, 1),  # 0.85x: the region is already larger than its image may be
    ],
)
def test_the_scale_is_the_least_quarter_ratio_that_fills_the_limits(width: int, height: int, scale: float) -> None:
    assert zoom_scale(Rect(0, 0, width, height), ImageLimits()) == scale


def test_the_clip_is_the_region_widened_to_whole_css_pixels_inside_the_viewport() -> None:
    viewport = Size(2560, 1440)
    frame = frame_for(viewport, ImageLimits())  # 1429x804: one image pixel is about 1.79 CSS pixels
    css = zoom_region(frame, (1000, 700, 1429, 804))
    clip = zoom_clip(css, viewport)
    assert clip.x <= css.x and clip.y <= css.y
    assert clip.x + clip.width >= css.x + css.width and clip.y + clip.height >= css.y + css.height
    assert clip.within(viewport) and all(float(v).is_integer() for v in (clip.x, clip.y, clip.width, clip.height))


# --- the mock paints at the scale -----------------------------------------------------------------------------------


def test_the_mock_paints_more_detail_at_a_higher_scale(driver: MockDriver) -> None:
    box = driver.page().box("Small print")
    assert box is not None
    clip = Rect(int(box.x), int(box.y), int(box.width), int(box.height))
    one = png(driver.capture_region("mock-1", clip, 1))
    three = png(driver.capture_region("mock-1", clip, 3))
    assert three.size == (3 * one.width, 3 * one.height)
    # the 1x capture is the same region as the whole-viewport capture shows
    whole = png(driver.capture("mock-1")).crop((clip.x, clip.y, clip.x + clip.width, clip.y + clip.height))
    assert ImageChops.difference(whole, one).getbbox() is None
    # at 3x the text is drawn with three times the pixels, not enlarged: it differs from the 1x capture blown up
    enlarged = one.resize(three.size, Image.Resampling.NEAREST)
    changed = sum(1 for value in ImageChops.difference(enlarged, three).convert("L").tobytes() if value > 64)
    assert changed > 0.01 * three.width * three.height
    # and it carries more distinct shades of its text's anti-aliasing than a pixel-replicated copy could
    assert len(three.getcolors(1 << 20) or []) > len(one.getcolors(1 << 20) or [])


def test_the_mock_refuses_a_clip_outside_the_viewport(driver: MockDriver) -> None:
    with pytest.raises(Exception, match="not inside the 1280x800 viewport"):
        driver.capture_region("mock-1", Rect(1200, 0, 100, 10), 2)


# --- the executor's zoom ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("region", "scale", "size"),
    [
        ([0, 0, 320, 200], 4, (1280, 800)),  # 4x captured, and no more than that shown
        ([0, 0, 640, 360], 2.25, (1429, 804)),  # 2.25x captured, brought down to the limits
        ([10, 10, 30, 20], 4, (80, 40)),  # tiny: the pixels captured, not an enlargement of them
        ([0, 0, 1280, 800], 1.25, (1356, 847)),
    ],
)
def test_zoom_captures_the_region_at_the_scale_its_image_needs(
    driver: MockDriver, region: list[int], scale: float, size: tuple[int, int]
) -> None:
    session = make(driver)
    image = decoded(ok(session.call("zoom", region=region)))
    (call,) = driver.calls_to("capture_region")
    x0, y0, x1, y1 = region
    assert call.kwargs["clip"] == Rect(x0, y0, x1 - x0, y1 - y0) and call.kwargs["scale"] == scale
    assert image.size == size
    assert max(image.size) <= 1568 and image.width * image.height <= 1_150_000


def test_zoom_keeps_within_smaller_limits(driver: MockDriver) -> None:
    limits = ImageLimits(max_long_edge=800, max_pixels=200_000)
    # screenshots are 565x353 under these limits: the region is about 226x113 CSS pixels, which they allow at 2.79x
    image = decoded(ok(make(driver, image_limits=limits).call("zoom", region=[50, 50, 150, 100])))
    assert max(image.size) <= 800 and image.width * image.height <= 200_000
    assert image.width / image.height == pytest.approx(2.0, rel=0.02)
    assert driver.calls_to("capture_region")[-1].kwargs["scale"] == 3


def test_zoom_shows_what_the_screenshot_shows_there(driver: MockDriver) -> None:
    box = driver.page().box("Accept")
    assert box is not None
    region = region_around(box)
    zoomed = decoded(ok(make(driver).call("zoom", region=region)))
    shot = png(driver.capture("mock-1")).crop(tuple(region))  # type: ignore[arg-type]
    # brought down to the screenshot's scale, the zoom is the screenshot's crop give or take anti-aliasing
    down = zoomed.resize(shot.size, Image.Resampling.BOX)
    mean = sum(ImageChops.difference(down, shot).convert("L").tobytes()) / (shot.width * shot.height)
    assert mean < 12


def test_zoom_leaves_the_screenshot_frame_and_clicks_alone(driver: MockDriver) -> None:
    session = make(driver)
    box = driver.page().box("Accept")
    assert box is not None
    ok(session.call("zoom", region=region_around(box)))
    assert decoded(ok(session.call("screenshot"))).size == (1280, 800)
    x, y = int(box.center.x), int(box.center.y)
    ok(session.call("left_click", target={"type": "coordinate", "x": x, "y": y}))
    assert driver.calls_to("click")[-1].kwargs["point"] == Point(x + 0.5, y + 0.5)


def test_a_zoom_region_is_checked_before_anything_is_captured(driver: MockDriver) -> None:
    assert error(make(driver).call("zoom", region=[0, 0, 1281, 10])).startswith("Error: region")
    assert not driver.calls_to("capture", "capture_region")


class WholeViewportOnly(MockDriver):
    """A driver that keeps the protocol's default `capture_region`: the whole viewport at its usual resolution."""

    def capture_region(self, handle: str, clip: Rect, scale: float) -> Capture:
        return Driver.capture_region(self, handle, clip, scale)


def test_a_driver_that_cannot_scale_gets_its_pixels_cropped_never_enlarged() -> None:
    with WholeViewportOnly(site(), sleep=lambda seconds: None) as driver:
        image = decoded(ok(make(driver).call("zoom", region=[100, 50, 420, 250])))
        assert image.size == (320, 200)
        whole = png(driver.capture("mock-1")).crop((100, 50, 420, 250))
        assert ImageChops.difference(image, whole).getbbox() is None


def test_a_capture_at_a_higher_device_pixel_ratio_is_used_at_its_resolution() -> None:
    # a driver whose plain capture is at ratio 2 (a HiDPI screen): the zoom crops 2x pixels and shows them all
    viewport = Size(1280, 800)
    image = Image.new("RGB", (2560, 1600), "white")
    image.paste((255, 0, 0), (0, 0, 1280, 1600))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    limits = ImageLimits()
    frame = frame_for(viewport, limits)
    result = zoom_image(Capture(buffer.getvalue(), viewport), frame, limits, (600, 0, 700, 50))
    zoomed = Image.open(io.BytesIO(base64.b64decode(result.data))).convert("RGB")
    assert zoomed.size == (200, 100)
    # CSS x 600-640 is red: 40 CSS pixels, 80 image pixels
    assert zoomed.getpixel((79, 50)) == (255, 0, 0) and zoomed.getpixel((81, 50)) == (255, 255, 255)


def test_zoom_crops_the_exact_region_from_a_clip_wider_than_it() -> None:
    # a 2560-wide viewport: the region's CSS edges fall between pixels, the clip is widened, the crop is exact
    viewport = Size(2560, 1440)
    limits = ImageLimits()
    frame = frame_for(viewport, limits)
    region = (100, 100, 300, 200)
    css = zoom_region(frame, region)
    clip = zoom_clip(css, viewport)
    scale = zoom_scale(css, limits)
    captured = Image.new("RGB", (int(clip.width * scale), int(clip.height * scale)), "white")
    result = zoom_image(Capture(_png(captured), viewport, clip), frame, limits, region)
    zoomed = Image.open(io.BytesIO(base64.b64decode(result.data)))
    assert zoomed.width / zoomed.height == pytest.approx(css.width / css.height, rel=0.01)
    assert zoomed.width <= css.width * scale and max(zoomed.size) <= 1568


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# --- the Selenium driver's fallback, without a browser ----------------------------------------------------------------


class FakeContexts:
    """Answers the commands a scaled capture sends and records them (with the fire-and-forget ones, `send`, as
    `queued`): `refuse_ratio` is the error code a browser without device-pixel ratios answers a raised one with,
    `screenshot_fails` the error the screenshot itself fails with."""

    def __init__(self, *, refuse_ratio: str | None = None, screenshot_fails: BidiError | None = None) -> None:
        self.refuse_ratio = refuse_ratio
        self.screenshot_fails = screenshot_fails
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.queued: list[tuple[str, dict[str, Any]]] = []

    def command(self, handle: str, method: str, params: Mapping[str, Any], *, timeout: float | None = None) -> Any:
        self.sent.append((method, dict(params)))
        raised = method == "browsingContext.setViewport" and params.get("devicePixelRatio") != 1
        if raised and self.refuse_ratio is not None:
            raise BidiError(method, self.refuse_ratio, "devicePixelRatio is not supported")
        if method == "browsingContext.captureScreenshot":
            if self.screenshot_fails is not None:
                raise self.screenshot_fails
            return {"data": base64.b64encode(b"png").decode()}
        return {}

    def send(self, method: str, params: Mapping[str, Any]) -> None:
        self.queued.append((method, dict(params)))


def _viewport_params(handle: str) -> dict[str, Any]:
    return {"context": handle, "viewport": {"width": 1280, "height": 800}, "devicePixelRatio": 1}


def scaled_capture(fake: FakeContexts) -> ScaledCapture:
    return ScaledCapture(fake, fake, _viewport_params, 10.0)  # type: ignore[arg-type]


def test_a_browser_without_device_pixel_ratios_is_captured_at_its_own_once_and_for_all() -> None:
    fake = FakeContexts(refuse_ratio="unsupported operation")
    scaled = scaled_capture(fake)
    assert scaled.capture("ctx", Rect(0, 0, 10, 10), 3) == b"png"
    assert not scaled.supported
    assert [method for method, _ in fake.sent] == ["browsingContext.setViewport", "browsingContext.captureScreenshot"]
    fake.sent.clear()
    scaled.capture("ctx", Rect(0, 0, 10, 10), 3)
    assert [method for method, _ in fake.sent] == ["browsingContext.captureScreenshot"]


def test_a_scaled_capture_raises_the_ratio_for_the_capture_only() -> None:
    fake = FakeContexts()
    assert scaled_capture(fake).capture("ctx", Rect(5, 6, 10, 20), 2.5) == b"png"
    box = {"type": "box", "x": 5, "y": 6, "width": 10, "height": 20}
    assert fake.sent == [
        ("browsingContext.setViewport", {**_viewport_params("ctx"), "devicePixelRatio": 2.5}),
        ("browsingContext.captureScreenshot", {"context": "ctx", "origin": "viewport", "clip": box}),
        ("browsingContext.setViewport", _viewport_params("ctx")),
    ]


def test_a_failed_scaled_capture_still_restores_the_viewport() -> None:
    fake = FakeContexts(screenshot_fails=BidiError("browsingContext.captureScreenshot", "unknown error", "gone away"))
    scaled = scaled_capture(fake)
    with pytest.raises(BidiError, match="gone away"):
        scaled.capture("ctx", Rect(0, 0, 10, 10), 2)
    assert fake.sent[-1] == ("browsingContext.setViewport", _viewport_params("ctx"))
    assert scaled.supported and not fake.queued


def test_a_tab_that_stops_answering_gets_its_restore_queued_not_waited_for() -> None:
    fake = FakeContexts(screenshot_fails=BidiTimeout("browsingContext.captureScreenshot", 10.0))
    with pytest.raises(BidiTimeout):
        scaled_capture(fake).capture("ctx", Rect(0, 0, 10, 10), 2)
    assert [method for method, _ in fake.sent] == ["browsingContext.setViewport", "browsingContext.captureScreenshot"]
    assert fake.queued == [("browsingContext.setViewport", _viewport_params("ctx"))]
