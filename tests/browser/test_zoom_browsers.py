"""`zoom` with real detail on headless Chromium and Firefox: the Selenium driver renders the region at a raised
device-pixel ratio (`browsingContext.setViewport` with `devicePixelRatio`, then a clipped `captureScreenshot`), so a
pattern finer than a CSS pixel that a 1x capture blends into grey comes out as distinct stripes; and the tab is put
back exactly as it was (viewport size, ratio 1, scroll position), on failure too.

`tests/pages/zoom_stripes.html` draws 0.5 CSS px black stripes every CSS pixel at CSS (100, 100)-(300, 200). On
the session's shared browsers (`driver`, tests/browser/conftest.py): what a zoom changes, it must put back.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping
from typing import Any

import pytest
from PIL import Image

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.driver_errors import DriverError
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.drivers.selenium.connection import BidiError
from browser_toolset.values import Rect
from tests.support.browsers import js
from tests.support.server import PageServer
from tests.support.session import Session, error, images, ok

STRIPES = Rect(100, 100, 200, 100)
"""Where the stripes are, in viewport CSS pixels."""

RESTORED = [1280, 800, 1, True]
"""`innerWidth`, `innerHeight`, `devicePixelRatio` and whether the page matches `(resolution: 1dppx)`, as the driver
keeps every tab."""


@pytest.fixture
def tab(tab: str, driver: SeleniumDriver, server: PageServer) -> str:
    """The driver's one tab, at the stripes."""
    driver.navigate(tab, server.url("zoom_stripes.html"))
    return tab


def session_on(driver: SeleniumDriver) -> Session:
    return Session(BrowserToolset(driver, navigation=URLPolicy(allow_private=True)))


def decoded(result: Mapping[str, Any]) -> Image.Image:
    (block,) = images(result)
    return Image.open(io.BytesIO(base64.b64decode(block["source"]["data"]))).convert("L")


def page_state(driver: SeleniumDriver, tab: str) -> list[Any]:
    expression = "[innerWidth, innerHeight, devicePixelRatio, matchMedia('(resolution: 1dppx)').matches]"
    return list(json.loads(js(driver, tab, f"JSON.stringify({expression})")))


def middle_row(image: Image.Image) -> list[int]:
    y = image.height // 2
    return [int(image.getpixel((x, y))) for x in range(image.width)]  # type: ignore[arg-type]


def striped(row: list[int]) -> bool:
    """Whether the row shows the stripes: both black and white pixels, each a good share of the row."""
    dark = sum(1 for value in row if value < 64)
    light = sum(1 for value in row if value > 192)
    return dark > 0.3 * len(row) and light > 0.3 * len(row)


def blended(row: list[int]) -> bool:
    """Whether the row is the stripes blended into one grey: no pixel near black or white."""
    return all(64 <= value <= 192 for value in row)


def test_a_2x_capture_resolves_stripes_a_1x_capture_blends(driver: SeleniumDriver, tab: str) -> None:
    one = Image.open(io.BytesIO(driver.capture_region(tab, STRIPES, 1).png)).convert("L")
    two_capture = driver.capture_region(tab, STRIPES, 2)
    two = Image.open(io.BytesIO(two_capture.png)).convert("L")
    assert two_capture.clip == STRIPES
    assert one.size == (200, 100) and two.size == (400, 200)
    assert blended(middle_row(one))
    row = middle_row(two)
    assert striped(row)
    # one device pixel black, one white, all along: the stripes themselves, not a blur of them
    assert all((row[x] < 64) != (row[x + 1] < 64) for x in range(len(row) - 1))
    assert page_state(driver, tab) == RESTORED


def test_zoom_shows_the_stripes_the_screenshot_cannot(driver: SeleniumDriver, tab: str) -> None:
    session = session_on(driver)
    shot = decoded(ok(session.call("screenshot")))
    assert shot.size == (1280, 800)
    assert blended(middle_row(shot.crop((100, 100, 300, 200))))
    zoomed = decoded(ok(session.call("zoom", region=[100, 100, 300, 200])))
    # the limits allow 7.6x for 200x100 CSS pixels: captured at the 4x cap, and shown at exactly that
    assert zoomed.size == (800, 400)
    assert striped(middle_row(zoomed))
    assert page_state(driver, tab) == RESTORED
    # the screenshot frame is untouched: the next screenshot is the same size and still blends the stripes
    after = decoded(ok(session.call("screenshot")))
    assert after.size == (1280, 800) and blended(middle_row(after.crop((100, 100, 300, 200))))


def test_a_zoom_downscaled_to_the_limits_keeps_within_them(driver: SeleniumDriver, tab: str) -> None:
    zoomed = decoded(ok(session_on(driver).call("zoom", region=[0, 0, 640, 360])))
    assert zoomed.size == (1429, 804)  # captured at 2.25x (1440x810), brought down to the limits
    assert page_state(driver, tab) == RESTORED
    assert Image.open(io.BytesIO(driver.capture(tab).png)).size == (1280, 800)


def test_a_zoom_keeps_the_scroll_position(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("long.html"))
    js(driver, tab, "window.scrollTo(0, 1234)")
    ok(session_on(driver).call("zoom", region=[0, 0, 200, 100]))
    assert js(driver, tab, "String(scrollY)") == "1234"
    assert page_state(driver, tab) == RESTORED


def test_a_failed_zoom_capture_leaves_the_tab_as_it_was(
    driver: SeleniumDriver, tab: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(handle: str, box: dict[str, Any]) -> bytes:
        # the ratio is raised by now: the failure must not leave it raised
        assert page_state(driver, handle)[2] == 4
        raise BidiError("browsingContext.captureScreenshot", "unknown error", "the compositor went away")

    monkeypatch.setattr(driver._tabs._scaled, "_screenshot", broken)
    message = error(session_on(driver).call("zoom", region=[100, 100, 300, 200]))
    assert "the compositor went away" in message
    monkeypatch.undo()
    assert page_state(driver, tab) == RESTORED
    with pytest.raises(DriverError, match="not inside"):
        driver.capture_region(tab, Rect(1200, 0, 100, 10), 2)
    assert Image.open(io.BytesIO(driver.capture(tab).png)).size == (1280, 800)
