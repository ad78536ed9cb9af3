"""Tabs and navigations as the browser reports them: which tabs the driver reports (and which it opened or is closing
itself), and how far each navigation got.

What a tab shows is its `Document` (see `documents`); this module keeps what happens around documents: the
navigations that may bring a new one, the tab a page brought to the front, and the `TabOpened` and `TabClosed` events.
Every handler runs on the BiDi dispatcher thread, in the order the browser sent its events, after the handler of
`Documents` for the same event. The driver's calls read this state through the methods below (after
`Documents.settle` when they need the events that preceded a reply), and wait on it with the `wait_*` methods: every
change wakes the waiters (see `events.Changes`).

Navigation records are frozen values replaced on every change, so a caller may keep one without a lock; to see how
far a navigation got since, it asks again by id.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from browser_toolset.values import TabClosed, TabOpened

from .connection import JSON, Handler
from .documents import Documents
from .events import Changes, EventQueue, as_dict

__all__ = ["TERMINAL", "Contexts", "NavRecord"]

MAX_NAVIGATIONS = 500

# Firefox sends the request of an <object> or <embed> with the navigation id of the page that holds the element (and
# that page's context), although it loads into the element: news about it is never news about that navigation.
_ELEMENT_LOADS = frozenset({"embed", "object"})


def navigation_id(params: JSON) -> str | None:
    """The navigation an event is about, or None: none named, or a network event of an element's own load."""
    navigation = params.get("navigation")
    if not navigation or as_dict(params.get("request")).get("destination") in _ELEMENT_LOADS:
        return None
    return str(navigation)


TERMINAL: tuple[str, ...] = ("load", "failed", "aborted", "download")
"""Navigation stages after which nothing more happens to a navigation."""

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


