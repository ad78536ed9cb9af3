"""The plain value types that cross the `Driver` seam.

Every type here is a frozen `attrs` class holding primitives only, so a driver never needs to import
anything of the executor's but this module and `errors`, and the executor never sees a driver's own
objects (WebElements, BiDi payloads, mock pages). Geometry is always in CSS pixels relative to the
top-left of the tab's viewport: the executor alone converts to and from the image pixels Claude sees.
"""

from __future__ import annotations

import re
from typing import Literal, Union

import attrs

__all__ = [
    "ACTION_FORMS",
    "CONTEXT_ROLES",
    "STATE_TOKENS",
    "WHOLE_TREE",
    "AXNode",
    "AXSnapshot",
    "Capture",
    "ConsoleEntry",
    "DialogHandled",
    "DownloadCompleted",
    "DownloadFailed",
    "DownloadStarted",
    "DriverEvent",
    "ElementAtPoint",
    "FormValue",
    "HistoryAction",
    "HoldOutcome",
    "MouseButton",
    "NavigationBlocked",
    "NavigationOutcome",
    "NetworkEntry",
    "Point",
    "Rect",
    "Size",
    "SnapshotFilter",
    "SnapshotRequest",
    "TabClosed",
    "TabInfo",
    "TabOpened",
    "parse_viewport",
]

MouseButton = Literal["left", "middle", "right"]
HistoryAction = Literal["back", "forward", "reload"]
FormValue = Union[str, float, bool]


@attrs.frozen
class Point:
    """A point in CSS pixels, viewport-relative."""

    x: float
    y: float


@attrs.frozen
class Size:
    """A width and height in CSS pixels."""

    width: int
    height: int


def parse_viewport(text: str) -> Size:
    """A viewport as a person writes it in a driver option (`1280x800`; `X` and `×` work too). Every driver parses
    with this one function, so all of them accept the same spellings and refuse the same sizes in the same words;
    the bounds keep out a viewport too small to lay a page out in and one too large to capture."""
    match = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX×]\s*([0-9]{1,5})\s*", text)
    if match is None or not all(100 <= int(part) <= 10000 for part in match.groups()):
        raise ValueError(
            f"viewport must be WIDTHxHEIGHT in CSS pixels, each between 100 and 10000, such as 1280x800; got {text!r}"
        )
    return Size(int(match.group(1)), int(match.group(2)))


@attrs.frozen
class Rect:
    """An element's border box in CSS pixels, viewport-relative (it may lie partly or wholly outside the viewport)."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> Point:
        return Point(self.x + self.width / 2, self.y + self.height / 2)

    def intersects(self, size: Size) -> bool:
        """Whether any part of the box lies inside a viewport of `size`."""
        return (
            self.width > 0
            and self.height > 0
            and self.x < size.width
            and self.y < size.height
            and self.x + self.width > 0
            and self.y + self.height > 0
        )

    def within(self, size: Size) -> bool:
        """Whether the box is non-empty and lies wholly inside a viewport of `size`."""
        return 0 <= self.x < self.x + self.width <= size.width and 0 <= self.y < self.y + self.height <= size.height


@attrs.frozen
class TabInfo:
    """One open tab as the browser reports it. `handle` is the driver's own identifier (a BiDi context id, a mock
    counter): the executor maps it to the `tab-N` ids Claude sees, so a driver never invents those."""

    handle: str
    url: str
    title: str
    active: bool = False
    """Whether this is the tab the browser considers active (focused). At most one tab of a listing is."""


@attrs.frozen
class NavigationOutcome:
    """Where a navigation or history step ended: the final URL after redirects, the main document's HTTP status
    when the driver knows it, and the page title."""

    url: str
    status: int | None
    title: str


@attrs.frozen
class Capture:
    """A capture of the viewport, or of the part of it `clip` names. `png` may be at any resolution (a
    device-pixel-ratio of 2 doubles it): its pixels per CSS pixel are its width over the width it shows. `viewport`
    is the viewport in CSS pixels, which is what the executor maps coordinates against; `clip` is the region shown
    in viewport CSS pixels, None for the whole viewport."""

    png: bytes = attrs.field(repr=lambda png: f"<{len(png)} bytes>")
    viewport: Size
    clip: Rect | None = None


CONTEXT_ROLES = frozenset({"form", "dialog", "alertdialog", "region", "group", "search", "main", "article"})
"""Containers whose accessible name says what the controls inside them do (a dialog titled "Delete account?"): an
element's description names the ones around it, whichever side builds it (the executor, or a driver)."""


