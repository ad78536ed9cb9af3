"""`MockDriver`: the `Driver` protocol over the in-memory browser, recording every call it receives.

Each protocol method checks its arguments as a real browser would (a closed tab, a point outside the viewport,
a value the element cannot take) and then takes the same steps a page's own script takes through `_Browser`, so
the two cannot drift apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import DriverError, InvalidValue, TabGone
from browser_toolset.driver_options import DriverOption
from browser_toolset.storage_state import StorageState, merged_storage
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
    parse_viewport,
)

from .actions import action_of, context_of
from .actions import key_target as _key_target
from .browser import _Browser
from .document import CHECKABLE, TEXT_ENTRY, LiveElement, _choose_option, _describe, _editable, _set_checked
from .interaction import _check_point, _chord, _hover, _key, _press, _release
from .layout import _hit, _scroll_by, _scroll_into_view
from .live_page import LivePage
from .paint import _render
from .reading import _page_text, _snapshot
from .recording import Call, _recorded
from .script import _evaluate, _js_text
from .secret_reads import _document_url, _secret_boxes
from .site import Site

DEFAULT_VIEWPORT = Size(1280, 800)
MAX_REAL_SLEEP = 1.0
MAX_CAPTURE_SCALE = 8.0
"""The highest scale `capture_region` paints at: enough for any zoom, small enough that a bad one cannot exhaust
memory."""


def _capped_sleep(seconds: float) -> None:
    """A real sleep, capped: a mock has nothing to wait for, and a test holding a key for 30 s should not take 30 s."""
    time.sleep(min(max(seconds, 0.0), MAX_REAL_SLEEP))


def _viewport_option(text: str) -> Size:
    try:
        return parse_viewport(text)
    except ValueError as exc:
        raise ValueError(f"mock driver option 'viewport': {exc}") from None


class MockDriver(Driver):
    """A deterministic, in-memory `Driver`. See the package docstring and `docs/mock-driver.md`.

    `sleep` is what `hold_keys` waits with (a real sleep capped at one second by default; pass `lambda s: None` in
    tests), `clock` the epoch-seconds clock console and network timestamps come from, and `download_dir` where
    downloads land (a temporary directory, removed on `close()`, by default).
    """

    name = "mock"

    def __init__(
        self,
        site: Site | None = None,
        *,
        viewport: Size = DEFAULT_VIEWPORT,
        start_url: str | None = None,
        sleep: Callable[[float], None] = _capped_sleep,
        clock: Callable[[], float] = time.time,
        download_dir: str | Path | None = None,
    ) -> None:
        self.calls: list[Call] = []
        self._sleep = sleep
        self._storage = StorageState()  # the in-memory browser's cookies and localStorage (its pages set none)
        self._browser = _Browser(site if site is not None else Site(), viewport, clock, download_dir)
        tab = self._browser.new_tab()
        self._browser.active = tab.handle
        start = start_url if start_url is not None else self.site.start
        if start is not None:
            self._browser.load(tab, self._browser.absolute(start), by_page=True, entry="replace")

    @classmethod
    def options(cls) -> tuple[DriverOption, ...]:
        """The options `from_options` takes, declared for `browser-toolset` configuration."""
        return (
            DriverOption("site", "path", None, "a JSON site file (without it the mock starts with one blank tab)"),
            DriverOption(
                "viewport", "viewport", f"{DEFAULT_VIEWPORT.width}x{DEFAULT_VIEWPORT.height}", "the viewport size"
            ),
            DriverOption("start_url", "text", None, "the page the first tab opens (default: the site's start page)"),
        )

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> MockDriver:
        """The `browser_toolset.drivers` entry point: `site` (a JSON site file), `viewport` (`1280x800`),
        `start_url`."""
        unknown = sorted(set(options) - {"site", "viewport", "start_url"})
        if unknown:
            raise ValueError(f"unknown mock driver option {unknown[0]!r}; it takes site, viewport and start_url")
        site = Site.from_json(options["site"]) if "site" in options else None
        viewport = _viewport_option(options["viewport"]) if "viewport" in options else DEFAULT_VIEWPORT
        return cls(site, viewport=viewport, start_url=options.get("start_url"))

    @classmethod
    def from_json(cls, path: str | Path, **kwargs: Any) -> MockDriver:
        """A driver on the site in a JSON file; `kwargs` as for the constructor."""
        return cls(Site.from_json(path), **kwargs)

    def __enter__(self) -> MockDriver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- test helpers (not recorded) -----------------------------------------------------------------------------

    @property
    def site(self) -> Site:
        """The site every load reads (so changes to it apply to the next navigation)."""
        return self._browser.site

    @site.setter
    def site(self, site: Site) -> None:
        self._browser.site = site

    def page(self, handle: str | None = None) -> LivePage:
        """The document `handle` (else the active tab) shows; see `LivePage`."""
        target = handle if handle is not None else self._browser.active
        if target is None:
            raise TabGone("(none: no tab is open)")
        self._browser.tab(target)
        return LivePage(self._browser, target)

    def calls_to(self, *methods: str) -> list[Call]:
        """The recorded calls to any of `methods`, oldest first."""
        return [call for call in self.calls if call.method in methods]

    @property
    def handles(self) -> list[str]:
        return list(self._browser.tabs)

    @property
    def download_dir(self) -> Path:
        return self._browser.download_dir

    def complete_downloads(self) -> None:
        """Finish every pending download now; their events reach the next `drain_events`."""
        self._browser.complete_downloads()

    # --- tabs ----------------------------------------------------------------------------------------------------

    @_recorded
    def list_tabs(self) -> list[TabInfo]:
        return [
            TabInfo(tab.handle, tab.doc.url, tab.doc.title, active=tab.handle == self._browser.active)
            for tab in self._browser.tabs.values()
        ]

    @_recorded
    def open_tab(self) -> str:
        if self._browser.closed:
            raise DriverError("the mock browser is closed")
        tab = self._browser.new_tab()
        self._browser.active = tab.handle
        return tab.handle

    @_recorded
    def activate_tab(self, handle: str) -> None:
        self._browser.active = self._browser.tab(handle).handle

    @_recorded
    def close_tab(self, handle: str) -> None:
        self._browser.remove_tab(self._browser.tab(handle))

    # --- navigation ----------------------------------------------------------------------------------------------

    @_recorded
    def set_url_guard(self, allows: Callable[[str], bool]) -> None:
        self._browser.allows = allows

    @_recorded
    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        tab = self._browser.tab(handle)
        self._browser.load(tab, self._browser.absolute(url), by_page=False, entry="push")
        return self._browser.outcome(tab)

    @_recorded
    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        tab = self._browser.tab(handle)
        step = {"back": -1, "forward": 1, "reload": 0}[action]
        index = tab.index + step
        if 0 <= index < len(tab.history):
            self._browser.load(tab, tab.history[index], by_page=False, entry=index)
        return self._browser.outcome(tab)

    # --- capture -------------------------------------------------------------------------------------------------

    @_recorded
    def viewport(self, handle: str) -> Size:
        self._browser.tab(handle)
        return self._browser.viewport

    @_recorded
    def capture(self, handle: str) -> Capture:
        doc = self._browser.tab(handle).doc
        viewport = self._browser.viewport
        return Capture(png=_render(doc, self._browser.layout(doc), viewport), viewport=viewport)

    @_recorded
    def capture_region(self, handle: str, clip: Rect, scale: float) -> Capture:
        doc = self._browser.tab(handle).doc
        viewport = self._browser.viewport
        if not clip.within(viewport):
            raise DriverError(
                f"the capture region {clip} is not inside the {viewport.width}x{viewport.height} viewport"
            )
        if not 0 < scale <= MAX_CAPTURE_SCALE:
            raise DriverError(f"the capture scale {scale:g} is not in (0, {MAX_CAPTURE_SCALE}]")
        # painted at the scale, as a browser renders at a device-pixel ratio: the detail grows with it
        png = _render(doc, self._browser.layout(doc), viewport, clip, scale)
        return Capture(png=png, viewport=viewport, clip=clip)

    # --- pointer -------------------------------------------------------------------------------------------------

    @_recorded
    def click(
        self, handle: str, point: Point, *, button: MouseButton = "left", count: int = 1, modifiers: Sequence[str] = ()
    ) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, point)
        doc = tab.doc
        for _ in range(max(count, 1)):
            if tab.doc is not doc or handle not in self._browser.tabs:
                return
            _press(self._browser, tab, point, button)
            _release(self._browser, tab, point, button, frozenset(modifiers))
        focused = doc.focused
        if count >= 3 and focused is not None and _editable(focused):
            doc.select_all = True

    @_recorded
    def move(self, handle: str, point: Point) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, point)
        _hover(self._browser, tab, point)

    @_recorded
    def mouse_down(self, handle: str, point: Point) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, point)
        _press(self._browser, tab, point, "left")

    @_recorded
    def mouse_up(self, handle: str, point: Point) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, point)
        _release(self._browser, tab, point, "left", frozenset())

    @_recorded
    def drag(self, handle: str, start: Point, end: Point) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, start)
        _check_point(self._browser.viewport, end)
        _press(self._browser, tab, start, "left")
        _hover(self._browser, tab, Point((start.x + end.x) / 2, (start.y + end.y) / 2))
        _release(self._browser, tab, end, "left", frozenset())

    @_recorded
    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        tab = self._browser.tab(handle)
        _check_point(self._browser.viewport, point)
        _hover(self._browser, tab, point)
        _scroll_by(tab.doc, self._browser.viewport, delta_x, delta_y)

    # --- keyboard ------------------------------------------------------------------------------------------------

    @_recorded
    def type_text(self, handle: str, text: str) -> None:
        tab = self._browser.tab(handle)
        for char in text:
            if char != "\r":
                _key(self._browser, tab, {"\n": "Enter", "\t": "Tab"}.get(char, char), frozenset())

    @_recorded
    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        _chord(self._browser, self._browser.tab(handle), chord)

    @_recorded
    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        _chord(self._browser, self._browser.tab(handle), chord)
        self._sleep(seconds)
        return HoldOutcome(repeated=False)

    # --- accessibility tree and elements -------------------------------------------------------------------------

    @_recorded
    def snapshot(self, handle: str, request: SnapshotRequest = WHOLE_TREE) -> AXSnapshot:
        # The whole tree answers every request (see `SnapshotRequest`): the executor applies it when rendering.
        return _snapshot(self._browser.tab(handle).doc, self._browser.viewport)

    @_recorded
    def element_center(self, handle: str, key: str) -> Point:
        tab, element = self._browser.element(handle, key)
        viewport = self._browser.viewport
        box = _scroll_into_view(tab.doc, viewport, element)
        left, top = max(box.x, 0.0), max(box.y, 0.0)
        right, bottom = min(box.x + box.width, viewport.width), min(box.y + box.height, viewport.height)
        return Point((left + right) / 2, (top + bottom) / 2)

    @_recorded
    def scroll_into_view(self, handle: str, key: str) -> None:
        tab, element = self._browser.element(handle, key)
        _scroll_into_view(tab.doc, self._browser.viewport, element)

    @_recorded
    def element_at(self, handle: str, point: Point, of: str | None = None) -> ElementAtPoint | None:
        # The topmost element whose box holds the point: the last in document order (see `_hit`); an element
        # with explicit `bounds` placed after another covers it.
        tab = self._browser.tab(handle)
        target = self._browser.element(handle, of)[1] if of is not None else None
        viewport = self._browser.viewport
        if not (0 <= point.x < viewport.width and 0 <= point.y < viewport.height):
            return None
        hit = _hit(tab.doc, viewport, point)
        within: bool | None = None
        if target is not None:
            node: LiveElement | None = hit
            while node is not None and node is not target:
                node = node.parent
            within = node is target
        return ElementAtPoint(
            None if hit is tab.doc.root else hit.key,
            hit.role,
            hit.name,
            within,
            context_of(hit),
            action_of(tab.doc, hit),
        )

    @_recorded
    def key_target(self, handle: str, key: str, moved: bool = False) -> ElementAtPoint | None:
        return _key_target(self._browser.tab(handle).doc, key, moved)

    @_recorded
    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        _, element = self._browser.element(handle, key)
        described = _describe(element)
        if element.disabled or "readonly" in element.spec.states:
            raise InvalidValue(f"{described} is {'disabled' if element.disabled else 'read-only'}")
        if element.spec.file_input:
            raise InvalidValue(f"{described} is a file input: upload files to it rather than setting a value")
        if element.role in CHECKABLE:
            if not isinstance(value, bool):
                raise InvalidValue(f"{described} takes true or false, not {value!r}")
            _set_checked(element, value)
            return "true" if value else "false"
        if isinstance(value, bool):
            raise InvalidValue(f"{described} is not a checkbox or radio button, so it takes text, not {value}")
        text = _js_text(value)
        if element.options:
            return _choose_option(element, text).name
        if element.role in TEXT_ENTRY | {"slider"}:
            element.spec = attrs.evolve(element.spec, value=text)
            return text
        raise InvalidValue(
            f"{described} is not a form control (a text field, checkbox, radio button or select), so it has no value"
        )

    @_recorded
    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        _, element = self._browser.element(handle, key)
        if not element.spec.file_input:
            raise InvalidValue(f"{_describe(element)} is not a file input")
        if element.disabled:
            raise InvalidValue(f"{_describe(element)} is disabled")
        element.files = tuple(paths)

    # --- page content, diagnostics, scripting --------------------------------------------------------------------

    @_recorded
    def page_text(self, handle: str) -> str:
        return _page_text(self._browser.tab(handle).doc, self._browser.viewport)

    @_recorded
    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        tab = self._browser.tab(handle)
        entries, tab.console = tab.console, []
        return entries

    @_recorded
    def drain_network(self, handle: str) -> list[NetworkEntry]:
        tab = self._browser.tab(handle)
        entries, tab.network = tab.network, []
        return entries

    @_recorded
    def evaluate(self, handle: str, expression: str) -> str:
        return _evaluate(self._browser.tab(handle).doc, self._browser.viewport, expression)

    # --- storage state ----------------------------------------------------------------------------------------

    @_recorded
    def storage_state(self) -> StorageState:
        return self._storage

    @_recorded
    def load_storage_state(self, state: StorageState) -> list[str]:
        self._storage, refused = merged_storage(self._storage, state, self._browser.allows)
        return refused

    # --- events --------------------------------------------------------------------------------------------------

    @_recorded
    def document_url(self, handle: str, key: str | None = None) -> str:
        doc = self._browser.tab(handle).doc
        element = self._browser.element(handle, key)[1] if key is not None else doc.focused
        return _document_url(doc, element)

    def secret_boxes(self, handle: str, values: Sequence[str]) -> list[Rect]:
        doc = self._browser.tab(handle).doc
        return _secret_boxes(doc, self._browser.layout(doc), values)

    @_recorded
    def drain_events(self) -> list[DriverEvent]:
        return self._browser.drain_events()

    @_recorded
    def close(self) -> None:
        self._browser.close()
