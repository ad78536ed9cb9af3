"""`BrowserControl`: a tab-index API for agents, in which every call answers with an annotated screenshot.

This is a peer of Claude's browser tool, not the tool itself: tabs are addressed by their 0-based position in
the tab bar (which shifts when a tab closes) rather than by stable `tab-N` ids, and each call returns
`(element_map, image)`, a screenshot with each visible interactive element's ref drawn beside it plus one
`[ref_N] role "name"` line per mark, so an agent can act on what it sees by name instead of by coordinates.

It is a thin layer over the one executor, `BrowserToolset`: every action is a member call through the toolset's
public `tool_result` path, so the URL policy, input limits, key names, coordinate scaling, tab inventory and ref
tables are the executor's own and behave exactly as they do for Claude. A mark is a ref of the tab's ref table,
so `click("ref_3")` here and a Claude `left_click` on `ref_3` act on the same element. `docs/browser-control.md`
shows a session.
"""

from __future__ import annotations

import base64
import io
import itertools
import re
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

import attrs
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from .driver import Driver
from .driver_errors import DriverError
from .executor.annotate import DEFAULT_STYLE, Annotated, AnnotationStyle, Mark, annotate
from .executor.errors import ActionError
from .executor.images import Frame, ImageLimits
from .executor.toolset import SCROLL_AMOUNT, BrowserToolset
from .safety.urls import URLPolicy

__all__ = ["BrowserControl", "BrowserControlError", "Observation", "TabIndexError", "TabSummary"]

Observation = tuple[str, Image.Image]
"""What every tab, navigation and action call returns: the element map and the annotated screenshot."""

ScrollDirection = Literal["up", "down", "left", "right"]

_MARK_RE = re.compile(r"\[?\s*(?:ref_)?(\d{1,9})\s*\]?")


class BrowserControlError(Exception):
    """A call the executor refused or could not do. The message is the executor's own error text, which says what
    went wrong and what to do instead (re-read the page for a stale ref, an allowed host for a refused URL...)."""


class TabIndexError(BrowserControlError, IndexError):
    """A tab index outside the open tabs. An `IndexError`, as for a list, because that is what an index into the
    tab bar is; the message says how many tabs are open, since indices shift whenever a tab closes."""


@attrs.frozen
class TabSummary:
    """One open tab as `list_tabs` shows it: its position, title, URL and whether it is the active tab."""

    index: int
    tab_id: str
    title: str
    url: str
    active: bool

    def line(self) -> str:
        """`[i] title - url (active)`, or just the URL for a tab with no title of its own (`[2] about:blank`)."""
        shown = self.url if not self.title or self.title == self.url else f"{self.title} - {self.url}"
        return f"[{self.index}] {shown}" + (" (active)" if self.active else "")


