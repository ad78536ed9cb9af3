"""`SeleniumDriver`: the `Driver` protocol on Chromium, Chrome, Firefox or a Selenium Grid, through WebDriver BiDi.

Selenium starts the session (and finds nothing by itself: see `launch`); after that every call goes over the
session's BiDi socket, never through classic WebDriver HTTP commands. That is not a style choice: Chromium
deadlocks when a classic command triggers a navigation while a BiDi network intercept is active, and the URL guard
keeps one active for the whole session. BiDi is also the faster path (a click is one `input.performActions`
round trip instead of ActionChains' 250 ms pointer moves), and the same commands work on every browser, so no code
path here depends on which browser runs. Where a browser lacks a command (scrollbar overlay, CDP for auto-repeat),
the driver falls back and says so in its results, never pretending.

The driver itself only wires the parts together and delegates: each BiDi domain has a module of its own, owning its
state and its lock (`documents`, `contexts`, `tabs`, `navigation`, `input`, `script`, `elements`, `guard`,
`network`, `log`, `downloads`, `dialogs`), and BiDi failures become driver errors in one place (`errors`). What a tab
shows is its `Document` (`documents`), the one owner of everything known about a document: a read asks it once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import DriverError
from browser_toolset.storage_state import StorageState
from browser_toolset.values import (
    WHOLE_TREE,
    AXSnapshot,
    Capture,
    ConsoleEntry,
    DriverEvent,
    ElementAtPoint,
    FormValue,
    HistoryAction,
    HoldOutcome,
    MouseButton,
    NavigationOutcome,
    NetworkEntry,
    Point,
    Rect,
    Size,
    SnapshotRequest,
    TabInfo,
    TabOpened,
)

from .connection import BidiError, Listener
from .contexts import Contexts
from .dialogs import Dialogs
from .documents import Documents
from .downloads import Downloads
from .egress import EgressPolicy
from .elements import Elements
from .errors import bidi_errors
from .events import Changes, EventQueue
from .guard import UrlGuard
from .input import Input
from .keepalive import KeepAlive
from .launch import LaunchedSession, launch
from .log import ConsoleLog
from .navigation import Navigator
from .network import NetworkLog
from .options import SeleniumConfig
from .remote_files import RemoteFiles, grid_offers_downloads
from .script import Scripts
from .storage import BrowserStorage
from .tabs import Tabs

__all__ = ["SeleniumDriver"]

log = logging.getLogger(__name__)


class SeleniumDriver(Driver):
    """A real browser behind the `Driver` protocol. See the module docstring for why everything goes over BiDi."""

    name: str

    def __init__(self, config: SeleniumConfig | None = None) -> None:
        self.config = config or SeleniumConfig()
        self.name = f"selenium-{self.config.browser}" + ("-remote" if self.config.remote_url else "")
        self._closed = False
        self._close_lock = threading.Lock()
        self._restart_lock = threading.Lock()
        self._allows: Callable[[str], bool] | None = None
        self._death: str | None = None  # why the browser or its WebDriver died, set by the watchdog
        self.restarts = 0
        self._boot()

    def _boot(self) -> None:
        """Start a browser and wire the parts to it (at construction, and again on a restart)."""
        self._death = None
        started = self._launch_config()
        self._session: LaunchedSession = launch(started)
        try:
            self._conn = self._session.connect(self.config.command_timeout)
            self._events = EventQueue()
            changes = Changes()
            self._documents = Documents(self._conn, changes)
            self._contexts = Contexts(self._documents, changes, self._events)
            self._scripts = Scripts(self._documents)
            self._tabs = Tabs(self._conn, self.config, self._documents, self._contexts, self._scripts)
            self._navigation = Navigator(self.config, self._documents, self._contexts, self._tabs, self._scripts)
            self._elements = Elements(
                self.config, self._documents, self._tabs, self._scripts, self._navigation, self._contexts
            )
            self._input = Input(
                self._conn,
                self.config,
                self._documents,
                self._contexts,
                self._tabs,
                self._scripts,
                self._navigation,
                frames=self._elements,
            )
            self._guard = UrlGuard(self._conn, self._documents, self._contexts, self._events)
            self._storage = BrowserStorage(self._conn, self._contexts, lambda: self._allows)
            self._network = NetworkLog(self._documents)
            self._console = ConsoleLog(self._documents)
            # A remote browser's files are on its machine: uploads are sent there, downloads fetched back.
            self._remote_files = (
                RemoteFiles(self._session.webdriver, self._session.download_dir, asked=started.managed_downloads)
                if started.remote_url
                else None
            )
            self._downloads = Downloads(self._events, self._session.download_dir, self._remote_files)
            self._dialogs = Dialogs(self._conn, self._events, accept=self.config.dialog_policy == "accept")
            if self._allows is not None:
                self.set_url_guard(self._allows)
            self._start()
            self._keepalive = KeepAlive(self._conn, self.config.keepalive) if started.remote_url else None
            self._session.watch(self._on_death)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> SeleniumDriver:
        """The entry-point factory: driver option strings (see `options.options()`) to a started driver."""
        return cls(SeleniumConfig.from_options(options))

    def _launch_config(self) -> SeleniumConfig:
        """The configuration a session starts with: a remote one asks for managed downloads where the Grid offers
        them (a Grid fails a session asking for them where it has none)."""
        config = self.config
        if config.remote_url and not config.managed_downloads:
            offered = grid_offers_downloads(config.remote_url, config.family, min(config.command_timeout, 10.0))
            config = attrs.evolve(config, managed_downloads=offered)
        return config

    @property
    def download_dir(self) -> str:
        """The folder on this machine where downloads arrive (a remote browser's are fetched into it)."""
        return self._session.download_dir

    # --- session start --------------------------------------------------------------------------------------------

    def _start(self) -> None:
        events = self._listen()
        with bidi_errors("start the session"):
            tree = self._conn.command("browsingContext.getTree", {"maxDepth": 0})
            contexts = [c for c in tree.get("contexts", []) if isinstance(c, dict)]
            self._contexts.seed(contexts)
            self._subscribe(events)
            if self._session.proxy is None:
                # From here on every request of every tab waits for the guard (which allows everything until one is
                # set). Behind the egress proxy the proxy refuses what the guard would, and the guard only watches:
                # Chromium can stop answering BiDi when a held navigation request (a page's 0-second refresh) is
                # announced in the same instant as the page's load event.
                self._conn.command("network.addIntercept", {"phases": ["beforeRequestSent"]})
            try:
                # With managed downloads the Grid chose the node's folder it hands files over from.
                if self._remote_files is None or not self._remote_files.managed:
                    self._conn.command(
                        "browser.setDownloadBehavior",
                        {"downloadBehavior": {"type": "allowed", "destinationFolder": self._session.download_dir}},
                    )
            except BidiError as exc:
                log.warning("the browser does not accept a download folder: %s", exc)
        first = [str(context["context"]) for context in contexts]
        self._tabs.start(first)
        if self.config.family == "chromium":
            self._tabs.reserve_first(first)

    def _listen(self) -> list[str]:
        """Connect the domains to the events they are fed by (before subscribing, so nothing is missed), and return
        those events. Where several handle one event, they run in this order: `Documents` first, then `Contexts`, so
        the others see the context, the document and the navigation the event is about."""
        self._contexts.on_opened(self._tabs.prepare)
        for forget in (
            self._elements.forget_contexts,
            self._input.forget_contexts,
            self._network.forget_contexts,
            self._console.forget_contexts,
        ):
            self._contexts.on_closed(forget)
        listeners: tuple[Listener, ...] = (
            self._documents,
            self._contexts,
            self._storage.in_front_of(self._guard),  # requests of its hidden tab are its own
            self._network,
            self._console,
            self._downloads,
            self._dialogs,
        )
        events: list[str] = []
        for listener in listeners:
            for method, handler in listener.handlers().items():
                self._conn.on(method, handler)
                if method not in events:
                    events.append(method)
        return events

    def _subscribe(self, events: Sequence[str]) -> None:
        try:
            self._conn.command("session.subscribe", {"events": list(events)})
        except BidiError:
            # One unknown event name fails the whole subscription; take what this browser has.
            for event in events:
                try:
                    self._conn.command("session.subscribe", {"events": [event]})
                except BidiError as exc:
                    log.info("%s cannot report %s: %s", self.name, event, exc)

    # --- tabs -----------------------------------------------------------------------------------------------------

    def list_tabs(self) -> list[TabInfo]:
        return self._tabs.listing()

    def open_tab(self) -> str:
        return self._tabs.open()

    def activate_tab(self, handle: str) -> None:
        self._tabs.activate(handle)

    def close_tab(self, handle: str) -> None:
        self._tabs.close(handle)

    # --- navigation -----------------------------------------------------------------------------------------------

    def set_url_guard(self, allows: Callable[[str], bool]) -> None:
        """The BiDi guard gets `allows`; the egress proxy gets the policy behind it (see `EgressPolicy.from_guard`)."""
        self._allows = allows
        self._guard.set(allows)
        if self._session.proxy is not None:
            self._session.proxy.set_policy(EgressPolicy.from_guard(allows))

    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        return self._navigation.navigate(handle, url)

    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        return self._navigation.history(handle, action)

    # --- capture --------------------------------------------------------------------------------------------------

    def viewport(self, handle: str) -> Size:
        self._tabs.check(handle)
        return self.config.viewport

    def capture(self, handle: str) -> Capture:
        return self._tabs.capture(handle)

    def capture_region(self, handle: str, clip: Rect, scale: float) -> Capture:
        return self._tabs.capture_region(handle, clip, scale)

    # --- pointer --------------------------------------------------------------------------------------------------

    def click(
        self, handle: str, point: Point, *, button: MouseButton = "left", count: int = 1, modifiers: Sequence[str] = ()
    ) -> None:
        self._input.click(handle, point, button, count, modifiers)

    def move(self, handle: str, point: Point) -> None:
        self._input.move(handle, point)

    def mouse_down(self, handle: str, point: Point) -> None:
        self._input.button(handle, point, down=True)

    def mouse_up(self, handle: str, point: Point) -> None:
        self._input.button(handle, point, down=False)

    def drag(self, handle: str, start: Point, end: Point) -> None:
        self._input.drag(handle, start, end)

    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        self._input.wheel(handle, point, delta_x, delta_y)

    # --- keyboard -------------------------------------------------------------------------------------------------

    def type_text(self, handle: str, text: str) -> None:
        self._input.type_text(handle, text)

    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        self._input.press_keys(handle, chord)

    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        return self._input.hold_keys(handle, chord, seconds)

    # --- accessibility tree and elements --------------------------------------------------------------------------

    def snapshot(self, handle: str, request: SnapshotRequest = WHOLE_TREE) -> AXSnapshot:
        return self._elements.snapshot(handle, request)

    def element_center(self, handle: str, key: str) -> Point:
        return self._elements.element_center(handle, key)

    def element_at(self, handle: str, point: Point, of: str | None = None) -> ElementAtPoint | None:
        return self._elements.element_at(handle, point, of)

    def scroll_into_view(self, handle: str, key: str) -> None:
        self._elements.scroll_into_view(handle, key)

    def key_target(self, handle: str, key: str, moved: bool = False) -> ElementAtPoint | None:
        return self._elements.key_target(handle, key, moved)

    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        return self._elements.set_value(handle, key, value)

    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        send = None if self._remote_files is None else self._remote_files.send
        self._elements.set_files(handle, key, paths, send)

    def document_url(self, handle: str, key: str | None = None) -> str:
        return self._elements.document_url(handle, key)

    def secret_boxes(self, handle: str, values: Sequence[str]) -> list[Rect]:
        return self._elements.secret_boxes(handle, values)

    # --- page content, diagnostics, scripting ---------------------------------------------------------------------

    def page_text(self, handle: str) -> str:
        return self._elements.page_text(handle)

    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        self._tabs.check(handle)
        return self._console.drain(handle)

    def drain_network(self, handle: str) -> list[NetworkEntry]:
        self._tabs.check(handle)
        return self._network.drain(handle)

    def evaluate(self, handle: str, expression: str) -> str:
        self._tabs.check(handle)
        with self._navigation.following(handle):
            return self._scripts.evaluate(handle, expression, timeout=self.config.script_timeout)

    # --- storage state --------------------------------------------------------------------------------------------

    def storage_state(self) -> StorageState:
        return self._storage.read()

    def load_storage_state(self, state: StorageState) -> list[str]:
        return self._storage.load(state)

    # --- events ---------------------------------------------------------------------------------------------------

    def drain_events(self) -> list[DriverEvent]:
        self._documents.settle(1.0)
        self._downloads.fetch_finished()
        events = self._events.drain()
        # Read after the drain: a tab the driver opened is claimed once its handle is known, which can be after its
        # `contextCreated` was queued.
        own = self._contexts.own_tabs()
        return [event for event in events if not (isinstance(event, TabOpened) and event.handle in own)]

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._teardown()

    def _teardown(self, *, graceful: bool = True) -> None:
        """End the connection, the browser, every process it started, the proxy and the temporary folders (and a
        remote session's downloads on the Grid's node)."""
        keepalive = getattr(self, "_keepalive", None)
        if keepalive is not None:
            keepalive.stop()
        remote = getattr(self, "_remote_files", None)
        if graceful and remote is not None:
            remote.clear()
        conn, session = getattr(self, "_conn", None), getattr(self, "_session", None)
        try:
            if conn is not None:
                conn.close()
        finally:  # even after a Ctrl-C in the line above
            if session is not None:
                session.shutdown(graceful=graceful)

    # --- faults ---------------------------------------------------------------------------------------------------

    def _on_death(self, why: str) -> None:
        """The watchdog's report (on its thread): the WebDriver binary or the browser is gone and its processes
        have been ended."""
        self._death = why
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()

    def dead(self) -> str | None:
        """Why the browser session can no longer answer, or None while it can."""
        if self._death is not None:
            return self._death
        if self._conn.closed:
            # A process that dies closes its sockets a moment before it can be seen to have exited: give the
            # session half a second to say which one it was.
            deadline = time.monotonic() + 0.5
            while (why := self._session.death()) is None and time.monotonic() < deadline:
                time.sleep(0.02)
            self._death = why or "the connection to the browser closed"
            return self._death
        return None

    def _revive(self, call: str) -> None:
        """Before each call: with a dead browser, fail saying so, or (with `restart=on`) start a fresh one. A call
        about the old tabs then fails saying a fresh browser was started; the next `list_tabs` (which the executor
        also reads for every result's tab inventory) shows the new browser's tabs."""
        if self._closed:
            return
        why = self.dead()
        if why is None:
            return
        if not self.config.restart:
            raise DriverError(
                f"the browser session has ended ({why}). Start a new session, or use the driver option restart=on "
                "to start a fresh browser automatically."
            )
        log.warning("%s: %s; starting a fresh browser", self.name, why)
        with self._restart_lock:
            if self.dead() is not None:
                self._teardown(graceful=False)
                self._boot()
                self.restarts += 1
        if call in _ANSWERED_AFTER_RESTART:
            return
        raise DriverError(
            f"the browser had stopped ({why}), so a fresh browser was started with one blank tab: every earlier tab "
            "is gone. Call list_tabs to see the new browser's tabs, then repeat the action."
        )

    def __enter__(self) -> SeleniumDriver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_ANSWERED_AFTER_RESTART = frozenset({"list_tabs", "drain_events", "open_tab"})
"""Calls that do not name an old tab, and so are answered by a freshly restarted browser."""

_NOT_GUARDED = frozenset({"close", "set_url_guard", "dead"})


def _guarded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    def call(self: SeleniumDriver, *args: Any, **kwargs: Any) -> Any:
        self._revive(name)
        return method(self, *args, **kwargs)

    call.__name__ = method.__name__
    call.__qualname__ = method.__qualname__
    call.__doc__ = method.__doc__
    return call


# Every protocol call first checks that the browser is alive (and restarts it with restart=on).
for _name in [name for name in vars(Driver) if not name.startswith("_") and callable(getattr(Driver, name))]:
    if _name not in _NOT_GUARDED and callable(vars(SeleniumDriver).get(_name)):
        setattr(SeleniumDriver, _name, _guarded(_name, vars(SeleniumDriver)[_name]))
