"""Running one assistant turn's browser calls, for people who drive `messages.create` themselves.

The SDK's tool runner applies the batch rule (§2) inside its own loop; `run_batch` is the same rule as a function:
browser calls run in order, the first failure stops the rest of the turn's browser calls, and each of those is
answered with the contract's fixed text so that every call still has its `tool_result`. Calls to other tools are
left to the caller, who answers them in the same `user` message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anthropic.tools.browser import BetaAbstractBrowserToolset20260801
from anthropic.types.beta import BetaToolUseBlock

__all__ = ["NOT_EXECUTED", "browser_calls", "run_batch"]

NOT_EXECUTED = "Not executed: an earlier action in this turn failed."
"""The contract's text (§2, §7) for a call skipped after an earlier failure in the same turn."""


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


def browser_calls(message: Any) -> list[BetaToolUseBlock]:
    """The turn's browser member calls, in order: `tool_use` blocks whose `toolset_name` is `browser`. Dispatch is
    on the pair (`toolset_name`, `name`): a custom tool called `navigate` is not one of them."""
    calls: list[BetaToolUseBlock] = []
    for block in _content_of(message):
        raw = block.model_dump() if hasattr(block, "model_dump") else block
        if not isinstance(raw, Mapping) or raw.get("type") != "tool_use" or raw.get("toolset_name") != "browser":
            continue
        calls.append(BetaToolUseBlock.model_validate(dict(raw)))
    return calls


def run_batch(toolset: BetaAbstractBrowserToolset20260801, message: Any) -> dict[str, Any]:
    """Run the browser calls of `message` on `toolset` and return the `user` message answering them: one
    `tool_result` per browser call, in order. After the first failed call, the remaining browser calls are not run
    and are answered `is_error` with `NOT_EXECUTED`."""
    results: list[dict[str, Any]] = []
    failed = False
    for call in browser_calls(message):
        if failed:
            results.append(_not_executed(call))
            continue
        result = dict(toolset.tool_result(call))
        failed = bool(result.get("is_error"))
        results.append(result)
    return {"role": "user", "content": results}


def _not_executed(call: BetaToolUseBlock) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": call.id,
        "toolset_name": call.toolset_name,
        "content": NOT_EXECUTED,
        "is_error": True,
    }