class BrowserControl:
    """Tabs by index, navigation and actions, each answered with `(element_map, annotated_image)`.

    `browser` is a `Driver` (a `BrowserToolset` is built around it, with `navigation` as its URL policy and
    `image_limits` as its screenshot limits) or an existing `BrowserToolset` to share with other callers, such as
    a Claude session on the same browser. `style` sets how marks are drawn. `close()` (or leaving a `with` block)
    closes the toolset and so the browser.

    Every call that fails raises `BrowserControlError` with the executor's error text; the browser is left as the
    failed call left it."""

    def __init__(
        self,
        browser: Driver | BrowserToolset,
        *,
        navigation: URLPolicy | None = None,
        image_limits: ImageLimits | None = None,
        style: AnnotationStyle = DEFAULT_STYLE,
    ) -> None:
        if isinstance(browser, BrowserToolset):
            if navigation is not None or image_limits is not None:
                raise ValueError("navigation and image_limits belong to the toolset: set them when building it")
            self.toolset = browser
        else:
            self.toolset = BrowserToolset(browser, navigation=navigation, image_limits=image_limits)
        self.style = style
        self._ids = itertools.count(1)
        self._last: Annotated | None = None
        self._messages: tuple[str, ...] = ()

    # --- lifecycle -------------------------------------------------------------------------------------------

    def close(self) -> None:
        self.toolset.close()

    def __enter__(self) -> BrowserControl:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def marks(self) -> tuple[Mark, ...]:
        """The marks of the latest observation, with where each element and label is in its image."""
        return self._last.marks if self._last is not None else ()

    @property
    def messages(self) -> tuple[str, ...]:
        """The executor's text from the latest call (`Clicked.`, `Navigated to …`, a dialog the page opened and the
        driver dismissed): what the observation alone would not tell."""
        return self._messages

    # --- tabs --------------------------------------------------------------------------------------------------

    def create_tab(self, url: str | None = None) -> Observation:
        """Open a tab, make it active and, with `url`, navigate it. The new tab is last in the tab bar. When the
        navigation is refused or fails, the error is raised and the new tab stays open (and active) on
        `about:blank`."""
        self._messages = self._texts(self._call("new_tab", {}))
        if url is not None:
            self._messages = self._texts(self._call("navigate", {"url": url}))
        return self._observe()

    def switch_tab(self, index: int) -> Observation:
        """Make the tab at `index` (0-based, as `list_tabs` numbers them) the active tab."""
        tab = _at(self._tabs(), index)
        self._messages = self._texts(self._call("switch_tab", {"tab_id": tab.tab_id}))
        return self._observe()

    def close_tab(self, index: int) -> Observation:
        """Close the tab at `index`; the tabs after it move down one index. Closing the active tab makes its
        neighbour active (the next tab, else the previous one); closing the last open tab first opens a blank
        one, so there is always a tab to work in. Returns the observation of whichever tab is then active."""
        tabs = self._tabs()
        tab = _at(tabs, index)
        if len(tabs) == 1:
            # open the replacement first: some browsers end the session when their last tab closes
            self._call("new_tab", {})
        self._messages = self._texts(self._call("close_tab", {"tab_id": tab.tab_id}))
        return self._observe()

    def list_tabs(self) -> str:
        """The open tabs, numbered from 0 in tab-bar order, the active one marked: no screenshot, so it is cheap.
        Indices shift when a tab closes, so list again after closing one.

            Open Tabs:
              [0] GitHub - https://github.com/ (active)
              [1] Hacker News - https://news.ycombinator.com/
              [2] about:blank
        """
        return "\n".join(["Open Tabs:", *(f"  {tab.line()}" for tab in self._tabs())])

    def tabs(self) -> list[TabSummary]:
        """The open tabs as `list_tabs` numbers them, for code rather than for reading."""
        return self._tabs()

    # --- navigation and actions --------------------------------------------------------------------------------

    def navigate(self, url: str) -> Observation:
        """Load `url` in the active tab (`back`, `forward` and `reload` move through its history). A URL without a
        scheme is taken as https; other schemes and addresses the URL policy refuses raise."""
        self._messages = self._texts(self._call("navigate", {"url": url}))
        return self._observe()

    def click(self, mark: str | int) -> Observation:
        """Click the element a mark names: its ref (`"ref_3"`), its number (`3` or `"3"`), or the element-map tag
        (`"[ref_3]"`). The click lands at the centre of the element's visible box, scrolled into view first. A ref
        from before the page navigated or changed is stale: take a new observation and use its marks."""
        self._messages = self._texts(self._call("left_click", {"target": {"type": "ref", "ref": _ref(mark)}}))
        return self._observe()

    def type(self, text: str) -> Observation:
        """Type `text` as key presses at the focused element (click a field first)."""
        self._messages = self._texts(self._call("type", {"text": text}))
        return self._observe()

    def key(self, keys: str) -> Observation:
        """Press a key (`"Enter"`), a `+`-joined chord (`"ctrl+a"`), or a space-separated sequence of them
        (`"Tab Tab Enter"`), with the executor's key names."""
        self._messages = self._texts(self._call("key", {"text": keys}))
        return self._observe()

    def scroll(self, direction: ScrollDirection, amount: int = SCROLL_AMOUNT[2]) -> Observation:
        """Scroll the page under the centre of the viewport by `amount` wheel notches (1-10) in `direction`
        (`up`, `down`, `left`, `right`). Marks are only drawn for what is in view, so scroll to find more."""
        frame = self._frame()
        target = {"type": "coordinate", "x": frame.image.width // 2, "y": frame.image.height // 2}
        self._messages = self._texts(
            self._call("scroll", {"target": target, "scroll_direction": direction, "scroll_amount": amount})
        )
        return self._observe()

    def screenshot(self) -> Observation:
        """The active tab as it is now: no action, just a fresh observation with up-to-date marks."""
        self._messages = ()
        return self._observe()

    # --- the executor ------------------------------------------------------------------------------------------

    def _call(self, name: str, input: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One member call through the executor's public path, as Claude's would go; an error result raises."""
        block = BetaToolUseBlock.model_validate(
            {
                "type": "tool_use",
                "id": f"toolu_control_{next(self._ids)}",
                "name": name,
                "input": dict(input),
                "toolset_name": "browser",
            }
        )
        result = self.toolset.tool_result(block)
        raw = result.get("content")
        content: list[dict[str, Any]] = (
            [{"type": "text", "text": raw}] if isinstance(raw, str) else [dict(b) for b in raw or []]
        )
        if result.get("is_error"):
            raise BrowserControlError("\n".join(self._texts(content)) or f"{name} failed")
        return content

    @staticmethod
    def _texts(content: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
        return tuple(str(block["text"]) for block in content if block.get("type") == "text")

    def _tabs(self) -> list[TabSummary]:
        (state,) = [block for block in self._call("list_tabs", {}) if block.get("type") == "browser_state"]
        return [
            TabSummary(
                index=index,
                tab_id=str(entry["tab_id"]),
                title=str(entry.get("title") or ""),
                url=str(entry.get("url") or ""),
                active=bool(entry.get("active")),
            )
            for index, entry in enumerate(state.get("tabs") or [])
        ]

    def _frame(self) -> Frame:
        """The active tab's frame, as the executor maps coordinates against it."""
        try:
            return self.toolset.frame()
        except (ActionError, DriverError) as exc:
            raise BrowserControlError(str(exc)) from exc

    def _observe(self) -> Observation:
        """A `screenshot` member call (the image exactly as Claude would get it, and the executor's tab bookkeeping
        brought up to date), then the active tab's view through the executor (its tree, which retires stale refs,
        and its own ref table, so every mark is a ref the executor resolves), then the marks drawn on that image."""
        content = self._call("screenshot", {})
        self._messages += self._texts(content)
        (shot,) = [block for block in content if block.get("type") == "image"]
        image = Image.open(io.BytesIO(base64.b64decode(shot["source"]["data"])))
        try:
            # the executor's frame, not the snapshot's viewport: a page's scrollbar can make the two differ, and
            # the image and every coordinate are in the executor's
            view = self.toolset.view()
        except (ActionError, DriverError) as exc:
            raise BrowserControlError(str(exc)) from exc
        self._last = annotate(image, view.frame, view.tree, view.ref_for, self.style)
        return self._last.element_map, self._last.image


def _at(tabs: Sequence[TabSummary], index: int) -> TabSummary:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"a tab index is an int, not {type(index).__name__}")
    if 0 <= index < len(tabs):
        return tabs[index]
    if not tabs:
        raise TabIndexError(f"No tab at index {index}: no tabs are open. Call create_tab() to open one.")
    count = "1 tab is" if len(tabs) == 1 else f"{len(tabs)} tabs are"
    raise TabIndexError(
        f"No tab at index {index}: {count} open, so indices run from 0 to {len(tabs) - 1}. "
        "Call list_tabs() to see them."
    )


def _ref(mark: str | int) -> str:
    if isinstance(mark, bool) or not isinstance(mark, int | str):
        raise TypeError(f"a mark is a ref such as 'ref_3' or its number, not {type(mark).__name__}")
    text = str(mark).strip()
    match = _MARK_RE.fullmatch(text)
    if match is None:
        raise BrowserControlError(
            f"{text[:40]!r} is not a mark. Use a ref from the element map, such as ref_3, or its number, 3."
        )
    return f"ref_{match.group(1)}"
