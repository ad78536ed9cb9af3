"""The hostile-page suite: every way a page can reach for another origin, on real headless Chromium and Firefox,
with an allowlist naming only the page's own origin (127.0.0.1); "internal" listeners on 127.0.0.2 and [::1] log
every TCP connection, and nothing may reach them.

Each scenario runs twice: with both layers (the BiDi intercept and the egress proxy, as a session runs), and with
the egress proxy alone (the BiDi guard opened up), which shows the network layer stops everything by itself.
Run with `-s` to see the counts (behaviours tried, refusals by the proxy, navigations blocked by the BiDi guard).
Only loopback addresses are ever contacted: the allowlist refuses every other host before any name is resolved.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

import pytest

from browser_toolset.driver_errors import DriverError, NavigationFailed
from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver
from browser_toolset.safety.urls import URLPolicy
from browser_toolset.values import NavigationBlocked, NavigationOutcome, Point
from tests.support.browsers import fresh_tab, require_browser
from tests.support.polling import wait_until

pytestmark = pytest.mark.browser

PAGES = Path(__file__).parent.parent / "pages"

_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


class InternalListener:
    """A TCP listener standing in for an internal service: records every connection (and the first bytes sent),
    answers a tiny HTTP 200, and closes."""

    def __init__(self, host: str) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(64)
        self.host = host
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def origin(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(1.0)
                try:
                    first = conn.recv(4096)
                except OSError:
                    first = b""
                with self._lock:
                    self.connections.append(first[:200])
                try:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                except OSError:
                    pass

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self.server.log(self.command, self.path)
        parts = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        internal = self.server.internal
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", internal + "/redirected"))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if parts.path == "/refresh-header":
            body = b"<!doctype html><title>Refresh header</title><p>Refreshing."
            self.send_response(200)
            self.send_header("Refresh", f"0; url={internal}/refresh-header-target")
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        name = parts.path.lstrip("/")
        path = PAGES / name
        if not name.startswith("hostile_") or "/" in name or not path.is_file():
            self.send_error(404)
            return
        ws = internal.replace("http://", "ws://", 1)
        body = path.read_text().replace("INTERNAL_ORIGIN", internal).replace("INTERNAL_WS", ws).encode()
        self.send_response(200)
        self.send_header("Content-Type", _TYPES.get(path.suffix, "application/octet-stream"))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Service-Worker-Allowed", "/")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, internal: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.internal = internal
        self.requests: list[tuple[str, str]] = []
        self.connections = 0
        self.lock = threading.Lock()

    def log(self, method: str, path: str) -> None:
        with self.lock:
            self.requests.append((method, path))

    def verify_request(self, request: object, client_address: object) -> bool:
        with self.lock:
            self.connections += 1
        return True


class AllowedOrigin:
    """The allowed origin on 127.0.0.1, serving the hostile pages with `internal` as their target."""

    def __init__(self, internal: str) -> None:
        self.server = _Server(internal)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> AllowedOrigin:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self.server.lock:
            return list(self.server.requests)


# --- the suite --------------------------------------------------------------------------------------------------

POLICY = URLPolicy(allow_hosts=["127.0.0.1"], allow_private=True)
MODES = ("proxy-only", "both-layers")
"""In this order: a scenario's both-layers run reuses the browser of its proxy-only run (see `driver`)."""
COUNTS: dict[str, dict[str, int]] = {}


def _references(*names: str) -> int:
    """How many times the pages and scripts reach for the internal origin: the behaviours a scenario tries."""
    return sum(len(re.findall(r"INTERNAL_(?:ORIGIN|WS)", (PAGES / name).read_text())) for name in names)


@pytest.fixture(scope="module")
def internals() -> Iterator[list[InternalListener]]:
    listeners = [InternalListener("127.0.0.2")]
    try:
        listeners.append(InternalListener("::1"))
    except OSError:
        pass  # no IPv6 loopback here
    yield listeners
    for listener in listeners:
        listener.close()


