"""Tabs: which are open and active, opening, activating and closing them, their viewport, and capturing them.

The browser has no notion of the "active tab" BiDi could report, so the driver keeps its own: the tab it last
opened or activated, or the newest one a page opened (browsers bring those to the front). Browsers also end the
session with their last tab, so closing it parks an unreported blank tab instead, which the next `open` reuses.
"""

from __future__ import annotations

import base64
import logging
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from browser_toolset.driver_errors import DriverError, TabGone
from browser_toolset.values import Capture, Rect, Size, TabInfo

from .capture import ScaledCapture
from .connection import BidiClosed, BidiConnection, BidiError, BidiTimeout
from .contexts import Contexts
from .documents import Documents
from .errors import GONE_ERRORS, ContextGone, bidi_errors
from .options import SeleniumConfig
from .script import Scripts
from .titles import title_watch

__all__ = ["POPUP_PROBE_SECONDS", "Tabs", "close_until_gone"]

log = logging.getLogger(__name__)

POPUP_PROBE_SECONDS = 0.5
"""How long a page-opened tab may take to answer a trivial script before it counts as stuck (see
`Tabs._check_popup`)."""

CLOSE_ATTEMPTS = 3
CLOSE_RETRY_SECONDS = 2.0
"""Chromium can acknowledge a close that races a navigation committing in the tab (a meta refresh, a script
setting `location`) and then drop it: the tab stays open and the close is never answered, or answered with an
error. Closing it again closes it, so a close unanswered after this many seconds, or refused while the tab stays
open, is sent again; the last attempt waits the full command timeout."""

PENDING_TITLE_WAIT = 0.5
"""Seconds a tab whose navigation has not committed is given to tell its title (see `Tabs._page_title`)."""


def png_size(png: bytes) -> Size | None:
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return Size(int(width), int(height))


def close_until_gone(send: Callable[[float | None], object], gone: Callable[[], bool]) -> None:
    """Send a close (`send(timeout)`; None: the full command timeout) until the browser answers it or the tab is
    gone (`gone()` waits a little for that), at most `CLOSE_ATTEMPTS` times."""
    for attempt in range(1, CLOSE_ATTEMPTS + 1):
        last = attempt == CLOSE_ATTEMPTS
        try:
            send(None if last else CLOSE_RETRY_SECONDS)
            return
        except BidiTimeout:
            if last:
                raise
            log.debug("no answer to a tab close within %gs: closing it again", CLOSE_RETRY_SECONDS)
        except (ContextGone, BidiClosed):
            raise
        except BidiError:
            # Chromium answers "Session with given id not found" to a close that meets a navigation committing in
            # the tab, or that follows a close it did after all: the tab going away says which. One still there
            # is closed again.
            if gone():
                return
            if last:
                raise
            log.debug("a tab close failed and the tab is still open: closing it again", exc_info=True)


