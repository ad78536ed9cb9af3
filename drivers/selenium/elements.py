"""The accessibility tree and the elements in it, read and acted on through the in-page walker (`walker.js`).

The walker numbers elements afresh in every document, so its key alone could name an unrelated element of the page
that replaced the one it came from. The keys the driver hands out carry their document (`KEY_SEPARATOR`, then the
walker's id of the document, kept as `Document.keys`), and a key from any document but a current one of the tab (its
own, or a frame's) is `ElementGone`. The walker's snapshot is converted into `AXNode`s without recursion: a page's
DOM can nest deeper than Python's recursion limit.

A tab with frames of other origins is read across its documents (`frame_tree`): each such frame with the walker in
its own realm, joined under its frame element; an element in a frame is acted on in its frame's document, its point
moved by where that document lies in the tab.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue, TabGone
from browser_toolset.values import (
    STATE_TOKENS,
    WHOLE_TREE,
    AXNode,
    AXSnapshot,
    ElementAtPoint,
    FormValue,
    Point,
    Rect,
    Size,
    SnapshotRequest,
)

from .connection import BidiError
from .contexts import Contexts
from .documents import Document, Documents
from .errors import bidi_errors, context_lost
from .frame_tree import FrameTree, Hit
from .frames import KEY_SEPARATOR, placed
from .navigation import Navigator
from .options import SeleniumConfig
from .script import (
    SANDBOX,
    WALKER_MISSING,
    Scripts,
    decode,
    encode,
    walker_call_declaration,
    walker_declaration,
    walker_text,
)
from .secret_reads import boxes_in, element_url, focused_url
from .tabs import Tabs

__all__ = ["KEY_SEPARATOR", "Elements", "ax_snapshot"]

_WHAT: dict[str, str] = {
    "snapshot": "read the page",
    "text": "read the page's text",
    "center": "locate the element",
    "scrollIntoView": "scroll the element into view",
    "setValue": "set the element's value",
    "element": "find the element",
    "keyTarget": "find the focused element",
}
"""What each walker op does, for `bidi_errors`."""

_STATE_ORDER = {state: index for index, state in enumerate(STATE_TOKENS)}

PROBE_FRESH = 1.0
"""Seconds for which the hit `element_center` found answers the `element_at` asked right after it."""

MAX_CACHED_SNAPSHOTS = 16
"""Snapshots kept for reads of unchanged pages (see `Elements.snapshot`), over all tabs and requests."""


class Elements:
    """`snapshot` and the calls that act on one element by key. What they need to know about the tab's document
    (which realm runs the walker, whether it is installed there, which keys are the document's, whether it is still
    the tab's) they ask its `Document`."""

    def __init__(
        self,
        config: SeleniumConfig,
        documents: Documents,
        tabs: Tabs,
        scripts: Scripts,
        navigation: Navigator,
        contexts: Contexts,
    ) -> None:
        self._config = config
        self._documents = documents
        self._tabs = tabs
        self._scripts = scripts
        self._navigation = navigation
        self._frames = FrameTree(documents, contexts, scripts, self._walker, self._read, config.viewport)
        self._lock = threading.Lock()
        self._probed: dict[str, tuple[str, Point, ElementAtPoint, float]] = {}
        """Per tab: what the last `element_center` found at the centre (key, point, hit, when), for the
        `element_at` that follows it; used once."""
        self._cache: dict[tuple[str, SnapshotRequest], tuple[str, Document, AXSnapshot]] = {}
        """Per tab and request: the walker's change stamp, the document and the snapshot of the last read."""

    def forget_contexts(self, handles: frozenset[str]) -> None:
        with self._lock:
            for handle in handles:
                self._probed.pop(handle, None)
            self._cache = {key: value for key, value in self._cache.items() if key[0] not in handles}

    def _document(self, handle: str) -> Document:
        """The tab's current document as the events handled so far tell it; `TabGone` once the tab is gone."""
        document = self._documents.for_context(handle)
        if document is None:
            raise TabGone(handle)
        return document

    # --- the walker -----------------------------------------------------------------------------------------------

    def _walker(
        self,
        handle: str,
        op: str,
        arg: Mapping[str, Any],
        *,
        raw: bool = False,
        document: Document | None = None,
        depth: int = 1,
    ) -> Any:
        """Call the walker's `op` in `document` (the tab's current one when None; the current one of its context when
        replaced: a frame's document is the frame's, and a frame that is gone is `ElementGone`). Returns the parsed
        JSON (or, with `raw`, the BiDi RemoteValue for `element`, serialized `depth` levels deep).

        The walker's source goes over the wire once per realm: the first call installs it there, later calls in
        a realm known to have it send a short call of the installed function (see `script.walker_declaration`)."""
        self._tabs.check(handle)
        arguments = [{"type": "string", "value": op}, encode(dict(arg))]
        context = handle if document is None else document.context
        with bidi_errors(_WHAT.get(op, "run the page walker")):
            attempt = 0
            while attempt < 3:
                if document is None or not document.current:
                    document = self._document(handle) if context == handle else self._documents.for_context(context)
                    if document is None:
                        raise ElementGone(context)
                # A realm the browser never announced (Firefox) is addressed by context; a stale one fails, and
                # `Scripts.run` then addresses the tab by context.
                realm = document.realm(SANDBOX)
                short = realm is not None and realm == document.walker
                starts = document.starts  # before the call: a realm noted from its reply is trusted until it changes
                params = {
                    "functionDeclaration": walker_call_declaration() if short else walker_declaration(),
                    "arguments": arguments,
                    "awaitPromise": True,  # a long result comes compressed, through a promise
                    "resultOwnership": "none",
                    "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": depth},
                }
                try:
                    reply = self._scripts.run(
                        context,
                        "script.callFunction",
                        params,
                        sandbox=True,
                        timeout=self._config.script_timeout,
                        realm=realm,
                    )
                except BidiError as exc:
                    if attempt < 2 and context_lost(exc):
                        # The document was replaced under the call (a navigation): wait for the new one and retry.
                        if context == handle:
                            self._navigation.wait_settled(handle, 5.0)
                        else:
                            self._documents.settle(1.0)
                        document = None
                        attempt += 1
                        continue
                    raise
                if reply.get("type") == "exception":
                    details = reply.get("exceptionDetails") or {}
                    raise DriverError(f"the page walker failed: {details.get('text') or 'a script error'}")
                result = reply.get("result") or {}
                if short and realm is not None and result.get("value") == WALKER_MISSING:
                    document.walker_missing(realm)
                    continue  # a realm without the walker after all: install it (not a failed attempt)
                if not short and reply.get("realm"):
                    document.walker_installed(SANDBOX, str(reply["realm"]), starts)
                if raw:
                    return result
                value = decode(result)
                if not isinstance(value, str):
                    return value
                try:
                    return json.loads(walker_text(value))
                except (ValueError, RecursionError) as exc:
                    raise DriverError("the page walker returned a result too deeply nested to read") from exc
        raise DriverError("the page kept navigating while it was being read")

    # --- the tree -------------------------------------------------------------------------------------------------

    def snapshot(self, handle: str, request: SnapshotRequest = WHOLE_TREE) -> AXSnapshot:
        """The walker prunes the tree for `request` in the page and sends it in its compact encoding. When the
        page has not changed since the last read of the same request, or of the whole tree (which answers every
        request), that read's snapshot is returned without walking again: the walker's change stamp is checked in
        the same call, so a `find` right after a `read_page` of an unchanged page costs one short round trip.

        A tab with frames is read across its documents (`_framed_snapshot`)."""
        if self._frames.has_frames(handle) or self._document(handle).frames_seen:
            return self._framed_snapshot(handle, request)
        arg: dict[str, Any] = {"compact": True, "filter": request.filter}
        if request.depth is not None:
            arg["depth"] = max(1, request.depth)
        if request.budget is not None:
            arg["budget"] = max(1, request.budget)
        if request.chars is not None and request.root_key is None:
            arg["chars"] = max(1, request.chars)
        if request.root_key is not None:
            arg["root"] = self._locate(handle, request.root_key)[1]
        for _ in range(3):
            self._documents.settle(1.0)
            document = self._document(handle)
            with self._lock:
                cached = self._cache.get((handle, request))
                if cached is None or cached[1] is not document:
                    cached = self._cache.get((handle, WHOLE_TREE))
            arg["since"] = cached[0] if cached is not None and cached[1] is document else ""
            raw = self._walker(handle, "snapshot", arg, document=document)
            self._documents.settle(1.0)
            if document.current:
                break
            # A document committed while the page was read: the tree may be either one's. Read again.
            self._navigation.wait_settled(handle, self._config.navigation_timeout)
        keys = str(raw.get("document") or "") if isinstance(raw, dict) else ""
        # Noted on the document read before the walk: a document that commits during it makes these keys stale,
        # never the reverse.
        document.keys = keys
        if isinstance(raw, dict) and raw.get("unchanged"):
            if cached is not None and cached[2].document == keys:
                return cached[2]
            arg["since"] = ""  # nothing to reuse after all (a race with another read): walk
            raw = self._walker(handle, "snapshot", arg, document=document)
        snapshot = ax_snapshot(raw, lambda key: f"{key}{KEY_SEPARATOR}{keys}")
        if isinstance(raw, dict) and raw.get("frames"):
            # Frames no event announced (Chromium restores a page from its back/forward cache without them).
            document.frames_seen = True
            self._frames.refresh(handle)
            return self._framed_snapshot(handle, request)
        stamp = raw.get("stamp") if isinstance(raw, dict) else None
        with self._lock:
            # A capped read of every element that the cap did not cut is the whole tree: it answers any read.
            uncut = request == attrs.evolve(WHOLE_TREE, chars=request.chars) and not snapshot.truncated
            for kept in (request, WHOLE_TREE) if uncut else (request,):
                if isinstance(stamp, str) and stamp:
                    self._cache.pop((handle, kept), None)
                    while len(self._cache) >= MAX_CACHED_SNAPSHOTS:
                        del self._cache[next(iter(self._cache))]  # the oldest
                    self._cache[(handle, kept)] = (stamp, document, snapshot)
                else:
                    self._cache.pop((handle, kept), None)
        return snapshot

    def _framed_snapshot(self, handle: str, request: SnapshotRequest) -> AXSnapshot:
        """A read across the tab's documents (`FrameTree.join`), of the whole tree or of the scope's subtree (in
        whichever document the scope is), in the viewport or not: frames are joined by their frame elements, which a
        read pruned any further could leave out. No cache: a frame changes without its parent's stamp changing."""
        arg: dict[str, Any] = {"compact": True, "filter": "all" if request.filter == "all" else "visible"}
        tab = self._document(handle)
        document, root = tab, None
        if request.root_key is not None:
            document, local = self._locate(handle, request.root_key)
            arg = {**arg, "root": local}
        tree = self._read(handle, document, arg)
        if tree is None:
            # The document was replaced while it was read: read the new one (a scope in it is gone).
            if document is not tab:
                raise ElementGone(request.root_key or "")
            self._navigation.wait_settled(handle, self._config.navigation_timeout)
            tab = document = self._document(handle)
            tree = self._read(handle, document, arg)
            if tree is None:
                raise DriverError("the page kept navigating while it was being read")
        root = self._frames.join(handle, document, tree, arg)
        if document is not tab:
            root = placed((root,), self._frames.place(handle, document))[0]
        return AXSnapshot(document=tab.keys or "", root=root, viewport=self._config.viewport)

    def _read(self, handle: str, document: Document, arg: Mapping[str, Any]) -> AXNode | None:
        """One document's tree, read with the walker's snapshot `arg`, its keys carrying the document's walker id (kept
        as `Document.keys`); None when another document replaced it while it was read."""
        self._documents.settle(1.0)
        try:
            raw = self._walker(handle, "snapshot", arg, document=document)
        except ElementGone:
            return None
        self._documents.settle(1.0)
        if not document.current:
            return None
        keys = str(raw.get("document") or "") if isinstance(raw, dict) else ""
        document.keys = keys
        return ax_snapshot(raw, lambda key: f"{key}{KEY_SEPARATOR}{keys}").root

    def _locate(self, handle: str, key: str) -> tuple[Document, str]:
        """The document of the tab (its own or a frame's) a driver key is from, and the walker's own key in it;
        `ElementGone` when that document is no longer current."""
        local, separator, keys = key.rpartition(KEY_SEPARATOR)
        if not separator:
            return self._document(handle), key
        for document in self._documents.of_tab(handle):
            if document.keys == keys and document.current:
                return document, local
        raise ElementGone(key)

    # --- elements -------------------------------------------------------------------------------------------------

    def element_center(self, handle: str, key: str) -> Point:
        """The walker's `center`, which also says what a click there would hit: the executor asks `element_at`
        for it right after (a ref click checks nothing covers its element), and gets it from here without another
        round trip (see `_probed`)."""
        self._tabs.check(handle)
        document, local = self._locate(handle, key)
        framed = document.context != handle
        place = self._frames.place(handle, document, reveal=True) if framed else None
        # In a frame, what a click hits is asked through every document on the way (`FrameTree.hit`), not the frame's.
        arg = {"key": local, "probe": not framed}
        result = self._walker(handle, "center", arg, document=document)
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise DriverError(str(result["error"]))
        if not (isinstance(result, dict) and isinstance(result.get("x"), (int, float))):
            raise DriverError("the page walker returned no position for the element")
        point = Point(float(result["x"]), float(result["y"]))
        at = result.get("at")
        hit = self._element_at_point(document, at) if isinstance(at, dict) and not at.get("gone") else None
        if place is not None:
            point = self._frames.place(handle, document).to_tab(point)
            hit = self._element_at_hit(self._frames.hit(handle, point, (document, local)))
        with self._lock:
            if hit is not None:
                self._probed[handle] = (key, point, hit, time.monotonic())
            else:
                self._probed.pop(handle, None)
        return point

    def scroll_into_view(self, handle: str, key: str) -> None:
        self._tabs.check(handle)
        document, local = self._locate(handle, key)
        if document.context != handle:
            self._frames.place(handle, document, reveal=True)
        if self._walker(handle, "scrollIntoView", {"key": local}, document=document) is None:
            raise ElementGone(key)

    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        self._tabs.check(handle)
        document, local = self._locate(handle, key)
        arg = {"key": local, "value": value}
        result = self._walker(handle, "setValue", arg, document=document)
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise InvalidValue(str(result["error"]))
        if not isinstance(result, dict) or "value" not in result:
            raise DriverError("the page walker did not report the new value")
        return "" if result["value"] is None else str(result["value"])

    def set_files(
        self, handle: str, key: str, paths: Sequence[str], send: Callable[[Sequence[str]], list[str]] | None = None
    ) -> None:
        """Set the files of a file input. `send` turns local paths into the browser's own (a remote browser's
        node is sent each file first); it runs once the element is known to exist, so a file is never sent for
        nothing."""
        self._tabs.check(handle)
        document, local = self._locate(handle, key)
        element = self._walker(handle, "element", {"key": local}, raw=True, document=document)
        if not isinstance(element, dict) or element.get("type") != "node" or not element.get("sharedId"):
            raise ElementGone(key)
        files = list(paths) if send is None else send(paths)
        with bidi_errors("set the files", key=key, invalid=("unable to set file input", "invalid argument")):
            self._documents.command(
                document.context,
                "input.setFiles",
                {"context": document.context, "element": {"sharedId": element["sharedId"]}, "files": files},
            )

    def page_text(self, handle: str) -> str:
        """The walker's text, with the text of each frame of another origin where the frame stands."""
        mark = f"\u0000frame-{secrets.token_hex(8)}:"  # unguessable: a page cannot fake a frame's place
        document = self._document(handle)
        text = self._walker(handle, "text", {"frameMark": mark}, document=document)
        return self._frames.text(handle, document, text, mark) if isinstance(text, str) else ""

    def frame_at(self, handle: str, point: Point) -> tuple[str, Point] | None:
        """The frame of another origin a point of the tab falls in, and the point in its viewport (see
        `FrameTree.frame_at`): where input must go in a browser that does not pass the tab's input into it."""
        self._tabs.check(handle)
        return self._frames.frame_at(handle, point)

    def focused_frame(self, handle: str) -> str | None:
        """The frame of another origin that has the keyboard focus (see `FrameTree.focused_frame`)."""
        self._tabs.check(handle)
        return self._frames.focused_frame(handle)

    def key_target(self, handle: str, key: str, moved: bool) -> ElementAtPoint | None:
        """The walker's `keyTarget`, in the document that has the keyboard focus (a frame of another origin's when
        one has it)."""
        self._tabs.check(handle)
        context = self._frames.focused_frame(handle)
        document = None if context is None else self._documents.for_context(context)
        found = self._walker(handle, "keyTarget", {"key": key, "moved": moved}, document=document)
        if not isinstance(found, Mapping):
            return None
        return self._element_at_point(document or self._document(handle), found)

    def document_url(self, handle: str, key: str | None = None) -> str:
        """The URL of the document that holds the element (or the focused one): a frame's own, never its parent's."""
        self._tabs.check(handle)
        if key is None:
            return focused_url(self._scripts, self._frames.focused_frame(handle) or handle)
        document, local = self._locate(handle, key)
        element = self._walker(handle, "element", {"key": local}, raw=True, document=document)
        if not isinstance(element, dict) or element.get("type") != "node" or not element.get("sharedId"):
            raise ElementGone(key)
        return element_url(self._scripts, document.context, element)

    def secret_boxes(self, handle: str, values: Sequence[str]) -> list[Rect]:
        """What holds one of `values`, and every password field, in the tab and each frame of another origin in it,
        placed in the tab's viewport."""
        self._tabs.check(handle)
        boxes = boxes_in(self._scripts, handle, values)
        for document in self._documents.of_tab(handle):
            if document.context == handle or not document.current:
                continue
            found = boxes_in(self._scripts, document.context, values)
            if found:
                corner = self._frame_corner(handle, document)
                if corner is not None:
                    boxes += [Rect(box.x + corner.x, box.y + corner.y, box.width, box.height) for box in found]
        return boxes

    def _frame_corner(self, handle: str, document: Document) -> Point | None:
        """Where a frame's document starts in the tab; the tab is read first when its frames were not yet (a capture
        before any read), and None for a frame that is gone or not shown by then."""
        for attempt in range(2):
            try:
                return self._frames.place(handle, document).to_tab(Point(0.0, 0.0))
            except ElementGone:
                if attempt == 0:
                    self.snapshot(handle)
        return None

    def element_at(self, handle: str, point: Point, of: str | None = None) -> ElementAtPoint | None:
        """The walker's `elementAt`, through the frames of other origins the point falls in (`FrameTree.hit`). Its
        key is handed out for a document the tab's reads have seen, and only while that document is current (else
        None: no ref could name the element anyway)."""
        self._tabs.check(handle)
        with self._lock:
            probed = self._probed.pop(handle, None)
        if probed is not None and probed[:2] == (of, point) and time.monotonic() - probed[3] < PROBE_FRESH:
            return probed[2]
        return self._element_at_hit(self._frames.hit(handle, point, self._locate(handle, of) if of else None))

    def _element_at_hit(self, hit: Hit | None) -> ElementAtPoint | None:
        """A hit through the tab's frames as an `ElementAtPoint`: the names around the frames it is in come after the
        names around it in its own document."""
        if hit is None:
            return None
        found = self._element_at_point(hit.document, hit.reply)
        return attrs.evolve(found, within=hit.within, context=(*found.context, *hit.around))

    @staticmethod
    def _element_at_point(document: Document, result: Mapping[str, Any]) -> ElementAtPoint:
        local = result.get("key")
        keys = document.keys if document.current else None
        key = f"{local}{KEY_SEPARATOR}{keys}" if isinstance(local, str) and keys is not None else None
        within = result.get("within")
        around = result.get("context")
        return ElementAtPoint(
            key,
            _text(result.get("role")),
            _text(result.get("name")),
            within if isinstance(within, bool) else None,
            tuple(_text(name) for name in around) if isinstance(around, list) else (),
            _text(result.get("action")),
        )