class Contexts:
    """The browser's tabs and navigations, fed by BiDi events. Thread-safe; see the module docstring."""

    def __init__(self, documents: Documents, changes: Changes, events: EventQueue) -> None:
        self._documents = documents
        self._changes = changes
        self._events = events
        self._own: set[str] = set()
        """Tabs the driver opened itself (never reported as `TabOpened`)."""
        self._closing: set[str] = set()
        """Tabs the driver is closing (never reported as `TabClosed`)."""
        self._popup: str | None = None
        """The newest tab a page opened: browsers bring those to the front."""
        self._navigations: dict[str, NavRecord] = {}
        self._opened: list[OpenedListener] = []
        self._closed: list[ClosedListener] = []
        documents.on_created(self._context_created)
        documents.on_destroyed(self._context_destroyed)

    # --- wiring ---------------------------------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {
            "browsingContext.navigationStarted": self._navigation_started,
            "browsingContext.navigationCommitted": lambda p: self._navigation_stage(p, "committed"),
            "browsingContext.domContentLoaded": lambda p: self._navigation_stage(p, "domContentLoaded"),
            "browsingContext.load": lambda p: self._navigation_stage(p, "load"),
            "browsingContext.navigationFailed": lambda p: self._navigation_stage(p, "failed"),
            "browsingContext.navigationAborted": lambda p: self._navigation_stage(p, "aborted"),
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
        """Record the tabs that existed before the subscription (`browsingContext.getTree`), so their replayed
        `contextCreated` events are not mistaken for tabs a page opened."""
        contexts = list(contexts)
        with self._changes:
            self._own.update(str(info["context"]) for info in contexts)
        self._documents.seed(contexts)

    # --- reading --------------------------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The clock of every change seen so far: note it before an action to find what the action started."""
        return self._changes.seq

    def navigation(self, navigation: str) -> NavRecord | None:
        with self._changes:
            return self._navigations.get(navigation)

    def navigations_since(self, handle: str, seq: int, *, refused: bool = True) -> list[NavRecord]:
        """The navigations of `handle` that started after sequence number `seq`, oldest first; without the ones the
        guard refused unless `refused` (a browser may never report how those end)."""
        with self._changes:
            return [
                r
                for r in self._navigations.values()
                if r.context == handle and r.seq > seq and (refused or r.blocked_url is None)
            ]

    def latest_navigation(self, handle: str) -> NavRecord | None:
        """The newest navigation of `handle` the guard did not refuse."""
        with self._changes:
            found = [r for r in self._navigations.values() if r.context == handle and not r.blocked_url]
            return found[-1] if found else None

    def location(self, handle: str) -> tuple[str, str] | None:
        """The tab's URL and title as the events tell them, or None when they cannot be trusted right now (not yet
        reported, or a navigation under way)."""
        with self._changes:
            document = self._documents.for_context(handle)
            if document is None or document.url is None or document.title is None:
                return None
            for record in reversed(self._navigations.values()):
                if record.context == handle and not record.blocked_url:
                    if record.stage in ("started", "committed"):
                        return None
                    break
            return document.url, document.title

    def restored(self, record: NavRecord) -> None:
        """A navigation that ended without an event (a back/forward-cache restore in Firefox): its document is in."""
        with self._changes:
            current = self._navigations.get(record.navigation)
            if current is not None and current.stage not in TERMINAL:
                self._update(current, stage="load")
            self._documents.restored(record.context, record.navigation, record.url, record.seq)

    # --- the driver's own tabs ------------------------------------------------------------------------------------

    def claim(self, handle: str) -> None:
        """Note a tab the driver opened, so it is never reported as `TabOpened` (its `contextCreated` can overtake the
        reply that names it, which is why the filter applies when events are drained)."""
        with self._changes:
            self._own.add(handle)

    def own_tabs(self) -> frozenset[str]:
        with self._changes:
            return frozenset(self._own)

    def expect_close(self, handle: str, expected: bool = True) -> None:
        """Note that the driver is closing `handle` (so its closing is no `TabClosed`), or, with `expected` false,
        that it failed to."""
        with self._changes:
            if expected:
                self._closing.add(handle)
            else:
                self._closing.discard(handle)

    def take_popup(self) -> str | None:
        """The newest page-opened tab not yet taken, which the browser brought to the front."""
        with self._changes:
            popup, self._popup = self._popup, None
            return popup

    def clear_popup(self) -> None:
        with self._changes:
            self._popup = None

    # --- waiting --------------------------------------------------------------------------------------------------

    def wait_navigation(self, navigation: str, timeout: float, stages: tuple[str, ...] = TERMINAL) -> bool:
        """Wait until the navigation reaches one of `stages`, its tab closes, or another document commits in its
        context after the navigation started (Chromium commits a back/forward-cache restore under another navigation
        id than the one it started with, and sends no load event for it). False on timeout."""

        def settled() -> bool:
            record = self._navigations.get(navigation)
            if record is None:
                return True
            document = self._documents.for_context(record.context)
            return record.stage in stages or document is None or document.seq > record.seq

        return self._changes.wait(settled, timeout)

    def wait_navigations(
        self, handle: str, since: int, until: Callable[[list[NavRecord]], bool], timeout: float
    ) -> list[NavRecord]:
        """Wait until `until(navigations_since(handle, since))` holds (or `timeout`), and return those navigations."""
        self._changes.wait(lambda: until(self.navigations_since(handle, since)), timeout)
        return self.navigations_since(handle, since)

    def wait_first_page(self, handle: str, timeout: float) -> None:
        """Wait until a new tab's first page has loaded or failed, the tab closed, or (with no navigation at all
        after a second) there is no first page coming."""
        started = time.monotonic()

        def first_page_in() -> bool:
            records = [r for r in self._navigations.values() if r.context == handle]
            if not self._documents.is_tab(handle) or any(r.stage in ("load", "failed", "aborted") for r in records):
                return True
            return not records and time.monotonic() - started > 1.0

        self._changes.wait(first_page_in, timeout)

    # --- navigations the URL guard refused ------------------------------------------------------------------------

    def refuse(self, params: JSON, url: str) -> NavRecord | None:
        """Mark the navigation `params` names (if it names one) as refused at `url`. Returns its record when that is
        news about a tab rather than a frame, which the guard then reports and undoes."""
        with self._changes:
            record = self._record(params)
            if record is None:
                return None
            reported = record.blocked_url == url
            record = self._update(record, blocked_url=url)
            top_level = self._documents.is_tab(str(params.get("context")))
        return record if top_level and not reported else None

    # --- handlers -------------------------------------------------------------------------------------------------

    def _context_created(self, handle: str, parent: str | None, opener: str | None) -> None:
        if parent is not None:
            return
        with self._changes:
            if opener is not None:
                self._popup = handle
        self._events.emit(TabOpened(handle, opener))
        for listener in self._opened:
            listener(handle, opener)

    def _context_destroyed(self, handle: str, parent: str | None, gone: frozenset[str]) -> None:
        reported = False
        if parent is None:
            with self._changes:
                if self._popup == handle:
                    self._popup = None
                reported = handle not in self._closing
                self._closing.discard(handle)
        if reported:
            self._events.emit(TabClosed(handle))
        for listener in self._closed:
            listener(gone)

    def _record(self, params: JSON) -> NavRecord | None:
        """The record of the navigation `params` names, created on first sight. Call under the lock."""
        navigation = navigation_id(params)
        if navigation is None:
            return None
        record = self._navigations.get(navigation)
        if record is None:
            record = NavRecord(navigation, str(params.get("context")), str(params.get("url") or ""), self._changes.seq)
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
        with self._changes:
            record = self._record(params)
            if record is not None:
                self._update(record, seq=self._changes.tick(), url=str(params.get("url") or ""))

    def _navigation_stage(self, params: JSON, stage: str) -> None:
        with self._changes:
            record = self._record(params)
            if record is not None and record.stage not in TERMINAL:
                self._update(record, stage=stage)
            self._changes.tick()

    def _download_began(self, params: JSON) -> None:
        """A URL that turns out to be a file ends its navigation with a download instead of a document."""
        navigation = params.get("navigation")
        with self._changes:
            record = self._navigations.get(str(navigation)) if navigation else None
            if record is not None:
                self._update(record, stage="download")
            self._changes.tick()

    def _response(self, params: JSON) -> None:
        status = as_dict(params.get("response")).get("status")
        with self._changes:
            record = self._record(params)
            if record is not None and isinstance(status, int):
                self._update(record, status=status)

    def _fetch_error(self, params: JSON) -> None:
        with self._changes:
            record = self._record(params)
            if record is not None:
                self._update(record, error=str(params.get("errorText") or "failed"))
