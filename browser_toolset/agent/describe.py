"""How a call and its result read in one line of progress: what the call acted on, and the first line Claude reads
back. Blocks and inputs come either as plain dicts or as SDK models, so every read goes through `block_field`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["DETAIL_MAX", "block_field", "describe_target", "result_detail", "shorten"]

DETAIL_MAX: Final = 200


def block_field(value: object, name: str) -> Any:
    """A field of a content block or input, whether it is a dict or an SDK model."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def shorten(text: object, limit: int = 40) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    folded = " ".join(str(text).split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def _point(target: object) -> str:
    if block_field(target, "type") == "ref":
        return str(block_field(target, "ref"))
    return f"({block_field(target, 'x')}, {block_field(target, 'y')})"


def describe_target(member: str, input: object) -> str:
    """What a call acts on, in a few words: the URL, the ref or coordinate, the text typed, the query, the tab."""
    target = block_field(input, "target")
    if member == "navigate":
        return shorten(block_field(input, "url"), 80)
    if member == "left_click_drag":
        return f"{_point(block_field(input, 'from'))} → {_point(target)}"
    if member == "scroll" and target is not None:
        return f"{_point(target)} {block_field(input, 'scroll_direction')}"
    if member == "form_input" and target is not None:
        return f"{_point(target)} = {shorten(json.dumps(block_field(input, 'value')))}"
    if target is not None:
        return _point(target)
    for name in ("text", "query", "region", "duration", "ref", "filter"):
        value = block_field(input, name)
        if value is not None:
            return shorten(json.dumps(value) if name in ("text", "query") else value)
    tab_id = block_field(input, "tab_id")
    return str(tab_id) if tab_id is not None else ""


def result_detail(result: Mapping[str, Any]) -> str:
    """The first line of the first text Claude reads in a result."""
    content = result.get("content")
    texts = [content] if isinstance(content, str) else [block_field(b, "text") for b in content or ()]
    for text in texts:
        if isinstance(text, str) and text.strip():
            return shorten(text.strip().splitlines()[0], DETAIL_MAX)
    return ""
