"""Frames as the driver joins them to their tab's tree: what a walker reports about a frame element, where a frame's
document lies in the tab's viewport, which origin it shows and whether it can be read, and the tree surgery that puts
a frame's own tree under its frame element.

The page walker reads one document, and enters the frames of its own origin itself. A frame of another origin is a
document the walker cannot reach from its parent (another site is, to the browser, often another process): the
driver reads it with the walker in the frame's own realm and joins the pieces here. Everything in this module is
plain data and pure functions; `frame_tree` makes the calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import attrs

from browser_toolset.frame_notes import FrameStatus
from browser_toolset.values import AXNode, Point, Rect

from .contexts import TERMINAL, NavRecord
from .documents import Document

__all__ = [
    "KEY_SEPARATOR",
    "MAX_FRAME_DEPTH",
    "FrameFacts",
    "FrameState",
    "Place",
    "frame_facts",
    "frame_nodes",
    "frame_state",
    "placed",
    "replace_nodes",
]

KEY_SEPARATOR = "@"
"""Between the walker's element key and its document id in the keys the driver hands out: a key names the document
(the tab's or a frame's) it came from."""

MAX_FRAME_DEPTH = 16
"""Frames nested deeper than this are not read: a page can nest frames without end."""

Box: TypeAlias = tuple[float, float, float, float]
"""x0, y0, x1, y1 in CSS px."""


@attrs.frozen
class FrameFacts:
    """What a walker reports about one frame element (its `element` op with `frames`), in the coordinates of the
    document it walked."""

    context: str | None
    """The browsing context the frame shows; None when the browser did not say."""
    entered: bool
    """Whether the walk went into the frame's document itself (same origin): its tree is already in the walk's."""
    left: float | None
    top: float | None
    """The top left corner of the frame's content box (where its viewport starts); None when it has no box."""
    shown: Box | None
    """The part of the content box that shows (clipped by its ancestors and the viewport); None when none does."""
    sandbox: str | None
    """The frame element's `sandbox` attribute; None without one."""
    src: str | None = None
    """The frame element's address; None without one."""

    @property
    def sandboxed(self) -> bool:
        """Whether the frame's document runs in an origin of its own (sandboxed without `allow-same-origin`)."""
        return self.sandbox is not None and "allow-same-origin" not in self.sandbox.lower().split()


def frame_facts(remote: Any, count: int) -> list[FrameFacts | None]:
    """The walker's reply (a BiDi remote value: an array, per key, of an array or null) as `FrameFacts`; None for a
    key that names no frame element, and for a reply of another shape."""
    items = remote.get("value") if isinstance(remote, Mapping) and remote.get("type") == "array" else None
    out: list[FrameFacts | None] = [None] * count
    if not isinstance(items, list):
        return out
    for index, item in enumerate(items[:count]):
        parts = item.get("value") if isinstance(item, Mapping) and item.get("type") == "array" else None
        if not isinstance(parts, list) or len(parts) < 9:
            continue
        window = parts[0] if isinstance(parts[0], Mapping) else {}
        where = window.get("value") if window.get("type") == "window" else None
        context = str(where["context"]) if isinstance(where, Mapping) and where.get("context") else None
        numbers = [_number(part) for part in parts[2:8]]
        left, top, *box = numbers
        sandbox = _value(parts[8])
        src = _value(parts[9]) if len(parts) > 9 else None
        out[index] = FrameFacts(
            context=context,
            entered=_value(parts[1]) is True,
            left=left,
            top=top,
            shown=(box[0], box[1], box[2], box[3]) if all(part is not None for part in box) else None,  # type: ignore[arg-type]
            sandbox=str(sandbox) if isinstance(sandbox, str) else None,
            src=str(src) if isinstance(src, str) else None,
        )
    return out


def _value(remote: Any) -> Any:
    return remote.get("value") if isinstance(remote, Mapping) else None


def _number(remote: Any) -> float | None:
    value = _value(remote)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@attrs.frozen
class Place:
    """Where a document's viewport lies in its tab's viewport: the offset of its top left corner, and the part of it
    that shows (None when none does), in the tab's CSS px. A tab's own document is at (0, 0) and shows whole."""

    dx: float
    dy: float
    shown: Box | None

    @classmethod
    def tab(cls, width: float, height: float) -> Place:
        return cls(0.0, 0.0, (0.0, 0.0, float(width), float(height)))

    def inner(self, facts: FrameFacts) -> Place:
        """The place of the document the frame shows, from the facts its walker reported in this document."""
        if facts.left is None or facts.top is None:
            return Place(self.dx, self.dy, None)
        shown = None
        if facts.shown is not None and self.shown is not None:
            shown = _intersect(_shift(facts.shown, self.dx, self.dy), self.shown)
        return Place(self.dx + facts.left, self.dy + facts.top, shown)

    def to_tab(self, point: Point) -> Point:
        return Point(point.x + self.dx, point.y + self.dy)

    def to_local(self, point: Point) -> Point:
        return Point(point.x - self.dx, point.y - self.dy)

    def shows(self, point: Point) -> bool:
        """Whether a point of the tab's viewport falls in the part of the document that shows."""
        return (
            self.shown is not None
            and self.shown[0] <= point.x < self.shown[2]
            and self.shown[1] <= point.y < self.shown[3]
        )


