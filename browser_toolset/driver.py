"""The `Driver` protocol: the one seam between the executor and a browser backend.

Like httpx's transport base, this is a strict point of cut-off. Above it, `BrowserToolset` owns everything the
contract says about tab ids, refs, coordinate scaling, validation and wording; below it, a driver moves a real (or
mock) browser with plain primitives: handles, element keys, CSS-pixel points, canonical key names, PNG bytes and
the value types of `browser_toolset.values`. A driver never sees a `tool_use`, a `tab-N` id, a `ref_N` or an image
pixel, and never formats text for Claude.

Conventions every method follows:

- `handle` is the driver's own tab identifier as returned by `list_tabs` / `open_tab` / `TabOpened`. A method
  given the handle of a closed tab raises `TabGone`.
- Points are CSS pixels relative to the viewport's top-left corner.
- Key names are canonical: the executor resolves Claude's spellings (`Return`, `ctrl`, `Page_Down`) to the W3C
  `KeyboardEvent.key` names listed in `browser_toolset.key_names.CANONICAL_KEYS` (`Enter`, `Control`, `PageDown`,
  `ArrowUp`, `F5`, `a`, ...) before calling, so a driver maps each name to its backend once.
- Failures raise a `DriverError` subclass (`browser_toolset.driver_errors`) with a message Claude can act on;
  anything else a driver raises reaches Claude as a bare exception, which is a driver bug.
- Methods act on the tab they are given even when it is not the active one, activating it first where the
  backend needs that, but never change which tab is active except through `activate_tab` and `open_tab`.

Required and optional: every driver implements the methods of `REQUIRED_FEATURES` (tabs, navigation, capture, pointer
and keyboard input, reads); `OPTIONAL_FEATURES` (console, network, downloads, dialogs, script evaluation, file setting,
region capture, storage state, secrets) a driver may leave out. The required methods are abstract, so neither mypy nor
Python lets a subclass that lacks one be instantiated, and `BrowserToolset` refuses a driver without them (one that does
not subclass `Driver`) at construction, listing them. A driver that leaves an optional method out keeps the protocol's
body, which raises `NotImplementedError` naming it; the members that need it are then reported to Claude
as unavailable, as the SDK reports members a toolset does not implement. A method a driver has but its backend
cannot serve at the moment raises `NotSupported` instead. Downloads and dialogs are events (`drain_events`), with no
method of their own: a driver that cannot observe them reports none.

Implementing it: subclass `Driver` explicitly (`class MyDriver(Driver): ...`), so that mypy checks every method's
signature against this one, and import only this module, `values`, `driver_errors`, `key_names` and `storage_state`
(re-exported here). None of them imports the executor or the anthropic SDK. `tests/conformance/` (see
`docs/writing-a-driver.md`) is the behavioural half of the contract: run it against a new driver.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

import attrs

from .driver_errors import DriverError, ElementGone, InvalidValue, NavigationFailed, NotSupported, TabGone
from .key_names import CANONICAL_KEYS, MODIFIERS
from .storage_state import StorageState
from .values import (
    WHOLE_TREE,
    AXNode,
    AXSnapshot,
    Capture,
    ConsoleEntry,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    ElementAtPoint,
    FormValue,
    HistoryAction,
    HoldOutcome,
    MouseButton,
    NavigationBlocked,
    NavigationOutcome,
    NetworkEntry,
    Point,
    Rect,
    Size,
    SnapshotRequest,
    TabClosed,
    TabInfo,
    TabOpened,
)

__all__ = [
    "CANONICAL_KEYS",
    "MODIFIERS",
    "OPTIONAL_FEATURES",
    "OPTIONAL_METHODS",
    "REQUIRED_FEATURES",
    "REQUIRED_METHODS",
    "WHOLE_TREE",
    "AXNode",
    "AXSnapshot",
    "Capture",
    "ConsoleEntry",
    "DialogHandled",
    "DownloadCompleted",
    "DownloadFailed",
    "DownloadStarted",
    "Driver",
    "DriverError",
    "DriverEvent",
    "ElementAtPoint",
    "ElementGone",
    "Feature",
    "FormValue",
    "HistoryAction",
    "HoldOutcome",
    "InvalidValue",
    "MouseButton",
    "NavigationBlocked",
    "NavigationFailed",
    "NavigationOutcome",
    "NetworkEntry",
    "NotSupported",
    "Point",
    "Rect",
    "Size",
    "SnapshotRequest",
    "StorageState",
    "TabClosed",
    "TabGone",
    "TabInfo",
    "TabOpened",
    "implements",
    "missing_methods",
]


@attrs.frozen
class Feature:
    """One part of the protocol: its methods, and the events of `drain_events` it reports (for downloads and
    dialogs, which have no method of their own)."""

    name: str
    methods: tuple[str, ...]
    events: tuple[type, ...] = ()


REQUIRED_FEATURES: tuple[Feature, ...] = (
    Feature("tabs", ("list_tabs", "open_tab", "activate_tab", "close_tab", "drain_events", "close")),
    Feature("navigation", ("set_url_guard", "navigate", "history")),
    Feature("capture", ("viewport", "capture")),
    Feature("pointer input", ("click", "move", "mouse_down", "mouse_up", "drag", "wheel", "scroll_into_view")),
    Feature("keyboard input", ("type_text", "press_keys", "hold_keys", "set_value")),
    Feature("reads", ("snapshot", "element_center", "element_at", "page_text")),
)
"""What every driver implements: without these there is no browser to drive."""

OPTIONAL_FEATURES: tuple[Feature, ...] = (
    Feature("console", ("drain_console",)),
    Feature("network", ("drain_network",)),
    Feature("downloads", (), (DownloadStarted, DownloadCompleted, DownloadFailed)),
    Feature("dialogs", (), (DialogHandled,)),
    Feature("script evaluation", ("evaluate",)),
    Feature("file setting", ("set_files",)),
    Feature("region capture", ("capture_region",)),
    Feature("storage state", ("storage_state", "load_storage_state")),
    Feature("secrets", ("document_url", "secret_boxes")),
    Feature("key targets", ("key_target",)),
)
"""What a driver may leave out. `capture_region`'s protocol body is a fallback rather than a refusal: it captures the
whole viewport, which `zoom` then crops."""

REQUIRED_METHODS: tuple[str, ...] = tuple(method for feature in REQUIRED_FEATURES for method in feature.methods)
OPTIONAL_METHODS: tuple[str, ...] = tuple(method for feature in OPTIONAL_FEATURES for method in feature.methods)


def implements(driver: object, method: str) -> bool:
    """Whether `driver` has its own `method`: present, callable, and not the protocol's body (which a `Driver`
    subclass inherits for an optional method it leaves out). Works for drivers that do not subclass `Driver` too."""
    found = getattr(driver, method, None)
    if not callable(found):
        return False
    return getattr(found, "__func__", found) is not vars(Driver).get(method)


def missing_methods(driver: object, methods: Iterable[str] = REQUIRED_METHODS) -> list[str]:
    """Those of `methods` (by default every required one) that `driver` does not implement, in the order given."""
    return [method for method in methods if not implements(driver, method)]


def _unimplemented(driver: object, method: str) -> NotImplementedError:
    """What a method of the protocol that a driver left out raises: never a silent None."""
    kind = "an optional method" if method in OPTIONAL_METHODS else "a method every driver must implement"
    return NotImplementedError(f"{type(driver).__name__} does not implement {method}, {kind} of the Driver protocol.")


@runtime_checkable
class Driver(Protocol):
    """A browser backend. See the module docstring for the conventions every method follows."""

    name: str
    """A short name for messages (`mock`, `selenium-chromium`, ...)."""

    # --- tabs -----------------------------------------------------------------------------------------------

    @abstractmethod
    def list_tabs(self) -> list[TabInfo]:
        """Every open tab, in the browser's order, with its current URL and title; the one the browser considers
        active (focused) has `active` set (none when no tab is open)."""
        raise _unimplemented(self, "list_tabs")

    @abstractmethod
    def open_tab(self) -> str:
        """Open a tab at `about:blank`, make it the active tab, and return its handle. The tab is not reported
        again by `drain_events` as a `TabOpened`."""
        raise _unimplemented(self, "open_tab")

    @abstractmethod
    def activate_tab(self, handle: str) -> None:
        """Make `handle` the active (focused) tab."""
        raise _unimplemented(self, "activate_tab")

    @abstractmethod
    def close_tab(self, handle: str) -> None:
        """Close `handle`. Which tab becomes active afterwards is the executor's choice (it calls `activate_tab`);
        a driver does not need to pick one. Return once the tab is gone (Chromium can drop a close that races a
        navigation committing in the tab: the Selenium driver sends it again)."""
        raise _unimplemented(self, "close_tab")

    # --- navigation -----------------------------------------------------------------------------------------

    @abstractmethod
    def set_url_guard(self, allows: Callable[[str], bool]) -> None:
        """Apply `allows` to every URL the browser is about to load from now on, in every tab: redirects,
        page-started navigations, subresources, popups. A refused main-document navigation is stopped (the tab
        stays where it was or shows an error page, never the refused URL) and reported as `NavigationBlocked`;
        a refused subresource simply fails. The executor installs its guard once, at construction."""
        raise _unimplemented(self, "set_url_guard")

    # --- navigation (calls) -------------------------------------------------------------------------------------

    @abstractmethod
    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        """Load `url` (already checked by the executor: http or https) in `handle` and wait for the load to finish
        or the driver's timeout. Raises `NavigationFailed` when nothing loaded."""
        raise _unimplemented(self, "navigate")

    @abstractmethod
    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        """Go back, forward, or reload. Going back with no history is not an error: the outcome reports where the
        tab is."""
        raise _unimplemented(self, "history")

    # --- capture --------------------------------------------------------------------------------------------

    @abstractmethod
    def viewport(self, handle: str) -> Size:
        """The tab's viewport in CSS pixels. Cheap: the executor calls it to map every coordinate."""
        raise _unimplemented(self, "viewport")

    @abstractmethod
    def capture(self, handle: str) -> Capture:
        """A PNG of the tab's viewport, as the user would see it."""
        raise _unimplemented(self, "capture")

    def capture_region(self, handle: str, clip: Rect, scale: float) -> Capture:
        """A PNG of the viewport region `clip` (whole CSS pixels, inside the viewport) rendered at `scale` device
        pixels per CSS pixel, for `zoom`: a page rendered at a higher device-pixel ratio shows detail a 1x capture
        cannot, where enlarging a 1x capture only costs image tokens. The returned `Capture.clip` names the region
        the PNG shows (None: the whole viewport) and its resolution the scale reached: a driver that cannot render
        at `scale` returns what it can, and the executor never enlarges an image beyond the pixels captured.
        The page must be left as it was (viewport size, device-pixel ratio), on failure too.

        This default captures the whole viewport at its usual resolution; the executor crops it."""
        return self.capture(handle)

    # --- pointer --------------------------------------------------------------------------------------------

    @abstractmethod
    def click(
        self, handle: str, point: Point, *, button: MouseButton = "left", count: int = 1, modifiers: Sequence[str] = ()
    ) -> None:
        """Move to `point` and click `count` times (2 = double click, 3 = triple) with `button`, holding the
        canonical modifier keys `modifiers` throughout."""
        raise _unimplemented(self, "click")

    @abstractmethod
    def move(self, handle: str, point: Point) -> None:
        """Move the pointer to `point` (hover)."""
        raise _unimplemented(self, "move")

    @abstractmethod
    def mouse_down(self, handle: str, point: Point) -> None:
        """Move to `point` and press the left mouse button without releasing it."""
        raise _unimplemented(self, "mouse_down")

    @abstractmethod
    def mouse_up(self, handle: str, point: Point) -> None:
        """Move to `point` and release the left mouse button."""
        raise _unimplemented(self, "mouse_up")

    @abstractmethod
    def drag(self, handle: str, start: Point, end: Point) -> None:
        """Press the left button at `start`, move to `end` through intermediate points, release."""
        raise _unimplemented(self, "drag")

    @abstractmethod
    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        """Turn the wheel at `point` by the given CSS-pixel deltas (positive = right / down)."""
        raise _unimplemented(self, "wheel")

    # --- keyboard -------------------------------------------------------------------------------------------

    @abstractmethod
    def type_text(self, handle: str, text: str) -> None:
        """Type `text` literally at the focused element, as key events (not a value assignment)."""
        raise _unimplemented(self, "type_text")

    @abstractmethod
    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        """Press the canonical keys of `chord` in order, then release them in reverse (`["Control", "a"]`)."""
        raise _unimplemented(self, "press_keys")

    @abstractmethod
    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        """Press `chord`, keep it down for `seconds`, release it. Report whether auto-repeat happened."""
        raise _unimplemented(self, "hold_keys")

    # --- accessibility tree and elements --------------------------------------------------------------------

    @abstractmethod
    def snapshot(self, handle: str, request: SnapshotRequest = WHOLE_TREE) -> AXSnapshot:
        """The tab's accessibility tree (by default the whole one: every element, visible or not, with its flags),
        keyed per element as `AXNode.key` documents. Same-origin iframes are inlined under their frame node with
        their offsets applied to bounds. A key is never reused for another element, not even in a later document
        of the tab: a key from a replaced document raises `ElementGone`, never acts on an element of the new one.

        `request` says what the caller will show (see `SnapshotRequest`): a driver may prune the rest in the page
        to move less, but may always return more, up to the whole tree. A `root_key` that names no element of the
        current document is left out of the tree (or raises `ElementGone`)."""
        raise _unimplemented(self, "snapshot")

    @abstractmethod
    def element_center(self, handle: str, key: str) -> Point:
        """The centre of the element's visible box, in viewport CSS pixels, scrolling it into view first if it is
        outside the viewport. Raises `ElementGone` when `key` no longer names an element.

        The executor clicks at this point right after, so it should be where the element will be then: measured
        once a page still loading has loaded (briefly: its late stylesheets and images move things) and the element
        has stopped moving. The Selenium driver waits up to 2 s for the load, then up to 1 s for two drawn frames to
        agree with no transition under way."""
        raise _unimplemented(self, "element_center")

    @abstractmethod
    def scroll_into_view(self, handle: str, key: str) -> None:
        """Scroll the element into the viewport. Raises `ElementGone`."""
        raise _unimplemented(self, "scroll_into_view")

    @abstractmethod
    def element_at(self, handle: str, point: Point, of: str | None = None) -> ElementAtPoint | None:
        """The element at viewport CSS `point`, the one a click there would hit (descending into same-origin frames
        and open shadow roots), or None when nothing is there. With `of` (a key), its `within` tells whether a
        click at `point` reaches that element: the executor checks it before a ref click, so a click that would
        land on an overlay is reported instead of made, and a `confirm` hook judges a coordinate click by it.
        Raises `ElementGone` when `of` no longer names an element. No scrolling."""
        raise _unimplemented(self, "element_at")

    def key_target(self, handle: str, key: str, moved: bool = False) -> ElementAtPoint | None:
        """What a press of `key` (`Enter` or `" "`, the space bar) at the focused element would activate, described
        as `element_at` describes a hit (`within` None), or None when it activates nothing (typing into a field, no
        focus): a focused button or link itself; for Enter in a single-line field of a form, the form's default
        button (the first submit button), or, for a form without one that this field alone can submit, a `button`
        named `Submit` with the field's key and the form's `action`. `moved`: keys pressed before it in the same
        call move the focus, so only a form the focus is in now can tell what the press submits. Read just before a
        key call, so the confirmation gate judges Enter on a checkout field as the checkout's own button. Optional
        (without it, key presses are not judged)."""
        raise _unimplemented(self, "key_target")

    @abstractmethod
    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        """Set a form control's value directly and fire `input` and `change`: a boolean checks or unchecks a
        checkbox or radio, a string picks a select option by value or visible text (`InvalidValue` naming the
        options when neither matches), anything else is the text of a text field. Returns the value as the
        tree shows it now: `"true"`/`"false"` for a checkbox, the chosen option's visible text for a select, the
        field's text otherwise. Raises `ElementGone`, or `InvalidValue` for an element that is no form control."""
        raise _unimplemented(self, "set_value")

    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        """Set the files of an `<input type=file>` to local `paths` (already vetted by the file policy). Optional
        (`file_upload`)."""
        raise _unimplemented(self, "set_files")

    # --- page content, diagnostics, scripting ---------------------------------------------------------------

    @abstractmethod
    def page_text(self, handle: str) -> str:
        """The page's rendered, visible text. When the page has a main-content region (`main`, `article`,
        `[role=main]`), that region's text comes first; navigation, banners and footers after it or left out.
        Hidden text never appears."""
        raise _unimplemented(self, "page_text")

    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        """Console entries of `handle` since the previous drain, oldest first. Optional (`read_console`)."""
        raise _unimplemented(self, "drain_console")

    def drain_network(self, handle: str) -> list[NetworkEntry]:
        """Finished and failed requests of `handle` since the previous drain, oldest first. Optional
        (`read_network`)."""
        raise _unimplemented(self, "drain_network")

    def evaluate(self, handle: str, expression: str) -> str:
        """Evaluate `expression` as a script in the page and return the completion value of its last expression,
        rendered as text (strings as they are, everything else as JSON or the browser's own description). A
        thrown exception raises `DriverError` with the exception's message; a script that closes its own tab may
        raise `TabGone`. Optional (`javascript_exec`)."""
        raise _unimplemented(self, "evaluate")

    # --- storage state --------------------------------------------------------------------------------------

    def storage_state(self) -> StorageState:
        """Every cookie of the browser and the `localStorage` of each origin the session knows (the ones loaded and
        the ones open in a tab or frame), in Playwright's shape. Read through the browser's own protocol, never from
        files of its profile (a Grid's node keeps those). Optional (`--save-storage-state`)."""
        raise _unimplemented(self, "storage_state")

    def load_storage_state(self, state: StorageState) -> list[str]:
        """Set the cookies of `state` and each origin's `localStorage` without a request reaching any server, and
        only for origins the URL guard allows; returns the origins it left out for that reason. Called before the
        first call. Optional (`--storage-state`)."""
        raise _unimplemented(self, "load_storage_state")

    # --- secrets ------------------------------------------------------------------------------------------------

    def document_url(self, handle: str, key: str | None = None) -> str:
        """The URL of the document that holds the element `key` (or the focused element, when `key` is None): a
        frame's own URL for an element inside a frame, never its parent page's. The executor types a secret only
        when this document is on the secret's hosts. Optional (secrets: without it they are refused)."""
        raise _unimplemented(self, "document_url")

    def secret_boxes(self, handle: str, values: Sequence[str]) -> list[Rect]:
        """The border boxes, in viewport CSS pixels, of every element of the page and its frames whose value or
        text holds one of `values`, and of every password field: what a capture taken now must paint over.
        Optional (secrets: without it, captures are refused while secrets are declared)."""
        raise _unimplemented(self, "secret_boxes")

    # --- events ---------------------------------------------------------------------------------------------

    @abstractmethod
    def drain_events(self) -> list[DriverEvent]:
        """Everything that happened by itself since the previous drain, oldest first: tabs the page opened or
        closed, downloads started / completed / failed, dialogs answered, navigations refused."""
        raise _unimplemented(self, "drain_events")

    @abstractmethod
    def close(self) -> None:
        """End the browser session and release everything the driver started. Safe to call twice."""
        raise _unimplemented(self, "close")
