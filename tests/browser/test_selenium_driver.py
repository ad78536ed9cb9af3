"""`SeleniumDriver` on headless Chromium and Firefox: tabs, navigation, the URL guard, capture, dialogs, downloads,
the console and network logs, and scripts, against pages served from `tests/pages/` (pointer, keyboard and
elements are in `test_selenium_input.py`).

Each test runs on the session's shared browser (`driver`, reset to one blank tab), on both browsers unless it is
about one. Firefox runs the same driver code; it has no CDP and keeps classic scrollbars (no
`emulation.setScrollbarTypeOverride`), and is otherwise expected to behave as Chromium does.
"""

from __future__ import annotations

import concurrent.futures
import functools
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import DriverError, NavigationFailed, TabGone
from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver, options
from browser_toolset.values import (
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    NavigationBlocked,
    Size,
    TabClosed,
    TabInfo,
    TabOpened,
)
from tests.support.browsers import active_tab, find, js, only, open_tab_at, own_browser, png_size
from tests.support.polling import free_port, wait_until
from tests.support.server import PageServer

T = TypeVar("T")


def shows(driver: SeleniumDriver, handle: str, text: str) -> bool:
    """Whether the dialogs page's result line reads `text`."""
    return js(driver, handle, "result.textContent") == text


def gather(drain: Callable[[], Sequence[T]], enough: Callable[[list[T]], bool], timeout: float = 15.0) -> list[T]:
    """Everything `drain` hands over until what was gathered is `enough`: a log fills while the page runs."""
    gathered: list[T] = []

    def done() -> bool:
        gathered.extend(drain())
        return enough(gathered)

    wait_until(done, timeout=timeout)
    return gathered


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
        "keepalive": "45",
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
        keepalive=45,
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
        "session_timeout", "keepalive",
    }  # fmt: skip


def test_the_driver_satisfies_the_protocol(driver: SeleniumDriver, browser_kind: str) -> None:
    assert isinstance(driver, Driver)
    assert driver.name == f"selenium-{browser_kind}"


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


@pytest.mark.long
def test_a_tab_closes_while_its_refresh_commits(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """Chromium can acknowledge a close that races a navigation commit and then drop it, leaving the tab open and
    the close unanswered (2 closes in 30 of a tab whose meta refresh had just fired, measured here): the driver
    closes it again, so every close ends with the tab gone."""
    mark = server.mark()
    for _ in range(20):
        handle = driver.open_tab()
        driver.navigate(handle, server.url("refresh_now.html"))
        driver.close_tab(handle)
        assert [info.handle for info in driver.list_tabs()] == [tab]
    refreshed = [path for _, path in server.requests_since(mark) if path.endswith("index.html?refreshed")]
    assert refreshed, "the refreshes fired: the closes raced them"


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
    port = free_port()
    with pytest.raises(NavigationFailed, match=rf"127\.0\.0\.1 refused the connection on port {port}: nothing listens"):
        driver.navigate(tab, f"http://127.0.0.1:{port}/")


def test_navigate_times_out_with_a_clear_message(server: PageServer) -> None:
    # a browser of its own: the timeout is a launch option
    with own_browser("chromium", navigation_timeout="1") as quick:
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
    # a browser of its own: the count is of every document its renderer holds, which other tests' pages would add to
    with own_browser("chromium") as fresh:
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


PAGE_STARTED = {
    "data-nav": "document.getElementById('data-nav').click()",
    "file-nav": "document.getElementById('file-nav').click()",
    # not the page's blob: button: in an inline handler `URL` is `document.URL`, so that one never navigates
    "blob-nav": "setTimeout(() => { location.href = URL.createObjectURL(new Blob(['pwned'], {type: 'text/html'})) })",
    "data-link": "document.getElementById('data-link').click()",
    "file-link": "document.getElementById('file-link').click()",
}
"""Scripts that start a navigation of the page's own tab to a non-http URL (tests/pages/links.html)."""

STOPPED_BY_THE_DRIVER = {"chromium": {"blob-nav"}, "firefox": {"data-nav", "data-link", "blob-nav"}}
"""Which of them each browser lets start, for the driver's guard to stop and report; the browser refuses the
others itself, saying nothing over BiDi. A browser update that moves one across fails the test, naming it."""


@pytest.mark.parametrize("start", list(PAGE_STARTED))
def test_guard_keeps_the_tab_off_non_http_urls_a_page_opens(
    driver: SeleniumDriver, tab: str, server: PageServer, start: str
) -> None:
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, f"{PAGE_STARTED[start]}, 0")
    if start in STOPPED_BY_THE_DRIVER[driver.config.family]:
        (blocked,) = wait_until(driver.drain_events, timeout=15)
        assert isinstance(blocked, NavigationBlocked), blocked
        assert (blocked.url.split(":")[0], blocked.handle) == (start.split("-")[0], tab)
    else:
        time.sleep(0.5)  # time for the browser to go there, were it to go
        assert driver.drain_events() == [], f"{driver.config.family} no longer refuses {start} itself"
    # where the driver had to undo it, the tab and its document come back a moment later
    links = server.url("links.html")
    wait_until(lambda: driver.list_tabs()[0].url == links and shows_document(driver, tab, links), timeout=15)
    assert "pwned" not in driver.page_text(tab)


