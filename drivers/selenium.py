"""`SeleniumDriver`: the `Driver` protocol on Chromium, Chrome, Firefox or a Selenium Grid, through WebDriver BiDi.

Selenium starts the session (and finds nothing by itself: see `selenium_launch`); after that every call goes over
the session's BiDi socket, never through classic WebDriver HTTP commands. That is not a style choice: Chromium
deadlocks when a classic command triggers a navigation while a BiDi network intercept is active, and the URL guard
keeps one active for the whole session. BiDi is also the faster path (a click is one `input.performActions`
round trip instead of ActionChains' 250 ms pointer moves), and the same commands work on every browser, so no code
path here depends on which browser runs. Where a browser lacks a command (scrollbar overlay, CDP for auto-repeat),
the driver falls back and says so in its results, never pretending.
"""

from __future__ import annotations

import base64
import functools
import importlib.resources
import json
import logging
import shutil
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue, NavigationFailed, TabGone
from browser_toolset.values import (
    AXSnapshot,
    Capture,
    ConsoleEntry,
    DriverEvent,
    FormValue,
    HistoryAction,
    HoldOutcome,
    MouseButton,
    NavigationOutcome,
    NetworkEntry,
    Point,
    Size,
    TabInfo,
)

from . import selenium_input as keys
from .selenium_bidi import JSON, BidiConnection, BidiError, BidiTimeout
from .selenium_events import SUBSCRIBED_EVENTS, BrowserState, NavRecord
from .selenium_launch import LaunchedSession, SeleniumConfig, launch
from .selenium_values import ax_snapshot, decode, encode, render

__all__ = ["SeleniumConfig", "SeleniumDriver"]

log = logging.getLogger(__name__)

SANDBOX = "browser-toolset"
"""The walker runs in its own realm, so its element registry survives page scripts and pages cannot see it."""

AUTO_REPEAT_DELAY = 0.5
AUTO_REPEAT_INTERVAL = 1 / 30
"""Typical desktop keyboard settings: repeats start after half a second, thirty per second."""

KEY_SEPARATOR = "@"
"""Between the walker's element key and its document id in the keys the driver hands out."""

POPUP_PROBE_SECONDS = 0.5
"""How long a page-opened tab may take to answer a trivial script before it counts as stuck (see
`SeleniumDriver._check_popup`)."""

READABLE = ("domContentLoaded", "load", "failed", "aborted", "download")
"""Navigation stages after which the tab's document can be read (or after which no new one is coming)."""

_GONE_ERRORS = ("no such frame", "no such window")
_CONTEXT_LOST = (
    "no such realm",
    "cannot find context",
    "execution context was destroyed",
    "inspected target navigated",
)


@functools.cache
def walker_source() -> str:
    """The walker's JavaScript, read once per process."""
    return (importlib.resources.files("browser_toolset.drivers") / "walker.js").read_text("utf-8")


@functools.cache
def walker_call() -> str:
    """The walker wrapped so that every op but `element` returns one JSON string: a snapshot comes back several
    times faster as a string than as nested BiDi RemoteValues, and is parsed without recursing per DOM level.
    `element` must return the node itself, since acting on it needs the `sharedId` BiDi gives nodes."""
    return (
        "function (op, arg) {\n"
        f"  const result = ({walker_source().strip().rstrip(';')}\n)(op, arg);\n"
        "  return op === 'element' ? result : JSON.stringify(result === undefined ? null : result);\n"
        "}"
    )


def _png_size(png: bytes) -> Size | None:
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return Size(int(width), int(height))


def _flag(value: str, key: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"option {key}={value!r}: use true or false")


def _seconds(value: str, key: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"option {key}={value!r}: give a number of seconds") from None
    if seconds <= 0:
        raise ValueError(f"option {key}={value!r}: must be positive")
    return seconds


