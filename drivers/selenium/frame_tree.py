"""A tab's documents as one page: the frames of other origins joined to the tree and the text where they stand, the
place of a frame's document in the tab's viewport, and what a point of the tab hits through every frame.

The walker of a document enters the frames of its own origin itself; for every other frame it reports the frame
element, and, asked about it (`element` with `frames`), the frame's browsing context (BiDi serializes a frame's
`contentWindow` with its context's id), where its viewport lies and what of it shows. This module reads the frame's
document with the walker in the frame's own realm and joins it under its frame element, in document order; the
pieces stay in the coordinates of the document read until joined, where `frames.placed` moves them. Element keys
carry their document's walker id, so a key names the frame document it came from (see `elements.KEY_SEPARATOR`).

A frame shows on its line where it comes from (its origin) and, when that is so, that it is still loading, that
the URL guard refused what it was to show, or that the browser gives no way into it: nothing is read from such a
frame. The last is a browser's fault: Chromium's BiDi now and then never attaches a frame of another site (no realm
announced for it, no script answered there), so a frame that no event gave a realm is probed once first
(`PROBE_TIMEOUT`) rather than let its reads wait out the script timeout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from browser_toolset.driver_errors import ElementGone, TabGone
from browser_toolset.frame_notes import frame_note, origin_of
from browser_toolset.values import AXNode, Point, Size

from .connection import BidiError, BidiTimeout
from .contexts import Contexts, NavRecord
from .documents import Document, Documents
from .frames import (
    KEY_SEPARATOR,
    MAX_FRAME_DEPTH,
    FrameFacts,
    FrameState,
    Place,
    frame_facts,
    frame_nodes,
    frame_state,
    placed,
    replace_nodes,
)
from .script import Scripts

__all__ = ["FrameTree", "Hit", "ReadDocument", "WalkDocument", "local_key"]

FOCUSED_FRAME = """function () {
  let el = document.activeElement;
  for (let depth = 0; depth < 32 && el; depth++) {
    while (el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (el.localName !== "iframe" && el.localName !== "frame") return null;
    let inner = null;
    try {
      inner = el.contentDocument;
    } catch (e) {
      inner = null;
    }
    if (!inner) return el.contentWindow;
    el = inner.activeElement;
  }
  return null;
}"""
"""The content window of the frame of another origin that has the focus in this document (through its shadow roots and
its frames of the same origin), or null when the focus is in the document itself."""


PROBE_TIMEOUT = 3.0
"""Seconds a frame of unknown reachability has to answer a trivial script before it counts as out of reach."""


class WalkDocument(Protocol):
    """A walker call in one document of the tab (`Elements._walker`)."""

    def __call__(
        self,
        handle: str,
        op: str,
        arg: Mapping[str, Any],
        *,
        raw: bool = ...,
        document: Document | None = ...,
        depth: int = ...,
    ) -> Any: ...


class ReadDocument(Protocol):
    """One document's tree as the walker reads it, its keys qualified by the document (`Elements._read`); None when
    the document was replaced while it was read."""

    def __call__(self, handle: str, document: Document, arg: Mapping[str, Any]) -> AXNode | None: ...


@attrs.frozen
class Hit:
    """What a point of the tab hits: the walker's `elementAt` reply in the document it lies in, with the names of the
    named forms, dialogs and regions around the frames it lies in (nearest first), and whether it reaches the element
    asked about."""

    document: Document
    reply: Mapping[str, Any]
    around: tuple[str, ...]
    within: bool | None


class FrameTree:
    """Reads across the documents of a tab (see the module docstring). What is known about a frame's document is its
    `Document`'s; the tree itself remembers only which frames it has loaded again (`_reloaded`)."""

    def __init__(
        self,
        documents: Documents,
        contexts: Contexts,
        scripts: Scripts,
        walk: WalkDocument,
        read: ReadDocument,
        viewport: Size,
    ) -> None:
        self._documents = documents
        self._contexts = contexts
        self._scripts = scripts
        self._walk = walk
        self._read = read
        self._viewport = viewport
        self._reloaded: set[str] = set()
        """Frames (by context) loaded again once because Chromium never attached their first document."""

    def has_frames(self, handle: str) -> bool:
        return bool(self._documents.frames(handle))

    # --- the tree -------------------------------------------------------------------------------------------------

    def refresh(self, handle: str) -> None:
        """Learn the tab's frames from `browsingContext.getTree` (see `Documents.adopt`)."""
        try:
            reply = self._documents.command(handle, "browsingContext.getTree", {"root": handle}, timeout=5)
        except BidiError:
            return
        for info in reply.get("contexts") or ():
            if isinstance(info, Mapping) and isinstance(info.get("children"), list):
                self._documents.adopt(info["children"], parent=handle)

    def join(self, handle: str, document: Document, tree: AXNode, arg: Mapping[str, Any], depth: int = 0) -> AXNode:
        """`tree`, read from `document` with the walker's snapshot `arg`, with every frame it shows described on its
        line and the frames the walk could not enter read (with `arg`) and joined under their frame elements: all in
        `document`'s coordinates."""
        nodes = frame_nodes(tree)
        if not nodes:
            return tree
        locals_ = [local_key(node.key or "") for node in nodes]
        facts = self._facts(handle, document, locals_)
        inherited = self._origin(document)
        replacements: dict[int, AXNode] = {}
        for node, local, fact in zip(nodes, locals_, facts):
            child = self._child(handle, fact)
            if fact is None:
                continue
            if child is None:
                if not fact.entered:
                    note = frame_note(origin_of(fact.src, inherited), "unreachable", sandboxed=fact.sandboxed)
                    replacements[id(node)] = attrs.evolve(node, description=note)
                continue
            child.frame_element = (document, local)
            state = self._state(child)
            children, states = node.children, node.states
            if state.status == "blocked":
                children = ()
            elif not fact.entered and state.readable and not self._reachable(child):
                state = FrameState("unreachable", state.url, readable=False)
            elif not fact.entered and state.readable and depth < MAX_FRAME_DEPTH and fact.left is not None:
                sub = self._read(handle, child, {name: value for name, value in arg.items() if name != "root"})
                if sub is None:
                    state = FrameState("loading", child.url, readable=False)
                else:
                    sub = self.join(handle, child, sub, arg, depth + 1)
                    children = placed(sub.children, Place(fact.left, fact.top or 0.0, fact.shown))
                    # The focus in the frame shows on the element that has it there, not on the frame element.
                    states = tuple(token for token in states if token != "focused")
            note = frame_note(origin_of(state.url, inherited), state.status, sandboxed=fact.sandboxed)
            replacements[id(node)] = attrs.evolve(node, description=note, children=children, states=states)
        return replace_nodes(tree, replacements)

    # --- the text -------------------------------------------------------------------------------------------------

    def text(self, handle: str, document: Document, text: str, mark: str, depth: int = 0) -> str:
        """`document`'s page text (read with `frameMark` `mark`) with the line of each frame it could not enter
        replaced by the frame's own text; a frame that is blocked, loading or hidden adds nothing."""
        lines = text.split("\n")
        marked = [(index, line[len(mark) :]) for index, line in enumerate(lines) if line.startswith(mark)]
        if not marked:
            return text
        facts = self._facts(handle, document, [key for _, key in marked])
        for (index, _), fact in zip(marked, facts):
            child = self._child(handle, fact)
            lines[index] = ""
            if fact is None or child is None or fact.entered or depth >= MAX_FRAME_DEPTH:
                continue
            state = self._state(child)
            if state.status not in ("ready", "loading") or not state.readable or not self._reachable(child):
                continue
            try:
                inner = self._walk(handle, "text", {"frameMark": mark}, document=child)
            except ElementGone:
                continue
            if isinstance(inner, str):
                lines[index] = self.text(handle, child, inner, mark, depth + 1)
        skip = {index for index, _ in marked if not lines[index]}
        return "\n".join(line for index, line in enumerate(lines) if index not in skip)

    # --- places and points ----------------------------------------------------------------------------------------

    def place(self, handle: str, document: Document, *, reveal: bool = False) -> Place:
        """Where `document` (the tab's or a frame's) lies in the tab's viewport. With `reveal`, each frame element on
        the way is first scrolled into view in its own document (where it is not wholly in view), outermost first.
        `ElementGone` when a frame on the way is gone or was never read."""
        chain: list[tuple[Document, str]] = []
        current = document
        while current.context != handle:
            if current.frame_element is None or len(chain) > MAX_FRAME_DEPTH:
                raise ElementGone(current.context)
            chain.append(current.frame_element)
            current = current.frame_element[0]
        place = Place.tab(self._viewport.width, self._viewport.height)
        for host, key in reversed(chain):
            if not host.current:
                raise ElementGone(key)
            if reveal:
                self._walk(handle, "center", {"key": key}, document=host)
            fact = self._facts(handle, host, [key])[0]
            if fact is None:
                raise ElementGone(key)
            place = place.inner(fact)
        return place

    def hit(self, handle: str, point: Point, target: tuple[Document, str] | None = None) -> Hit | None:
        """What a click at `point` (tab viewport) hits, through the frames it lies in: the walker's `elementAt` in the
        tab's document, and again in the frame's document wherever the hit is a frame of another origin. With
        `target` (a document and a walker key in it), whether the click reaches that element, asked in its document
        (never reached: False). `ElementGone` when the target is gone."""
        document = self._tab_document(handle)
        local = point
        around: tuple[str, ...] = ()
        within: bool | None = False if target is not None else None
        for depth in range(MAX_FRAME_DEPTH + 1):
            arg: dict[str, Any] = {"x": local.x, "y": local.y}
            if target is not None and target[0] is document:
                arg["of"] = target[1]
            reply = self._walk(handle, "elementAt", arg, document=document)
            if not isinstance(reply, Mapping):
                return None
            if reply.get("gone"):
                raise ElementGone(target[1] if target is not None else "")
            if "of" in arg:
                within = reply.get("within") is True
            inner = self._into_frame(handle, document, reply, local) if depth < MAX_FRAME_DEPTH else None
            if inner is None:
                return Hit(document, reply, around, within)
            context = reply.get("context")
            names = tuple(str(name) for name in context) if isinstance(context, list) else ()
            document, local, around = inner[0], inner[1], (*names, *around)
        return None

    def frame_at(self, handle: str, point: Point) -> tuple[str, Point] | None:
        """The frame of another origin that a point of the tab falls in (the innermost), and the point in its
        viewport; None when it falls in the tab's own document (or its frames of the same origin)."""
        if not self.has_frames(handle):
            return None
        hit = self.hit(handle, point)
        if hit is None or hit.document.context == handle:
            return None
        return hit.document.context, self.place(handle, hit.document).to_local(point)

    def focused_frame(self, handle: str) -> str | None:
        """The innermost frame of another origin that has the keyboard focus, or None when the tab's document has it."""
        if not self.has_frames(handle):
            return None
        context = handle
        found: str | None = None
        params = {
            "functionDeclaration": FOCUSED_FRAME,
            "arguments": [],
            "awaitPromise": False,
            "resultOwnership": "none",
        }
        for _ in range(MAX_FRAME_DEPTH):
            try:
                reply = self._scripts.run(context, "script.callFunction", params, sandbox=True, timeout=5)
            except BidiError:
                break
            result = reply.get("result") if isinstance(reply, Mapping) else None
            value = result.get("value") if isinstance(result, Mapping) and result.get("type") == "window" else None
            inner = str(value["context"]) if isinstance(value, Mapping) and value.get("context") else None
            if inner is None or self._documents.for_context(inner) is None:
                break
            context = found = inner
        return found

    # --- helpers --------------------------------------------------------------------------------------------------

    def _into_frame(
        self, handle: str, document: Document, reply: Mapping[str, Any], local: Point
    ) -> tuple[Document, Point] | None:
        """Where a hit on a frame element of another origin continues: the frame's document and the point in its
        viewport; None when the hit is no such frame, or the point is not in the part of its viewport that shows."""
        key = reply.get("key")
        if reply.get("role") != "iframe" or not isinstance(key, str):
            return None
        fact = self._facts(handle, document, [key])[0]
        if fact is None or fact.entered or fact.shown is None or fact.left is None or fact.top is None:
            return None
        x0, y0, x1, y1 = fact.shown
        if not (x0 <= local.x < x1 and y0 <= local.y < y1):
            return None
        child = self._child(handle, fact)
        if child is None or not self._state(child).readable or not self._reachable(child):
            return None
        child.frame_element = (document, key)
        return child, Point(local.x - fact.left, local.y - fact.top)

    def _facts(self, handle: str, document: Document, keys: Sequence[str]) -> list[FrameFacts | None]:
        reply = self._walk(handle, "element", {"frames": list(keys)}, raw=True, document=document, depth=2)
        return frame_facts(reply, len(keys))

    def _child(self, handle: str, fact: FrameFacts | None) -> Document | None:
        """The current document of the frame `fact` names, learning the tab's frames first when no event told of it."""
        if fact is None or fact.context is None:
            return None
        child = self._documents.for_context(fact.context)
        if child is None:
            self.refresh(handle)
            child = self._documents.for_context(fact.context)
        return child

    def _reachable(self, document: Document) -> bool:
        """Whether the browser runs script in a frame's document: known once a realm was announced for it or a call
        answered there; otherwise asked once, with a trivial script that must answer within `PROBE_TIMEOUT`. A realm
        announced after a probe that went unanswered (a frame Chromium attached late, as it can on a busy machine)
        makes the frame reachable again: the announcement is asked first."""
        if document.realm() is not None or document.walker is not None:
            return True
        if document.reachable is not None:
            return document.reachable
        params = {"expression": "0", "target": {"context": document.context}, "awaitPromise": False}
        try:
            self._documents.command(document.context, "script.evaluate", params, timeout=PROBE_TIMEOUT)
        except BidiTimeout:
            document.answered(False)
            self._load_again(document)
            return False
        except BidiError:
            return True  # gone or navigating: the read says so itself
        document.answered(True)
        return True

    def _load_again(self, document: Document) -> None:
        """Load a frame Chromium never attached once more, as a person's reload of the page would: its next
        document usually attaches (a read in the meantime shows it loading or out of reach). Once per frame, so a
        frame that never attaches is not reloaded on every read; nothing was read from or typed into it."""
        if document.context in self._reloaded:
            return
        self._reloaded.add(document.context)
        params = {"context": document.context, "wait": "none"}
        try:
            self._documents.command(document.context, "browsingContext.reload", params, timeout=PROBE_TIMEOUT)
        except BidiError:  # a timeout included: the frame then stays out of reach, as its line says
            return

    def _state(self, document: Document) -> FrameState:
        return frame_state(document, self._navigations(document))

    def _navigations(self, document: Document) -> list[NavRecord]:
        """The frame's navigations since its parent's document, oldest first (Firefox reuses a frame's context id when
        its parent reloads: the navigations of the frame it replaced are older)."""
        since = document.host.seq if document.host is not None else -1
        return self._contexts.navigations_since(document.context, since - 1, refused=True)

    def _origin(self, document: Document) -> str:
        """The origin of a walked document, which its blank and `srcdoc` frames share."""
        inherited = "the page's origin"
        if document.frame_element is not None and document.frame_element[0] is not document:
            inherited = self._origin(document.frame_element[0])
        return origin_of(document.url, inherited)

    def _tab_document(self, handle: str) -> Document:
        document = self._documents.for_context(handle)
        if document is None:
            raise TabGone(handle)
        return document


def local_key(key: str) -> str:
    """The walker's own key inside a driver key (see `frames.KEY_SEPARATOR`)."""
    local, separator, _ = key.rpartition(KEY_SEPARATOR)
    return local if separator else key
