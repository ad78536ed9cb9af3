"""`SeleniumDriver` on headless Chromium: every `Driver` method against pages served from `tests/pages/`.

One browser for the module (starting one costs about a second); each test begins from one blank tab
(`fresh_tab`). Coordinates are checked to the CSS pixel on a canvas that records where events land.
"""

from __future__ import annotations

import concurrent.futures
import functools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue, NavigationFailed, TabGone
from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver, options
from browser_toolset.values import (
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    NavigationBlocked,
    Point,
    Size,
    TabClosed,
    TabInfo,
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
    require_browser,
)
from tests.support.polling import free_port, wait_until
from tests.support.server import PageServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def driver() -> Iterator[SeleniumDriver]:
    with guarded_driver("chromium") as selenium_driver:
        yield selenium_driver


@pytest.fixture
def tab(driver: SeleniumDriver) -> str:
    return fresh_tab(driver)


def shows(driver: SeleniumDriver, handle: str, text: str) -> bool:
    """Whether the dialogs page's result line reads `text`."""
    return js(driver, handle, "result.textContent") == text


# --- construction -----------------------------------------------------------------------------------------------


def test_from_options_rejects_unknown_keys_and_bad_values_before_starting_a_browser() -> None:
    with pytest.raises(ValueError, match=r"^selenium driver option colour='blue' is unknown: use one of browser, "):
        SeleniumDriver.from_options({"colour": "blue"})
    refused = [
        ("viewport", "wide", "WIDTHxHEIGHT in CSS pixels"),
        ("viewport", "50x800", "WIDTHxHEIGHT in CSS pixels, each between 100 and 10000"),
        ("headless", "maybe", "true or false"),
        ("navigation_timeout", "0", "a number of seconds above 0"),
        ("script_timeout", "soon", "a number of seconds above 0"),
        ("command_timeout", "nan", "a number of seconds above 0"),
        ("dialogs", "ignore", "dismiss or accept"),
        ("browser", "safari", "chromium, chrome or firefox"),
        ("remote", "grid:4444", "an http:// or https:// URL"),
    ]
    for key, value, accepted in refused:
        with pytest.raises(ValueError) as refusal:
            SeleniumDriver.from_options({"browser": "firefox", key: value})
        assert str(refusal.value).startswith(f"selenium driver option {key}={value!r} is not valid: use {accepted}")


def test_option_strings_and_python_values_make_the_same_config() -> None:
    strings = {
        "browser": " Firefox ",
        "remote": "http://127.0.0.1:4444",
        "viewport": "1024x700",
        "headless": "no",
        "dialogs": "Accept",
        "navigation_timeout": "2.5",
        "command_timeout": "5",
        "script_timeout": "7",
        "args": "--a  --b",
        "download_dir": "",
        "browser_binary": "/opt/firefox",
    }
    config = SeleniumConfig.from_options(strings)
    assert config == SeleniumConfig(
        browser="firefox",
        remote_url="http://127.0.0.1:4444",
        viewport=Size(1024, 700),
        headless=False,
        dialog_policy="accept",
        navigation_timeout=2.5,
        command_timeout=5,
        script_timeout=7,
        extra_args=["--a", "--b"],
        browser_binary="/opt/firefox",
    )
    assert config.family == "firefox" and config.download_dir is None
    assert SeleniumConfig(headless="1").headless is True and SeleniumConfig(headless=False).headless is False
    assert SeleniumConfig.from_options({}) == SeleniumConfig()
    with pytest.raises(ValueError, match="between 100 and 10000"):
        SeleniumConfig(viewport=Size(50, 800))
    assert {option.key for option in options()} == {
        "browser", "remote", "viewport", "headless", "download_dir", "browser_binary", "driver_binary", "dialogs",
        "navigation_timeout", "command_timeout", "script_timeout", "args", "profile_dir", "egress", "restart",
    }  # fmt: skip


def test_the_driver_satisfies_the_protocol(driver: SeleniumDriver) -> None:
    assert isinstance(driver, Driver)
    assert driver.name == "selenium-chromium"