# --- the walker's snapshot ----------------------------------------------------------------------------------------


def ax_snapshot(raw: Any, qualify: Callable[[str], str] = str) -> AXSnapshot:
    """The walker's `snapshot` result (plain JSON) as an `AXSnapshot`, each element key passed through `qualify`.
    Raises `DriverError` for a malformed one."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("root"), Mapping):
        raise DriverError("the page walker returned no accessibility tree")
    viewport = _mapping(raw.get("viewport"))
    size = Size(int(viewport.get("width") or 0), int(viewport.get("height") or 0))
    root = raw["root"]
    try:
        tree = _compact_tree(root, qualify) if "r" in root else _ax_tree(root, qualify)
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        raise DriverError("the page walker returned a malformed accessibility tree") from exc
    return AXSnapshot(
        document=str(raw.get("document") or ""), root=tree, viewport=size, truncated=raw.get("truncated") is True
    )


def _compact_tree(root: Mapping[str, Any], qualify: Callable[[str], str]) -> AXNode:
    """`_ax_tree` for the walker's compact encoding (one-letter keys, defaults left out). Breadth-first order puts
    each node's children side by side, so building it backwards finds every node's children built, in one slice.
    The walker made this JSON, so its shape is trusted as far as Python's types go; a malformed tree fails
    `ax_snapshot` with a `DriverError`."""
    order: list[Mapping[str, Any]] = [root]
    starts: list[int] = []
    index = 0
    while index < len(order):
        children = order[index].get("c")
        starts.append(len(order))
        if children:
            order.extend(children)
        index += 1
    built: list[AXNode] = [None] * len(order)  # type: ignore[list-item]
    state_order = _STATE_ORDER
    for index in range(len(order) - 1, -1, -1):
        node = order[index]
        children = node.get("c")
        kids = tuple(built[starts[index] : starts[index] + len(children)]) if children else ()
        states = node.get("s")
        known: tuple[str, ...] = ()
        if states:
            known = tuple(sorted({s for s in states if s in state_order}, key=state_order.__getitem__))
        bounds = node.get("b")
        level = node.get("l")
        key = node.get("k")
        value = node.get("v")
        built[index] = AXNode(
            role=str(node.get("r") or "generic"),
            name=str(node.get("n") or ""),
            key=None if key is None else qualify(str(key)),
            value=None if value is None else str(value),
            description=str(node.get("d") or ""),
            placeholder=str(node.get("p") or ""),
            states=known,
            level=int(level) if isinstance(level, (int, float)) and not isinstance(level, bool) else None,
            bounds=Rect(float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3])) if bounds else None,
            visible="h" not in node,
            in_viewport="o" not in node,
            interactive="i" in node,
            input_type=str(node.get("t") or ""),
            action=str(node.get("a") or ""),
            children=kids,
        )
    return built[0]


def _ax_tree(root: Mapping[str, Any], qualify: Callable[[str], str]) -> AXNode:
    """Post-order conversion with an explicit stack: each node is built once all its children are."""
    built: dict[int, AXNode] = {}
    stack: list[tuple[Mapping[str, Any], bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        children = [child for child in node.get("children") or () if isinstance(child, Mapping)]
        if not children_done:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children))
            continue
        built[id(node)] = _ax_node(node, tuple(built.pop(id(child)) for child in children), qualify)
    return built[id(root)]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _ax_node(node: Mapping[str, Any], children: tuple[AXNode, ...], qualify: Callable[[str], str]) -> AXNode:
    states = node.get("states") or ()
    known = sorted({s for s in states if isinstance(s, str) and s in _STATE_ORDER}, key=_STATE_ORDER.__getitem__)
    bounds = node.get("bounds")
    rect = None
    if isinstance(bounds, Sequence) and not isinstance(bounds, str) and len(bounds) == 4:
        rect = Rect(*(float(part) for part in bounds))
    level = node.get("level")
    key = node.get("key")
    value = node.get("value")
    return AXNode(
        role=_text(node.get("role")) or "generic",
        name=_text(node.get("name")),
        key=None if key is None else qualify(str(key)),
        value=None if value is None else str(value),
        description=_text(node.get("description")),
        placeholder=_text(node.get("placeholder")),
        states=tuple(known),
        level=int(level) if isinstance(level, (int, float)) and not isinstance(level, bool) else None,
        bounds=rect,
        visible=bool(node.get("visible", True)),
        in_viewport=bool(node.get("inViewport", True)),
        interactive=bool(node.get("interactive", False)),
        input_type=_text(node.get("inputType")),
        action=_text(node.get("action")),
        children=children,
    )
