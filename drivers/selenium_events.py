"""What the browser reports by itself, turned into the driver's state: tabs, navigations, downloads, dialogs,
console and network buffers, and the URL guard.

Every handler here runs on the BiDi dispatcher thread, in the order the browser sent its events, so a handler may
rely on `contextCreated` having been seen before anything else about that context. Handlers answer the browser
with fire-and-forget commands only (continuing an intercepted request, answering a prompt): the dispatcher must
keep moving, since every intercepted request of every tab waits for it. Work that needs replies (undoing a refused
navigation) runs on a short-lived thread of its own. The driver's calls read the state under `lock`, after
`BidiConnection.settle` when they need the events that preceded a reply.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

import attrs

from browser_toolset.values import (
    ConsoleEntry,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    NavigationBlocked,
    NetworkEntry,
    TabClosed,
    TabOpened,
)

from .selenium_bidi import JSON, BidiConnection, BidiError

__all__ = ["SUBSCRIBED_EVENTS", "BrowserState", "NavRecord"]

log = logging.getLogger(__name__)

SUBSCRIBED_EVENTS: tuple[str, ...] = (
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
    "browsingContext.navigationStarted",
    "browsingContext.navigationCommitted",
    "browsingContext.navigationFailed",
    "browsingContext.navigationAborted",
    "browsingContext.fragmentNavigated",
    "browsingContext.historyUpdated",
    "browsingContext.domContentLoaded",
    "browsingContext.load",
    "browsingContext.userPromptOpened",
    "browsingContext.downloadWillBegin",
    "browsingContext.downloadEnd",
    "network.beforeRequestSent",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
    "log.entryAdded",
    "script.realmCreated",
    "script.realmDestroyed",
)

MAX_BUFFERED = 1000
"""Console and network entries kept per tab between drains; the oldest go first. A chatty page must not grow the
driver's memory without bound while nobody reads."""
MAX_ENTRY_CHARS = 4096
"""Longest URL or console text kept (a `data:` URL can be megabytes)."""
MAX_NAVIGATIONS = 500

_TERMINAL = ("load", "failed", "aborted", "download")
_EXEMPT_SCHEMES = ("http", "https", "about", "chrome-error", "moz-extension", "chrome-extension")
"""Schemes `navigationStarted` does not need to guard: http(s) goes through the network intercept, `about:` pages
load nothing (blank, srcdoc, the browsers' own error pages), and the error and extension schemes are the browser's
own documents."""


def _now_ms() -> float:
    return time.time() * 1000


def _clip(text: str) -> str:
    return text if len(text) <= MAX_ENTRY_CHARS else text[:MAX_ENTRY_CHARS] + "…"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _duration(timings: Mapping[str, Any]) -> float | None:
    """A request's duration from its BiDi timings: Chromium gives them relative to `timeOrigin` (with
    `requestTime` 0), Firefox as epoch times; `responseEnd - requestTime` is right for both."""
    end, start = timings.get("responseEnd") or timings.get("responseStart"), timings.get("requestTime")
    if not isinstance(end, (int, float)) or not isinstance(start, (int, float)) or end <= 0 or end < start:
        return None
    return round(float(end) - float(start), 1)


def _timestamp(params: Mapping[str, Any]) -> float:
    value = params.get("timestamp")
    return float(value) if isinstance(value, (int, float)) else _now_ms()


@attrs.define
class NavRecord:
    """One navigation as its events describe it. `stage` is the furthest it got: started, committed,
    domContentLoaded, load, or how it ended otherwise (failed, aborted, download)."""

    navigation: str
    context: str
    url: str
    seq: int
    stage: str = "started"
    status: int | None = None
    blocked_url: str | None = None
    error: str = ""


@attrs.define
class _Context:
    handle: str
    parent: str | None
    top: str
    url: str = "about:blank"
    committed_seq: int = 0
    loaded_seq: int = 0
    """When a document last finished loading in this context (a browser's error page included)."""
    """When a document last committed in this context (Chromium commits a back/forward-cache restore under
    another navigation id than the one it started with, and sends no load event for it)."""


@attrs.define
class _Download:
    key: str
    url: str
    context: str | None
    navigation: str | None
    done: bool = False


