"""`BrowserToolset`: the shared executor of all 31 members, on top of any `Driver`.

The SDK's `BetaAbstractBrowserToolset20260801` already parses each member's input, runs the url / file / confirm
hooks, renders results and the `browser_state` block, and holds back state changes that a failed call could not
carry. This class adds what the contract leaves to the executor and what no driver should redo: tab ids, refs,
the image frame and coordinate scaling, the input limits the API only tells Claude about, key names, the URL
policy, and bounded, sanitized text. Every browser action goes through `self.driver`, with plain primitives.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar, cast

import attrs
from anthropic import NOT_GIVEN
from anthropic.tools import ToolError, ToolsetUsageError
from anthropic.tools.browser import (
    BetaBrowserNavigateResult,
    BetaBrowserState,
    BetaConfirmCallable,
    BetaDialogDismissed,
    BetaFilePolicy,
    BetaNavigationRefused,
    BetaScreenshotResult,
    BetaToolConfigs,
    BetaToolsetCallContext,
    BetaURLPolicy,
)
from anthropic.types.beta import (
    BetaBrowserCloseTabInput,
    BetaBrowserCoordinateTarget,
    BetaBrowserDoubleClickInput,
    BetaBrowserFileUploadInput,
    BetaBrowserFindInput,
    BetaBrowserFormInputInput,
    BetaBrowserGetPageTextInput,
    BetaBrowserHoldKeyInput,
    BetaBrowserHoverInput,
    BetaBrowserJavascriptExecInput,
    BetaBrowserKeyInput,
    BetaBrowserLeftClickDragInput,
    BetaBrowserLeftClickInput,
    BetaBrowserLeftMouseDownInput,
    BetaBrowserLeftMouseUpInput,
    BetaBrowserListTabsInput,
    BetaBrowserMemberInput,
    BetaBrowserMemberName,
    BetaBrowserMiddleClickInput,
    BetaBrowserMouseMoveInput,
    BetaBrowserNavigateInput,
    BetaBrowserNewTabInput,
    BetaBrowserReadConsoleInput,
    BetaBrowserReadNetworkInput,
    BetaBrowserReadPageInput,
    BetaBrowserRefTarget,
    BetaBrowserRightClickInput,
    BetaBrowserScreenshotInput,
    BetaBrowserScrollInput,
    BetaBrowserScrollToInput,
    BetaBrowserStateChangeDownloadCompletedParam,
    BetaBrowserStateChangeDownloadFailedParam,
    BetaBrowserStateChangeDownloadStartedParam,
    BetaBrowserStateChangeParam,
    BetaBrowserStateChangeTabOpenedParam,
    BetaBrowserStateTabEntryParam,
    BetaBrowserSwitchTabInput,
    BetaBrowserToolsetConfigsParam,
    BetaBrowserTripleClickInput,
    BetaBrowserTypeInput,
    BetaBrowserWaitInput,
    BetaBrowserZoomInput,
)

from ..driver import Driver
from ..driver_errors import DriverError, ElementGone, NotSupported, TabGone
from ..safety.sanitize import bounded, download_url, one_line, safe_log_line, safe_text, safe_title, safe_url
from ..safety.secrets import Secrets
from ..safety.targets import Found, KeyPress
from ..safety.urls import URLPolicy, address_for_navigation
from ..values import (
    WHOLE_TREE,
    AXNode,
    AXSnapshot,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    MouseButton,
    NavigationBlocked,
    Point,
    SnapshotRequest,
    TabClosed,
    TabInfo,
    TabOpened,
)
from . import finder, tree_text
from .annotate import annotate_capture
from .availability import check_driver, member_configs, refuse_unavailable, unavailable_members
from .document_store import DocumentFiles
from .errors import ActionError, StaleRefError
from .gate_lookup import describe_target
from .images import (
    Frame,
    ImageLimits,
    encode_image,
    frame_for,
    screenshot_image,
    zoom_clip,
    zoom_image,
    zoom_region,
    zoom_scale,
)
from .keys import parse_chord, parse_modifiers, parse_sequence
from .limits import check_input
from .options import DocumentResolver, ToolsetOptions
from .sdk_surface import AnySDKToolset, SyncToolsetBase, held_changes, put_back_changes
from .secret_driver import guard_secrets
from .tabs import Tab, TabInventory, check_tab_id

__all__ = ["BrowserToolset", "TabView"]

log = logging.getLogger("browser_toolset")

# --- the limits the API tells Claude but does not enforce (docs/contract.md §4), kept as data --------------------

COVER_WAIT = 0.5  # seconds a ref click waits for a cover over the element to go (a fading dialog, a transition)
COVER_POLLS = 10
SCROLL_AMOUNT = (1, 10, 3)  # min, max, default, in wheel notches
SCROLL_NOTCH_PX = 100  # CSS pixels per notch, as Chromium and Firefox scroll a page per wheel click
REPEAT = (1, 100, 1)
DURATION_MAX = 30.0
DEPTH_DEFAULT = 15
MAX_KEY_PRESSES = 1000  # a key sequence times repeat
READ_PAGE_MAX = 50_000
READ_PAGE_EARLY_STOP = READ_PAGE_MAX * 3 // 2
"""A page read lets the driver stop once its estimate of the printout passes this: the margin over the cap makes
an estimate that runs long (names the printout cuts or folds) rarely cost a second read."""
PAGE_TEXT_MAX = 50_000
SCRIPT_RESULT_MAX = 20_000
LOG_ENTRY_MAX = 1_000
LOG_TEXT_MAX = 30_000
DIALOG_MESSAGE_MAX = 2_000
DOWNLOAD_ERROR_MAX = 1_000
FAILURE_TEXT_MAX = 1_000
FORM_VALUE_SHOWN = 200

SCROLL_VECTORS: dict[str, tuple[int, int]] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
CLICKS: dict[str, tuple[MouseButton, int]] = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}

ClickInput = (
    BetaBrowserLeftClickInput
    | BetaBrowserRightClickInput
    | BetaBrowserMiddleClickInput
    | BetaBrowserDoubleClickInput
    | BetaBrowserTripleClickInput
)

StateChange = BetaBrowserStateChangeParam | BetaNavigationRefused | BetaDialogDismissed
"""One `state_changes` entry: the SDK's wire types for tabs and downloads, or its own text-only notices."""


