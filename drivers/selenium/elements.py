"""The accessibility tree and the elements in it, read and acted on through the in-page walker (`walker.js`).

The walker numbers elements afresh in every document, so its key alone could name an unrelated element of the page
that replaced the one it came from. The keys the driver hands out carry their document (`KEY_SEPARATOR`), and a key
from any document but the tab's current one is `ElementGone`. The walker's snapshot is converted into `AXNode`s
without recursion: a page's DOM can nest deeper than Python's recursion limit.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue
from browser_toolset.values import STATE_TOKENS, AXNode, AXSnapshot, FormValue, Point, Rect, Size

from .connection import BidiError
from .contexts import Contexts
from .errors import bidi_errors, context_lost
from .navigation import Navigator
from .options import SeleniumConfig
from .script import Scripts, decode, encode, walker_declaration
from .tabs import Tabs

__all__ = ["KEY_SEPARATOR", "Elements", "ax_snapshot"]

KEY_SEPARATOR = "@"
"""Between the walker's element key and its document id in the keys the driver hands out."""

_WHAT: dict[str, str] = {
    "snapshot": "read the page",
    "text": "read the page's text",
    "center": "locate the element",
    "scrollIntoView": "scroll the element into view",
    "setValue": "set the element's value",
    "element": "find the element",
}
"""What each walker op does, for `bidi_errors`."""

_STATE_ORDER = {state: index for index, state in enumerate(STATE_TOKENS)}


class Elements:
    """`snapshot` and the calls that act on one element by key."""

    def __init__(
        self, config: SeleniumConfig, contexts: Contexts, tabs: Tabs, scripts: Scripts, navigation: Navigator
    ) -> None:
        self._config = config
        self._contexts = contexts
        self._tabs = tabs
        self._scripts = scripts
        self._navigation = navigation
        self._lock = threading.Lock()
        self._documents: dict[str, tuple[str, int]] = {}
        """Per tab: the document its last snapshot read, and the commit count then (see `_local_key`)."""

    def forget_contexts(self, handles: frozenset[str]) -> None:
        with self._lock:
            for handle in handles:
                self._documents.pop(handle, None)

    # --- the walker -----------------------------------------------------------------------------------------------

    def _walker(self, handle: str, op: str, arg: Mapping[str, Any], *, raw: bool = False) -> Any:
        """Call the walker's `op`. Returns the parsed JSON (or, with `raw`, the BiDi RemoteValue for `element`)."""
        self._tabs.check(handle)
        params = {
            "functionDeclaration": walker_declaration(),
            "arguments": [{"type": "string", "value": op}, encode(dict(arg))],
            "awaitPromise": False,
            "resultOwnership": "none",
            "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 1},
        }
        with bidi_errors(_WHAT.get(op, "run the page walker")):
            for attempt in range(3):
                try:
                    reply = self._scripts.run(
                        handle, "script.callFunction", params, sandbox=True, timeout=self._config.script_timeout
                    )
                except BidiError as exc:
                    if attempt < 2 and context_lost(exc):
                        # The document was replaced under the call (a navigation): wait for the new one and retry.
                        self._navigation.wait_settled(handle, 5.0)
                        continue
                    raise
                if reply.get("type") == "exception":
                    details = reply.get("exceptionDetails") or {}
                    raise DriverError(f"the page walker failed: {details.get('text') or 'a script error'}")
                result = reply.get("result") or {}
                if raw:
                    return result
                value = decode(result)
                if not isinstance(value, str):
                    return value
                try:
                    return json.loads(value)
                except (ValueError, RecursionError) as exc:
                    raise DriverError("the page walker returned a result too deeply nested to read") from exc
        raise DriverError("the page kept navigating while it was being read")

    # --- the tree -------------------------------------------------------------------------------------------------

    def snapshot(self, handle: str) -> AXSnapshot:
        for _ in range(3):
            self._contexts.settle(1.0)
            committed = self._contexts.committed(handle)
            raw = self._walker(handle, "snapshot", {})
            self._contexts.settle(1.0)
            if self._contexts.committed(handle) == committed:
                break
            # A document committed while the page was read: the tree may be either one's. Read again.
            self._navigation.wait_settled(handle, self._config.navigation_timeout)
        document = str(raw.get("document") or "") if isinstance(raw, dict) else ""
        # Noted before the walk: a document that commits during it makes these keys stale, never the reverse.
        with self._lock:
            self._documents[handle] = (document, committed)
        return ax_snapshot(raw, lambda key: f"{key}{KEY_SEPARATOR}{document}")

    def _local_key(self, handle: str, key: str) -> str:
        """The walker's own key inside a driver key, or `ElementGone` when the key is from another document."""
        local, separator, document = key.rpartition(KEY_SEPARATOR)
        if not separator:
            return key
        with self._lock:
            known = self._documents.get(handle)
        if known is None or known[0] != document or self._contexts.committed(handle) != known[1]:
            raise ElementGone(key)
        return local

    # --- elements -------------------------------------------------------------------------------------------------

    def element_center(self, handle: str, key: str) -> Point:
        self._tabs.check(handle)
        result = self._walker(handle, "center", {"key": self._local_key(handle, key)})
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise DriverError(str(result["error"]))
        if not (isinstance(result, dict) and isinstance(result.get("x"), (int, float))):
            raise DriverError("the page walker returned no position for the element")
        return Point(float(result["x"]), float(result["y"]))

    def scroll_into_view(self, handle: str, key: str) -> None:
        self._tabs.check(handle)
        if self._walker(handle, "scrollIntoView", {"key": self._local_key(handle, key)}) is None:
            raise ElementGone(key)

    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        self._tabs.check(handle)
        result = self._walker(handle, "setValue", {"key": self._local_key(handle, key), "value": value})
        if result is None:
            raise ElementGone(key)
        if isinstance(result, dict) and "error" in result:
            raise InvalidValue(str(result["error"]))
        if not isinstance(result, dict) or "value" not in result:
            raise DriverError("the page walker did not report the new value")
        return "" if result["value"] is None else str(result["value"])

    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        self._tabs.check(handle)
        element = self._walker(handle, "element", {"key": self._local_key(handle, key)}, raw=True)
        if not isinstance(element, dict) or element.get("type") != "node" or not element.get("sharedId"):
            raise ElementGone(key)
        with bidi_errors("set the files", key=key, invalid=("unable to set file input", "invalid argument")):
            self._contexts.command(
                handle,
                "input.setFiles",
                {"context": handle, "element": {"sharedId": element["sharedId"]}, "files": list(paths)},
            )

    def page_text(self, handle: str) -> str:
        text = self._walker(handle, "text", {})
        return text if isinstance(text, str) else ""


# --- the walker's snapshot ----------------------------------------------------------------------------------------


def ax_snapshot(raw: Any, qualify: Callable[[str], str] = str) -> AXSnapshot:
    """The walker's `snapshot` result (plain JSON) as an `AXSnapshot`, each element key passed through `qualify`.
    Raises `DriverError` for a malformed one."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("root"), Mapping):
        raise DriverError("the page walker returned no accessibility tree")
    viewport = _mapping(raw.get("viewport"))
    size = Size(int(viewport.get("width") or 0), int(viewport.get("height") or 0))
    return AXSnapshot(document=str(raw.get("document") or ""), root=_ax_tree(raw["root"], qualify), viewport=size)


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
        children=children,
    )
