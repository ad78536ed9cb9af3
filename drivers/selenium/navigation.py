"""Navigations the driver starts (`navigate`, `history`) and waiting for the ones an action starts.

A navigation command's reply says little: it carries no HTTP status, a navigation the URL guard refused fails like
any other, a URL that is a file fails with an abort just before its download begins, and `traverseHistory` returns
once the traversal has started. So every outcome here is read from the events `Contexts` collected: how far the
navigation got, its status, whether the guard refused it, whether it turned into a download.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from browser_toolset.driver_errors import NavigationFailed, TabGone
from browser_toolset.values import HistoryAction, NavigationOutcome

from .connection import BidiError, BidiTimeout
from .contexts import TERMINAL, Contexts, NavRecord
from .documents import Documents
from .errors import bidi_errors
from .options import SeleniumConfig
from .script import Scripts
from .tabs import Tabs

__all__ = ["READABLE", "Navigator"]

READABLE = ("domContentLoaded", "load", "failed", "aborted", "download")
"""Navigation stages after which the tab's document can be read (or after which no new one is coming)."""

LOADED = ("load",)
"""The stage an action's navigation is then given `LOAD_GRACE_SECONDS` to reach."""

LOAD_GRACE_SECONDS = 5.0
"""How long an action's navigation, once its document is readable, is given to finish loading. Until its load a
page may still be taking its stylesheets, fonts and images: a screenshot then shows it half-styled, and the places
Claude clicks move (Firefox once missed a navigation bar that its stylesheet had not yet placed). A page whose last
subresource never comes is used as it is after this long."""