def _shift(box: Box, dx: float, dy: float) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


def _intersect(a: Box, b: Box) -> Box | None:
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


# --- what a frame shows ---------------------------------------------------------------------------------------------


@attrs.frozen
class FrameState:
    """Whether a frame's document can be read, and the URL it shows or is loading (the refused one when blocked)."""

    status: FrameStatus
    url: str | None
    readable: bool
    """Whether its current document is the one to read: ready, or loading after its navigation committed."""


def frame_state(document: Document, navigations: Sequence[NavRecord]) -> FrameState:
    """A frame's state from its current document and its navigations since its parent's document (refused ones
    included, oldest first): blocked when the URL guard refused the newest (or the guard took the frame off a refused
    address to a blank page, which is all a refused `data:` frame ends as), loading until the newest has loaded
    (readable once it committed: its document is the one that will load), ready otherwise."""
    latest = navigations[-1] if navigations else None
    if latest is not None and latest.blocked_url:
        return FrameState("blocked", latest.blocked_url, readable=False)
    if latest is not None and latest.url == "about:blank" and len(navigations) > 1 and navigations[-2].blocked_url:
        return FrameState("blocked", navigations[-2].blocked_url, readable=False)
    if latest is not None and latest.stage not in TERMINAL:
        committed = document.navigation == latest.navigation
        return FrameState("loading", document.url if committed else latest.url, readable=committed)
    if document.navigation is not None and not document.loaded and document.url not in (None, "about:blank"):
        return FrameState("loading", document.url, readable=True)
    return FrameState("ready", document.url, readable=True)


# --- tree surgery ---------------------------------------------------------------------------------------------------


def frame_nodes(root: AXNode) -> list[AXNode]:
    """The frame elements of a walked tree that show (they and all their ancestors visible) and have a key, in
    document order."""
    found: list[AXNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.visible:
            continue
        if node.role == "iframe" and node.key is not None:
            found.append(node)
        stack.extend(reversed(node.children))
    return found


def placed(nodes: Sequence[AXNode], place: Place) -> tuple[AXNode, ...]:
    """A frame document's nodes as they lie in the tab: boxes moved by the place's offset, and in the viewport only
    where they meet the part of the frame that shows (a run of text, which has no box, as far as the nearest box
    around it does)."""
    out: list[AXNode] = []
    # (node, whether the nearest box around it meets what shows, children built) in post-order
    stack: list[tuple[AXNode, bool, bool]] = [(node, place.shown is not None, False) for node in reversed(nodes)]
    built: list[AXNode] = []
    while stack:
        node, around, done = stack.pop()
        bounds = node.bounds
        meets = around
        if bounds is not None:
            box = (
                bounds.x + place.dx,
                bounds.y + place.dy,
                bounds.x + place.dx + bounds.width,
                bounds.y + place.dy + bounds.height,
            )
            meets = place.shown is not None and _intersect(box, place.shown) is not None
        if not done:
            stack.append((node, around, True))
            stack.extend((child, meets, False) for child in reversed(node.children))
            continue
        count = len(node.children)
        children = tuple(built[len(built) - count :]) if count else ()
        if count:
            del built[len(built) - count :]
        moved = Rect(bounds.x + place.dx, bounds.y + place.dy, bounds.width, bounds.height) if bounds else None
        built.append(attrs.evolve(node, bounds=moved, in_viewport=node.in_viewport and meets, children=children))
    out.extend(built)
    return tuple(out)


def replace_nodes(root: AXNode, replacements: Mapping[int, AXNode]) -> AXNode:
    """`root` with the nodes whose `id` is a key of `replacements` replaced, rebuilding only their ancestors."""
    if not replacements:
        return root
    parents: dict[int, AXNode | None] = {id(root): None}
    order: list[AXNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    dirty: set[int] = set()
    for key in replacements:
        parent = parents.get(key)
        while parent is not None and id(parent) not in dirty:
            dirty.add(id(parent))
            parent = parents[id(parent)]
    built: dict[int, AXNode] = {}
    for node in reversed(order):  # every node after its descendants
        key = id(node)
        if key in replacements:
            built[key] = replacements[key]
        elif key in dirty:
            built[key] = attrs.evolve(node, children=tuple(built.get(id(child), child) for child in node.children))
    return built.get(id(root), root)
