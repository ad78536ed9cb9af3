"""Browsing contexts as the browser reports them: which tabs and frames exist, and how far each navigation got.

Every handler here runs on the BiDi dispatcher thread, in the order the browser sent its events, so a handler may
rely on `contextCreated` having been seen before anything else about that context. The driver's calls read this
state through the methods below (after `BidiConnection.settle` when they need the events that preceded a reply), and
wait on it with the `wait_*` methods: every change wakes the waiters.

Navigation records are frozen values replaced on every change, so a caller may keep one without a lock; to see how
far a navigation got since, it asks again by id.
"""

from __future__ import annotations

import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from browser_toolset.values import TabClosed, TabOpened

from .connection import JSON, BidiConnection, BidiError, BidiTimeout, Handler
from .errors import GONE_ERRORS, ContextGone
from .events import EventQueue, as_dict

__all__ = ["TERMINAL", "TITLE_MARKER", "Contexts", "NavRecord", "title_watch"]

MAX_NAVIGATIONS = 500

TERMINAL: tuple[str, ...] = ("load", "failed", "aborted", "download")
"""Navigation stages after which nothing more happens to a navigation."""

TITLE_MARKER = "browser-toolset-title"
"""Starts the first argument of the title watch's console reports; a per-session secret follows it."""

_TITLE_WATCH = """() => {
  const report = console.debug.bind(console);
  const marker = __MARKER__;
  let last = null;
  const send = (force) => {
    const title = document.title;
    if (force === true || title !== last) {
      last = title;
      report(marker, title);
    }
  };
  const observer = new MutationObserver(send);
  const watch = () => {
    send(true);
    observer.observe(document, { subtree: true, childList: true, characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch, { once: true });
  else watch();
  window.addEventListener("pagehide", () => observer.disconnect());
  window.addEventListener("pageshow", (event) => { if (event.persisted) watch(); });
}"""


def title_watch(marker: str) -> str:
    """A preload script (in the page realm of every new document) that reports the document's title once the
    document is parsed, whenever it changes, and when the page comes back from the back/forward cache, so listing
    tabs needs no round trip per tab.

    It reports through the console (`console.debug(marker, title)`, with the console function taken before any page
    script runs), not a BiDi channel: Chromium's mapper delivers channel messages by polling the page, up to ~150 ms
    after the load event when a big page keeps the renderer busy, while a console entry arrives before the load
    event, so `navigate` knows the title when the load does. The marker carries a per-session secret, so a page
    cannot pass its own console lines off as reports (`Contexts.is_title_report`), and reports never reach the
    console log.

    The observer is disconnected when the document is hidden (left, or put in the back/forward cache) and observes
    again if it comes back: an observer whose callback holds a reporting function bound outside the page kept every
    document it ever watched alive in Chromium (measured: ~1 MiB of renderer memory per navigation, for good)."""
    return _TITLE_WATCH.replace("__MARKER__", json.dumps(marker))


OpenedListener = Callable[[str, "str | None"], None]
ClosedListener = Callable[[frozenset[str]], None]


@attrs.frozen
class NavRecord:
    """One navigation as its events describe it. `stage` is the furthest it got: started, committed,
    domContentLoaded, load, or how it ended otherwise (failed, aborted, download). `seq` is when it started, on the
    clock of `Contexts.seq`; `blocked_url` is where the URL guard refused it."""

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
    committed_seq: int = 0
    """When a document last committed in this context (Chromium commits a back/forward-cache restore under another
    navigation id than the one it started with, and sends no load event for it)."""
    loaded_seq: int = 0
    """When a document last finished loading in this context (a browser's error page included)."""
    url: str | None = None
    """The URL of the context's document as the events tell it, None when they have not yet."""
    title: str | None = None
    """The document's title as the page's title watch (`title_watch`) last reported it; None when unknown."""