@attrs.frozen
class TabView:
    """What `BrowserToolset.view` returns: a tab's id, its frame, its tree, and the function giving (or handing
    out) the ref of a node of that tree."""

    tab_id: str
    frame: Frame
    tree: AXNode
    ref_for: Callable[[AXNode], str | None]


_Toolset = TypeVar("_Toolset", bound="BrowserToolset")


def browser_failure(exc: BaseException) -> str:
    """The error Claude reads when the browser itself failed (a dead connection, a crashed browser): the batch rule
    then skips the rest of the turn, and the next turn can try again or give up."""
    try:
        detail = str(exc)
    except Exception:
        detail = ""
    kind = type(exc).__name__
    text = f"{kind}: {detail}" if detail else kind
    return f"The browser is not responding or has closed: {safe_log_line(text, FAILURE_TEXT_MAX)}"


def _check_range(name: str, value: float, low: float, high: float, unit: str = "") -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ActionError(f"{name} must be a finite number between {low:g} and {high:g}{unit}.")
    if not low <= value <= high:
        raise ActionError(f"{name} must be between {low:g} and {high:g}{unit}; got {value:g}.")


class BrowserToolset(SyncToolsetBase):
    """Executes Claude's `browser_toolset_20260801` calls on `driver`.

    Pass it to the SDK's tool runner like any toolset, or call `tool_result(tool_use)` / `run_batch` yourself.
    `navigation` is the URL policy applied to every navigation and, through the driver, to everything the browser
    loads (it refuses private addresses unless told otherwise); `url_policy`, `confirm`, `file_policy`,
    `configs` and `tool_configs` are the SDK's own hooks and options, passed through. `documents` resolves
    `file_upload` document ids to local files; `image_limits` sets screenshot size and encoding.
    `annotate_screenshots` draws each visible interactive element's ref (`ref_N`) on `screenshot` images, a
    set-of-marks view Claude can click from directly; off by default, so `screenshot` returns the plain viewport
    as the contract describes. `options` holds them all (`ToolsetOptions`); `from_options` builds a toolset from one."""

    def __init__(
        self,
        driver: Driver,
        *,
        navigation: URLPolicy | None = None,
        image_limits: ImageLimits | None = None,
        documents: DocumentResolver | None = None,
        sleep: Callable[[float], None] = time.sleep,
        configs: BetaBrowserToolsetConfigsParam | Mapping[str, Mapping[str, bool]] | None = None,
        confirm: BetaConfirmCallable | None = None,
        url_policy: BetaURLPolicy | None = None,
        file_policy: BetaFilePolicy | None = None,
        tool_configs: BetaToolConfigs | None = None,
        annotate_screenshots: bool = False,
        secrets: Secrets | None = None,
    ) -> None:
        self._open(
            driver,
            ToolsetOptions(
                navigation=navigation,
                image_limits=image_limits,
                documents=documents,
                sleep=sleep,
                configs=configs,
                confirm=confirm,
                url_policy=url_policy,
                file_policy=file_policy,
                tool_configs=tool_configs,
                annotate_screenshots=annotate_screenshots,
                secrets=secrets,
            ),
        )

    @classmethod
    def from_options(cls: type[_Toolset], driver: Driver, options: ToolsetOptions) -> _Toolset:
        """A toolset on `driver` with `options`, as the constructor builds it from its keywords (a subclass's own
        `__init__` does not run)."""
        toolset = cls.__new__(cls)
        toolset._open(driver, options)
        return toolset

    def _open(self, driver: Driver, options: ToolsetOptions) -> None:
        # The options type `confirm` and `url_policy` as the async toolset takes them; the SDK refuses an async one
        # here with ToolsetContractError, so the narrowing is checked where it matters.
        driver = guard_secrets(driver, options.secrets)
        check_driver(driver)
        configs, self._unavailable = member_configs(options.wire_configs, unavailable_members(driver), driver)
        super().__init__(
            configs=configs,
            confirm=cast("BetaConfirmCallable | None", options.confirm),
            url_policy=NOT_GIVEN if options.url_policy is None else cast("BetaURLPolicy", options.url_policy),
            file_policy=options.file_policy,
            tool_configs=options.tool_configs,
        )
        self.driver = driver
        self.options = options
        self._inventory = TabInventory()
        self._downloads: dict[str, str] = {}  # driver key -> dl-N
        self._early_events: list[DriverEvent] = []  # drained during a member, reported by _report_state
        self._last_tabs: list[BetaBrowserStateTabEntryParam] = []  # the last inventory read from the browser
        self._state_failure: BaseException | None = None  # why the last _report_state could not read the browser
        self._document_files = DocumentFiles.for_toolset(options.documents, options.file_policy, driver)
        driver.set_url_guard(self.navigation.allows)
        for info in driver.list_tabs():
            self._inventory.add(info.handle)
            if info.active:
                self._inventory.activate(info.handle)

    @property
    def navigation(self) -> URLPolicy:
        return self.options.navigation

    @property
    def image_limits(self) -> ImageLimits:
        return self.options.image_limits

    @property
    def documents(self) -> DocumentResolver | None:
        return self.options.documents

    @property
    def annotate_screenshots(self) -> bool:
        return self.options.annotate_screenshots

    # --- lifecycle -----------------------------------------------------------------------------------------

    def close(self) -> None:
        super().close()
        self.driver.close()
        self._document_files.close()

    # --- dispatch: driver errors become errors Claude can act on ------------------------------------------

    def _around_call(self) -> AbstractContextManager[None]:
        return failing_on_unread_state(self, self)

    def _screen_call(self, name: str, input: Mapping[str, object]) -> None:
        """Before the SDK's pipeline reads a call: a member the driver cannot serve, or an input over its limits."""
        refuse_unavailable(name, self._unavailable)
        check_input(name, input)

    def execute(
        self, context: BetaToolsetCallContext, name: BetaBrowserMemberName, input: BetaBrowserMemberInput
    ) -> Any:
        try:
            return super().execute(context, name, input)
        except NotSupported as exc:
            raise ActionError(f"{name} is not available with the {self.driver.name} driver: {exc}") from exc
        except TabGone as exc:
            self._inventory.remove(exc.handle)
            raise ActionError("The tab was closed while the call ran. Call list_tabs to see the open tabs.") from exc
        except DriverError as exc:
            raise ActionError(safe_text(str(exc), 2000, what="error") or f"{name} failed in the browser.") from exc
        except (ToolError, ToolsetUsageError):
            raise
        except Exception as exc:
            log.warning("%s failed in the driver", name, exc_info=True)
            raise ActionError(browser_failure(exc)) from exc

    # --- browser_state --------------------------------------------------------------------------------------

    def _report_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        """The state after a call. A browser that cannot be read does not end the session: the last inventory is
        reported (the call then fails, see `failing_on_unread_state`) and events drained so far wait for the next
        report."""
        try:
            state = self._read_state()
        except Exception as exc:
            log.warning("could not read the browser's state", exc_info=True)
            self._state_failure = exc
            return BetaBrowserState(tabs=list(self._last_tabs), state_changes=[])
        self._last_tabs = list(state.tabs)
        return state

    def _read_state(self) -> BetaBrowserState:
        changes: list[StateChange] = []
        self._early_events = [*self._early_events, *self.driver.drain_events()]
        infos = self.driver.list_tabs()
        events, self._early_events = self._early_events, []
        for event in events:
            changes.extend(self._apply_event(event))
        live = {info.handle for info in infos}
        for info in infos:
            if info.handle not in self._inventory.tabs:
                tab = self._inventory.add(info.handle)
                changes.append(BetaBrowserStateChangeTabOpenedParam(type="tab_opened", tab_id=tab.tab_id))
        for handle in list(self._inventory.tabs):
            if handle not in live:
                self._forget_tab(handle)
        tabs = [self._entry(info) for info in infos if info.handle in self._inventory.tabs]
        return BetaBrowserState(tabs=tabs, state_changes=changes)

    def _apply_event(self, event: DriverEvent) -> list[StateChange]:
        if isinstance(event, TabOpened):
            if event.handle in self._inventory.tabs:
                return []
            tab = self._inventory.add(event.handle)
            return [BetaBrowserStateChangeTabOpenedParam(type="tab_opened", tab_id=tab.tab_id)]
        if isinstance(event, TabClosed):
            self._forget_tab(event.handle)
            return []
        if isinstance(event, DownloadStarted | DownloadCompleted | DownloadFailed):
            return [self._download_change(event)]
        if isinstance(event, DialogHandled):
            message = safe_log_line(event.message, DIALOG_MESSAGE_MAX)
            return [BetaDialogDismissed(kind=one_line(event.kind, 20) or "dialog", message=message)]
        log.info("navigation refused: %s", one_line(event.url, 300))
        return [BetaNavigationRefused()]

    def _download_change(self, event: DownloadStarted | DownloadCompleted | DownloadFailed) -> StateChange:
        download_id = self._downloads.setdefault(event.key, f"dl-{len(self._downloads) + 1}")
        url = download_url(event.url)
        if isinstance(event, DownloadStarted):
            return BetaBrowserStateChangeDownloadStartedParam(type="download_started", download_id=download_id, url=url)
        if isinstance(event, DownloadFailed):
            failed = BetaBrowserStateChangeDownloadFailedParam(type="download_failed", download_id=download_id, url=url)
            if event.error:
                failed["error"] = safe_log_line(event.error, DOWNLOAD_ERROR_MAX)
            return failed
        completed = BetaBrowserStateChangeDownloadCompletedParam(
            type="download_completed", download_id=download_id, url=url
        )
        if event.path is not None:
            completed["path"] = event.path
        if event.size_bytes is not None and event.size_bytes >= 0:
            completed["size_bytes"] = int(event.size_bytes)
        return completed

    def _forget_tab(self, handle: str) -> None:
        was_active = self._inventory.active == handle
        self._inventory.remove(handle)
        if was_active and self._inventory.active is not None:
            try:
                self.driver.activate_tab(self._inventory.active)
            except DriverError:
                log.warning("could not activate the neighbour of a closed tab", exc_info=True)

    def _entry(self, info: TabInfo) -> BetaBrowserStateTabEntryParam:
        tab = self._inventory.tabs[info.handle]
        entry: BetaBrowserStateTabEntryParam = {
            "tab_id": tab.tab_id,
            "title": safe_title(info.title),
            "url": safe_url(info.url),
        }
        if info.handle == self._inventory.active:
            entry["active"] = True
        return entry

    def _current_entry(self, tab: Tab) -> BetaBrowserStateTabEntryParam:
        for info in self.driver.list_tabs():
            if info.handle == tab.handle:
                return self._entry(info)
        raise ActionError(f"{tab.tab_id} is no longer open. Call list_tabs to see the open tabs.")

    def describe_ref(self, tab_id: str | None, ref: str | BetaBrowserCoordinateTarget | KeyPress) -> Found | None:
        """What a call's target names: its role, its accessible name, the names of the forms and dialogs around
        it, the origin of the frame it is in (None on the page's own document) and what activating it loads. For a
        ref, from what Claude was shown (no page read); for a coordinate, the element under that point now (one
        page read), found with the same screenshot-to-CSS mapping the click uses, so a button clicked by coordinate
        is judged exactly as by ref; for a `KeyPress`, what the key activates at the focused element now (one page
        read, `Driver.key_target`; unknown on a driver without it). None when the tab, the ref, the point or the
        element is unknown. For a `confirm` hook (`browser_toolset.safety.confirm.ActionGate`), which decides
        before the call runs."""
        try:
            tab = self._inventory.target(tab_id)
            return describe_target(self.driver, tab, ref, lambda point: self._point(tab, point))
        except (ToolError, DriverError):
            return None

    # --- what other front ends over this executor read -----------------------------------------------------

    def view(self, tab_id: str | None = None) -> TabView:
        """A tab as the executor sees it now: its frame (the image size every coordinate is in), its whole tree
        (refreshing the tab's refs, retiring stale ones, exactly as a `read_page` would) and its ref table. For
        front ends built on this executor, such as `BrowserControl`, so that the refs they show are the refs this
        executor resolves. Raises `ActionError` for a bad tab id, `DriverError` when the browser fails."""
        tab = self._tab(tab_id)
        frame = self._frame(tab)
        snapshot, _ = self._snapshot(tab)
        return TabView(tab_id=tab.tab_id, frame=frame, tree=snapshot.root, ref_for=tab.refs.ref_for)

    def frame(self, tab_id: str | None = None) -> Frame:
        """The tab's frame: the image size screenshots have and coordinates are given in."""
        return self._frame(self._tab(tab_id))

    # --- shared steps ---------------------------------------------------------------------------------------

    def _tab(self, tab_id: str | None) -> Tab:
        return self._inventory.target(tab_id)

    def _frame(self, tab: Tab) -> Frame:
        return frame_for(self.driver.viewport(tab.handle), self.image_limits)

    def _point(self, tab: Tab, target: BetaBrowserCoordinateTarget, what: str = "Coordinate") -> Point:
        frame = self._frame(tab)
        frame.check(target.x, target.y, what)
        return frame.to_css(target.x, target.y)

    @contextmanager
    def _on_element(self, tab: Tab, ref: str) -> Iterator[str]:
        """The key of a live ref, with an element that vanished meanwhile reported as the stale ref it now is."""
        key = tab.refs.key_of(ref)
        try:
            yield key
        except ElementGone as exc:
            tab.refs.retire(ref)
            raise StaleRefError(ref.strip()) from exc

    def _target_point(self, tab: Tab, target: BetaBrowserCoordinateTarget | BetaBrowserRefTarget) -> Point:
        if isinstance(target, BetaBrowserRefTarget):
            with self._on_element(tab, target.ref) as key:
                return self.driver.element_center(tab.handle, key)
        return self._point(tab, target)

    def _click_point(self, tab: Tab, target: BetaBrowserCoordinateTarget | BetaBrowserRefTarget) -> Point:
        """Where a click goes. A ref is clicked at its centre only if the click would reach it there: when another
        element covers that point (a modal, a cookie banner, a date picker left open), the click would act on the
        cover instead, so after waiting briefly for a transition to end (`COVER_WAIT`), the call fails naming the
        cover. The element itself, anything inside it and its labels all count as reaching it."""
        point = self._target_point(tab, target)
        if not isinstance(target, BetaBrowserRefTarget):
            return point
        with self._on_element(tab, target.ref) as key:
            for attempt in range(COVER_POLLS + 1):
                hit = self.driver.element_at(tab.handle, point, of=key)
                if hit is None or hit.within is not False:
                    return point
                if attempt < COVER_POLLS:
                    self.options.sleep(COVER_WAIT / COVER_POLLS)
        if hit is None or hit.within is not False:
            return point
        ref = target.ref.strip()
        if hit.name or hit.role not in ("generic", "none", "presentation", ""):
            cover = tree_text.format_line(AXNode(role=hit.role, name=hit.name), tab.refs.by_key.get(hit.key or ""))
        else:
            cover = "an unnamed element laid over the page"
        raise ActionError(
            f"The click on {ref} would land on {cover}, which covers it. Wait for that to go away or close it first, "
            f"then click {ref} again."
        )

    def _target_note(self, tab: Tab, target: BetaBrowserCoordinateTarget | BetaBrowserRefTarget) -> str | None:
        """The line after a pointer action's acknowledgment: which element a ref named, so Claude can see that
        the ref still meant what it thought."""
        if not isinstance(target, BetaBrowserRefTarget):
            return None
        entry = tab.refs.entry(target.ref)
        return tree_text.format_line(AXNode(role=entry.role, name=entry.name), target.ref.strip())

    def _snapshot(self, tab: Tab, request: SnapshotRequest = WHOLE_TREE) -> tuple[AXSnapshot, dict[str, AXNode]]:
        """The tab's tree as `request` lets the driver prune it. Only a whole tree retires the refs of elements
        it lacks: a pruned one leaves out elements that are still there."""
        snapshot = self.driver.snapshot(tab.handle, request)
        tab.refs.observe(snapshot.document)
        tab.tree = snapshot.root
        index = {node.key: node for node in snapshot.root.walk() if node.key is not None}
        if request.whole:
            tab.refs.check_live(index)
        return snapshot, index

    # --- navigation and capture -----------------------------------------------------------------------------

    def navigate(self, context: BetaToolsetCallContext, input: BetaBrowserNavigateInput) -> BetaBrowserNavigateResult:
        tab = self._tab(input.tab_id)
        word = input.url.strip().lower()
        if word in ("back", "forward", "reload"):
            outcome = self.driver.history(tab.handle, word)  # type: ignore[arg-type]
        else:
            address = address_for_navigation(input.url)
            self.navigation.check_navigation(address)
            outcome = self.driver.navigate(tab.handle, address)
        self._early_events.extend(self.driver.drain_events())
        blocked = [e for e in self._early_events if isinstance(e, NavigationBlocked) and e.handle in (None, tab.handle)]
        if blocked:
            url = blocked[-1].url
            reason = self.navigation.refusal(url) or "the browser refused it"
            raise ActionError(
                f"Navigation refused: it led to {one_line(safe_url(url), 300)}, and {reason}. "
                f"The tab is at {one_line(safe_url(outcome.url), 300)}."
            )
        refusal = self.navigation.refusal(outcome.url)
        if refusal is not None:
            # the driver's guard stops redirects, but the final address is checked again here (docs/contract.md §6)
            self.driver.navigate(tab.handle, "about:blank")
            raise ActionError(f"Navigation refused after redirects: {refusal}. The tab was left blank.")
        # an untitled page has no title, not an empty one: the SDK then leaves the title's separator out
        title = safe_title(outcome.title) or None
        return BetaBrowserNavigateResult(url=safe_url(outcome.url), status=outcome.status, title=title)

    def screenshot(self, context: BetaToolsetCallContext, input: BetaBrowserScreenshotInput) -> BetaScreenshotResult:
        tab = self._tab(input.tab_id)
        capture = self.driver.capture(tab.handle)
        frame = frame_for(capture.viewport, self.image_limits)
        if not self.annotate_screenshots:
            return screenshot_image(capture, frame, self.image_limits)
        snapshot, _ = self._snapshot(tab)
        marked = annotate_capture(capture, frame, snapshot.root, tab.refs.ref_for)
        return encode_image(marked.image, self.image_limits)

    def zoom(self, context: BetaToolsetCallContext, input: BetaBrowserZoomInput) -> BetaScreenshotResult:
        tab = self._tab(input.tab_id)
        region = input.region
        if len(region) != 4 or not all(isinstance(v, int) and not isinstance(v, bool) for v in region):
            raise ActionError("region must be four integers [x0, y0, x1, y1] in screenshot pixels.")
        x0, y0, x1, y1 = region
        # the region is in the screenshot frame, which a zoom never changes: coordinates stay full-viewport pixels
        frame = self._frame(tab)
        width, height = frame.image.width, frame.image.height
        if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
            raise ActionError(
                f"region {list(region)} is not inside the viewport: it needs 0 <= x0 < x1 <= {width} and "
                f"0 <= y0 < y1 <= {height} (screenshot pixels, with x1 and y1 exclusive)."
            )
        # Render the region at the device-pixel ratio its image needs, so the enlargement is real page detail;
        # the SDK renders a zoom as the image alone, so the ratio reached shows only in the image's size.
        css = zoom_region(frame, (x0, y0, x1, y1))
        clip = zoom_clip(css, frame.viewport)
        capture = self.driver.capture_region(tab.handle, clip, zoom_scale(css, self.image_limits))
        return zoom_image(capture, frame, self.image_limits, (x0, y0, x1, y1))

    # --- pointer --------------------------------------------------------------------------------------------

    def _click(self, name: str, input: ClickInput) -> str | None:
        tab = self._tab(input.tab_id)
        modifiers = parse_modifiers(input.modifiers)
        point = self._click_point(tab, input.target)
        button, count = CLICKS[name]
        self.driver.click(tab.handle, point, button=button, count=count, modifiers=modifiers)
        return self._target_note(tab, input.target)

    def left_click(self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickInput) -> str | None:
        return self._click("left_click", input)

    def right_click(self, context: BetaToolsetCallContext, input: BetaBrowserRightClickInput) -> str | None:
        return self._click("right_click", input)

    def middle_click(self, context: BetaToolsetCallContext, input: BetaBrowserMiddleClickInput) -> str | None:
        return self._click("middle_click", input)

    def double_click(self, context: BetaToolsetCallContext, input: BetaBrowserDoubleClickInput) -> str | None:
        return self._click("double_click", input)

    def triple_click(self, context: BetaToolsetCallContext, input: BetaBrowserTripleClickInput) -> str | None:
        return self._click("triple_click", input)

    def hover(self, context: BetaToolsetCallContext, input: BetaBrowserHoverInput) -> str | None:
        tab = self._tab(input.tab_id)
        self.driver.move(tab.handle, self._target_point(tab, input.target))
        return self._target_note(tab, input.target)

    def left_click_drag(self, context: BetaToolsetCallContext, input: BetaBrowserLeftClickDragInput) -> str | None:
        tab = self._tab(input.tab_id)
        start = self._point(tab, input.from_, "Drag start")
        end = self._point(tab, input.target, "Drag end")
        self.driver.drag(tab.handle, start, end)
        return None

    def left_mouse_down(self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseDownInput) -> str | None:
        tab = self._tab(input.tab_id)
        self.driver.mouse_down(tab.handle, self._point(tab, input.target))
        return None

    def left_mouse_up(self, context: BetaToolsetCallContext, input: BetaBrowserLeftMouseUpInput) -> str | None:
        tab = self._tab(input.tab_id)
        self.driver.mouse_up(tab.handle, self._point(tab, input.target))
        return None

    def mouse_move(self, context: BetaToolsetCallContext, input: BetaBrowserMouseMoveInput) -> str | None:
        tab = self._tab(input.tab_id)
        self.driver.move(tab.handle, self._point(tab, input.target))
        return None

    def scroll(self, context: BetaToolsetCallContext, input: BetaBrowserScrollInput) -> str | None:
        tab = self._tab(input.tab_id)
        low, high, default = SCROLL_AMOUNT
        amount = default if input.scroll_amount is None else input.scroll_amount
        _check_range("scroll_amount", amount, low, high, " notches")
        direction = SCROLL_VECTORS.get(str(input.scroll_direction))
        if direction is None:
            raise ActionError("scroll_direction must be up, down, left or right.")
        point = self._point(tab, input.target)
        distance = amount * SCROLL_NOTCH_PX
        self.driver.wheel(tab.handle, point, direction[0] * distance, direction[1] * distance)
        return None

    def scroll_to(self, context: BetaToolsetCallContext, input: BetaBrowserScrollToInput) -> str | None:
        tab = self._tab(input.tab_id)
        with self._on_element(tab, input.target.ref) as key:
            self.driver.scroll_into_view(tab.handle, key)
        return None

    # --- keyboard and timing --------------------------------------------------------------------------------

    def type(self, context: BetaToolsetCallContext, input: BetaBrowserTypeInput) -> str | None:
        tab = self._tab(input.tab_id)
        self.driver.type_text(tab.handle, input.text)
        return None

    def key(self, context: BetaToolsetCallContext, input: BetaBrowserKeyInput) -> str | None:
        tab = self._tab(input.tab_id)
        low, high, default = REPEAT
        repeat = default if input.repeat is None else input.repeat
        _check_range("repeat", repeat, low, high)
        chords = parse_sequence(input.text)
        if len(chords) * repeat > MAX_KEY_PRESSES:
            raise ActionError(f"That is {len(chords) * repeat:,} key presses; at most {MAX_KEY_PRESSES:,} per call.")
        for _ in range(repeat):
            for chord in chords:
                self.driver.press_keys(tab.handle, chord)
        return None

    def hold_key(self, context: BetaToolsetCallContext, input: BetaBrowserHoldKeyInput) -> str | None:
        tab = self._tab(input.tab_id)
        _check_range("duration", input.duration, 0, DURATION_MAX, " seconds")
        text = input.text.strip()
        if not text or len(text.split()) != 1:
            raise ActionError("hold_key takes one key or one +-joined chord (such as shift or ctrl+a), not a sequence.")
        outcome = self.driver.hold_keys(tab.handle, parse_chord(text), float(input.duration))
        if outcome.repeated:
            return None
        return "The key was held down without auto-repeat: this browser produced one key-down and one key-up."

    def wait(self, context: BetaToolsetCallContext, input: BetaBrowserWaitInput) -> str | None:
        if input.tab_id is not None:
            self._tab(input.tab_id)
        _check_range("duration", input.duration, 0, DURATION_MAX, " seconds")
        self.options.sleep(float(input.duration))
        return None

    # --- page reading ---------------------------------------------------------------------------------------

    def read_page(self, context: BetaToolsetCallContext, input: BetaBrowserReadPageInput) -> str:
        tab = self._tab(input.tab_id)
        depth = DEPTH_DEFAULT if input.depth is None else input.depth
        if depth < 1:
            raise ActionError(f"depth must be at least 1; got {depth}.")
        # The driver may leave out what this read cannot show; the rendering below still applies every rule.
        key = None if input.ref is None else tab.refs.key_of(input.ref)
        if key is None:
            # A page read may stop once it has surely filled the cap (a big page's tail costs a walk Claude never
            # sees). An "all" read asks for no depth cut, so that an uncut one is the whole tree, which the driver
            # may keep for the `find` that usually follows.
            text = self._read_prefix(tab, input.filter, depth)
            if text is not None:
                return text
            request = (
                WHOLE_TREE if input.filter == "all" else SnapshotRequest(filter=input.filter or "visible", depth=depth)
            )
        else:
            request = SnapshotRequest(filter=input.filter or "visible", depth=depth, root_key=key)
        try:
            snapshot, index = self._snapshot(tab, request)
        except ElementGone:
            if input.ref is None:
                raise
            index = {}  # the ref is from a document the tab no longer shows
        if input.ref is not None:
            node = index.get(key or "")
            if node is None:
                tab.refs.retire(input.ref)
                raise StaleRefError(input.ref.strip())
            root = AXNode(role="document", children=(node,))
        else:
            root = snapshot.root
        return tree_text.render_tree(
            root, ref_for=tab.refs.ref_for, filter=input.filter, depth=depth, max_chars=READ_PAGE_MAX, full_value=key
        )

    def _read_prefix(self, tab: Tab, filter: tree_text.Filter | None, depth: int) -> str | None:
        """A page read that lets the driver stop early: its text, or None when the driver stopped before the
        printout reached the cap (only a read of the rest of the page can tell what comes next), which happens
        only when the driver's estimate of the lines' length was off."""
        request = SnapshotRequest(
            filter=filter or "visible", depth=None if filter == "all" else depth, chars=READ_PAGE_EARLY_STOP
        )
        snapshot, _ = self._snapshot(tab, request)
        if snapshot.truncated:
            return tree_text.render_tree_prefix(
                snapshot.root, ref_for=tab.refs.ref_for, filter=filter, depth=depth, max_chars=READ_PAGE_MAX
            )
        return tree_text.render_tree(
            snapshot.root, ref_for=tab.refs.ref_for, filter=filter, depth=depth, max_chars=READ_PAGE_MAX
        )

    def find(self, context: BetaToolsetCallContext, input: BetaBrowserFindInput) -> str:
        tab = self._tab(input.tab_id)
        if not input.query.strip():
            raise ActionError('query is empty. Describe the element, such as "search field" or "submit button".')
        snapshot, _ = self._snapshot(tab)
        matches = finder.find_matches(snapshot.root, input.query)
        return finder.render_matches(matches, ref_for=tab.refs.ref_for, query=input.query)

    def get_page_text(self, context: BetaToolsetCallContext, input: BetaBrowserGetPageTextInput) -> str:
        tab = self._tab(input.tab_id)
        text = self.driver.page_text(tab.handle).strip()
        if not text:
            return "The page has no visible text."
        return bounded(text, PAGE_TEXT_MAX, what="page text")

    # --- forms and files ------------------------------------------------------------------------------------

    def form_input(self, context: BetaToolsetCallContext, input: BetaBrowserFormInputInput) -> str | None:
        tab = self._tab(input.tab_id)
        value = input.value
        if isinstance(value, float) and not math.isfinite(value):
            raise ActionError("value must be a string, a finite number, or a boolean.")
        with self._on_element(tab, input.target.ref) as key:
            now = self.driver.set_value(tab.handle, key, value)
        return f"It now holds {one_line(now, FORM_VALUE_SHOWN)!r}."

    def file_upload(self, context: BetaToolsetCallContext, input: BetaBrowserFileUploadInput) -> str | None:
        tab = self._tab(input.tab_id)
        paths = list(input.paths or [])
        document_ids = list(input.document_ids or [])
        if not paths and not document_ids:
            raise ActionError("file_upload needs paths or document_ids (or both): neither was given.")
        if document_ids:
            paths.extend(self._document_files.paths(document_ids))
        with self._on_element(tab, input.target.ref) as key:
            self.driver.set_files(tab.handle, key, paths)
        names = ", ".join(one_line(path.rsplit("/", 1)[-1], 100) for path in paths)
        return f"Set {len(paths)} file(s) on {input.target.ref.strip()}: {names}."

    # --- diagnostics and scripting --------------------------------------------------------------------------

    def read_console(self, context: BetaToolsetCallContext, input: BetaBrowserReadConsoleInput) -> str:
        tab = self._tab(input.tab_id)
        entries = self.driver.drain_console(tab.handle)
        if not entries:
            return (
                "No console entries since the last read. (Entries are recorded only from when this session "
                "attached to the tab.)"
            )
        lines = []
        for entry in entries:
            source = f" ({safe_url(entry.source)})" if entry.source else ""
            lines.append(safe_log_line(f"[{entry.level}] {entry.text}{source}", LOG_ENTRY_MAX))
        return bounded("\n".join(lines), LOG_TEXT_MAX, what="console entries")

    def read_network(self, context: BetaToolsetCallContext, input: BetaBrowserReadNetworkInput) -> str:
        tab = self._tab(input.tab_id)
        entries = self.driver.drain_network(tab.handle)
        if not entries:
            return (
                "No network requests since the last read. (Requests are recorded only from when this session "
                "attached to the tab.)"
            )
        lines = []
        for entry in entries:
            parts = [entry.method, safe_url(entry.url)]
            parts.append(str(entry.status) if entry.status is not None else f"failed: {entry.error or 'unknown'}")
            if entry.mime_type:
                parts.append(entry.mime_type)
            if entry.duration_ms is not None:
                parts.append(f"{entry.duration_ms:.0f} ms")
            lines.append(safe_log_line(" ".join(parts), LOG_ENTRY_MAX))
        return bounded("\n".join(lines), LOG_TEXT_MAX, what="network entries")

    def javascript_exec(self, context: BetaToolsetCallContext, input: BetaBrowserJavascriptExecInput) -> str:
        tab = self._tab(input.tab_id)
        log.info("javascript_exec on %s: %s", tab.tab_id, one_line(input.text, 2000))
        if not input.text.strip():
            raise ActionError("text is empty. Write a JavaScript expression whose value you want.")
        return safe_text(self.driver.evaluate(tab.handle, input.text), SCRIPT_RESULT_MAX, what="script result")

    # --- tab management -------------------------------------------------------------------------------------

    def new_tab(self, context: BetaToolsetCallContext, input: BetaBrowserNewTabInput) -> BetaBrowserStateTabEntryParam:
        handle = self.driver.open_tab()
        tab = self._inventory.add(handle)
        self._inventory.activate(handle)
        # the URL it was opened at, as docs/contract.md §5 asks, not wherever it may have gone since
        return {"tab_id": tab.tab_id, "title": "", "url": "about:blank", "active": True}

    def list_tabs(
        self, context: BetaToolsetCallContext, input: BetaBrowserListTabsInput
    ) -> list[BetaBrowserStateTabEntryParam]:
        return [self._entry(info) for info in self.driver.list_tabs() if info.handle in self._inventory.tabs]

    def switch_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserSwitchTabInput
    ) -> BetaBrowserStateTabEntryParam:
        check_tab_id(input.tab_id)
        tab = self._inventory.by_id(input.tab_id)
        self.driver.activate_tab(tab.handle)
        self._inventory.activate(tab.handle)
        return self._current_entry(tab)

    def close_tab(self, context: BetaToolsetCallContext, input: BetaBrowserCloseTabInput) -> None:
        check_tab_id(input.tab_id)
        tab = self._inventory.by_id(input.tab_id)
        self.driver.close_tab(tab.handle)
        self._forget_tab(tab.handle)


@contextmanager
def failing_on_unread_state(toolset: BrowserToolset, owner: AnySDKToolset) -> Iterator[None]:
    """Around the SDK's pipeline for one call (`owner` is the SDK toolset running it: `toolset` itself, or the
    async toolset wrapping it): when the browser could not be read after the call, the call fails with the
    browser's error (whatever it returned, and whatever else it failed with, since a browser that cannot be read
    explains both) instead of reporting a state nobody read; the state changes held for that report were never
    sent, so they stay pending for the next one."""
    toolset._state_failure = None
    held = held_changes(owner)
    try:
        yield
    except ToolError:
        if toolset._state_failure is None:
            raise
    failure = toolset._state_failure
    if failure is None:
        return
    put_back_changes(owner, held)
    raise ActionError(browser_failure(failure)) from failure