STATE_TOKENS: tuple[str, ...] = (
    "checked",
    "unchecked",
    "mixed",
    "selected",
    "pressed",
    "expanded",
    "collapsed",
    "disabled",
    "multiline",
    "readonly",
    "required",
    "invalid",
    "focused",
    "modal",
    "multiselectable",
)
"""The state words an `AXNode` may carry, in the order `read_page` prints them. A driver reports only these."""


ACTION_FORMS = (
    "GET <url>: a link with an address, which loads it",
    "SCRIPT: a link that loads nothing (`javascript:`, a fragment of its own page): its click runs the page's script",
    "<METHOD> <url>: a control that submits its form (the form's method and action, or the control's own formmethod "
    "and formaction), such as `POST https://shop.example/checkout/place`",
    "DIALOG: a control that submits a `method=dialog` form, which closes the dialog it is in",
)
"""The shapes of `AXNode.action` and `ElementAtPoint.action`; every other element has an empty one. The URL is
absolute, as the browser resolves it, and untrusted like everything else the page says."""


@attrs.frozen
class AXNode:
    """One node of a driver-neutral accessibility tree.

    `key` identifies the element within its document and never changes while the document lives (re-reads, layout
    changes and attribute changes keep it); it is opaque to the executor, which hands it back to the driver to act
    on the element. `role` is an ARIA role (`generic` for nodes with none, `text` for a run of text with no
    element of its own, which has no key); `name`, `description`, `value` and `placeholder` are already
    whitespace-collapsed. `bounds` is None for nodes with no box. `visible` is rendered-and-not-hidden (display,
    visibility, opacity, zero size, clipping, `hidden`, `inert`, `aria-hidden`); `in_viewport` is visible and
    intersecting the viewport; `interactive` is focusable, clickable or editable. `input_type` is the type of a
    field whose value has a shape its role does not tell (`date`, `time`, `datetime-local`, `month`, `week`,
    `number`, `email`, `tel`, `url`, `color`, `range`: an HTML input's type), empty for every other node;
    `read_page` prints it with the format a value must have (`tree_text.INPUT_FORMATS`). `action` is what
    activating the element loads (`ACTION_FORMS`), for the confirmation gate; `read_page` never prints it."""

    role: str
    name: str = ""
    key: str | None = None
    value: str | None = None
    description: str = ""
    placeholder: str = ""
    states: tuple[str, ...] = ()
    level: int | None = None
    bounds: Rect | None = None
    visible: bool = True
    in_viewport: bool = True
    interactive: bool = False
    input_type: str = ""
    action: str = ""
    children: tuple[AXNode, ...] = ()

    def walk(self) -> list[AXNode]:
        """This node and every descendant, in document order."""
        out: list[AXNode] = []
        stack: list[AXNode] = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out


@attrs.frozen
class AXSnapshot:
    """A tab's accessibility tree at one moment. `document` changes whenever the tab's top-level document is
    replaced (a navigation, a reload, history traversal), which is what makes refs go stale."""

    document: str
    root: AXNode
    viewport: Size
    truncated: bool = False
    """The driver stopped reading early, as the request allowed (`SnapshotRequest.budget`, `chars`): the tree holds
    the page's first elements only."""


@attrs.frozen
class ElementAtPoint:
    """The element a viewport point hits, as a click there would: the topmost one, inside same-origin frames and
    open shadow roots (`Driver.element_at`). `key` is None for an element the driver cannot hand out a key for.
    Asked about an element (`of`), `within` says whether a click at the point reaches it (the hit is that element,
    inside it, or a label of it); otherwise it is None. `context` holds the names of the named forms, dialogs and
    regions around it, nearest first. Role and names are what the page says: untrusted."""

    key: str | None
    role: str
    name: str
    within: bool | None = None
    context: tuple[str, ...] = ()
    action: str = ""
    """What activating the element loads, as `AXNode.action`."""


