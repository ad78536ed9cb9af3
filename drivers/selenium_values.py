"""Converting between BiDi's wire values and the plain values of `browser_toolset.values`.

BiDi wraps every script value in a typed envelope (`{"type": "object", "value": [[key, value], ...]}`), so a
result needs decoding before use, and an argument needs encoding. The walker's snapshot is converted into
`AXNode`s without recursion: a page's DOM can nest deeper than Python's recursion limit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from browser_toolset.driver_errors import DriverError
from browser_toolset.values import STATE_TOKENS, AXNode, AXSnapshot, Rect, Size

__all__ = [
    "MAX_RENDERED_CHARS",
    "ax_snapshot",
    "decode",
    "encode",
    "render",
]

MAX_RENDERED_CHARS = 50_000
"""The longest `evaluate` result returned: a page can make a value of any size, and it all lands in Claude's
context."""

_STATE_ORDER = {state: index for index, state in enumerate(STATE_TOKENS)}


# --- script values ------------------------------------------------------------------------------------------------


def encode(value: Any) -> dict[str, Any]:
    """A Python value as a BiDi `LocalValue` argument (mappings become objects, sequences arrays)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        number = float(value)
        if math.isnan(number):
            return {"type": "number", "value": "NaN"}
        if math.isinf(number):
            return {"type": "number", "value": "Infinity" if number > 0 else "-Infinity"}
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, Mapping):
        return {"type": "object", "value": [[str(key), encode(item)] for key, item in value.items()]}
    if isinstance(value, Sequence):
        return {"type": "array", "value": [encode(item) for item in value]}
    raise TypeError(f"cannot pass a {type(value).__name__} to a script")


_SPECIAL_NUMBERS = {"NaN": math.nan, "-0": -0.0, "Infinity": math.inf, "-Infinity": -math.inf}


def decode(remote: Any) -> Any:
    """A BiDi `RemoteValue` as plain Python: objects and maps become dicts, arrays and sets lists, `null` and
    `undefined` None. Nodes stay as their remote value (a dict with `sharedId`), since acting on a node needs
    that id. Anything else (functions, promises, windows) becomes its type name."""
    if not isinstance(remote, Mapping):
        return remote
    kind = remote.get("type")
    value = remote.get("value")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value
    if kind == "number":
        return _SPECIAL_NUMBERS.get(value, value) if isinstance(value, str) else value
    if kind == "bigint":
        return int(value) if isinstance(value, str) else value
    if kind in ("array", "set", "nodelist", "htmlcollection"):
        return [decode(item) for item in value] if isinstance(value, list) else []
    if kind in ("object", "map"):
        out: dict[str, Any] = {}
        for pair in value if isinstance(value, list) else []:
            if isinstance(pair, list) and len(pair) == 2:
                key = pair[0] if isinstance(pair[0], str) else render(pair[0])
                out[key] = decode(pair[1])
        return out
    if kind == "node":
        return dict(remote)
    if kind == "date":
        return value
    if kind == "regexp" and isinstance(value, Mapping):
        return f"/{value.get('pattern', '')}/{value.get('flags', '')}"
    return kind


def render(remote: Any) -> str:
    """A `RemoteValue` as the text `javascript_exec` returns: a string as it is, everything else JSON-like, nodes
    as a short tag, capped at `MAX_RENDERED_CHARS`."""
    if isinstance(remote, Mapping) and remote.get("type") == "string" and isinstance(remote.get("value"), str):
        text = str(remote["value"])
    else:
        parts: list[str] = []
        _render_into(remote, parts, budget=[MAX_RENDERED_CHARS + 1])
        text = "".join(parts)
    if len(text) > MAX_RENDERED_CHARS:
        return text[:MAX_RENDERED_CHARS] + f"… [truncated: the value is longer than {MAX_RENDERED_CHARS} characters]"
    return text


def _render_into(remote: Any, parts: list[str], budget: list[int]) -> None:
    """Appends the rendering to `parts`; stops early once `budget` characters have been produced, so a huge array
    costs no more than the text that is kept."""
    if budget[0] <= 0:
        return
    piece = _scalar(remote)
    if piece is not None:
        parts.append(piece)
        budget[0] -= len(piece)
        return
    kind = remote.get("type")
    value = remote.get("value")
    if kind in ("array", "set", "nodelist", "htmlcollection"):
        prefix = {"set": "Set ", "nodelist": "NodeList ", "htmlcollection": "HTMLCollection "}.get(str(kind), "")
        if not isinstance(value, list):
            parts.append(prefix + "[…]")
            return
        parts.append(prefix + "[")
        for index, item in enumerate(value):
            if index:
                parts.append(", ")
            _render_into(item, parts, budget)
            if budget[0] <= 0:
                return
        parts.append("]")
    elif kind in ("object", "map"):
        prefix = "Map " if kind == "map" else ""
        if not isinstance(value, list):
            parts.append(prefix + "{…}")
            return
        parts.append(prefix + "{")
        for index, pair in enumerate(value):
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            if index:
                parts.append(", ")
            key = pair[0] if isinstance(pair[0], str) else render(pair[0])
            parts.append(json.dumps(key, ensure_ascii=False) + ": ")
            _render_into(pair[1], parts, budget)
            if budget[0] <= 0:
                return
        parts.append("}")
    else:
        parts.append(str(kind))
    budget[0] -= 2


def _scalar(remote: Any) -> str | None:
    """The rendering of a value that has no parts, or None for arrays and objects."""
    if not isinstance(remote, Mapping):
        return json.dumps(remote, ensure_ascii=False, default=str)
    kind = remote.get("type")
    value = remote.get("value")
    if kind == "string":
        return json.dumps(value, ensure_ascii=False)
    if kind == "number":
        if isinstance(value, str):
            return value
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return json.dumps(value)
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("null", "undefined"):
        return str(kind)
    if kind == "bigint":
        return f"{value}n"
    if kind == "date":
        return json.dumps(value)
    if kind == "regexp" and isinstance(value, Mapping):
        return f"/{value.get('pattern', '')}/{value.get('flags', '')}"
    if kind == "node":
        return _describe_node(value if isinstance(value, Mapping) else {})
    if kind in ("array", "set", "nodelist", "htmlcollection", "object", "map"):
        return None
    return {"function": "function", "window": "Window", "promise": "Promise", "error": "Error"}.get(
        str(kind), str(kind)
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _describe_node(node: Mapping[str, Any]) -> str:
    node_type = node.get("nodeType")
    if node_type == 1:
        tag = str(node.get("localName") or "element")
        attributes = _mapping(node.get("attributes"))
        shown = "".join(
            f' {name}="{str(attributes[name])[:80]}"' for name in ("id", "class", "name", "type") if name in attributes
        )
        return f"<{tag}{shown}>"
    if node_type == 3:
        text = str(node.get("nodeValue") or "")
        return f"#text {json.dumps(text[:200], ensure_ascii=False)}"
    if node_type == 9:
        return "#document"
    if node_type == 11:
        return "#document-fragment"
    if node_type == 8:
        return "#comment"
    return "node"


# --- the walker's snapshot ------------------------------------------------------------------------------------------


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