class Tabs:
    """The tabs the driver reports, and the one it considers active. Thread-safe."""

    def __init__(
        self,
        connection: BidiConnection,
        config: SeleniumConfig,
        documents: Documents,
        contexts: Contexts,
        scripts: Scripts,
    ) -> None:
        self._conn = connection
        self._config = config
        self._documents = documents
        self._contexts = contexts
        self._scripts = scripts
        self._lock = threading.Lock()
        self._active: str | None = None
        self._parked: set[str] = set()
        """Tabs the driver keeps open but does not report: closing the last tab would end the session."""
        self._reserved: set[str] = set()
        """Tabs the browser started with, kept open, unreported and never handed out (see `reserve_first`)."""
        self._unsettled: dict[str, threading.Event] = {}
        """Page-opened tabs still being checked (see `_check_popup`): calls on them wait for the check."""
        self._scrollbars_overlay = config.family == "chromium"
        self._capture_lock = threading.Lock()
        """One capture at a time: a full capture must not see the ratio a zoom capture raised."""
        self._scaled = ScaledCapture(connection, documents, self._viewport_params, config.command_timeout)

    def start(self, handles: Iterable[str]) -> None:
        """Size the tabs the session started with; the first is the active one."""
        handles = list(handles)
        self._watch_titles()
        with bidi_errors("set the viewport"):
            for handle in handles:
                self.apply_viewport(handle)
        if handles:
            self._set_active(handles[0])

    def _watch_titles(self) -> None:
        """Install the title watch in every new document (see `titles.title_watch`); without it, listing tabs
        reads each title with a round trip."""
        # The page's own realm: a title is the page's to set, and the watch defines no global the page could see.
        params = {"functionDeclaration": title_watch(self._documents.title_marker)}
        try:
            self._conn.command("script.addPreloadScript", params)
        except BidiError as exc:
            log.info("selenium-%s cannot watch titles: %s", self._config.browser, exc)

    # --- checks ---------------------------------------------------------------------------------------------------

    def check(self, handle: str) -> None:
        """Raise `TabGone` unless `handle` is an open tab the driver reports; wait until it is ready for commands."""
        if self._is_parked(handle) or not self._documents.is_tab(handle):
            self._documents.settle(0.5)
            if self._is_parked(handle) or not self._documents.is_tab(handle):
                raise TabGone(handle)
        with self._lock:
            checking = self._unsettled.get(handle)
        if checking is not None:
            checking.wait(self._config.navigation_timeout + 5)

    def _is_parked(self, handle: str) -> bool:
        with self._lock:
            return handle in self._parked or handle in self._reserved

    # --- new tabs -------------------------------------------------------------------------------------------------

    def prepare(self, handle: str, opener: str | None) -> None:
        """Runs on the event thread for every new tab, page-opened ones included: same viewport everywhere."""
        try:
            self._send_viewport(handle)
        except BidiError:
            log.debug("could not size the new tab %s", handle, exc_info=True)
        if opener is not None:
            done = threading.Event()
            with self._lock:
                self._unsettled[handle] = done
            threading.Thread(target=self._check_popup, args=(handle, done), name="check-popup", daemon=True).start()

    def _check_popup(self, handle: str, done: threading.Event) -> None:
        """Chromium's BiDi never answers commands addressed to a tab opened by `window.open` (scripts by context,
        input, screenshots) until that tab navigates again. Once the popup's first page is in, probe it; a popup
        that does not answer is reloaded, which brings it back."""
        try:
            self._contexts.wait_first_page(handle, self._config.navigation_timeout)
            if not self._documents.is_tab(handle):
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
                timeout=self._config.navigation_timeout,
            )
        except BidiError:
            log.debug("checking the page-opened tab %s failed", handle, exc_info=True)
        finally:
            done.set()
            with self._lock:
                self._unsettled.pop(handle, None)

    # --- viewport -------------------------------------------------------------------------------------------------

    def _viewport_params(self, handle: str) -> dict[str, Any]:
        size = self._config.viewport
        return {"context": handle, "viewport": {"width": size.width, "height": size.height}, "devicePixelRatio": 1}

    def _send_viewport(self, handle: str) -> None:
        self._conn.send("browsingContext.setViewport", self._viewport_params(handle))
        if self._scrollbars_overlay:
            self._conn.send("emulation.setScrollbarTypeOverride", {"contexts": [handle], "scrollbarType": "overlay"})

    def apply_viewport(self, handle: str) -> None:
        """Set the viewport and wait for it: the next capture must already have the exact size. Raises
        `BidiError`."""
        self._documents.command(handle, "browsingContext.setViewport", self._viewport_params(handle))
        if self._scrollbars_overlay:
            try:
                # Classic scrollbars take 15 px from the layout viewport; overlay ones keep the page CSS width.
                self._conn.command(
                    "emulation.setScrollbarTypeOverride", {"contexts": [handle], "scrollbarType": "overlay"}
                )
            except BidiError as exc:
                log.info("selenium-%s keeps classic scrollbars: %s", self._config.browser, exc)
                self._scrollbars_overlay = False

    # --- listing and switching ------------------------------------------------------------------------------------

    def listing(self) -> list[TabInfo]:
        self._documents.settle(0.5)
        handles = [handle for handle in self._documents.tabs() if not self._is_parked(handle)]
        known = [self._contexts.location(handle) for handle in handles]
        if handles and all(location is not None for location in known):
            # The common case: every tab's URL and title are known from events, no round trip needed.
            active = self.active()
            return [
                TabInfo(handle, location[0], location[1], active=handle == active)
                for handle, location in zip(handles, known)
                if location is not None
            ]
        with bidi_errors("list the tabs"):
            tree = self._conn.command("browsingContext.getTree", {"maxDepth": 0})
        listed: list[tuple[str, str]] = []
        for context in tree.get("contexts") or []:
            handle = str(context.get("context"))
            if not self._is_parked(handle):
                listed.append((handle, str(context.get("url") or "")))
        active = self.active()
        infos = []
        for handle, url in listed:
            location = self._contexts.location(handle)
            title = location[1] if location is not None else self._page_title(handle)
            infos.append(TabInfo(handle, url, title, active=handle == active))
        return infos

    def active(self) -> str | None:
        self._documents.settle(0.5)
        visible = [h for h in self._documents.tabs() if not self._is_parked(h)]
        popup = self._contexts.take_popup()
        with self._lock:
            if popup is not None and popup in visible:
                # A page brought a new tab to the front after the driver last chose one.
                self._active = popup
            if self._active in visible:
                return self._active
        if not visible:
            return None
        for handle in visible:
            if self._scripts.peek(handle, "document.visibilityState === 'visible'", timeout=2) is True:
                return handle
        return visible[-1]

    def _set_active(self, handle: str | None) -> None:
        with self._lock:
            self._active = handle
        self._contexts.clear_popup()

    def open(self) -> str:
        parked = self._ready_parked()
        if parked is not None:
            handle = parked
        else:
            with bidi_errors("open a tab"):
                reply = self._conn.command("browsingContext.create", {"type": "tab"})
                handle = str(reply["context"])
                self._contexts.claim(handle)
                # Under load the reply can come before the tab's contextCreated is handled (a loaded run abandoned
                # the viewport command as if the new tab were gone).
                self._documents.wait_known(handle, 5.0)
                self.apply_viewport(handle)
        self._set_active(handle)
        if parked is not None:
            self._navigate_blank(handle)
        self._documents.settle(0.5)
        if not self._contexts.navigations_since(handle, 0):
            self._documents.assume_blank(handle)
        return handle

    def reserve_first(self, handles: Iterable[str]) -> None:
        """Hand out a tab of the driver's own instead of the ones Chromium started with, which stay open, unreported.
        A script that never yields (`for (;;) {}`) in the tab Chromium starts with often stops every BiDi reply of
        the session, other tabs included (measured: about half the time), where in a tab opened later it stops only
        that tab. Closing the first tab is not enough: the oldest tab left then does the same."""
        handles = list(handles)
        self.open()
        with self._lock:
            self._reserved.update(handles)

    def _ready_parked(self) -> str | None:
        """A parked tab, activated and sized to hand out again; None when none is left. A parked tab can go away
        while it is readied (its browser ends it): the next one is tried, and then a new tab is opened."""
        while (handle := self._unpark()) is not None:
            try:
                self._documents.command(handle, "browsingContext.activate", {"context": handle})
                self._contexts.claim(handle)
                self.apply_viewport(handle)
                return handle
            except BidiError as exc:
                if self._documents.is_tab(handle) and exc.error not in GONE_ERRORS:
                    with bidi_errors("open a tab"):
                        raise
                log.debug("the parked tab %s went away as it was readied", handle, exc_info=True)
        return None

    def _unpark(self) -> str | None:
        """A parked tab to hand out again, if one is still open."""
        with self._lock:
            while self._parked:
                handle = self._parked.pop()
                if self._documents.is_tab(handle):
                    return handle
        return None

    def _navigate_blank(self, handle: str) -> None:
        try:
            self._documents.command(
                handle, "browsingContext.navigate", {"context": handle, "url": "about:blank", "wait": "complete"}
            )
        except BidiError:
            log.debug("could not blank %s", handle, exc_info=True)

    def activate(self, handle: str) -> None:
        self.check(handle)
        with bidi_errors("activate the tab"):
            self._documents.command(handle, "browsingContext.activate", {"context": handle})
        self._set_active(handle)

    def close(self, handle: str) -> None:
        self.check(handle)
        others = [h for h in self._documents.tabs() if h != handle and not self._is_parked(h)]
        with self._lock:
            park = not others and not self._parked and not self._reserved
        self._contexts.expect_close(handle)
        with bidi_errors("close the tab"):
            try:
                if park:
                    # Browsers end the session with their last tab; keep an unreported one open instead.
                    reply = self._conn.command("browsingContext.create", {"type": "tab", "background": True})
                    parked = str(reply["context"])
                    with self._lock:
                        self._parked.add(parked)
                    self._contexts.claim(parked)
                self._close(handle)
            except ContextGone:
                pass  # gone before the reply came: closed, as asked
            except BidiError:
                self._contexts.expect_close(handle, False)
                raise
        self._documents.wait_closed(handle, 5.0)
        with self._lock:
            if self._active == handle:
                self._active = None

    def _close(self, handle: str) -> None:
        params = {"context": handle, "promptUnload": False}
        close_until_gone(
            lambda timeout: self._documents.command(handle, "browsingContext.close", params, timeout=timeout),
            lambda: self._documents.wait_closed(handle, 2.0),
        )

    # --- where a tab is -------------------------------------------------------------------------------------------

    def location(self, handle: str, *, title: bool = True) -> tuple[str, str]:
        """The tab's URL (as the browser reports it) and title; empty when the browser cannot say right now."""
        self._documents.settle(0.5)
        known = self._contexts.location(handle)
        if known is not None:
            return known if title else (known[0], "")
        url = ""
        try:
            tree = self._documents.command(
                handle, "browsingContext.getTree", {"root": handle, "maxDepth": 0}, timeout=5
            )
            contexts = tree.get("contexts") or []
            if contexts:
                url = str(contexts[0].get("url") or "")
        except BidiError as exc:
            if exc.error in GONE_ERRORS:
                raise TabGone(handle) from exc
        return url, self._page_title(handle) if title else ""

    def _page_title(self, handle: str) -> str:
        """The title of the tab's document when the events cannot tell it, asked from the page. While a navigation
        has not committed, the page is asked once and briefly: such a navigation (a server that never answers) holds
        every script of the tab, and the usual patient read would wait out its timeouts on every call; the old
        document, whose title the events told, is then the one shown."""
        latest = self._contexts.latest_navigation(handle)
        if latest is not None and latest.stage == "started":
            value = self._scripts.peek(handle, "document.title", timeout=PENDING_TITLE_WAIT, sandbox=False)
            # The document the events last told of is still the one shown: its title is the one to give.
            shown = self._documents.for_context(handle)
            return value if isinstance(value, str) else (shown.title if shown is not None else None) or ""
        return self._scripts.title(handle)

    # --- capture --------------------------------------------------------------------------------------------------

    def capture(self, handle: str) -> Capture:
        self.check(handle)
        viewport = self._config.viewport
        with bidi_errors("capture the page"), self._painted(handle):
            png = self._screenshot(handle)
            size = png_size(png)
            if size != viewport:
                log.info("capture of %s was %s; resizing the viewport and capturing again", handle, size)
                self.apply_viewport(handle)
                png = self._screenshot(handle)
                size = png_size(png)
                if size != viewport:
                    raise DriverError(f"the browser captured {size} pixels instead of the {viewport} viewport")
        return Capture(png=png, viewport=viewport)

    def capture_region(self, handle: str, clip: Rect, scale: float) -> Capture:
        """`clip` at `scale` device pixels per CSS pixel where the browser can (see `capture.ScaledCapture`)."""
        self.check(handle)
        viewport = self._config.viewport
        if not clip.within(viewport):
            raise DriverError(
                f"the capture region {clip} is not inside the {viewport.width}x{viewport.height} viewport"
            )
        with bidi_errors("capture the page"), self._painted(handle):
            png = self._scaled.capture(handle, clip, scale)
        return Capture(png=png, viewport=viewport, clip=clip)

    @contextmanager
    def _painted(self, handle: str) -> Iterator[None]:
        """Hold `handle` in front for a capture, one capture at a time: a background tab is not painted, so it is
        brought forward and the user's tab put back afterwards."""
        with self._capture_lock:
            with self._lock:
                previous = self._active
            switched = previous != handle
            if switched:
                self._documents.command(handle, "browsingContext.activate", {"context": handle})
            try:
                yield
            finally:
                if switched and previous is not None and self._documents.is_tab(previous):
                    try:
                        self._conn.command("browsingContext.activate", {"context": previous})
                    except BidiError:
                        log.debug("could not re-activate %s", previous, exc_info=True)

    def _screenshot(self, handle: str) -> bytes:
        reply = self._documents.command(
            handle,
            "browsingContext.captureScreenshot",
            {"context": handle, "origin": "viewport"},
            timeout=self._config.command_timeout,
        )
        return base64.b64decode(str(reply.get("data") or ""))