class BrowserState:
    """The driver's view of the browser, fed by BiDi events. Thread-safe; see the module docstring."""

    def __init__(
        self,
        connection: BidiConnection,
        *,
        dialog_accept: bool,
        download_dir: str | None,
        on_new_tab: Callable[[str, str | None], None],
    ) -> None:
        self._conn = connection
        self._dialog_accept = dialog_accept
        self._download_dir = download_dir
        self._on_new_tab = on_new_tab
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self._seq = itertools.count(1)
        self.seq = 0
        self.contexts: dict[str, _Context] = {}
        self.tabs: list[str] = []
        """Top-level contexts in the order they appeared."""
        self.own: set[str] = set()
        """Tabs the driver opened itself (never reported as `TabOpened`)."""
        self.closing: set[str] = set()
        """Tabs the driver is closing (never reported as `TabClosed`)."""
        self.popup_active: str | None = None
        """The newest tab a page opened: browsers bring those to the front."""
        self.guard: Callable[[str], bool] | None = None
        self._events: list[tuple[int, DriverEvent]] = []
        self._console: dict[str, deque[ConsoleEntry]] = {}
        self._network: dict[str, deque[NetworkEntry]] = {}
        self._request_started: dict[str, float] = {}
        self._open_entries: dict[str, NetworkEntry] = {}
        """Entries of responses that started but have not completed, by request id and redirect count."""
        self._content_length: dict[str, int] = {}
        self.navigations: dict[str, NavRecord] = {}
        self._downloads: dict[str, _Download] = {}
        self._download_ids = itertools.count(1)
        self._realms: dict[tuple[str, str], str] = {}
        """(context, sandbox name or "") -> the realm of the context's current document."""

    # --- wiring -------------------------------------------------------------------------------------------------

    def attach(self) -> None:
        """Register every handler on the connection (before subscribing, so nothing is missed)."""
        handlers: dict[str, Callable[[JSON], None]] = {
            "browsingContext.contextCreated": self._context_created,
            "browsingContext.contextDestroyed": self._context_destroyed,
            "browsingContext.navigationStarted": self._navigation_started,
            "browsingContext.navigationCommitted": lambda p: self._navigation_stage(p, "committed"),
            "browsingContext.domContentLoaded": lambda p: self._navigation_stage(p, "domContentLoaded"),
            "browsingContext.load": lambda p: self._navigation_stage(p, "load"),
            "browsingContext.navigationFailed": lambda p: self._navigation_stage(p, "failed"),
            "browsingContext.navigationAborted": lambda p: self._navigation_stage(p, "aborted"),
            "browsingContext.fragmentNavigated": self._same_document,
            "browsingContext.historyUpdated": self._same_document,
            "browsingContext.userPromptOpened": self._prompt_opened,
            "browsingContext.downloadWillBegin": self._download_began,
            "browsingContext.downloadEnd": self._download_ended,
            "network.beforeRequestSent": self._request_sent,
            "network.responseStarted": self._response_started,
            "network.responseCompleted": self._response_completed,
            "network.fetchError": self._fetch_error,
            "log.entryAdded": self._log_entry,
            "script.realmCreated": self._realm_created,
            "script.realmDestroyed": self._realm_destroyed,
        }
        for method, handler in handlers.items():
            self._conn.on(method, handler)

    def seed(self, contexts: Iterable[Mapping[str, Any]]) -> None:
        """Record the contexts that existed before the subscription (`browsingContext.getTree`), so their replayed
        `contextCreated` events are not mistaken for tabs a page opened."""
        with self.lock:
            for info in contexts:
                handle = str(info["context"])
                self.own.add(handle)
                self._add_context(handle, None, str(info.get("url") or "about:blank"))

    def _bump(self) -> int:
        """A new sequence number, with waiters woken. Call under `lock`."""
        self.seq = next(self._seq)
        self.changed.notify_all()
        return self.seq

    def _emit(self, event: DriverEvent) -> None:
        with self.lock:
            self._events.append((self._bump(), event))

    def top_of(self, handle: str | None) -> str | None:
        with self.lock:
            context = self.contexts.get(handle or "")
            return context.top if context else None

    def committed(self, handle: str) -> int:
        """The sequence number of the last document commit in `handle` (0 when none was seen)."""
        with self.lock:
            context = self.contexts.get(handle)
            return context.committed_seq if context else -1

    def wait_error_page(self, handle: str, since: int, timeout: float = 1.0) -> None:
        """After a failed navigation, wait for the browser's error page to finish loading. Chromium wedges its whole
        BiDi session now and then when a new navigation with an active network intercept interrupts an error page
        that is still loading, so the next navigation must not start before it is in."""

        def error_page_in() -> bool:
            context = self.contexts.get(handle)
            return context is None or context.loaded_seq > since

        self.wait(error_page_in, timeout)

    def is_tab(self, handle: str) -> bool:
        with self.lock:
            return handle in self.contexts and self.contexts[handle].parent is None

    # --- tabs -----------------------------------------------------------------------------------------------------

    def _add_context(self, handle: str, parent: str | None, url: str) -> bool:
        if handle in self.contexts:
            return False
        top = self.contexts[parent].top if parent and parent in self.contexts else (parent or handle)
        self.contexts[handle] = _Context(handle, parent, top if parent else handle, url)
        if parent is None:
            self.tabs.append(handle)
            self._console[handle] = deque(maxlen=MAX_BUFFERED)
            self._network[handle] = deque(maxlen=MAX_BUFFERED)
        return True

    def _context_created(self, params: JSON) -> None:
        handle = str(params.get("context"))
        parent = params.get("parent")
        opener = params.get("originalOpener")
        with self.lock:
            if not self._add_context(handle, parent, str(params.get("url") or "about:blank")):
                return
            self._bump()
            if parent is not None:
                return
            if opener:
                self.popup_active = handle
            # Tabs the driver opens are filtered out when drained: this event can overtake the reply that tells
            # the driver the new tab's handle.
            self._events.append((self.seq, TabOpened(handle, str(opener) if opener else None)))
        self._on_new_tab(handle, str(opener) if opener else None)

    def _context_destroyed(self, params: JSON) -> None:
        handle = str(params.get("context"))
        with self.lock:
            context = self.contexts.get(handle)
            if context is None:
                return
            gone = [h for h, c in self.contexts.items() if c.top == handle or h == handle]
            if context.parent is not None:
                gone = [h for h in gone if h == handle or self._descends(h, handle)]
            for h in gone:
                self.contexts.pop(h, None)
            self._realms = {key: realm for key, realm in self._realms.items() if key[0] not in gone}
            self._bump()
            if context.parent is not None:
                return
            self.tabs = [h for h in self.tabs if h != handle]
            self._console.pop(handle, None)
            self._network.pop(handle, None)
            if self.popup_active == handle:
                self.popup_active = None
            if handle in self.closing:
                self.closing.discard(handle)
            else:
                self._events.append((self.seq, TabClosed(handle)))

    def _descends(self, handle: str, ancestor: str) -> bool:
        parent = self.contexts[handle].parent if handle in self.contexts else None
        while parent:
            if parent == ancestor:
                return True
            parent = self.contexts[parent].parent if parent in self.contexts else None
        return False

    def drain_events(self) -> list[DriverEvent]:
        with self.lock:
            events, self._events = self._events, []
            own = set(self.own)
        return [event for _, event in events if not (isinstance(event, TabOpened) and event.handle in own)]

    # --- navigations ----------------------------------------------------------------------------------------------

    def _record(self, params: JSON) -> NavRecord | None:
        """The record of the navigation `params` names, created on first sight. Call under `lock`."""
        navigation = params.get("navigation")
        if not navigation:
            return None
        record = self.navigations.get(navigation)
        if record is None:
            record = NavRecord(str(navigation), str(params.get("context")), str(params.get("url") or ""), self.seq)
            self.navigations[record.navigation] = record
            if len(self.navigations) > MAX_NAVIGATIONS:
                for old in list(self.navigations)[: MAX_NAVIGATIONS // 5]:
                    del self.navigations[old]
        return record

    def _navigation_started(self, params: JSON) -> None:
        handle = str(params.get("context"))
        url = str(params.get("url") or "")
        with self.lock:
            record = self._record(params)
            if record is not None:
                record.seq = self._bump()
                record.url = url
            context = self.contexts.get(handle)
            guard = self.guard
        if context is None or guard is None:
            return
        scheme = urlsplit(url).scheme.lower()
        if scheme in _EXEMPT_SCHEMES or self._allowed(guard, url):
            return
        # The network intercept never sees this URL (data:, blob:, file: ...): undo the navigation instead.
        if context.parent is None:
            with self.lock:
                if record is not None:
                    record.blocked_url = url
            self._emit(NavigationBlocked(_clip(url), handle))
        navigation = record.navigation if record else None
        threading.Thread(
            target=self._undo,
            args=(handle, navigation, url, context.parent is None),
            name="undo-navigation",
            daemon=True,
        ).start()

    def _undo(self, handle: str, navigation: str | None, url: str, top_level: bool) -> None:
        """Take a tab (or frame) off a refused URL if it ended up there (browsers block most non-http navigations
        themselves, and a refused request leaves an error page at its URL): back in history when there is somewhere
        to go back to, else to about:blank."""

        def arrived_or_ended() -> bool:
            record = self.navigations.get(navigation or "")
            context = self.contexts.get(handle)
            if context is None or record is None:
                return True
            return record.stage != "started" or context.committed_seq > record.seq

        self.wait(arrived_or_ended, 5.0)
        with self.lock:
            record = self.navigations.get(navigation or "")
            failed_at = record.seq if record is not None and record.stage == "failed" else None
        if failed_at is not None:
            # A refused request fails its navigation, and the browser then shows an error page at the refused URL.
            self.wait_error_page(handle, failed_at)
        try:
            tree = self._conn.command("browsingContext.getTree", {"root": handle, "maxDepth": 0}, timeout=5)
        except BidiError:
            return
        contexts = tree.get("contexts") or [{}]
        if str(contexts[0].get("url") or "") != url:
            return
        try:
            if top_level:
                try:
                    self._conn.command("browsingContext.traverseHistory", {"context": handle, "delta": -1}, timeout=10)
                    return
                except BidiError:
                    pass
            self._conn.command("browsingContext.navigate", {"context": handle, "url": "about:blank"}, timeout=10)
        except BidiError:
            log.warning("could not take %s off the refused URL %.200s", handle, url)

    def _navigation_stage(self, params: JSON, stage: str) -> None:
        with self.lock:
            record = self._record(params)
            handle = str(params.get("context"))
            if record is not None and record.stage not in _TERMINAL:
                record.stage = stage
            seq = self._bump()
            if stage == "load" and handle in self.contexts:
                self.contexts[handle].loaded_seq = seq
            if stage == "committed" and handle in self.contexts:
                self.contexts[handle].url = str(params.get("url") or self.contexts[handle].url)
                self.contexts[handle].committed_seq = seq

    def _same_document(self, params: JSON) -> None:
        with self.lock:
            handle = str(params.get("context"))
            if handle in self.contexts and params.get("url"):
                self.contexts[handle].url = str(params["url"])
            self._bump()

    def navigations_since(self, handle: str, seq: int, *, refused: bool = True) -> list[NavRecord]:
        """The navigations of `handle` that started after sequence number `seq`, oldest first; without the ones
        the guard refused unless `refused` (a browser may never report how those end)."""
        with self.lock:
            return [
                r
                for r in self.navigations.values()
                if r.context == handle and r.seq > seq and (refused or r.blocked_url is None)
            ]

    def wait_navigation(self, record: NavRecord, timeout: float, stages: tuple[str, ...] = _TERMINAL) -> bool:
        """Wait until the navigation reaches one of `stages`, the tab closes, or another document commits in its
        context after the navigation started (see `_Context.committed_seq`). False on timeout."""

        def settled() -> bool:
            context = self.contexts.get(record.context)
            return record.stage in stages or context is None or context.committed_seq > record.seq

        return self.wait(settled, timeout)

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until `predicate()` (evaluated under `lock`) holds."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.changed.wait(min(remaining, 0.25))
            return True

    # --- realms -----------------------------------------------------------------------------------------------------

    def _realm_created(self, params: JSON) -> None:
        if params.get("type") != "window" or not params.get("context") or not params.get("realm"):
            return
        with self.lock:
            self._realms[(str(params["context"]), str(params.get("sandbox") or ""))] = str(params["realm"])

    def _realm_destroyed(self, params: JSON) -> None:
        with self.lock:
            self._realms = {key: realm for key, realm in self._realms.items() if realm != params.get("realm")}

    def realm_for(self, handle: str, sandbox: str) -> str | None:
        """The realm of `handle`'s current document (its page realm, or the named sandbox), when the browser
        announced it. Chromium never answers a script command that targets a `window.open` popup by context until
        the popup navigates again, while the same command targeting the realm works."""
        with self.lock:
            return self._realms.get((handle, sandbox))

    def forget_realm(self, realm: str) -> None:
        self._realm_destroyed({"realm": realm})

    # --- dialogs ----------------------------------------------------------------------------------------------------

    def _prompt_opened(self, params: JSON) -> None:
        kind = str(params.get("type") or "alert")
        # A refused beforeunload would leave every later navigation of the tab hanging on it.
        accept = self._dialog_accept or kind == "beforeunload"
        answer: dict[str, Any] = {"context": params.get("context"), "accept": accept}
        if accept and kind == "prompt" and isinstance(params.get("defaultValue"), str):
            answer["userText"] = params["defaultValue"]
        self._conn.send("browsingContext.handleUserPrompt", answer)
        self._emit(DialogHandled(kind, _clip(str(params.get("message") or "")), accept))

    # --- downloads ----------------------------------------------------------------------------------------------------

    def _download_began(self, params: JSON) -> None:
        navigation = params.get("navigation")
        url = str(params.get("url") or "")
        with self.lock:
            key = str(navigation) if navigation else f"download-{next(self._download_ids)}"
            self._downloads[key] = _Download(key, url, params.get("context"), navigation)
            record = self.navigations.get(str(navigation)) if navigation else None
            if record is not None:
                record.stage = "download"
            self._events.append(
                (self._bump(), DownloadStarted(key, _clip(url), _clip(str(params.get("suggestedFilename") or ""))))
            )

    def _find_download(self, params: JSON) -> _Download | None:
        navigation = params.get("navigation")
        if navigation and str(navigation) in self._downloads:
            return self._downloads[str(navigation)]
        # No id to go by (older Firefox): the oldest unfinished download of that URL.
        url = params.get("url")
        for download in self._downloads.values():
            if not download.done and download.url == url:
                return download
        return None

    def _download_ended(self, params: JSON) -> None:
        with self.lock:
            download = self._find_download(params)
            if download is None:
                download = _Download(f"download-{next(self._download_ids)}", str(params.get("url") or ""), None, None)
            download.done = True
            expected = self._content_length.get(download.navigation or "") or self._content_length.get(download.url)
        event: DriverEvent
        if params.get("status") != "complete":
            event = DownloadFailed(download.key, _clip(download.url), "the download was canceled or interrupted")
        else:
            path = params.get("filepath")
            local = self._download_dir is not None
            size: int | None = None
            if local and isinstance(path, str):
                try:
                    size = os.path.getsize(path)
                except OSError:
                    size = None
            if size is not None and expected is not None and size < expected:
                # Firefox reports a download cut off by the server as complete.
                event = DownloadFailed(
                    download.key, _clip(download.url), f"incomplete: received {size} of {expected} bytes"
                )
            else:
                shown = _clip(path) if local and isinstance(path, str) else None
                event = DownloadCompleted(download.key, _clip(download.url), shown, size)
        self._emit(event)

    # --- network --------------------------------------------------------------------------------------------------

    @staticmethod
    def _allowed(guard: Callable[[str], bool], url: str) -> bool:
        try:
            return bool(guard(url))
        except Exception:  # a guard that fails refuses: failing open would defeat it
            log.exception("the URL guard raised on %.200s", url)
            return False

    def _request_sent(self, params: JSON) -> None:
        request = _dict(params.get("request"))
        request_id = str(request.get("request"))
        url = str(request.get("url") or "")
        with self.lock:
            if request_id not in self._request_started:
                self._request_started[request_id] = _timestamp(params)
                if len(self._request_started) > 4 * MAX_BUFFERED:
                    for old in list(self._request_started)[:MAX_BUFFERED]:
                        del self._request_started[old]
            guard = self.guard
        if not params.get("isBlocked"):
            return
        if guard is None or self._allowed(guard, url):
            self._conn.send("network.continueRequest", {"request": request_id})
            return
        self._conn.send("network.failRequest", {"request": request_id})
        handle = str(params.get("context"))
        with self.lock:
            record = self._record(params) if params.get("navigation") else None
            reported = record is not None and record.blocked_url == url
            if record is not None:
                record.blocked_url = url
            top_level = handle in self.contexts and self.contexts[handle].parent is None
        if record is not None and top_level and not reported:
            self._emit(NavigationBlocked(_clip(url), handle))
            threading.Thread(
                target=self._undo, args=(handle, record.navigation, url, True), name="undo-navigation", daemon=True
            ).start()

    @staticmethod
    def _headers_length(response: Mapping[str, Any]) -> int | None:
        for header in response.get("headers") or ():
            if str(header.get("name", "")).lower() == "content-length":
                value = header.get("value")
                text = value.get("value") if isinstance(value, dict) else value
                try:
                    return int(str(text))
                except ValueError:
                    return None
        return None

    def _remember_length(self, params: JSON) -> None:
        response = _dict(params.get("response"))
        length = self._headers_length(response)
        if length is None:
            return
        with self.lock:
            if params.get("navigation"):
                self._content_length[str(params["navigation"])] = length
            self._content_length[str(response.get("url") or "")] = length
            if len(self._content_length) > 4 * MAX_BUFFERED:
                for old in list(self._content_length)[:MAX_BUFFERED]:
                    del self._content_length[old]

    def _response_started(self, params: JSON) -> None:
        """Entries are made when the response starts: a response whose body the page never reads never
        completes (Chromium then sends no `responseCompleted`), yet it is traffic `read_network` must show."""
        self._remember_length(params)
        self._response(params, final=False)

    def _response_completed(self, params: JSON) -> None:
        self._remember_length(params)
        self._response(params, final=True)

    def _response(self, params: JSON, *, final: bool) -> None:
        request = _dict(params.get("request"))
        response = _dict(params.get("response"))
        status = response.get("status")
        code = status if isinstance(status, int) else None
        with self.lock:
            record = self._record(params) if params.get("navigation") else None
            if record is not None and code is not None:
                record.status = code
            self._add_network(params, request, code, response, "", final=final)

    def _fetch_error(self, params: JSON) -> None:
        request = _dict(params.get("request"))
        error = str(params.get("errorText") or "failed")
        with self.lock:
            record = self._record(params) if params.get("navigation") else None
            if record is not None:
                record.error = error
            self._add_network(params, request, None, {}, error, final=True)

    def _add_network(
        self,
        params: JSON,
        request: Mapping[str, Any],
        status: int | None,
        response: Mapping[str, Any],
        error: str,
        *,
        final: bool,
    ) -> None:
        """Add or complete the request's entry in its tab's buffer. Call under `lock`."""
        top = self.top_of(params.get("context"))
        if top is None:
            return
        exchange = f"{request.get('request')}/{params.get('redirectCount', 0)}"
        started = self._request_started.get(str(request.get("request")))
        duration = _duration(_dict(request.get("timings")))
        ended = _timestamp(params)
        if duration is None and started is not None and ended > started:
            duration = round(ended - started, 1)
        if started is not None and duration is not None:
            # Chromium stamps a response with its request's start time.
            ended = max(ended, started + duration)
        entry = NetworkEntry(
            method=str(request.get("method") or "GET"),
            url=_clip(str(request.get("url") or "")),
            status=status,
            mime_type=str(response.get("mimeType") or ""),
            duration_ms=duration,
            error=_clip(error),
            timestamp=ended,
        )
        buffer = self._network[top]
        previous = self._open_entries.pop(exchange, None)
        current = entry
        if previous is None:
            buffer.append(entry)
        else:
            # Complete the entry if it still waits to be drained; one already drained stays as it was read.
            current = attrs.evolve(entry, timestamp=previous.timestamp)
            for index, old in enumerate(buffer):
                if old is previous:
                    buffer[index] = current
                    break
        if final:
            self._request_started.pop(str(request.get("request")), None)
        else:
            self._open_entries[exchange] = current
            if len(self._open_entries) > 4 * MAX_BUFFERED:
                for old_key in list(self._open_entries)[:MAX_BUFFERED]:
                    del self._open_entries[old_key]

    def drain_network(self, handle: str) -> list[NetworkEntry] | None:
        with self.lock:
            buffer = self._network.get(handle)
            if buffer is None:
                return None
            entries = list(buffer)
            buffer.clear()
        return sorted(entries, key=lambda entry: entry.timestamp)

    # --- console ----------------------------------------------------------------------------------------------------

    _LEVELS: ClassVar[dict[str, str]] = {
        "log": "log",
        "warning": "warn",
        "warn": "warn",
        "error": "error",
        "info": "info",
        "debug": "debug",
        "trace": "debug",
    }

    def _log_entry(self, params: JSON) -> None:
        source = _dict(params.get("source"))
        method = str(params.get("method") or "")
        level = self._LEVELS.get(method) or self._LEVELS.get(str(params.get("level") or ""), "log")
        if params.get("type") == "javascript":
            level = "error"
        text = str(params.get("text") or "")
        if params.get("type") == "javascript" and not text.lower().startswith("uncaught"):
            text = f"Uncaught {text}"
        entry = ConsoleEntry(level, _clip(text), _timestamp(params), str(params.get("type") or "console"))
        with self.lock:
            top = self.top_of(source.get("context"))
            if top is not None:
                self._console[top].append(entry)

    def drain_console(self, handle: str) -> list[ConsoleEntry] | None:
        with self.lock:
            buffer = self._console.get(handle)
            if buffer is None:
                return None
            entries = list(buffer)
            buffer.clear()
        return sorted(entries, key=lambda entry: entry.timestamp)