# --- tabs -----------------------------------------------------------------------------------------------------------


def test_open_activate_close_tabs(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    second = open_tab_at(driver, server.url("index.html"))
    assert active_tab(driver) == second
    assert [info.handle for info in driver.list_tabs()] == [tab, second]
    assert driver.list_tabs()[1].title == "Index"
    assert not [e for e in driver.drain_events() if isinstance(e, TabOpened)], "open_tab is not a page-opened tab"
    driver.activate_tab(tab)
    assert active_tab(driver) == tab
    assert [info.active for info in driver.list_tabs()] == [True, False]
    driver.close_tab(second)
    assert [info.handle for info in driver.list_tabs()] == [tab]
    assert not [e for e in driver.drain_events() if isinstance(e, TabClosed)], "close_tab is not a TabClosed"
    with pytest.raises(TabGone):
        driver.navigate(second, server.url("index.html"))
    with pytest.raises(TabGone):
        driver.capture(second)


def test_closing_the_last_tab_leaves_no_tabs_and_the_session_alive(driver: SeleniumDriver, tab: str) -> None:
    driver.close_tab(tab)
    assert driver.list_tabs() == []
    again = driver.open_tab()
    assert driver.list_tabs() == [TabInfo(again, "about:blank", "", active=True)]
    assert driver.capture(again).viewport == Size(1280, 800)


def test_tabs_the_page_opens_are_reported_with_their_opener(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    driver.navigate(tab, server.url("links.html"))
    driver.click(
        tab, driver.element_center(tab, find(driver.snapshot(tab).root, "link", "Open index in a new tab").key or "")
    )
    events = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabOpened)])
    popup = events[0].handle
    assert events[0].opener == tab
    assert active_tab(driver) == popup, "the browser brings a page-opened tab to the front"
    wait_until(lambda: any(i.handle == popup and i.title == "Index" for i in driver.list_tabs()))

    js(driver, tab, "document.getElementById('popup').click()")
    opened = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabOpened)])
    assert opened[0].opener == tab
    assert len(driver.list_tabs()) == 3

    # A tab that closes itself is reported.
    js(driver, opened[0].handle, "setTimeout(() => window.close())")
    closed = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabClosed)])
    assert closed == [TabClosed(opened[0].handle)]


# --- navigation ---------------------------------------------------------------------------------------------------