SnapshotFilter = Literal["all", "visible", "interactive"]


@attrs.frozen
class SnapshotRequest:
    """What part of the accessibility tree a read will show, so a driver may leave the rest out (`Driver.snapshot`).

    `filter` is `read_page`'s: `all` (every element), `visible` (what is in the viewport, `read_page`'s default)
    or `interactive`; `depth` is `read_page`'s depth in printed levels (None: unlimited); `root_key` scopes the read
    to one element's subtree; `budget` is the most nodes wanted (None: unlimited); `chars` is the length of the
    printout the read is capped at (None: no cap), so a driver may stop reading a page once what it has read would
    certainly print about that much. A request is a permission, not an order: a driver may return more than asked
    (the whole tree is always a valid answer), since the executor applies the same filter, depth and scope when it
    renders. A pruned tree must print exactly what the whole tree prints: hidden subtrees may go, nodes that cannot
    print may be replaced by their children. A tree cut short by `budget` or `chars` is marked
    `AXSnapshot.truncated` and holds a prefix of the page in document order; the executor checks that its printout
    reached the cap before showing it, and reads the page again without `chars` otherwise."""

    filter: SnapshotFilter = "all"
    depth: int | None = None
    root_key: str | None = None
    budget: int | None = None
    chars: int | None = None

    @property
    def whole(self) -> bool:
        """Whether the request asks for the whole tree (every element, hidden ones included)."""
        return (
            self.filter == "all"
            and self.depth is None
            and self.root_key is None
            and self.budget is None
            and self.chars is None
        )


WHOLE_TREE = SnapshotRequest()
"""The request for the whole tree: `Driver.snapshot`'s default."""


@attrs.frozen
class ConsoleEntry:
    """One console message. `level` is `log`, `info`, `warn`, `error` or `debug`; `timestamp` is epoch ms."""

    level: str
    text: str
    timestamp: float
    source: str = ""


@attrs.frozen
class NetworkEntry:
    """One finished (or failed) request. `status` is None for a failed request, with `error` set; `duration_ms`
    is None when the driver has no timing."""

    method: str
    url: str
    status: int | None
    mime_type: str = ""
    duration_ms: float | None = None
    error: str = ""
    timestamp: float = 0.0


@attrs.frozen
class HoldOutcome:
    """What holding a key really did: `repeated` is whether the browser produced auto-repeat key events, which only
    some drivers can."""

    repeated: bool


# --- events a driver reports through `drain_events` -------------------------------------------------------------


@attrs.frozen
class TabOpened:
    """A tab the page (not the executor) opened: a `target=_blank` link, `window.open`."""

    handle: str
    opener: str | None = None


@attrs.frozen
class TabClosed:
    """A tab that closed by itself (`window.close()`, a crash)."""

    handle: str


@attrs.frozen
class DownloadStarted:
    """`key` is the driver's own download identifier; the executor assigns `dl-N`."""

    key: str
    url: str
    suggested_filename: str = ""


@attrs.frozen
class DownloadCompleted:
    key: str
    url: str
    path: str | None = None
    size_bytes: int | None = None


@attrs.frozen
class DownloadFailed:
    key: str
    url: str
    error: str = ""


@attrs.frozen
class DialogHandled:
    """A native dialog the driver answered by itself (`kind` is alert, confirm, prompt or beforeunload)."""

    kind: str
    message: str
    accepted: bool = False


@attrs.frozen
class NavigationBlocked:
    """A navigation or request the driver's URL guard refused (a redirect to a refused scheme, a page-started
    `file:` navigation)."""

    url: str
    handle: str | None = None


DriverEvent = Union[
    TabOpened,
    TabClosed,
    DownloadStarted,
    DownloadCompleted,
    DownloadFailed,
    DialogHandled,
    NavigationBlocked,
]