def _viewport_option(value: str) -> Size:
    try:
        width, height = (int(part) for part in value.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ValueError(f"option viewport={value!r}: use WIDTHxHEIGHT, such as 1280x800") from None
    return Size(width, height)


OPTION_KEYS: dict[str, str] = {
    "browser": "chromium, chrome or firefox (default chromium)",
    "remote": "a Selenium Grid / remote WebDriver URL; the browser runs there",
    "viewport": "WIDTHxHEIGHT in CSS pixels (default 1280x800)",
    "headless": "true or false (default true)",
    "download_dir": "folder for downloads (default: a temporary folder removed on close)",
    "browser_binary": "path of the browser executable",
    "driver_binary": "path of chromedriver / geckodriver",
    "dialogs": "dismiss or accept: how native dialogs are answered (default dismiss)",
    "navigation_timeout": "seconds a navigation may take (default 30)",
    "script_timeout": "seconds javascript_exec may take (default 30)",
    "args": "extra browser command-line arguments, separated by spaces",
}
"""The keys `from_options` understands (what `--driver selenium -o key=value` passes)."""


class SeleniumDriver(Driver):
    """A real browser behind the `Driver` protocol. See the module docstring for why everything goes over BiDi."""

    name: str

    def __init__(self, config: SeleniumConfig | None = None) -> None:
        self.config = config or SeleniumConfig()
        self.name = f"selenium-{self.config.browser}" + ("-remote" if self.config.remote_url else "")
        self._closed = False
        self._close_lock = threading.Lock()
        self._session: LaunchedSession = launch(self.config)
        self._cdp_sessions: dict[str, str] = {}
        self._scrollbars_overlay = self.config.family == "chromium"
        self._hidden: set[str] = set()
        """Tabs the driver keeps open but does not report: closing the last tab would end the session."""
        self._active: str | None = None
        self._active_lock = threading.Lock()
        self._documents: dict[str, tuple[str, int]] = {}
        """Per tab: the document its last snapshot read, and the commit count then (see `_local_key`)."""
        self._unsettled: dict[str, threading.Event] = {}
        """Page-opened tabs still being checked (see `_check_popup`): calls on them wait for the check."""
        try:
            self._conn = BidiConnection(self._session.websocket_url, timeout=self.config.command_timeout)
            self._state = BrowserState(
                self._conn,
                dialog_accept=self.config.dialog_policy == "accept",
                download_dir=None if self.config.remote_url else self._session.download_dir,
                on_new_tab=self._prepare_new_tab,
            )
            self._start()
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> SeleniumDriver:
        """The entry-point factory: string options (see `OPTION_KEYS`) to a started driver."""
        unknown = sorted(set(options) - set(OPTION_KEYS))
        if unknown:
            known = "; ".join(f"{key}: {meaning}" for key, meaning in OPTION_KEYS.items())
            raise ValueError(f"unknown selenium driver option(s) {', '.join(unknown)}. Known options: {known}")
        fields: dict[str, Any] = {}
        if "browser" in options:
            fields["browser"] = options["browser"].strip().lower()
        if options.get("remote"):
            fields["remote_url"] = options["remote"].strip()
        if "viewport" in options:
            fields["viewport"] = _viewport_option(options["viewport"])
        if "headless" in options:
            fields["headless"] = _flag(options["headless"], "headless")
        for key in ("download_dir", "browser_binary", "driver_binary"):
            if options.get(key):
                fields[key] = options[key]
        if "dialogs" in options:
            fields["dialog_policy"] = options["dialogs"].strip().lower()
        for key in ("navigation_timeout", "script_timeout"):
            if key in options:
                fields[key] = _seconds(options[key], key)
        if options.get("args"):
            fields["extra_args"] = tuple(options["args"].split())
        return cls(SeleniumConfig(**fields))

    # --- session start ------------------------------------------------------------------------------------------

    def _start(self) -> None:
        self._state.attach()
        tree = self._conn.command("browsingContext.getTree", {"maxDepth": 0})
        contexts = [c for c in tree.get("contexts", []) if isinstance(c, dict)]
        self._state.seed(contexts)
        self._subscribe()
        # From here on every request of every tab waits for the guard (which allows everything until one is set).
        self._conn.command("network.addIntercept", {"phases": ["beforeRequestSent"]})
        try:
            self._conn.command(
                "browser.setDownloadBehavior",
                {"downloadBehavior": {"type": "allowed", "destinationFolder": self._session.download_dir}},
            )
        except BidiError as exc:
            log.warning("the browser does not accept a download folder: %s", exc)
        for context in contexts:
            self._apply_viewport(str(context["context"]))
        if contexts:
            self._active = str(contexts[0]["context"])

    def _subscribe(self) -> None:
        try:
            self._conn.command("session.subscribe", {"events": list(SUBSCRIBED_EVENTS)})
        except BidiError:
            # One unknown event name fails the whole subscription; take what this browser has.
            for event in SUBSCRIBED_EVENTS:
                try:
                    self._conn.command("session.subscribe", {"events": [event]})
                except BidiError as exc:
                    log.info("%s cannot report %s: %s", self.name, event, exc)

    def _prepare_new_tab(self, handle: str, opener: str | None) -> None:
        """Runs on the event thread for every new tab, page-opened ones included: same viewport everywhere."""
        try:
            self._send_viewport(handle)
        except BidiError:
            log.debug("could not size the new tab %s", handle, exc_info=True)
        if opener is not None:
            done = threading.Event()
            self._unsettled[handle] = done
            threading.Thread(target=self._check_popup, args=(handle, done), name="check-popup", daemon=True).start()

    def _check_popup(self, handle: str, done: threading.Event) -> None:
        """Chromium's BiDi never answers commands addressed to a tab opened by `window.open` (scripts by context,
        input, screenshots) until that tab navigates again. Once the popup's first page is in, probe it; a popup
        that does not answer is reloaded, which brings it back."""
        try:
            started = time.monotonic()

            def first_page_in() -> bool:
                records = [r for r in self._state.navigations.values() if r.context == handle]
                if not self._state.is_tab(handle) or any(r.stage in ("load", "failed", "aborted") for r in records):
                    return True
                return not records and time.monotonic() - started > 1.0

            self._state.wait(first_page_in, self.config.navigation_timeout)
            if not self._state.is_tab(handle):
                return
            probe = {"expression": "0", "target": {"context": handle}, "awaitPromise": False}
            try:
                self._conn.command("script.evaluate", probe, timeout=POPUP_PROBE_SECONDS)
                return
            except BidiTimeout:
                log.info("the page-opened tab %s does not answer BiDi commands; reloading it", handle)
            self._conn.command(
                "browsingContext.reload",
                {"context": handle, "wait": "complete"},
                timeout=self.config.navigation_timeout,
            )
        except BidiError:
            log.debug("checking the page-opened tab %s failed", handle, exc_info=True)
        finally:
            done.set()
            self._unsettled.pop(handle, None)

    def _send_viewport(self, handle: str) -> None:
        size = self.config.viewport
        self._conn.send(
            "browsingContext.setViewport",
            {"context": handle, "viewport": {"width": size.width, "height": size.height}, "devicePixelRatio": 1},
        )
        if self._scrollbars_overlay:
            self._conn.send("emulation.setScrollbarTypeOverride", {"contexts": [handle], "scrollbarType": "overlay"})

    def _apply_viewport(self, handle: str) -> None:
        """Set the viewport and wait for it: the next capture must already have the exact size."""
        size = self.config.viewport
        self._command(
            handle,
            "browsingContext.setViewport",
            {"context": handle, "viewport": {"width": size.width, "height": size.height}, "devicePixelRatio": 1},
        )
        if self._scrollbars_overlay:
            try:
                # Classic scrollbars take 15 px from the layout viewport; overlay ones keep the page CSS width.
                self._conn.command(
                    "emulation.setScrollbarTypeOverride", {"contexts": [handle], "scrollbarType": "overlay"}
                )
            except BidiError as exc:
                log.info("%s keeps classic scrollbars: %s", self.name, exc)
                self._scrollbars_overlay = False

    # --- plumbing -----------------------------------------------------------------------------------------------

    def _command(self, handle: str, method: str, params: Mapping[str, Any], *, timeout: float | None = None) -> JSON:
        """A BiDi command about tab `handle`, with the errors that mean the tab is gone turned into `TabGone`."""
        try:
            return self._conn.command(
                method, params, timeout=timeout, abandon=lambda: None if self._state.is_tab(handle) else "no such frame"
            )
        except BidiTimeout:
            raise
        except BidiError as exc:
            if exc.error in _GONE_ERRORS:
                self._conn.settle(0.5)
                if not self._state.is_tab(handle):
                    raise TabGone(handle) from exc
            raise

    def _tab(self, handle: str) -> str:
        """`handle`, checked to be an open tab the driver reports (else `TabGone`) and ready for commands."""
        if handle in self._hidden or not self._state.is_tab(handle):
            self._conn.settle(0.5)
            if handle in self._hidden or not self._state.is_tab(handle):
                raise TabGone(handle)
        checking = self._unsettled.get(handle)
        if checking is not None:
            checking.wait(self.config.navigation_timeout + 5)
        return handle

    def _target(self, handle: str, *, sandbox: bool) -> dict[str, str]:
        target = {"context": handle}
        if sandbox:
            target["sandbox"] = SANDBOX
        return target

    def _script(
        self, handle: str, method: str, params: Mapping[str, Any], *, sandbox: bool, timeout: float | None = None
    ) -> JSON:
        """`script.evaluate` / `script.callFunction` in the tab's page realm or the driver's sandbox, targeting the
        realm by id when the browser announced it (see `BrowserState.realm_for`), else by context."""
        realm = self._state.realm_for(handle, SANDBOX if sandbox else "")
        if realm is not None:
            try:
                return self._command(handle, method, {**params, "target": {"realm": realm}}, timeout=timeout)
            except BidiTimeout:
                raise
            except BidiError:
                # The document (and its realm) went away between the announcement and the call.
                self._state.forget_realm(realm)
        return self._command(
            handle, method, {**params, "target": self._target(handle, sandbox=sandbox)}, timeout=timeout
        )

    def _walker(self, handle: str, op: str, arg: Mapping[str, Any], *, raw: bool = False) -> Any:
        """Call the walker's `op`. Returns the parsed JSON (or, with `raw`, the BiDi RemoteValue for `element`)."""
        self._tab(handle)
        params = {
            "functionDeclaration": walker_call(),
            "arguments": [{"type": "string", "value": op}, encode(dict(arg))],
            "awaitPromise": False,
            "resultOwnership": "none",
            "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 1},
        }
        for attempt in range(3):
            try:
                reply = self._script(
                    handle, "script.callFunction", params, sandbox=True, timeout=self.config.script_timeout
                )
            except BidiTimeout as exc:
                raise DriverError(f"the page did not answer within {self.config.script_timeout:g} seconds") from exc
            except BidiError as exc:
                if attempt < 2 and any(marker in exc.message.lower() for marker in _CONTEXT_LOST):
                    # The document was replaced under the call (a navigation): wait for the new one and retry.
                    self._wait_settled(handle, 5.0)
                    continue
                raise DriverError(f"the page walker failed: {exc.message or exc.error}") from exc
            if reply.get("type") == "exception":
                details = reply.get("exceptionDetails") or {}
                raise DriverError(f"the page walker failed: {details.get('text') or 'a script error'}")
            result = reply.get("result") or {}
            if raw:
                return result
            value = decode(result)
            if not isinstance(value, str):
                return value
            try:
                return json.loads(value)
            except (ValueError, RecursionError) as exc:
                raise DriverError("the page walker returned a result too deeply nested to read") from exc
        raise DriverError("the page kept navigating while it was being read")

    def _wait_settled(self, handle: str, timeout: float) -> None:
        """Wait for the tab's newest navigation (if one is under way) to load or end."""
        self._conn.settle(1.0)
        with self._state.lock:
            pending = [r for r in self._state.navigations.values() if r.context == handle and not r.blocked_url]
        if pending and pending[-1].stage in ("started", "committed"):
            self._wait_loaded(handle, pending[-1], timeout, READABLE)

    def _wait_loaded(self, handle: str, record: NavRecord, timeout: float, stages: tuple[str, ...]) -> bool:
        """Wait for a navigation to reach `stages`. A document that committed under another navigation id (a
        back/forward-cache restore) sends no load event: its `readyState` says when it is ready."""
        deadline = time.monotonic() + timeout
        if not self._state.wait_navigation(record, timeout, stages):
            return False
        if record.stage in stages or record.stage in ("failed", "aborted", "download"):
            return True
        while time.monotonic() < deadline:
            if self._ready_state(handle) == "complete":
                return True
            time.sleep(0.05)
        return False

    def _ready_state(self, handle: str) -> str:
        value = self._peek(handle, "document.readyState", timeout=2)
        return value if isinstance(value, str) else ""

    def _peek(
        self, handle: str, expression: str, *, timeout: float, await_promise: bool = False, sandbox: bool = True
    ) -> Any:
        """A value read from the tab's document (in the driver's sandbox by default, where page scripts cannot fake
        it), or None when the tab cannot answer right now (navigating, closing)."""
        params = {"expression": expression, "awaitPromise": await_promise, "resultOwnership": "none"}
        try:
            reply = self._script(handle, "script.evaluate", params, sandbox=sandbox, timeout=timeout)
        except (BidiError, DriverError):
            return None
        return decode(reply.get("result")) if reply.get("type") == "success" else None

    def _perform(self, handle: str, actions: list[dict[str, Any]], *, timeout: float | None = None) -> None:
        self._tab(handle)
        since = self._state.seq
        try:
            self._command(handle, "input.performActions", {"context": handle, "actions": actions}, timeout=timeout)
        except BidiTimeout as exc:
            raise DriverError("the browser did not finish the input actions in time") from exc
        except BidiError as exc:
            if exc.error == "move target out of bounds":
                raise DriverError("the point is outside the page's viewport") from exc
            raise DriverError(f"the browser refused the input: {exc.message or exc.error}") from exc
        self._after_input(handle, since)

    def _after_input(self, handle: str, since: int) -> None:
        """When the input started a navigation of the tab, wait until the new document is readable, so the next
        call does not read the old one (or fail halfway through the switch)."""
        started = self._state.navigations_since(handle, since, refused=False)
        if not started:
            # A navigation the input caused can be announced a few milliseconds after the input's reply: one
            # round trip through the page gives it that time.
            self._peek(handle, "0", timeout=2)
            self._conn.settle(1.0)
            started = self._state.navigations_since(handle, since, refused=False)
        if started:
            self._wait_loaded(handle, started[-1], self.config.navigation_timeout, READABLE)

    def _page_state(self, handle: str, *, title: bool = True) -> tuple[str, str]:
        """The tab's URL (as the browser reports it) and title."""
        url = ""
        try:
            tree = self._command(handle, "browsingContext.getTree", {"root": handle, "maxDepth": 0}, timeout=5)
            contexts = tree.get("contexts") or []
            if contexts:
                url = str(contexts[0].get("url") or "")
        except BidiTimeout:
            pass
        except BidiError as exc:
            if exc.error in _GONE_ERRORS:
                raise TabGone(handle) from exc
        return url, self._title(handle) if title else ""

    def _title(self, handle: str) -> str:
        for _ in range(3):
            # The page's own realm: a title is the page's to set anyway, and that realm is announced (so addressable
            # by id) even in a popup Chromium has not yet made answer by context (see `_check_popup`).
            value = self._peek(handle, "document.title", timeout=3, sandbox=False)
            if isinstance(value, str):
                return value
            if not self._state.is_tab(handle):
                break
            time.sleep(0.05)
        return ""

    # --- tabs -----------------------------------------------------------------------------------------------------

    def list_tabs(self) -> list[TabInfo]:
        self._conn.settle(0.5)
        tree = self._conn.command("browsingContext.getTree", {"maxDepth": 0})
        listed: list[tuple[str, str]] = []
        for context in tree.get("contexts") or []:
            handle = str(context.get("context"))
            if handle in self._hidden:
                continue
            listed.append((handle, str(context.get("url") or "")))
        active = self._active_handle()
        return [TabInfo(handle, url, self._title(handle), active=handle == active) for handle, url in listed]

    def _active_handle(self) -> str | None:
        self._conn.settle(0.5)
        with self._state.lock:
            visible = [h for h in self._state.tabs if h not in self._hidden]
            popup = self._state.popup_active
        with self._active_lock:
            if popup is not None and popup in visible:
                # A page brought a new tab to the front after the driver last chose one.
                self._active = popup
                with self._state.lock:
                    self._state.popup_active = None
            if self._active in visible:
                return self._active
        if not visible:
            return None
        for handle in visible:
            if self._is_foreground(handle):
                return handle
        return visible[-1]

    def _is_foreground(self, handle: str) -> bool:
        return self._peek(handle, "document.visibilityState === 'visible'", timeout=2) is True

    def _set_active(self, handle: str | None) -> None:
        with self._active_lock:
            self._active = handle
            with self._state.lock:
                self._state.popup_active = None

    def open_tab(self) -> str:
        parked = next(iter(self._hidden), None)
        if parked is not None and self._state.is_tab(parked):
            handle = parked
            self._hidden.discard(handle)
            self._command(handle, "browsingContext.activate", {"context": handle})
        else:
            reply = self._conn.command("browsingContext.create", {"type": "tab"})
            handle = str(reply["context"])
        with self._state.lock:
            self._state.own.add(handle)
        self._apply_viewport(handle)
        self._set_active(handle)
        if parked is not None:
            self._navigate_blank(handle)
        return handle

    def _navigate_blank(self, handle: str) -> None:
        try:
            self._command(
                handle, "browsingContext.navigate", {"context": handle, "url": "about:blank", "wait": "complete"}
            )
        except BidiError:
            log.debug("could not blank %s", handle, exc_info=True)

    def activate_tab(self, handle: str) -> None:
        self._tab(handle)
        self._command(handle, "browsingContext.activate", {"context": handle})
        self._set_active(handle)

    def close_tab(self, handle: str) -> None:
        self._tab(handle)
        with self._state.lock:
            others = [h for h in self._state.tabs if h != handle and h not in self._hidden]
            self._state.closing.add(handle)
        if not others and not self._hidden:
            # Browsers end the session with their last tab; keep an unreported one open instead.
            reply = self._conn.command("browsingContext.create", {"type": "tab", "background": True})
            parked = str(reply["context"])
            self._hidden.add(parked)
            with self._state.lock:
                self._state.own.add(parked)
        try:
            self._command(handle, "browsingContext.close", {"context": handle, "promptUnload": False})
        except TabGone:
            pass  # gone before the reply came: closed, as asked
        except BidiError as exc:
            with self._state.lock:
                self._state.closing.discard(handle)
            raise DriverError(f"the browser did not close the tab: {exc.message or exc.error}") from exc
        self._state.wait(lambda: handle not in self._state.contexts, 5.0)
        with self._active_lock:
            if self._active == handle:
                self._active = None
        self._cdp_sessions.pop(handle, None)
        self._documents.pop(handle, None)

    # --- navigation -------------------------------------------------------------------------------------------------

    def set_url_guard(self, allows: Callable[[str], bool]) -> None:
        with self._state.lock:
            self._state.guard = allows

    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        self._tab(handle)
        since = self._state.seq
        timeout = self.config.navigation_timeout
        params = {"context": handle, "url": url, "wait": "complete"}
        for attempt in range(2):
            try:
                reply = self._command(handle, "browsingContext.navigate", params, timeout=timeout)
                break
            except BidiTimeout:
                return self._late_outcome(handle, url, since, timeout)
            except BidiError as exc:
                if attempt == 0 and "concurrent navigation" in exc.message:
                    # The page (or the guard taking a tab off a refused URL) navigated at the same moment: let that
                    # one finish, then go where asked.
                    self._wait_settled(handle, timeout)
                    since = self._state.seq
                    continue
                return self._failed_navigation(handle, url, since, exc)
        self._conn.settle(1.0)
        navigation = str(reply.get("navigation") or "")
        record = self._state.navigations.get(navigation)
        if record is not None and record.blocked_url:
            raise self._blocked(handle, url, record.blocked_url)
        current, title = self._page_state(handle)
        return NavigationOutcome(current or str(reply.get("url") or url), record.status if record else None, title)

    def _blocked(self, handle: str, url: str, blocked: str) -> NavigationFailed:
        """The error for a navigation the guard stopped, once the tab is back off the error page the browser showed
        at the refused URL (the guard's undo does that; the tab must never be left showing that address)."""
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            current, _ = self._page_state(handle, title=False)
            if current != blocked:
                break
            time.sleep(0.1)
        return NavigationFailed(f"the navigation to {url} was stopped: it led to {blocked}, which is not allowed")

    def _late_outcome(self, handle: str, url: str, since: int, timeout: float) -> NavigationOutcome:
        """The navigation outlived its timeout. A page whose document is in, still loading some subresource, is
        usable; a page that never arrived is a failure."""
        self._conn.settle(1.0)
        records = self._state.navigations_since(handle, since)
        record = records[-1] if records else None
        if record is not None and record.stage in ("domContentLoaded", "load"):
            current, title = self._page_state(handle)
            return NavigationOutcome(current, record.status, title)
        raise NavigationFailed(f"Navigation to {url} timed out after {timeout:g} seconds. The page may be unavailable.")

    def _failed_navigation(self, handle: str, url: str, since: int, exc: BidiError) -> NavigationOutcome:
        self._conn.settle(1.0)
        self._state.wait_error_page(handle, since)
        if not self._state.is_tab(handle):
            raise TabGone(handle) from exc
        records = self._state.navigations_since(handle, since)
        for record in records:
            if record.blocked_url:
                raise self._blocked(handle, url, record.blocked_url) from exc
        if "abort" in (exc.message or "").lower() and not any(r.stage == "download" for r in records):
            # A URL that turns out to be a file aborts the navigation just before the download begins.
            self._state.wait(
                lambda: any(r.stage == "download" for r in self._state.navigations_since(handle, since)), 2.0
            )
            records = self._state.navigations_since(handle, since)
        if any(record.stage == "download" for record in records):
            # The URL was a file: the browser downloads it and the tab stays where it was.
            current, title = self._page_state(handle)
            return NavigationOutcome(current, None, title)
        reason = exc.message or exc.error
        raise NavigationFailed(f"could not load {url}: {reason}") from exc

    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        self._tab(handle)
        since = self._state.seq
        timeout = self.config.navigation_timeout
        if action == "reload":
            try:
                reply = self._command(
                    handle, "browsingContext.reload", {"context": handle, "wait": "complete"}, timeout=timeout
                )
            except BidiTimeout:
                return self._late_outcome(handle, "the reloaded page", since, timeout)
            except BidiError as exc:
                return self._failed_navigation(handle, "the page", since, exc)
            self._conn.settle(1.0)
            record = self._state.navigations.get(str(reply.get("navigation") or ""))
            current, title = self._page_state(handle)
            return NavigationOutcome(current, record.status if record else None, title)
        delta = -1 if action == "back" else 1
        try:
            self._command(
                handle, "browsingContext.traverseHistory", {"context": handle, "delta": delta}, timeout=timeout
            )
        except BidiError as exc:
            if exc.error != "no such history entry":
                raise DriverError(f"could not go {action}: {exc.message or exc.error}") from exc
            current, title = self._page_state(handle)
            return NavigationOutcome(current, None, title)
        # The traversal returns once it has started; a cross-document one then loads like any navigation.
        self._conn.settle(1.0)
        records = self._state.navigations_since(handle, since)
        if not records:
            self._state.wait(lambda: bool(self._state.navigations_since(handle, since)), 0.2)
            records = self._state.navigations_since(handle, since)
        status = None
        if records:
            record = records[-1]
            if not self._wait_loaded(handle, record, timeout, ("load", "failed", "aborted", "download")):
                return self._late_outcome(handle, f"the {action} page", since, timeout)
            if record.stage == "failed":
                self._state.wait_error_page(handle, record.seq)
            status = record.status
        current, title = self._page_state(handle)
        return NavigationOutcome(current, status, title)

    # --- capture ----------------------------------------------------------------------------------------------------

    def viewport(self, handle: str) -> Size:
        self._tab(handle)
        return self.config.viewport

    def capture(self, handle: str) -> Capture:
        self._tab(handle)
        with self._active_lock:
            previous = self._active
        switched = previous != handle
        if switched:
            # A background tab is not painted: bring it forward for the capture, then put the user's tab back.
            self._command(handle, "browsingContext.activate", {"context": handle})
        try:
            png = self._screenshot(handle)
            size = _png_size(png)
            if size != self.config.viewport:
                log.info("capture of %s was %s; resizing the viewport and capturing again", handle, size)
                self._apply_viewport(handle)
                png = self._screenshot(handle)
                size = _png_size(png)
                if size != self.config.viewport:
                    raise DriverError(
                        f"the browser captured {size} pixels instead of the {self.config.viewport} viewport"
                    )
        finally:
            if switched and previous is not None and self._state.is_tab(previous):
                try:
                    self._conn.command("browsingContext.activate", {"context": previous})
                except BidiError:
                    log.debug("could not re-activate %s", previous, exc_info=True)
        return Capture(png=png, viewport=self.config.viewport)

    def _screenshot(self, handle: str) -> bytes:
        try:
            reply = self._command(
                handle, "browsingContext.captureScreenshot", {"context": handle, "origin": "viewport"}, timeout=20
            )
        except BidiTimeout as exc:
            raise DriverError("the browser did not capture the page within 20 seconds") from exc
        except BidiError as exc:
            raise DriverError(f"the browser could not capture the page: {exc.message or exc.error}") from exc
        return base64.b64decode(str(reply.get("data") or ""))

    # --- pointer ------------------------------------------------------------------------------------------------------

    def click(
        self, handle: str, point: Point, *, button: MouseButton = "left", count: int = 1, modifiers: Sequence[str] = ()
    ) -> None:
        self._perform(handle, keys.click_actions(point, self.config.viewport, button, max(1, count), modifiers))

    def move(self, handle: str, point: Point) -> None:
        self._perform(handle, keys.move_actions(point, self.config.viewport))

    def mouse_down(self, handle: str, point: Point) -> None:
        self._perform(handle, keys.pointer_button_actions(point, self.config.viewport, "left", down=True))

    def mouse_up(self, handle: str, point: Point) -> None:
        self._perform(handle, keys.pointer_button_actions(point, self.config.viewport, "left", down=False))

    def drag(self, handle: str, start: Point, end: Point) -> None:
        self._perform(handle, keys.drag_actions(start, end, self.config.viewport))

    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        self._perform(handle, keys.wheel_actions(point, self.config.viewport, delta_x, delta_y))
        # Scrolling is asynchronous: let the page apply it before anything reads positions or captures.
        self._wait_frames(handle)

    def _wait_frames(self, handle: str) -> None:
        expression = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))"
        self._peek(handle, expression, timeout=2, await_promise=True)

    # --- keyboard -----------------------------------------------------------------------------------------------

    def type_text(self, handle: str, text: str) -> None:
        if text:
            self._perform(handle, keys.type_actions(text))

    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        self._perform(handle, keys.key_actions(chord))

    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        self._tab(handle)
        if not chord:
            time.sleep(max(0.0, seconds))
            return HoldOutcome(repeated=False)
        session = self._cdp_session(handle)
        if session is not None:
            return self._hold_with_cdp(handle, session, chord, seconds)
        self._perform(handle, keys.key_actions(chord, up=False))
        try:
            time.sleep(max(0.0, seconds))
        finally:
            self._perform(handle, keys.key_actions(chord, down=False))
        return HoldOutcome(repeated=False)

    def _cdp_session(self, handle: str) -> str | None:
        """A CDP session for the tab through BiDi's `goog:cdp` extension (Chromium only). Over BiDi, not
        `execute_cdp_cmd`, so no classic HTTP command can ever wait on a navigation the intercept holds."""
        if self.config.family != "chromium":
            return None
        if handle not in self._cdp_sessions:
            try:
                reply = self._command(handle, "goog:cdp.getSession", {"context": handle}, timeout=5)
            except BidiError:
                log.info("%s offers no CDP session; keys are held without auto-repeat", self.name)
                return None
            self._cdp_sessions[handle] = str(reply.get("session"))
        return self._cdp_sessions[handle]

    def _cdp_key_event(self, session: str, kind: str, key: keys.CdpKey, modifiers: int, repeat: bool = False) -> None:
        params: dict[str, Any] = {
            "type": kind,
            "key": key.key,
            "code": key.code,
            "windowsVirtualKeyCode": key.key_code,
            "nativeVirtualKeyCode": key.key_code,
            "modifiers": modifiers,
            "autoRepeat": repeat,
        }
        # With Control, Alt or Meta down a key is a shortcut and types nothing, as on a real keyboard.
        if kind == "keyDown" and key.text and not modifiers & ~8:
            params["text"] = key.text
            params["unmodifiedText"] = key.text
        self._conn.command(
            "goog:cdp.sendCommand",
            {"method": "Input.dispatchKeyEvent", "params": params, "session": session},
            timeout=5,
        )

    def _hold_with_cdp(self, handle: str, session: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        """Press the chord, repeat its last key the way a keyboard does while held, release in reverse."""
        described = [keys.cdp_key(name) for name in chord]
        pressed: list[tuple[keys.CdpKey, int]] = []
        modifiers = 0
        repeats = 0
        since = self._state.seq
        try:
            for name, key in zip(chord, described):
                modifiers |= keys.cdp_modifier_bit(name)
                self._cdp_key_event(session, "keyDown" if key.text else "rawKeyDown", key, modifiers)
                pressed.append((key, keys.cdp_modifier_bit(name)))
            main = described[-1]
            start = time.monotonic()
            deadline = start + max(0.0, seconds)
            next_repeat = start + AUTO_REPEAT_DELAY
            while True:
                now = time.monotonic()
                if now >= deadline:
                    break
                if now >= next_repeat:
                    self._cdp_key_event(session, "keyDown" if main.text else "rawKeyDown", main, modifiers, True)
                    repeats += 1
                    next_repeat += AUTO_REPEAT_INTERVAL
                time.sleep(max(0.0, min(next_repeat, deadline) - time.monotonic()))
        except BidiError as exc:
            raise DriverError(f"the browser refused the key events: {exc.message or exc.error}") from exc
        finally:
            for key, bit in reversed(pressed):
                try:
                    self._cdp_key_event(session, "keyUp", key, modifiers)
                except BidiError:
                    log.debug("could not release %s", key.key, exc_info=True)
                modifiers &= ~bit
        self._after_input(handle, since)
        return HoldOutcome(repeated=repeats > 0)

    # --- accessibility tree and elements --------------------------------------------------------------------------

    def snapshot(self, handle: str) -> AXSnapshot:
        for _ in range(3):
            self._conn.settle(1.0)
            committed = self._state.committed(handle)
            raw = self._walker(handle, "snapshot", {})
            self._conn.settle(1.0)
            if self._state.committed(handle) == committed:
                break
            # A document committed while the page was read: the tree may be either one's. Read again.
            self._wait_settled(handle, self.config.navigation_timeout)
        document = str(raw.get("document") or "") if isinstance(raw, dict) else ""
        # Noted before the walk: a document that commits during it makes these keys stale, never the reverse.
        self._documents[handle] = (document, committed)
        return ax_snapshot(raw, lambda key: f"{key}{KEY_SEPARATOR}{document}")

    def _local_key(self, handle: str, key: str) -> str:
        """The walker's own key inside a driver key. The walker numbers elements afresh in every document, so its
        key alone could name an unrelated element of the page that replaced the one it came from; the driver's
        key carries its document, and a key from any document but the tab's current one is `ElementGone`."""
        local, separator, document = key.rpartition(KEY_SEPARATOR)
        if not separator:
            return key
        known = self._documents.get(handle)
        if known is None or known[0] != document or self._state.committed(handle) != known[1]:
            raise ElementGone(key)
        return local

    def element_center(self, handle: str, key: str) -> Point:
        result = self._walker(handle, "center", {"key": self._local_key(handle, key)})
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise DriverError(str(result["error"]))
        if not (isinstance(result, dict) and isinstance(result.get("x"), (int, float))):
            raise DriverError("the page walker returned no position for the element")
        return Point(float(result["x"]), float(result["y"]))

    def scroll_into_view(self, handle: str, key: str) -> None:
        if self._walker(handle, "scrollIntoView", {"key": self._local_key(handle, key)}) is None:
            raise ElementGone(key)

    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        result = self._walker(handle, "setValue", {"key": self._local_key(handle, key), "value": value})
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise InvalidValue(str(result["error"]))
        if not isinstance(result, dict) or "value" not in result:
            raise DriverError("the page walker did not report the new value")
        return "" if result["value"] is None else str(result["value"])

    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        element = self._walker(handle, "element", {"key": self._local_key(handle, key)}, raw=True)
        if not isinstance(element, dict) or element.get("type") != "node" or not element.get("sharedId"):
            raise ElementGone(key)
        try:
            self._command(
                handle,
                "input.setFiles",
                {"context": handle, "element": {"sharedId": element["sharedId"]}, "files": list(paths)},
            )
        except BidiError as exc:
            if exc.error in ("unable to set file input", "invalid argument"):
                raise InvalidValue(f"the files could not be set: {exc.message or exc.error}") from exc
            if exc.error == "no such element":
                raise ElementGone(key) from exc
            raise DriverError(f"the browser could not set the files: {exc.message or exc.error}") from exc

    # --- page content, diagnostics, scripting --------------------------------------------------------------------

    def page_text(self, handle: str) -> str:
        text = self._walker(handle, "text", {})
        return text if isinstance(text, str) else ""

    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        self._tab(handle)
        self._conn.settle(1.0)
        entries = self._state.drain_console(handle)
        if entries is None:
            raise TabGone(handle)
        return entries

    def drain_network(self, handle: str) -> list[NetworkEntry]:
        self._tab(handle)
        self._conn.settle(1.0)
        entries = self._state.drain_network(handle)
        if entries is None:
            raise TabGone(handle)
        return entries

    def evaluate(self, handle: str, expression: str) -> str:
        self._tab(handle)
        params = {
            "expression": expression,
            "awaitPromise": True,
            "resultOwnership": "none",
            "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 4},
        }
        timeout = self.config.script_timeout
        since = self._state.seq
        try:
            reply = self._script(handle, "script.evaluate", params, sandbox=False, timeout=timeout)
        except BidiTimeout as exc:
            raise DriverError(f"the script did not finish within {timeout:g} seconds") from exc
        except BidiError as exc:
            if any(marker in exc.message.lower() for marker in _CONTEXT_LOST):
                self._after_input(handle, since)
                return "undefined (the page navigated while the script ran)"
            raise DriverError(f"the browser could not run the script: {exc.message or exc.error}") from exc
        if reply.get("type") == "exception":
            details = reply.get("exceptionDetails") or {}
            text = str(details.get("text") or "")
            exception = details.get("exception")
            if not text and isinstance(exception, dict):
                text = render(exception)
            raise DriverError(f"the script threw: {text or 'an exception'}")
        self._after_input(handle, since)
        return render(reply.get("result"))

    # --- events -------------------------------------------------------------------------------------------------------

    def drain_events(self) -> list[DriverEvent]:
        self._conn.settle(1.0)
        return self._state.drain_events()

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
        session = getattr(self, "_session", None)
        if session is None:
            return
        try:
            session.webdriver.quit()
        except Exception:  # the browser may already be gone; closing must not fail
            log.debug("quitting the WebDriver session failed", exc_info=True)
        for folder in session.temp_dirs:
            shutil.rmtree(folder, ignore_errors=True)

    def __enter__(self) -> SeleniumDriver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
