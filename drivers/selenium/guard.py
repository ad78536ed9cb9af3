"""The URL guard: the executor's URL policy applied to everything a tab is about to load.

Two BiDi mechanisms between them see every URL. A network intercept (added at session start, for every tab)
holds each http(s) request in `beforeRequestSent` until the guard has looked at it: redirects, subresources and
page-started navigations included. URLs that never reach the network (`data:`, `blob:`, `file:`) are caught at
`navigationStarted` instead, and since the navigation cannot be held there, it is undone once it lands.

A session behind the driver's egress proxy has no intercept (see `SeleniumDriver._start`): the proxy refuses every
connection the policy refuses, and the guard, seeing the same `beforeRequestSent` unheld, reports a refused
navigation and takes the tab off the error page the refusal leaves, as it does with a held one.

The handlers run on the BiDi dispatcher thread and answer the browser with fire-and-forget commands only: every
intercepted request of every tab waits for the dispatcher. Undoing a navigation needs replies, so it runs on a
short-lived thread of its own.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from browser_toolset.values import NavigationBlocked

from .connection import JSON, BidiConnection, BidiError, Handler
from .contexts import Contexts, navigation_id
from .documents import Documents
from .events import EventQueue, as_dict, clip

__all__ = ["UrlGuard"]

log = logging.getLogger(__name__)

_EXEMPT_SCHEMES = ("http", "https", "about", "chrome-error", "moz-extension", "chrome-extension")
"""Schemes `navigationStarted` does not need to guard: http(s) goes through the network intercept, `about:` pages
load nothing (blank, srcdoc, the browsers' own error pages), and the error and extension schemes are the browser's
own documents."""

_PAST_START = ("committed", "domContentLoaded", "load", "failed", "aborted", "download")


class UrlGuard:
    """Applies the guard the executor installs (`set`); until then every URL loads. Thread-safe."""

    def __init__(
        self, connection: BidiConnection, documents: Documents, contexts: Contexts, events: EventQueue
    ) -> None:
        self._conn = connection
        self._documents = documents
        self._contexts = contexts
        self._events = events
        self._lock = threading.Lock()
        self._allows: Callable[[str], bool] | None = None

    def set(self, allows: Callable[[str], bool]) -> None:
        with self._lock:
            self._allows = allows

    def handlers(self) -> dict[str, Handler]:
        return {
            "network.beforeRequestSent": self._request_sent,
            "browsingContext.navigationStarted": self._navigation_started,
        }

    def _verdict(self, url: str) -> bool | None:
        """Whether the guard lets `url` load, or None when no guard is set."""
        with self._lock:
            allows = self._allows
        if allows is None:
            return None
        try:
            return bool(allows(url))
        except Exception:  # a guard that fails refuses: failing open would defeat it
            log.exception("the URL guard raised on %.200s", url)
            return False

    def _request_sent(self, params: JSON) -> None:
        held = bool(params.get("isBlocked"))
        navigates = navigation_id(params) is not None
        if not held and not navigates:
            return  # a subresource the egress proxy answers for
        request = as_dict(params.get("request"))
        request_id = str(request.get("request"))
        url = str(request.get("url") or "")
        if self._verdict(url) is not False:
            if held:
                self._conn.send("network.continueRequest", {"request": request_id})
            return
        if held:
            self._conn.send("network.failRequest", {"request": request_id})
        handle = str(params.get("context"))
        record = self._contexts.refuse(params, url) if navigates else None
        if record is not None:
            self._events.emit(NavigationBlocked(clip(url), handle))
            self._undo_later(handle, record.navigation, url, top_level=True)

    def _navigation_started(self, params: JSON) -> None:
        """Runs after `Contexts` has recorded the navigation (its handler is registered before this one)."""
        handle = str(params.get("context"))
        url = str(params.get("url") or "")
        if not self._documents.exists(handle):
            return
        scheme = urlsplit(url).scheme.lower()
        if scheme in _EXEMPT_SCHEMES or self._verdict(url) is not False:
            return
        # The network intercept never sees this URL (data:, blob:, file: ...): undo the navigation instead.
        top_level = self._documents.is_tab(handle)
        self._contexts.refuse(params, url)  # a frame's too: its reads show it blocked (see frame_tree)
        if top_level:
            self._events.emit(NavigationBlocked(clip(url), handle))
        navigation = str(params["navigation"]) if params.get("navigation") else None
        self._undo_later(handle, navigation, url, top_level=top_level)

    def _undo_later(self, handle: str, navigation: str | None, url: str, *, top_level: bool) -> None:
        threading.Thread(
            target=self._undo, args=(handle, navigation, url, top_level), name="undo-navigation", daemon=True
        ).start()

    def _undo(self, handle: str, navigation: str | None, url: str, top_level: bool) -> None:
        """Take a tab (or frame) off a refused URL if it ended up there (browsers block most non-http navigations
        themselves, and a refused request leaves an error page at its URL): back in history when there is somewhere
        to go back to, else to about:blank."""
        self._contexts.wait_navigation(navigation or "", 5.0, _PAST_START)
        record = self._contexts.navigation(navigation or "")
        if record is not None and record.stage == "failed":
            # A refused request fails its navigation, and the browser then shows an error page at the refused URL.
            self._documents.wait_error_page(handle, record.seq)
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