def shows_document(driver: SeleniumDriver, tab: str, url: str) -> bool:
    try:
        return js(driver, tab, "location.href") == url
    except DriverError:  # between two documents
        return False


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
    # Chromium keeps the popup blank; on Firefox the driver refuses its one navigation and the popup closes
    assert not urls.get(opened[0].handle, "(closed)").startswith("data:")


# --- capture --------------------------------------------------------------------------------------------------------


def test_capture_is_exactly_the_viewport(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("long.html"))  # tall enough for a scrollbar
    capture = driver.capture(tab)
    assert capture.viewport == driver.viewport(tab) == Size(1280, 800)
    assert png_size(capture.png) == (1280, 800)
    assert js(driver, tab, "[innerWidth, innerHeight, devicePixelRatio]") == "[1280, 800, 1]"
    width = int(js(driver, tab, "document.documentElement.clientWidth"))
    if driver.config.family == "chromium":
        assert width == 1280, "overlay scrollbars: the page's CSS width is the whole viewport"
    else:
        assert width < 1280, "Firefox keeps classic scrollbars: the page's CSS width is what they leave"


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
    # a browser of its own: the dialog policy is a launch option
    with own_browser("chromium", dialogs="accept") as accepting:
        handle = active_tab(accepting)
        assert handle is not None
        accepting.navigate(handle, server.url("dialogs.html"))
        accepting.evaluate(handle, "setTimeout(() => document.getElementById('prompt').click())")
        wait_until(lambda: accepting.evaluate(handle, "result.textContent") == "prompt Ada")
        assert accepting.drain_events() == [DialogHandled("prompt", "Your name?", True)]


def finished(events: list[DriverEvent]) -> bool:
    return any(isinstance(event, (DownloadCompleted, DownloadFailed)) for event in events)


def test_downloads_are_reported_with_path_and_size(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    # The shared browser's folder may hold an earlier test's report.csv, and Firefox would then suggest
    # "report(1).csv": this test starts from an empty folder.
    for leftover in os.listdir(driver.download_dir):
        os.remove(os.path.join(driver.download_dir, leftover))
    driver.navigate(tab, server.url("links.html"))
    js(driver, tab, "document.getElementById('download').click()")
    events = gather(driver.drain_events, finished)
    started = [e for e in events if isinstance(e, DownloadStarted)]
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
    failed = [e for e in gather(driver.drain_events, finished) if isinstance(e, (DownloadFailed, DownloadCompleted))]
    assert isinstance(failed[0], DownloadFailed), f"a cut-off download is no completed one: {failed}"
    if driver.config.family == "firefox":  # Firefox calls it complete: the driver finds it short
        assert "incomplete" in failed[0].error


def test_console_entries_are_drained(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("console.html"))
    drain = functools.partial(driver.drain_console, tab)
    entries = gather(drain, lambda seen: ("info", "fetched") in [(e.level, e.text) for e in seen])
    assert [(e.level, e.text) for e in entries][:3] == [("log", "hello 42"), ("warn", "careful"), ("error", "broken")]
    assert driver.drain_console(tab) == []
    js(driver, tab, "setTimeout(() => { throw new Error('kaboom') })")
    thrown = wait_until(lambda: driver.drain_console(tab))
    assert thrown[0].level == "error" and "kaboom" in thrown[0].text


def test_network_entries_are_drained(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    page_url, missing_url = server.url("console.html"), server.url("status/404")
    driver.navigate(tab, page_url)
    drain = functools.partial(driver.drain_network, tab)
    entries = gather(drain, lambda seen: {page_url, missing_url} <= {e.url for e in seen})
    (page,) = [e for e in entries if e.url == page_url]
    assert (page.method, page.status, page.mime_type) == ("GET", 200, "text/html")
    assert page.duration_ms is not None and page.duration_ms >= 0
    (fetched,) = [e for e in entries if e.url == missing_url]
    assert fetched.status == 404
    assert not [e for e in driver.drain_network(tab) if e.url in (page_url, missing_url)], "drained entries are gone"
    refused = f"http://127.0.0.1:{free_port()}/x"
    js(driver, tab, f"fetch({refused!r}).catch(() => {{}}), 0")
    (failed,) = [e for e in gather(drain, lambda seen: refused in {e.url for e in seen}) if e.url == refused]
    assert failed.status is None and failed.error


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


@only("chromium")
def test_settle_waits_for_the_handling_of_events_received_before_it(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """`settle` returns at once when no event is queued; one that is queued (here: held up in a slow handler) is
    handled before it returns."""
    driver.navigate(tab, server.url("index.html"))
    conn = driver._conn
    handled: list[str] = []
    started, over = threading.Event(), threading.Event()

    def slow(params: dict[str, object]) -> None:
        text = str(params.get("text"))
        if text.startswith("settle-probe") and not over.is_set():
            started.set()
            time.sleep(0.5)
            handled.append(text)

    # The connection is the session's shared one and cannot drop a handler: this one goes quiet when the test ends.
    conn.on("log.entryAdded", slow)
    try:
        assert conn.settle(1.0)
        driver.evaluate(tab, "console.log('settle-probe 1'), 0")
        assert started.wait(5)
        assert conn.settle(5.0)
        assert handled == ["settle-probe 1"]
    finally:
        over.set()
