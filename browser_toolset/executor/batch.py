"""Running one assistant turn's browser calls, for people who drive `messages.create` themselves.

The SDK's runner applies the batch rule (docs/contract.md §2) in its loop; `run_batch` is that rule as a function:
browser calls run in order, the first failure stops the rest of the turn's browser calls, and each of those is
answered with the contract's fixed text so that every call still has its `tool_result`. Calls to other tools are
left to the caller, who answers them in the same `user` message.

Every browser call gets its answer, however malformed: a call whose `input` is not an object, holds text that is
not valid Unicode (an unpaired surrogate, which no JSON encoder can send back), or nests absurdly deep is answered
with an error saying so, and counts as the turn's failure. Only a block that cannot be answered at all (no `id`)
makes the whole message invalid, and that is decided before any call runs.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from anthropic.tools import ToolsetUsageError
from anthropic.tools.browser import BetaAbstractBrowserToolset20260801
from anthropic.types.beta import BetaToolUseBlock

from ..safety.sanitize import LONE_SURROGATE_RE, one_line

__all__ = ["MAX_INPUT_DEPTH", "NOT_EXECUTED", "browser_calls", "run_batch"]

log = logging.getLogger("browser_toolset")

NOT_EXECUTED = "Not executed: an earlier action in this turn failed."
"""The contract's text (docs/contract.md §2, §7) for a call skipped after an earlier failure in the same turn."""

MAX_INPUT_DEPTH = 32
"""How deeply a call's input may nest. Members take flat parameters; anything deeper is a malformed call, and
refusing it here keeps recursive validators from ever seeing it."""

JSON_KINDS: Mapping[type, str] = {
    str: "a string",
    list: "an array",
    bool: "a boolean",
    int: "a number",
    float: "a number",
}


def _content_of(message: Any) -> list[Any]:
    """The content blocks of an assistant message, a whole Messages API response, or a bare list of blocks, as
    dicts or SDK models."""
    if isinstance(message, list):
        return message
    if hasattr(message, "content") and not isinstance(message, Mapping):
        return list(message.content)
    if isinstance(message, Mapping):
        content = message.get("content")
        if isinstance(content, list):
            return content
        if isinstance(content, str):
            return []
    raise ValueError("expected an assistant message, a Messages API response, or a list of content blocks")


def _browser_blocks(message: Any) -> list[Mapping[str, Any]]:
    """The turn's browser `tool_use` blocks as mappings, each checked to have an id it can be answered by."""
    blocks: list[Mapping[str, Any]] = []
    for block in _content_of(message):
        raw = block.model_dump() if hasattr(block, "model_dump") else block
        if not isinstance(raw, Mapping) or raw.get("type") != "tool_use" or raw.get("toolset_name") != "browser":
            continue
        call_id = raw.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError("a browser tool_use block has no id, so it cannot be answered")
        if LONE_SURROGATE_RE.search(call_id):
            raise ValueError("a browser tool_use block's id is not valid Unicode, so it cannot be answered")
        blocks.append(raw)
    return blocks


def browser_calls(message: Any) -> list[BetaToolUseBlock]:
    """The turn's browser member calls, in order: `tool_use` blocks whose `toolset_name` is `browser`. Dispatch is
    on the pair (`toolset_name`, `name`): a custom tool called `navigate` is not one of them."""
    return [BetaToolUseBlock.model_validate(dict(raw)) for raw in _browser_blocks(message)]


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return next((word for kind, word in JSON_KINDS.items() if isinstance(value, kind)), type(value).__name__)


def _text_problem(value: object, where: str) -> str | None:
    """Why `value` (a call's input, walked without recursion) cannot be run: an unpaired surrogate in any string,
    or nesting deeper than `MAX_INPUT_DEPTH`."""
    stack: list[tuple[object, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_INPUT_DEPTH:
            return f"{where} is nested more than {MAX_INPUT_DEPTH} levels deep"
        if isinstance(item, str):
            if LONE_SURROGATE_RE.search(item):
                return f"{path} contains an unpaired UTF-16 surrogate, which is not valid Unicode text"
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(key, str) and LONE_SURROGATE_RE.search(key):
                    return f"a key in {path} contains an unpaired UTF-16 surrogate, which is not valid Unicode text"
                stack.append((inner, f"{path}.{one_line(str(key), 40)}", depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((inner, f"{path}[{index}]", depth + 1) for index, inner in enumerate(item))
    return None


def _call_problem(raw: Mapping[str, Any]) -> str | None:
    """Why a browser block cannot be passed to the toolset, as the error Claude reads, or None."""
    name = raw.get("name")
    if not isinstance(name, str):
        return f'Error: this browser call\'s name is {_kind(name)}, not a member name such as "navigate".'
    problem = _text_problem(name, "name")
    if problem is not None:
        return f"Error: this browser call's {problem}. Nothing was run."
    call_input = raw.get("input")
    if not isinstance(call_input, Mapping):
        return (
            f"Error: the input of this {one_line(name, 40)} call is {_kind(call_input)}, not a JSON object. Send the "
            "member's parameters as an object, such as {} for a member that takes none."
        )
    problem = _text_problem(call_input, "input")
    if problem is not None:
        return f"Error: {problem}. Nothing was run; send the call again with valid input."
    return None


def _error_result(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "toolset_name": "browser", "content": text, "is_error": True}


def run_batch(
    toolset: BetaAbstractBrowserToolset20260801, message: Any, *, contain_usage_errors: bool = False
) -> dict[str, Any]:
    """Run the browser calls of `message` on `toolset` and return the `user` message answering them: one
    `tool_result` per browser call, in order. After the first failed call, the remaining browser calls are not run
    and are answered `is_error` with `NOT_EXECUTED`. A `ToolsetUsageError` (a bug in the toolset or in how it was
    set up) propagates, as in the SDK's runner, unless `contain_usage_errors` is set: then it is logged and the
    call is answered with an error too, so a long-running session outlives it. Raises `ValueError` when `message`
    is not a message or a browser call in it has no usable id; no call has run then."""
    results: list[dict[str, Any]] = []
    failed = False
    for raw in _browser_blocks(message):
        call_id = str(raw["id"])
        if failed:
            results.append(_error_result(call_id, NOT_EXECUTED))
            continue
        problem = _call_problem(raw)
        if problem is not None:
            result = _error_result(call_id, problem)
        else:
            result = _run_one(toolset, raw, contain_usage_errors)
        failed = bool(result.get("is_error"))
        results.append(result)
    return {"role": "user", "content": results}


def _run_one(toolset: BetaAbstractBrowserToolset20260801, raw: Mapping[str, Any], contain: bool) -> dict[str, Any]:
    call_id = str(raw["id"])
    try:
        call = BetaToolUseBlock.model_validate(dict(raw))
    except (ValueError, TypeError) as exc:
        return _error_result(call_id, f"Error: this browser call is malformed: {one_line(str(exc), 300)}")
    try:
        return dict(toolset.tool_result(call))
    except ToolsetUsageError as exc:
        if not contain:
            raise
        log.error("the toolset failed on %s", one_line(call.name, 40), exc_info=True)
        return _error_result(call_id, f"Error: the executor failed on this call ({one_line(str(exc), 300)}).")