@pytest.fixture(scope="module")
def origin(internals: list[InternalListener]) -> Iterator[AllowedOrigin]:
    with AllowedOrigin(internals[0].origin) as server:
        yield server


@pytest.fixture(params=["chromium", pytest.param("firefox", marks=pytest.mark.firefox)])
def driver(
    request: pytest.FixtureRequest, totals: None, kept: dict[tuple[str, str], SeleniumDriver]
) -> Iterator[SeleniumDriver]:
    """A browser of its own for each scenario: a hostile page that leaves a browser unwell (a popup Chromium no
    longer answers for) must not spoil the other scenarios. The scenario's two modes share it, proxy-only first
    on a fresh browser: what that run leaves behind (a registered service worker) can only add connections to the
    listeners in the both-layers run after it, never make up the proxy-only run's refusals."""
    require_browser(request.param)
    params = request.node.callspec.params
    scenario, mode = params.get("scenario", ""), params.get("mode", "")
    key = (request.param, scenario)
    for other in [k for k in kept if k != key]:
        kept.pop(other).close()
    browser = kept.pop(key, None) if mode == "both-layers" else None
    if browser is None:
        browser = SeleniumDriver(SeleniumConfig(browser=request.param, navigation_timeout=10))
    try:
        yield browser
    finally:
        if mode == "proxy-only" and browser.dead() is None:
            kept[key] = browser
        else:
            browser.close()


@pytest.fixture(scope="module")
def kept() -> Iterator[dict[tuple[str, str], SeleniumDriver]]:
    """The browser a scenario's proxy-only run leaves for its both-layers run (closed when another scenario starts)."""
    browsers: dict[tuple[str, str], SeleniumDriver] = {}
    yield browsers
    for browser in browsers.values():
        browser.close()


@pytest.fixture(scope="module")
def totals() -> Iterator[None]:
    """Prints the counts over every scenario, per browser, once the module is done."""
    yield
    for browser in ("chromium", "firefox"):
        summed = {key: sum(c[key] for name, c in COUNTS.items() if name.startswith(browser)) for key in
                  ("behaviours", "proxy_refusals", "bidi_blocked", "internal_connections")}  # fmt: skip
        print(f"\n[egress] {browser}: {summed}")


def _arm(driver: SeleniumDriver, mode: str) -> None:
    driver.set_url_guard(POLICY.allows)
    if mode == "proxy-only":
        driver._guard.set(lambda url: True)


def _open(
    driver: SeleniumDriver, handle: str, origin: AllowedOrigin, page: str, *, may_be_cut_short: bool = False
) -> NavigationOutcome | None:
    """Open `page` of the allowed origin, and check the origin served it: the positive control of every scenario
    (one whose page never loaded would leave the listeners untouched and prove nothing). The navigation must
    succeed, unless `may_be_cut_short`: a page that sends its tab elsewhere as it loads can end the navigation
    that brought it (`None` then)."""
    mark = len(origin.requests)
    url = origin.url(page)
    try:
        outcome: NavigationOutcome | None = driver.navigate(handle, url)
    except NavigationFailed as exc:
        if not may_be_cut_short:
            raise
        assert f"could not load {url}" in str(exc) or f"the navigation to {url} was stopped" in str(exc), exc
        outcome = None
    served = origin.requests[mark:]
    assert ("GET", "/" + page) in served, f"the allowed origin never served {page}: {served}"
    return outcome


def _loaded(outcome: NavigationOutcome | None, origin: AllowedOrigin, page: str) -> None:
    assert outcome is not None and (outcome.url, outcome.status) == (origin.url(page), 200), outcome


def _refused(driver: SeleniumDriver, handle: str, url: str, landed: str, mode: str) -> None:
    """Navigate to `url`, which leads to the refused `landed`: with both layers the BiDi guard stops it (an error
    naming both); with the proxy alone the browser gets there and is answered by the proxy's 403."""
    if mode == "both-layers":
        stopped = f"the navigation to {url} was stopped: it led to {landed}, which is not allowed"
        with pytest.raises(NavigationFailed) as caught:
            driver.navigate(handle, url)
        assert str(caught.value) == stopped
    else:
        outcome = driver.navigate(handle, url)
        assert (outcome.url, outcome.status) == (landed, 403), outcome


