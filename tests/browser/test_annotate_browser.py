"""Annotated screenshots on headless Chromium and Firefox: each mark sits on its element of
`tests/pages/control_marks.html` at the default viewport and at scaled ones, checked against boxes computed
independently from the elements' CSS boxes (the helpers of `tests/unit/test_annotate.py`)."""

from __future__ import annotations

import pytest

from browser_toolset import URLPolicy
from browser_toolset.control import BrowserControl
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.values import Size
from tests.support.browsers import own_browser
from tests.support.server import PageServer
from tests.unit.test_annotate import IMAGE_SIZES, MARKS_PAGE, assert_labelled_above, mapped


def check_real_page(driver: SeleniumDriver, url: str, viewport: Size) -> None:
    control = BrowserControl(driver, navigation=URLPolicy(allow_private=True))  # not closed: it would close driver
    element_map, image = control.navigate(url)
    assert image.size == IMAGE_SIZES[viewport]
    assert [line.split("] ", 1)[1] for line in element_map.split("\n")] == [
        'button "Save"',
        'link "Docs"',
        'textbox "Search"',
        'checkbox "I agree" unchecked',
        'button "Checkout"',
    ]
    for mark, css in zip(control.marks, MARKS_PAGE.values(), strict=True):
        assert_labelled_above(image, mark, mapped(css, viewport, IMAGE_SIZES[viewport]))


def test_marks_land_on_their_elements(driver: SeleniumDriver, server: PageServer) -> None:
    check_real_page(driver, server.url("control_marks.html"), Size(1280, 800))


@pytest.mark.parametrize(
    ("browser", "viewport"),
    [("chromium", Size(1920, 1080)), ("chromium", Size(2560, 1440)), ("firefox", Size(2560, 1440))],
    ids=["chromium-1920x1080", "chromium-2560x1440", "firefox-2560x1440"],
)
def test_marks_land_on_their_elements_at_a_scaled_viewport(browser: str, viewport: Size, server: PageServer) -> None:
    # a browser of its own: the viewport is a launch option
    with own_browser(browser, viewport=f"{viewport.width}x{viewport.height}") as driver:
        check_real_page(driver, server.url("control_marks.html"), viewport)