def test_navigate_reports_url_status_and_title(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    outcome = driver.navigate(tab, server.url("index.html"))
    assert (outcome.url, outcome.status, outcome.title) == (server.url("index.html"), 200, "Index")
    missing = driver.navigate(tab, server.url("status/404"))
    assert missing.status == 404 and missing.title == "404 Not Found"
    redirected = driver.navigate(tab, server.url("redirect?to=/form.html"))
    assert (redirected.url, redirected.status, redirected.title) == (server.url("form.html"), 200, "Form")


def test_navigate_to_an_unreachable_host_fails(driver: SeleniumDriver, tab: str) -> None:
    with pytest.raises(NavigationFailed, match=r"ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE"):
        driver.navigate(tab, f"http://127.0.0.1:{free_port()}/")


def test_navigate_times_out_with_a_clear_message(server: PageServer) -> None:
    require_browser("chromium")
    with SeleniumDriver(SeleniumConfig(navigation_timeout=1.0)) as quick:
        handle = active_tab(quick)
        assert handle is not None
        with pytest.raises(NavigationFailed, match=r"timed out after 1 seconds"):
            quick.navigate(handle, server.url("slow?ms=4000"))


def test_history_back_forward_reload(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    new = driver.open_tab()
    nothing = driver.history(new, "back")  # no history: not an error
    assert nothing.url == "about:blank"
    driver.close_tab(new)
    driver.navigate(tab, server.url("index.html"))
    driver.navigate(tab, server.url("form.html"))
    back = driver.history(tab, "back")
    assert (back.url, back.title) == (server.url("index.html"), "Index")
    forward = driver.history(tab, "forward")
    assert (forward.url, forward.title) == (server.url("form.html"), "Form")
    reload = driver.history(tab, "reload")
    assert (reload.url, reload.status, reload.title) == (server.url("form.html"), 200, "Form")
    assert driver.history(tab, "forward").url == server.url("form.html")


def test_documents_a_tab_leaves_are_freed(server: PageServer) -> None:
    """Regression: the title watch kept every document a tab had shown alive (about 1 MiB of renderer memory per
    navigation, never returned). Counted by the renderer itself after a forced garbage collection: what stays is
    the shown document and the back/forward cache's few."""
    with guarded_driver("chromium") as fresh:
        handle = active_tab(fresh)
        assert handle is not None
        webdriver = fresh._session.webdriver

        def live_documents() -> int:
            webdriver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
            return int(webdriver.execute_cdp_cmd("Memory.getDOMCounters", {})["documents"])

        for index in range(30):
            fresh.navigate(handle, server.url("links.html" if index % 2 else "index.html"))
        assert live_documents() <= 10


def test_titles_set_after_a_history_restore_are_seen(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """The title watch stops when a document is hidden and starts again when the back/forward cache restores it."""
    driver.navigate(tab, server.url("index.html?cache=ok"))
    js(driver, tab, "window.restoredMark = 'kept'")
    driver.navigate(tab, server.url("form.html?cache=ok"))
    assert driver.history(tab, "back").title == "Index"
    assert js(driver, tab, "String(window.restoredMark)") == "kept"  # restored from the cache, not loaded again
    js(driver, tab, "document.title = 'Renamed after the restore'")
    renamed = ["Renamed after the restore"]
    assert wait_until(lambda: [info.title for info in driver.list_tabs() if info.handle == tab] == renamed)


def test_navigation_with_the_intercept_active_never_deadlocks(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """Regression: Chromium deadlocks when a classic WebDriver command navigates while a BiDi network intercept is
    active. The guard's intercept is always on, so every way of navigating must still come back promptly."""

    def journey() -> str:
        driver.navigate(tab, server.url("index.html"))
        link = find(driver.snapshot(tab).root, "link", "Form")
        driver.click(tab, driver.element_center(tab, link.key or ""))  # a click that navigates
        field = find(driver.snapshot(tab).root, "textbox", "Name")
        driver.click(tab, driver.element_center(tab, field.key or ""))
        driver.type_text(tab, "Ada")
        driver.press_keys(tab, ["Enter"])  # a key that submits a form (POST, then a new document)
        # the submission navigates after the key returns: going back at once could cancel it
        wait_until(lambda: ("POST", "/submitted") in server.requests)
        driver.history(tab, "back")
        driver.history(tab, "reload")
        js(driver, tab, "location.href = 'index.html'")  # a script that navigates
        return str(driver.snapshot(tab).document)

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(journey)
        assert future.result(timeout=30)
    assert ("POST", "/submitted") in server.requests


# --- the URL guard ------------------------------------------------------------------------------------------------


def test_guard_stops_a_redirect_to_a_refused_url(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("index.html"))
    with pytest.raises(NavigationFailed, match="not allowed"):
        driver.navigate(tab, server.url("redirect?to=/forbidden/page.html"))
    blocked = [e for e in driver.drain_events() if isinstance(e, NavigationBlocked)]
    assert blocked == [NavigationBlocked(server.url("forbidden/page.html"), tab)]
    assert "/forbidden/" not in driver.list_tabs()[0].url
    assert not [path for _, path in server.requests if path.startswith("/forbidden/")]


def test_guard_fails_refused_subresources_and_page_navigations(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    driver.navigate(tab, server.url("guarded.html"))
    entries = wait_until(lambda: [e for e in driver.drain_network(tab) if "/forbidden/" in e.url])
    # Failed by the guard's intercept, or (behind the egress proxy, where the guard only watches) refused by the
    # proxy with its 403: either way the server never sees it (below).
    assert (entries[0].status is None and entries[0].error) or entries[0].status == 403
    assert not [e for e in driver.drain_events() if isinstance(e, NavigationBlocked)], "a subresource is no navigation"
    link = find(driver.snapshot(tab).root, "link", "A redirect to a forbidden page")
    driver.click(tab, driver.element_center(tab, link.key or ""))
    blocked = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, NavigationBlocked)])
    assert blocked[0].url == server.url("forbidden/page.html")
    assert not [path for _, path in server.requests if path.startswith("/forbidden/")]


@pytest.mark.parametrize("button", ["data-nav", "file-nav", "blob-nav", "data-link", "file-link"])
def test_guard_keeps_the_tab_off_non_http_urls_a_page_opens(
    driver: SeleniumDriver, tab: str, server: PageServer, button: str
) -> None:
    """Chromium blocks these itself without telling BiDi; whatever a browser lets through, the driver undoes."""
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, f"document.getElementById('{button}').click()")
    time.sleep(0.3)
    for event in driver.drain_events():
        assert isinstance(event, NavigationBlocked) and event.url.split(":")[0] in ("data", "file", "blob")
    wait_until(lambda: driver.list_tabs()[0].url == server.url("links.html"))
    assert "pwned" not in driver.page_text(tab)


def test_guard_takes_frames_off_non_http_urls(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """A data: frame never reaches the network intercept; the driver sees it start and blanks the frame."""
    driver.navigate(tab, server.url("data_frame.html"))

    def frame_urls() -> list[str]:
        tree = driver._conn.command("browsingContext.getTree", {"root": tab})
        return [str(child["url"]) for child in tree["contexts"][0]["children"]]

    assert wait_until(lambda: frame_urls() == ["about:blank"] and frame_urls())
    assert not [e for e in driver.drain_events() if isinstance(e, NavigationBlocked)], "a frame is no tab"


def test_guard_keeps_popups_off_non_http_urls(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, "document.getElementById('data-popup').click()")
    opened = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabOpened)])
    time.sleep(0.3)
    urls = {info.handle: info.url for info in driver.list_tabs()}
    assert not urls[opened[0].handle].startswith("data:")