class Contexts:
    """The browser's tabs, frames and navigations, fed by BiDi events. Thread-safe; see the module docstring."""

    def __init__(self, connection: BidiConnection, events: EventQueue) -> None:
        self._conn = connection
        self._events = events
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._counter = itertools.count(1)
        self._seq = 0
        self._contexts: dict[str, _Context] = {}
        self._tabs: list[str] = []
        """Top-level contexts in the order they appeared."""
        self._own: set[str] = set()
        """Tabs the driver opened itself (never reported as `TabOpened`)."""
        self._closing: set[str] = set()
        """Tabs the driver is closing (never reported as `TabClosed`)."""
        self._popup: str | None = None
        """The newest tab a page opened: browsers bring those to the front."""
        self._navigations: dict[str, NavRecord] = {}
        self._opened: list[OpenedListener] = []
        self._closed: list[ClosedListener] = []
        self.title_marker = f"{TITLE_MARKER}:{secrets.token_hex(12)}"
        """What the title watch's reports start with in this session (see `title_watch`)."""

    # --- wiring ---------------------------------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {
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
            "log.entryAdded": self._title_report,
            "browsingContext.downloadWillBegin": self._download_began,
            "network.responseStarted": self._response,
            "network.responseCompleted": self._response,
            "network.fetchError": self._fetch_error,
        }

    def on_opened(self, listener: OpenedListener) -> None:
        """Call `listener(handle, opener)` on the dispatcher thread for every new tab, page-opened ones included."""
        self._opened.append(listener)

    def on_closed(self, listener: ClosedListener) -> None:
        """Call `listener(handles)` on the dispatcher thread with every context a `contextDestroyed` took away (the
        context and its frames), so per-tab state elsewhere can go with it."""
        self._closed.append(listener)

    def seed(self, contexts: Iterable[Mapping[str, Any]]) -> None:
        """Record the contexts that existed before the subscription (`browsingContext.getTree`), so their replayed
        `contextCreated` events are not mistaken for tabs a page opened."""
        with self._lock:
            for info in contexts:
                handle = str(info["context"])
                self._own.add(handle)
                if self._add_context(handle, None) and info.get("url"):
                    self._contexts[handle].url = str(info["url"])
                    if info["url"] == "about:blank":
                        self._contexts[handle].title = ""

    # --- commands about a tab -------------------------------------------------------------------------------------

    def command(self, handle: str, method: str, params: Mapping[str, Any], *, timeout: float | None = None) -> JSON:
        """A BiDi command about tab `handle`. Browsers may never answer a command about a tab that closes under it
        (a script that closes its own tab), so the wait ends when the tab goes; an error saying the tab is gone
        becomes `ContextGone` once the events confirm it."""
        try:
            return self._conn.command(
                method, params, timeout=timeout, abandon=lambda: None if self.is_tab(handle) else "no such frame"
            )
        except BidiTimeout:
            raise
        except BidiError as exc:
            if exc.error in GONE_ERRORS:
                self._conn.settle(0.5)
                if not self.is_tab(handle):
                    raise ContextGone(method, handle) from exc
            raise

    # --- reading --------------------------------------------------------------------------------------------------

    def settle(self, timeout: float) -> None:
        """Let the events received so far be handled: a command's reply can overtake the events sent before it."""
        self._conn.settle(timeout)

    @property
    def seq(self) -> int:
        """The clock of every change seen so far: note it before an action to find what the action started."""
        with self._lock:
            return self._seq

    def is_tab(self, handle: str) -> bool:
        with self._lock:
            context = self._contexts.get(handle)
            return context is not None and context.parent is None

    def exists(self, handle: str) -> bool:
        with self._lock:
            return handle in self._contexts

    def top_of(self, handle: object) -> str | None:
        """The tab a context (tab or frame) belongs to, or None for a context that is gone."""
        with self._lock:
            context = self._contexts.get(str(handle)) if handle else None
            return context.top if context else None

    def tabs(self) -> list[str]:
        """Open tabs in the order they appeared."""
        with self._lock:
            return list(self._tabs)

    def committed(self, handle: str) -> int:
        """The sequence number of the last document commit in `handle` (0 when none was seen, -1 for no tab)."""
        with self._lock:
            context = self._contexts.get(handle)
            return context.committed_seq if context else -1

    def navigation(self, navigation: str) -> NavRecord | None:
        with self._lock:
            return self._navigations.get(navigation)

    def navigations_since(self, handle: str, seq: int, *, refused: bool = True) -> list[NavRecord]:
        """The navigations of `handle` that started after sequence number `seq`, oldest first; without the ones the
        guard refused unless `refused` (a browser may never report how those end)."""
        with self._lock:
            return [
                r
                for r in self._navigations.values()
                if r.context == handle and r.seq > seq and (refused or r.blocked_url is None)
            ]

    def location(self, handle: str) -> tuple[str, str] | None:
        """The tab's URL and title as the events tell them, or None when they cannot be trusted right now (not yet
        reported, or a navigation under way)."""
        with self._lock:
            context = self._contexts.get(handle)
            if context is None or context.url is None or context.title is None:
                return None
            for record in reversed(self._navigations.values()):
                if record.context == handle and not record.blocked_url:
                    if record.stage in ("started", "committed"):
                        return None
                    break
            return context.url, context.title

    def assume_blank(self, handle: str) -> None:
        """Note that a tab the driver opened shows its first, blank page: no event will say so (the title watch does
        not run there), and listing it should cost no round trip."""
        with self._lock:
            context = self._contexts.get(handle)
            if context is not None and context.url is None:
                context.url = "about:blank"
            if context is not None and context.url == "about:blank" and context.title is None:
                context.title = ""

    def restored(self, record: NavRecord) -> None:
        """A navigation that ended without an event (a back/forward-cache restore in Firefox): its document is in."""
        with self._lock:
            current = self._navigations.get(record.navigation)
            if current is not None and current.stage not in TERMINAL:
                self._update(current, stage="load")
            context = self._contexts.get(record.context)
            if context is not None:
                context.url = record.url
                # The watch's report of the restored title may have come first or be on its way: read it afresh.
                context.title = None
            self._bump()

    def shown_title(self, handle: str) -> str | None:
        """The title the title watch last reported for the tab's document (None when unknown): while a navigation
        has started but not committed, that document is still the one shown."""
        with self._lock:
            context = self._contexts.get(handle)
            return None if context is None else context.title

    def latest_navigation(self, handle: str) -> NavRecord | None:
        """The newest navigation of `handle` the guard did not refuse."""
        with self._lock:
            found = [r for r in self._navigations.values() if r.context == handle and not r.blocked_url]
            return found[-1] if found else None

    # --- the driver's own tabs ------------------------------------------------------------------------------------

    def claim(self, handle: str) -> None:
        """Note a tab the driver opened, so it is never reported as `TabOpened` (its `contextCreated` can overtake the
        reply that names it, which is why the filter applies when events are drained)."""
        with self._lock:
            self._own.add(handle)

    def own_tabs(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._own)

    def expect_close(self, handle: str, expected: bool = True) -> None:
        """Note that the driver is closing `handle` (so its closing is no `TabClosed`), or, with `expected` false,
        that it failed to."""
        with self._lock:
            if expected:
                self._closing.add(handle)
            else:
                self._closing.discard(handle)

    def take_popup(self) -> str | None:
        """The newest page-opened tab not yet taken, which the browser brought to the front."""
        with self._lock:
            popup, self._popup = self._popup, None
            return popup

    def clear_popup(self) -> None:
        with self._lock:
            self._popup = None

    # --- waiting --------------------------------------------------------------------------------------------------

    def wait_navigation(self, navigation: str, timeout: float, stages: tuple[str, ...] = TERMINAL) -> bool:
        """Wait until the navigation reaches one of `stages`, its tab closes, or another document commits in its
        context after the navigation started (see `_Context.committed_seq`). False on timeout."""

        def settled() -> bool:
            record = self._navigations.get(navigation)
            if record is None:
                return True
            context = self._contexts.get(record.context)
            return record.stage in stages or context is None or context.committed_seq > record.seq

        return self._wait(settled, timeout)

    def wait_navigations(
        self, handle: str, since: int, until: Callable[[list[NavRecord]], bool], timeout: float
    ) -> list[NavRecord]:
        """Wait until `until(navigations_since(handle, since))` holds (or `timeout`), and return those navigations."""
        self._wait(lambda: until(self.navigations_since(handle, since)), timeout)
        return self.navigations_since(handle, since)

    def wait_error_page(self, handle: str, since: int, timeout: float = 1.0) -> None:
        """After a failed navigation, wait for the browser's error page to finish loading. Chromium wedges its whole
        BiDi session now and then when a new navigation with an active network intercept interrupts an error page
        that is still loading, so the next navigation must not start before it is in."""

        def error_page_in() -> bool:
            context = self._contexts.get(handle)
            return context is None or context.loaded_seq > since

        self._wait(error_page_in, timeout)

    def wait_first_page(self, handle: str, timeout: float) -> None:
        """Wait until a new tab's first page has loaded or failed, the tab closed, or (with no navigation at all
        after a second) there is no first page coming."""
        started = time.monotonic()

        def first_page_in() -> bool:
            records = [r for r in self._navigations.values() if r.context == handle]
            if not self.is_tab(handle) or any(r.stage in ("load", "failed", "aborted") for r in records):
                return True
            return not records and time.monotonic() - started > 1.0

        self._wait(first_page_in, timeout)

    def wait_closed(self, handle: str, timeout: float) -> bool:
        return self._wait(lambda: handle not in self._contexts, timeout)

    def _wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until `predicate()` (evaluated under the lock) holds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(min(remaining, 0.25))
            return True

    # --- navigations the URL guard refused ------------------------------------------------------------------------

    def refuse(self, params: JSON, url: str) -> NavRecord | None:
        """Mark the navigation `params` names (if it names one) as refused at `url`. Returns its record when that is
        news about a tab rather than a frame, which the guard then reports and undoes."""
        with self._lock:
            record = self._record(params)
            if record is None:
                return None
            reported = record.blocked_url == url
            record = self._update(record, blocked_url=url)
            context = self._contexts.get(str(params.get("context")))
            top_level = context is not None and context.parent is None
        return record if top_level and not reported else None

    # --- handlers -------------------------------------------------------------------------------------------------

    def _bump(self) -> int:
        """A new sequence number, with waiters woken. Call under the lock."""
        self._seq = next(self._counter)
        self._changed.notify_all()
        return self._seq

    def _add_context(self, handle: str, parent: str | None) -> bool:
        if handle in self._contexts:
            return False
        top = self._contexts[parent].top if parent and parent in self._contexts else (parent or handle)
        self._contexts[handle] = _Context(handle, parent, top if parent else handle)
        if parent is None:
            self._tabs.append(handle)
        return True

    def _context_created(self, params: JSON) -> None:
        handle = str(params.get("context"))
        parent = params.get("parent")
        opener = str(params["originalOpener"]) if params.get("originalOpener") else None
        with self._lock:
            if not self._add_context(handle, str(parent) if parent else None):
                return
            # Its URL stays unknown until a navigation event names one: Chromium can announce a tab opened by a
            # middle click after the events of its first page, with the URL it had before them (about:blank).
            self._bump()
            if parent:
                return
            if opener:
                self._popup = handle
        self._events.emit(TabOpened(handle, opener))
        for listener in self._opened:
            listener(handle, opener)

    def _context_destroyed(self, params: JSON) -> None:
        handle = str(params.get("context"))
        reported = False
        with self._lock:
            context = self._contexts.get(handle)
            if context is None:
                return
            if context.parent is None:
                gone = [h for h, c in self._contexts.items() if c.top == handle]
            else:
                gone = [h for h in self._contexts if h == handle or self._descends(h, handle)]
            for h in gone:
                self._contexts.pop(h, None)
            self._bump()
            if context.parent is None:
                self._tabs = [h for h in self._tabs if h != handle]
                if self._popup == handle:
                    self._popup = None
                reported = handle not in self._closing
                self._closing.discard(handle)
        if reported:
            self._events.emit(TabClosed(handle))
        for listener in self._closed:
            listener(frozenset(gone))

    def _descends(self, handle: str, ancestor: str) -> bool:
        parent = self._contexts[handle].parent if handle in self._contexts else None
        while parent:
            if parent == ancestor:
                return True
            parent = self._contexts[parent].parent if parent in self._contexts else None
        return False

    def _record(self, params: JSON) -> NavRecord | None:
        """The record of the navigation `params` names, created on first sight. Call under the lock."""
        navigation = params.get("navigation")
        if not navigation:
            return None
        record = self._navigations.get(str(navigation))
        if record is None:
            record = NavRecord(str(navigation), str(params.get("context")), str(params.get("url") or ""), self._seq)
            self._navigations[record.navigation] = record
            if len(self._navigations) > MAX_NAVIGATIONS:
                for old in list(self._navigations)[: MAX_NAVIGATIONS // 5]:
                    del self._navigations[old]
        return record

    def _update(self, record: NavRecord, **changes: Any) -> NavRecord:
        """Replace the record with a changed copy. Call under the lock."""
        new = attrs.evolve(record, **changes)
        self._navigations[record.navigation] = new
        return new

    def _navigation_started(self, params: JSON) -> None:
        with self._lock:
            record = self._record(params)
            if record is not None:
                self._update(record, seq=self._bump(), url=str(params.get("url") or ""))

    def _navigation_stage(self, params: JSON, stage: str) -> None:
        with self._lock:
            record = self._record(params)
            handle = str(params.get("context"))
            if record is not None and record.stage not in TERMINAL:
                self._update(record, stage=stage)
            seq = self._bump()
            context = self._contexts.get(handle)
            if context is not None and stage == "load":
                context.loaded_seq = seq
            if context is not None and stage == "committed":
                context.committed_seq = seq
                context.title = None  # a new document: its title watch reports its title
            if context is not None and stage in ("committed", "domContentLoaded", "load") and params.get("url"):
                context.url = str(params["url"])

    def _same_document(self, params: JSON) -> None:
        """A fragment or History API change: the document stays, but waiters may be waiting on any change."""
        with self._lock:
            context = self._contexts.get(str(params.get("context")))
            if context is not None and params.get("url"):
                context.url = str(params["url"])
            self._bump()

    def is_title_report(self, params: JSON) -> bool:
        """Whether a `log.entryAdded` is a report of this session's title watch (`title_watch`)."""
        args = params.get("args")
        if not isinstance(args, list) or len(args) != 2:
            return False
        first = as_dict(args[0])
        return first.get("type") == "string" and first.get("value") == self.title_marker

    def _title_report(self, params: JSON) -> None:
        """A report of the title watch: the title of a tab's document (a frame's reports are not its tab's)."""
        if not self.is_title_report(params):
            return
        title = as_dict(params["args"][1])
        handle = str(as_dict(params.get("source")).get("context") or "")
        if title.get("type") != "string":
            return
        with self._lock:
            context = self._contexts.get(handle)
            if context is not None and context.parent is None:
                context.title = str(title.get("value") or "")

    def _download_began(self, params: JSON) -> None:
        """A URL that turns out to be a file ends its navigation with a download instead of a document."""
        navigation = params.get("navigation")
        with self._lock:
            record = self._navigations.get(str(navigation)) if navigation else None
            if record is not None:
                self._update(record, stage="download")
            self._bump()

    def _response(self, params: JSON) -> None:
        status = as_dict(params.get("response")).get("status")
        with self._lock:
            record = self._record(params)
            if record is not None and isinstance(status, int):
                self._update(record, status=status)

    def _fetch_error(self, params: JSON) -> None:
        with self._lock:
            record = self._record(params)
            if record is not None:
                self._update(record, error=str(params.get("errorText") or "failed"))