def _click_link(driver: SeleniumDriver, handle: str, element_id: str) -> None:
    rect = json.loads(
        driver.evaluate(handle, f"JSON.stringify(document.getElementById('{element_id}').getBoundingClientRect())")
    )
    driver.click(handle, Point(rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2))


# Each scenario opens its page (checked served), makes sure the page's own attempts ran, then leaves them a few
# seconds to reach anything they could before the listeners are read: that window is what the sleeps are for.


def _subresources(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    page = "hostile_subresources.html"
    # Firefox sends the <object>'s and <embed>'s requests under the page's own navigation: the page still loads
    _loaded(_open(driver, handle, origin, page), origin, page)
    # every one of the page's thirteen scripted attempts was made
    wait_until(lambda: driver.evaluate(handle, "JSON.stringify((window.hostileTries || []).length)") == "13", 30)
    time.sleep(3.0)
    # and its workers ran: the origin served their scripts (they were only stopped). A both-layers run reuses the
    # browser of its proxy-only run, where the service worker may already be registered: any request of this
    # module's origin counts.
    served = [path for _, path in origin.requests]
    for script in ("/hostile_worker.js?internal=", "/hostile_worker.js?shared=1", "/hostile_sw.js"):
        assert any(path.startswith(script) for path in served), f"the page never started {script}: {served}"
    return _references("hostile_subresources.html", "hostile_worker.js", "hostile_sw.js")


def _popups(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    page = "hostile_popups.html"
    _loaded(_open(driver, handle, origin, page), origin, page)
    # the page's window.open and its click on a target=_blank link each opened a tab
    wait_until(lambda: len(driver.list_tabs()) >= 3, timeout=30)
    _click_link(driver, handle, "same")
    time.sleep(1.5)
    return _references("hostile_popups.html")


def _meta_refresh(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    _open(driver, handle, origin, "hostile_meta_refresh.html")
    time.sleep(1.5)
    return 1


def _refresh_header(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    _open(driver, handle, origin, "refresh-header")
    time.sleep(1.5)
    return 1


def _redirect(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    mark = len(origin.requests)
    _refused(driver, handle, origin.url("redirect"), internal + "/redirected", mode)
    assert ("GET", "/redirect") in origin.requests[mark:], "the allowed origin never served the redirect"
    time.sleep(0.5)
    return 1


def _top_navigation(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    _open(driver, handle, origin, "hostile_top_navigation.html", may_be_cut_short=True)
    time.sleep(1.5)
    return 2


def _direct(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    _refused(driver, handle, internal + "/direct", internal + "/direct", mode)
    return 1


def _scripted(driver: SeleniumDriver, handle: str, origin: AllowedOrigin, internal: str, mode: str) -> int:
    """From a page of the allowed origin: fetches and sockets to both internal listeners, by address and by name."""
    page = "hostile_blank.html"
    _loaded(_open(driver, handle, origin, page), origin, page)
    targets = [internal, *_EXTRA_TARGETS, internal.replace("127.0.0.2", "localhost")]
    script = "(" + json.dumps(targets) + ").forEach(t => { fetch(t + '/scripted').catch(() => {}); " \
             "try { new WebSocket(t.replace('http', 'ws') + '/scripted-socket'); } catch (e) {} }); 'ran'"  # fmt: skip
    assert driver.evaluate(handle, script) == "ran"
    time.sleep(1.5)
    return 2 * len(targets)


_EXTRA_TARGETS: list[str] = []

SCENARIOS: dict[str, Callable[[SeleniumDriver, str, AllowedOrigin, str, str], int]] = {
    "subresources": _subresources,
    "popups-and-links": _popups,
    "redirect": _redirect,
    "top-navigation": _top_navigation,
    "direct-navigate": _direct,
    "scripted": _scripted,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_nothing_reaches_the_internal_listeners(
    driver: SeleniumDriver, origin: AllowedOrigin, internals: list[InternalListener], scenario: str, mode: str
) -> None:
    _EXTRA_TARGETS[:] = [listener.origin for listener in internals[1:]]
    _arm(driver, mode)
    handle = fresh_tab(driver)
    proxy = driver._session.proxy
    assert proxy is not None, "egress control is on by default for a local browser"
    refused_before = proxy.refused
    seen_before = [len(listener.connections) for listener in internals]
    try:
        behaviours = SCENARIOS[scenario](driver, handle, origin, internals[0].origin, mode)
        blocked = sum(isinstance(event, NavigationBlocked) for event in driver.drain_events())
    finally:
        _arm(driver, "both-layers")
        fresh_tab(driver)
    reached = [listener.connections[before:] for listener, before in zip(internals, seen_before, strict=True)]
    browser = driver.config.browser
    COUNTS[f"{browser}/{scenario}/{mode}"] = {
        "behaviours": behaviours,
        "proxy_refusals": proxy.refused - refused_before,
        "bidi_blocked": blocked,
        "internal_connections": sum(len(r) for r in reached),
    }
    print(f"\n[egress] {browser} {scenario} {mode}: {COUNTS[f'{browser}/{scenario}/{mode}']}")
    assert reached == [[] for _ in internals], f"the internal listeners were reached: {reached}"
    if mode == "proxy-only":
        assert proxy.refused > refused_before, "with the BiDi guard open, the proxy must have refused something"


REFRESHES = {"meta-refresh": _meta_refresh, "refresh-header": _refresh_header}


@pytest.mark.long
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", list(REFRESHES))
def test_refreshes_reach_nothing_and_answer_promptly(
    request: pytest.FixtureRequest,
    browser_name: str,
    origin: AllowedOrigin,
    internals: list[InternalListener],
    scenario: str,
    mode: str,
) -> None:
    """A refresh to the internal origin, on a browser of its own (a wedged browser must not spoil the others)."""
    require_browser(browser_name)  # type: ignore[arg-type]
    seen_before = [len(listener.connections) for listener in internals]
    config = SeleniumConfig(browser=browser_name, navigation_timeout=10, command_timeout=10)
    failure: DriverError | None = None
    with SeleniumDriver(config) as driver:
        # "Promptly": the navigation is answered from what happened, never by waiting out its deadline (the
        # navigator's late-outcome path, taken only when the browser's navigate command timed out).
        late: list[str] = []
        navigator = driver._navigation
        late_outcome = navigator._late_outcome

        def record_late(handle: str, url: str, since: int, timeout: float) -> NavigationOutcome:
            late.append(url)
            return late_outcome(handle, url, since, timeout)

        navigator._late_outcome = record_late  # type: ignore[method-assign]
        _arm(driver, mode)
        handle = driver.list_tabs()[0].handle
        try:
            REFRESHES[scenario](driver, handle, origin, internals[0].origin, mode)
            (tab,) = [info for info in driver.list_tabs() if info.handle == handle]
        except DriverError as exc:
            failure = exc
        else:
            print(f"\n[egress] {browser_name} {scenario} {mode}: tab at {tab.url}")
            if mode == "both-layers":  # the BiDi guard keeps the tab off the refused URL; the proxy alone shows a 403
                assert not tab.url.startswith(internals[0].origin)
    # even when the browser stopped answering, nothing reached the internal listeners
    reached = [listener.connections[before:] for listener, before in zip(internals, seen_before, strict=True)]
    assert reached == [[] for _ in internals], f"the internal listeners were reached: {reached}"
    assert failure is None, f"the browser stopped answering: {failure}"
    assert late == [], f"the navigation waited out its deadline: {late}"


@pytest.fixture(params=["chromium", pytest.param("firefox", marks=pytest.mark.firefox)])
def browser_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)