class Navigator:
    """`navigate` and `history`, and the waits every call that may navigate a tab shares."""

    def __init__(
        self, config: SeleniumConfig, documents: Documents, contexts: Contexts, tabs: Tabs, scripts: Scripts
    ) -> None:
        self._config = config
        self._documents = documents
        self._contexts = contexts
        self._tabs = tabs
        self._scripts = scripts

    # --- navigations the driver starts ----------------------------------------------------------------------------

    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        self._tabs.check(handle)
        since = self._contexts.seq
        timeout = self._config.navigation_timeout
        params = {"context": handle, "url": url, "wait": "complete"}
        with bidi_errors(f"load {url}", failure=NavigationFailed):
            for attempt in range(2):
                try:
                    reply = self._documents.command(handle, "browsingContext.navigate", params, timeout=timeout)
                    break
                except BidiTimeout:
                    return self._late_outcome(handle, url, since, timeout)
                except BidiError as exc:
                    if attempt == 0 and "concurrent navigation" in exc.message:
                        # The page (or the guard taking a tab off a refused URL) navigated at the same moment: let
                        # that one finish, then go where asked.
                        self.wait_settled(handle, timeout)
                        since = self._contexts.seq
                        continue
                    return self._failed_navigation(handle, url, since, exc)
            self._documents.settle(1.0)
            record = self._contexts.navigation(str(reply.get("navigation") or ""))
            if record is not None and record.blocked_url:
                raise self._blocked(handle, url, record.blocked_url)
            current, title = self._tabs.location(handle)
        return NavigationOutcome(current or str(reply.get("url") or url), record.status if record else None, title)

    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        self._tabs.check(handle)
        if action == "reload":
            return self._reload(handle)
        since = self._contexts.seq
        timeout = self._config.navigation_timeout
        delta = -1 if action == "back" else 1
        with bidi_errors(f"go {action}"):
            try:
                self._documents.command(
                    handle, "browsingContext.traverseHistory", {"context": handle, "delta": delta}, timeout=timeout
                )
            except BidiError as exc:
                if exc.error != "no such history entry":
                    raise
                current, title = self._tabs.location(handle)
                return NavigationOutcome(current, None, title)
            # The traversal returns once it has started; a cross-document one then loads like any navigation.
            self._documents.settle(1.0)
            records = self._contexts.navigations_since(handle, since)
            if not records:
                records = self._contexts.wait_navigations(handle, since, bool, 0.2)
            status = None
            if records:
                record = records[-1]
                if not self.wait_loaded(handle, record, timeout, TERMINAL):
                    return self._late_outcome(handle, f"the {action} page", since, timeout)
                record = self._contexts.navigation(record.navigation) or record
                if record.stage == "failed":
                    self._documents.wait_error_page(handle, record.seq)
                status = record.status
            current, title = self._tabs.location(handle)
        return NavigationOutcome(current, status, title)

    def _reload(self, handle: str) -> NavigationOutcome:
        since = self._contexts.seq
        timeout = self._config.navigation_timeout
        with bidi_errors("reload the page", failure=NavigationFailed):
            try:
                reply = self._documents.command(
                    handle, "browsingContext.reload", {"context": handle, "wait": "complete"}, timeout=timeout
                )
            except BidiTimeout:
                return self._late_outcome(handle, "the reloaded page", since, timeout)
            except BidiError as exc:
                return self._failed_navigation(handle, "the page", since, exc)
            self._documents.settle(1.0)
            record = self._contexts.navigation(str(reply.get("navigation") or ""))
            current, title = self._tabs.location(handle)
        return NavigationOutcome(current, record.status if record else None, title)

    def _blocked(self, handle: str, url: str, blocked: str) -> NavigationFailed:
        """The error for a navigation the guard stopped, once the tab is back off the error page the browser showed
        at the refused URL (the guard's undo does that; the tab must never be left showing that address)."""
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            current, _ = self._tabs.location(handle, title=False)
            if current != blocked:
                break
            time.sleep(0.1)
        return NavigationFailed(f"the navigation to {url} was stopped: it led to {blocked}, which is not allowed")

    def _late_outcome(self, handle: str, url: str, since: int, timeout: float) -> NavigationOutcome:
        """The navigation outlived its timeout. A page whose document is in, still loading some subresource, is
        usable; a page that never arrived is a failure."""
        self._documents.settle(1.0)
        records = self._contexts.navigations_since(handle, since)
        record = records[-1] if records else None
        if record is not None and record.stage in ("domContentLoaded", "load"):
            current, title = self._tabs.location(handle)
            return NavigationOutcome(current, record.status, title)
        raise NavigationFailed(f"Navigation to {url} timed out after {timeout:g} seconds. The page may be unavailable.")

    def _failed_navigation(self, handle: str, url: str, since: int, exc: BidiError) -> NavigationOutcome:
        """What a refused navigation command really meant: the guard stopped it, the URL was a file (a download
        is no failure), the tab closed, or it failed (`exc` is raised again for `bidi_errors` to word)."""
        self._documents.settle(1.0)
        self._documents.wait_error_page(handle, since)
        if not self._documents.is_tab(handle):
            raise TabGone(handle) from exc
        records = self._contexts.navigations_since(handle, since)
        for record in records:
            if record.blocked_url:
                raise self._blocked(handle, url, record.blocked_url) from exc
        if "abort" in (exc.message or "").lower() and not any(r.stage == "download" for r in records):
            # A URL that turns out to be a file aborts the navigation just before the download begins.
            records = self._contexts.wait_navigations(
                handle, since, lambda found: any(r.stage == "download" for r in found), 2.0
            )
        if any(record.stage == "download" for record in records):
            # The URL was a file: the browser downloads it and the tab stays where it was.
            current, title = self._tabs.location(handle)
            return NavigationOutcome(current, None, title)
        raise exc

    # --- navigations an action starts -----------------------------------------------------------------------------

    @contextmanager
    def following(self, handle: str) -> Iterator[None]:
        """Run an action that may navigate the tab (a click, a key, a script); once it has succeeded, wait until the
        document it started is readable, so the next call does not read the old one or fail halfway through the
        switch."""
        since = self._contexts.seq
        yield
        self.after_input(handle, since)

    def after_input(self, handle: str, since: int, *, probed: bool = False) -> None:
        """`probed`: the caller already made a round trip through the page after the input (a scroll waits for
        frames), which gave a navigation the input started the same time to be announced.

        Firefox needs no such round trip: its BiDi lives in the browser and announces a navigation the input
        started (a form submitted by Enter, a handler setting `location`, one in a zero-delay timer) before the
        input's reply, so the events already received say it all (measured over 50 cases of each). Chromium's
        BiDi is relayed by its mapper, which announced an Enter submission after the reply three times in four."""
        started = self._contexts.navigations_since(handle, since, refused=False)
        if not started and (probed or self._config.family == "firefox"):
            self._documents.settle(1.0)
            started = self._contexts.navigations_since(handle, since, refused=False)
        elif not started:
            # A navigation the input caused can be announced a few milliseconds after the input's reply: one round
            # trip through the page gives it that time.
            self._scripts.peek(handle, "0", timeout=2)
            self._documents.settle(1.0)
            started = self._contexts.navigations_since(handle, since, refused=False)
        if started and self.wait_loaded(handle, started[-1], self._config.navigation_timeout, READABLE):
            self.wait_loaded(handle, started[-1], min(LOAD_GRACE_SECONDS, self._config.navigation_timeout), LOADED)

    def wait_settled(self, handle: str, timeout: float) -> None:
        """Wait for the tab's newest navigation (if one is under way) to load or end."""
        self._documents.settle(1.0)
        latest = self._contexts.latest_navigation(handle)
        if latest is not None and latest.stage in ("started", "committed"):
            self.wait_loaded(handle, latest, timeout, READABLE)

    def _restored(self, handle: str, record: NavRecord) -> bool:
        """Whether the tab shows a complete document at the navigation's URL although no event said so."""
        if not record.url:
            return False
        state = self._scripts.peek(handle, "[location.href, document.readyState]", timeout=2)
        return isinstance(state, list) and state == [record.url, "complete"]

    def wait_loaded(self, handle: str, record: NavRecord, timeout: float, stages: tuple[str, ...]) -> bool:
        """Wait for a navigation to reach `stages`. A document that committed under another navigation id (a
        back/forward-cache restore) sends no load event: its `readyState` says when it is ready."""
        deadline = time.monotonic() + timeout
        while not self._contexts.wait_navigation(
            record.navigation, min(0.25, max(0.0, deadline - time.monotonic())), stages
        ):
            # Firefox restores a page from its back/forward cache with a `navigationStarted` and nothing after it
            # (no commit, no load): the restored document itself says when it is there.
            if self._restored(handle, record):
                self._contexts.restored(record)
                return True
            if time.monotonic() >= deadline:
                return False
        latest = self._contexts.navigation(record.navigation) or record
        if latest.stage in stages or latest.stage in ("failed", "aborted", "download"):
            return True
        while time.monotonic() < deadline and self._documents.is_tab(handle):
            if self._scripts.peek(handle, "document.readyState", timeout=2) == "complete":
                return True
            time.sleep(0.05)
        return not self._documents.is_tab(handle)