# --- capture --------------------------------------------------------------------------------------------------------


def test_capture_is_exactly_the_viewport(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("long.html"))  # tall enough for a scrollbar
    capture = driver.capture(tab)
    assert capture.viewport == driver.viewport(tab) == Size(1280, 800)
    assert png_size(capture.png) == (1280, 800)
    assert js(driver, tab, "[innerWidth, innerHeight, devicePixelRatio, document.documentElement.clientWidth]") == (
        "[1280, 800, 1, 1280]"
    ), "overlay scrollbars: the page's CSS width is the whole viewport"


def test_capture_of_new_and_page_opened_tabs_is_exact(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    mine = open_tab_at(driver, server.url("index.html"))
    assert png_size(driver.capture(mine).png) == (1280, 800)
    driver.navigate(mine, server.url("links.html"))
    js(driver, mine, "document.getElementById('popup').click()")
    popup = wait_until(lambda: [e for e in driver.drain_events() if isinstance(e, TabOpened)])[0].handle
    wait_until(lambda: any(i.handle == popup and i.title == "Form" for i in driver.list_tabs()))
    assert png_size(driver.capture(popup).png) == (1280, 800)
    assert js(driver, popup, "[innerWidth, innerHeight, devicePixelRatio]") == "[1280, 800, 1]"


def test_capture_of_a_background_tab_keeps_the_active_tab(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("index.html"))
    other = open_tab_at(driver, server.url("form.html"))
    driver.activate_tab(tab)
    assert png_size(driver.capture(other).png) == (1280, 800)
    assert active_tab(driver) == tab


# --- pointer --------------------------------------------------------------------------------------------------------


def canvas_events(driver: SeleniumDriver, handle: str, kind: str) -> list[dict[str, object]]:
    import json

    text = js(driver, handle, f"JSON.stringify(events.filter(e => e.type === '{kind}'))")
    result = json.loads(text)
    assert isinstance(result, list)
    return result


def test_clicks_land_on_the_exact_css_pixel(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    points = [(0, 0), (1, 1), (640, 400), (1279, 799), (123.6, 456.2)]
    for x, y in points:
        driver.click(tab, Point(x, y))
    clicks = canvas_events(driver, tab, "click")
    assert [(c["x"], c["y"]) for c in clicks] == [(0, 0), (1, 1), (640, 400), (1279, 799), (123, 456)]
    png = driver.capture(tab).png
    for x, y in [(1, 1), (640, 400), (123, 456)]:
        assert pixel(png, x, y) == (255, 0, 0), f"the click marker is at ({x}, {y}) in the screenshot"
        assert pixel(png, x + 1, y) == (255, 255, 255)


def test_buttons_counts_and_modifiers(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    driver.click(tab, Point(10, 10), button="right")
    driver.click(tab, Point(20, 20), button="middle")
    driver.click(tab, Point(30, 30), count=2)
    driver.click(tab, Point(40, 40), count=3)
    driver.click(tab, Point(50, 50), modifiers=["Control", "Shift"])
    downs = canvas_events(driver, tab, "mousedown")
    assert [(d["x"], d["button"]) for d in downs][:2] == [(10, 2), (20, 1)]
    assert [d["detail"] for d in downs if d["x"] == 40] == [1, 2, 3]
    assert len(canvas_events(driver, tab, "dblclick")) >= 1
    modified = next(d for d in downs if d["x"] == 50)
    assert modified["ctrl"] is True and modified["shift"] is True and modified["alt"] is False
    after = canvas_events(driver, tab, "click")[-1]
    assert after["ctrl"] is True and after["x"] == 50


def test_move_press_release_and_drag(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    driver.move(tab, Point(300, 200))
    assert canvas_events(driver, tab, "mousemove")[-1] == canvas_events(driver, tab, "mousemove")[-1]
    assert (canvas_events(driver, tab, "mousemove")[-1]["x"], canvas_events(driver, tab, "mousemove")[-1]["y"]) == (
        300,
        200,
    )
    driver.mouse_down(tab, Point(100, 100))
    driver.move(tab, Point(150, 120))
    driver.mouse_up(tab, Point(200, 140))
    down, up = canvas_events(driver, tab, "mousedown")[-1], canvas_events(driver, tab, "mouseup")[-1]
    assert (down["x"], down["y"], up["x"], up["y"]) == (100, 100, 200, 140)
    held = [m for m in canvas_events(driver, tab, "mousemove") if m["buttons"] == 1]
    assert held, "the button stays down between press and release"
    driver.drag(tab, Point(400, 400), Point(500, 450))
    moves = [m for m in canvas_events(driver, tab, "mousemove") if m["buttons"] == 1 and int(str(m["x"])) > 400]
    assert len(moves) >= 5, "a drag moves through intermediate points"
    assert (canvas_events(driver, tab, "mouseup")[-1]["x"], canvas_events(driver, tab, "mouseup")[-1]["y"]) == (
        500,
        450,
    )


def test_wheel_scrolls_the_page(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("wheel.html"))
    driver.wheel(tab, Point(640, 400), 0, 300)
    assert js(driver, tab, "scrollY") == "300"
    driver.wheel(tab, Point(640, 400), 200, -100)
    assert js(driver, tab, "[scrollX, scrollY]") == "[200, 200]"
    assert js(driver, tab, "JSON.stringify(wheels[0])") == '{"x":640,"y":400,"dx":0,"dy":300}'


# --- keyboard -------------------------------------------------------------------------------------------------------


def test_type_text_and_press_keys(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    driver.type_text(tab, "Hello, wörld! 😀")
    assert js(driver, tab, "document.getElementById('name').value") == "Hello, wörld! 😀"
    driver.press_keys(tab, ["Control", "a"])
    driver.press_keys(tab, ["Backspace"])
    assert js(driver, tab, "document.getElementById('name').value") == ""
    driver.press_keys(tab, ["Shift", "a"])
    assert js(driver, tab, "document.getElementById('name').value") == "A"
    driver.press_keys(tab, ["Tab"])
    assert js(driver, tab, "document.activeElement.id") == "notes"
    driver.type_text(tab, "one\ntwo")
    assert js(driver, tab, "document.getElementById('notes').value") == "one\ntwo"


def test_hold_keys_auto_repeats_on_chromium(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    started = time.monotonic()
    outcome = driver.hold_keys(tab, ["x"], 1.0)
    assert 0.95 <= time.monotonic() - started < 2.0
    assert outcome.repeated is True
    repeats = int(js(driver, tab, "keyLog.filter(k => k.type === 'keydown' && k.repeat).length"))
    assert 10 <= repeats <= 20
    assert js(driver, tab, "document.getElementById('name').value") == "x" * (repeats + 1)
    short = driver.hold_keys(tab, ["Shift"], 0.2)
    assert short.repeated is False, "no repeat before the keyboard's repeat delay"
    assert js(driver, tab, "keyLog[keyLog.length - 1].type + ' ' + keyLog[keyLog.length - 1].key") == "keyup Shift"


# --- accessibility tree and elements ------------------------------------------------------------------------------


def test_snapshot_and_element_actions(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    snapshot = driver.snapshot(tab)
    assert snapshot.viewport == Size(1280, 800)
    name = find(snapshot.root, "textbox", "Name")
    assert name.placeholder == "Your name" and name.interactive and name.in_viewport and name.bounds
    assert name.key is not None
    assert driver.set_value(tab, name.key, "Grace") == "Grace"
    agree = find(snapshot.root, "checkbox", "I agree")
    assert agree.key is not None and "unchecked" in agree.states
    assert driver.set_value(tab, agree.key, True) == "true"
    colour = find(snapshot.root, "combobox", "Colour")
    assert colour.key is not None
    assert driver.set_value(tab, colour.key, "Blue") in ("b", "Blue")
    with pytest.raises(InvalidValue, match="Red"):
        driver.set_value(tab, colour.key, "Purple")
    values = "['name', 'agree', 'colour'].map(id => document.getElementById(id))"
    values += ".map(e => e.type === 'checkbox' ? e.checked : e.value)"
    assert js(driver, tab, values) == '["Grace", true, "b"]'
    assert js(driver, tab, "changes.join()") == "name,agree,colour"
    again = driver.snapshot(tab)
    assert again.document == snapshot.document
    assert find(again.root, "textbox", "Name").key == name.key, "keys survive re-reads"
    assert "checked" in find(again.root, "checkbox", "I agree").states
    driver.navigate(tab, server.url("form.html"))
    assert driver.snapshot(tab).document != snapshot.document
    with pytest.raises(ElementGone):
        driver.element_center(tab, name.key)
    with pytest.raises(ElementGone):
        driver.set_value(tab, name.key, "x")
    fresh = find(driver.snapshot(tab).root, "textbox", "Name")
    assert fresh.key is not None and driver.element_center(tab, fresh.key)
    js(driver, tab, "document.getElementById('name').remove()")
    with pytest.raises(ElementGone):
        driver.element_center(tab, fresh.key)


def test_scroll_into_view_and_center_of_a_far_element(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("long.html"))
    far = find(driver.snapshot(tab).root, "button", "Far button")
    assert far.key is not None and not far.in_viewport
    driver.scroll_into_view(tab, far.key)
    assert int(js(driver, tab, "scrollY")) > 0
    js(driver, tab, "scrollTo(0, 0)")
    center = driver.element_center(tab, far.key)
    assert 0 <= center.x < 1280 and 0 <= center.y < 800
    driver.click(tab, center)
    assert js(driver, tab, "document.getElementById('far').textContent") == "far clicked"


def test_iframes_and_shadow_dom(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("iframe.html"))
    inner = find(driver.snapshot(tab).root, "button", "Inner button")
    assert inner.bounds is not None and inner.bounds.x >= 100 and inner.bounds.y >= 200, "frame offsets applied"
    driver.click(tab, driver.element_center(tab, inner.key or ""))
    assert find(driver.snapshot(tab).root, "button", "clicked")

    driver.navigate(tab, server.url("shadow.html"))
    shadow = find(driver.snapshot(tab).root, "button", "Shadow button")
    driver.click(tab, driver.element_center(tab, shadow.key or ""))
    assert js(driver, tab, "document.getElementById('out').textContent") == "shadow clicked"
    field = find(driver.snapshot(tab).root, "textbox", "Shadow field")
    assert driver.set_value(tab, field.key or "", "inside") == "inside"


def test_set_files(driver: SeleniumDriver, tab: str, server: PageServer, tmp_path: Path) -> None:
    driver.navigate(tab, server.url("form.html"))
    first, second = tmp_path / "a.txt", tmp_path / "b.csv"
    first.write_text("hello")
    second.write_text("x,y\n1,2\n")
    attachment = find(driver.snapshot(tab).root, "button", "Attachment")
    driver.set_files(tab, attachment.key or "", [str(first), str(second)])
    assert js(driver, tab, "document.getElementById('status').textContent") == "files: a.txt:5,b.csv:8"
    name = find(driver.snapshot(tab).root, "textbox", "Name")
    with pytest.raises(InvalidValue):
        driver.set_files(tab, name.key or "", [str(first)])


def test_page_text_is_the_visible_text(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    text = driver.page_text(tab)
    assert "Sign up" in text and "keyLog" not in text


# --- dialogs, downloads, console, network ---------------------------------------------------------------------------


def test_dialogs_are_dismissed_and_reported(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("dialogs.html"))
    root = driver.snapshot(tab).root
    for name, result in [("Alert", "alert done"), ("Confirm", "confirm false"), ("Prompt", "prompt null")]:
        driver.click(tab, driver.element_center(tab, find(root, "button", name).key or ""))
        wait_until(functools.partial(shows, driver, tab, result))
    assert driver.drain_events() == [
        DialogHandled("alert", "Hello from alert", False),
        DialogHandled("confirm", "Are you sure?", False),
        DialogHandled("prompt", "Your name?", False),
    ]


def test_dialogs_can_be_accepted_by_policy(server: PageServer) -> None:
    require_browser("chromium")
    with SeleniumDriver(SeleniumConfig(dialog_policy="accept")) as accepting:
        handle = active_tab(accepting)
        assert handle is not None
        accepting.navigate(handle, server.url("dialogs.html"))
        accepting.evaluate(handle, "setTimeout(() => document.getElementById('prompt').click())")
        wait_until(lambda: accepting.evaluate(handle, "result.textContent") == "prompt Ada")
        assert accepting.drain_events() == [DialogHandled("prompt", "Your name?", True)]


def test_downloads_are_reported_with_path_and_size(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, "document.getElementById('download').click()")
    events = wait_until(lambda: driver.drain_events(), timeout=10)
    started = [e for e in events if isinstance(e, DownloadStarted)]
    if not [e for e in events if isinstance(e, DownloadCompleted)]:
        events += wait_until(lambda: driver.drain_events(), timeout=10)
    completed = [e for e in events if isinstance(e, DownloadCompleted)]
    assert started[0].url == server.url("download/report.csv?size=2048")
    assert started[0].suggested_filename == "report.csv"
    assert completed[0].key == started[0].key
    assert completed[0].size_bytes == 2048
    assert completed[0].path is not None and os.path.getsize(completed[0].path) == 2048
    assert driver.list_tabs()[0].url == server.url("links.html"), "a download leaves the page where it was"
    # Navigating straight to a file downloads it and is no failure.
    outcome = driver.navigate(tab, server.url("download/direct.bin?size=10"))
    assert outcome.url == server.url("links.html")
    assert any(isinstance(e, DownloadStarted) for e in wait_until(lambda: driver.drain_events()))


def test_a_truncated_download_fails(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, "document.getElementById('truncated').click()")
    failed = wait_until(
        lambda: [e for e in driver.drain_events() if isinstance(e, (DownloadFailed, DownloadCompleted))], timeout=15
    )
    assert isinstance(failed[0], DownloadFailed), failed


def test_console_entries_are_drained(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("console.html"))
    entries = wait_until(lambda: driver.drain_console(tab))
    entries += wait_until(lambda: driver.drain_console(tab)) if len(entries) < 4 else []
    assert [(e.level, e.text) for e in entries][:3] == [("log", "hello 42"), ("warn", "careful"), ("error", "broken")]
    assert ("info", "fetched") in [(e.level, e.text) for e in entries]
    assert driver.drain_console(tab) == []
    js(driver, tab, "setTimeout(() => { throw new Error('kaboom') })")
    thrown = wait_until(lambda: driver.drain_console(tab))
    assert thrown[0].level == "error" and "kaboom" in thrown[0].text


def test_network_entries_are_drained(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("console.html"))
    entries = wait_until(lambda: [e for e in driver.drain_network(tab)], timeout=5)
    time.sleep(0.2)
    entries += driver.drain_network(tab)
    page = next(e for e in entries if e.url == server.url("console.html"))
    assert (page.method, page.status, page.mime_type) == ("GET", 200, "text/html")
    assert page.duration_ms is not None and page.duration_ms >= 0
    fetched = next(e for e in entries if e.url == server.url("status/404"))
    assert fetched.status == 404
    assert driver.drain_network(tab) == []
    js(driver, tab, f"fetch('http://127.0.0.1:{free_port()}/x').catch(() => {{}})")
    failed = wait_until(lambda: driver.drain_network(tab))
    assert failed[0].status is None and failed[0].error


# --- scripting --------------------------------------------------------------------------------------------------------


def test_evaluate_renders_values(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    assert js(driver, tab, "'plain string'") == "plain string"
    assert js(driver, tab, "1 + 1") == "2"
    assert js(driver, tab, "0.5") == "0.5"
    assert js(driver, tab, "true") == "true"
    assert js(driver, tab, "null") == "null"
    assert js(driver, tab, "undefined") == "undefined"
    assert js(driver, tab, "let a = 1; a + 2") == "3", "the completion value of the last statement"
    assert js(driver, tab, "({a: [1, 'x'], b: {c: null}})") == '{"a": [1, "x"], "b": {"c": null}}'
    assert js(driver, tab, "document.getElementById('name')") == '<input id="name" name="name" type="text">'
    assert js(driver, tab, "Promise.resolve(42)") == "42", "promises are awaited"
    assert js(driver, tab, "window.keyLog !== undefined") == "true", "the page's own realm, not the sandbox"
    long = js(driver, tab, "'x'.repeat(200000)")
    assert len(long) < 51000 and long.endswith("characters]")
    with pytest.raises(DriverError, match="boom"):
        js(driver, tab, "throw new Error('boom')")
    with pytest.raises(DriverError, match="nope"):
        js(driver, tab, "Promise.reject(new Error('nope'))")


def test_a_hover_where_the_pointer_already_is_still_moves_it(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """A menu that closed while the pointer stayed put must reopen on the next hover at the same point."""
    driver.navigate(tab, server.url("canvas.html"))
    driver.move(tab, Point(300, 200))
    first = len(canvas_events(driver, tab, "mousemove"))
    driver.move(tab, Point(300, 200))
    moves = canvas_events(driver, tab, "mousemove")
    assert len(moves) > first
    assert (moves[-1]["x"], moves[-1]["y"]) == (300, 200)
    driver.move(tab, Point(0, 0))  # at the left edge it arrives from the right
    last = canvas_events(driver, tab, "mousemove")[-1]
    assert (last["x"], last["y"]) == (0, 0)


def test_settle_waits_for_the_handling_of_events_received_before_it(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """`settle` returns at once when no event is queued; one that is queued (here: held up in a slow handler) is
    handled before it returns."""
    driver.navigate(tab, server.url("index.html"))
    conn = driver._conn
    handled: list[str] = []
    started = threading.Event()

    def slow(params: dict[str, object]) -> None:
        text = str(params.get("text"))
        if text.startswith("settle-probe"):
            started.set()
            time.sleep(0.5)
            handled.append(text)

    conn.on("log.entryAdded", slow)
    assert conn.settle(1.0)
    driver.evaluate(tab, "console.log('settle-probe 1'), 0")
    assert started.wait(5)
    assert conn.settle(5.0)
    assert handled == ["settle-probe 1"]
