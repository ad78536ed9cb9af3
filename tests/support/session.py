"""A test session: a `BrowserToolset` on any driver, with every result checked by the contract validator.

Every test that produces `tool_result`s goes through `Session.call` / `Session.turn`, so the validator of
`browser_toolset.testing.contract` sees every result the suite produces, and a result the API would reject fails the
test that produced it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset
from browser_toolset.testing.contract import SessionValidator
from browser_toolset.testing.plugin import checked_batch

_ids = itertools.count(1)


def tool_use(name: str, input: Mapping[str, Any] | None = None, *, id: str | None = None) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": id or f"toolu_{next(_ids):04d}",
        "name": name,
        "input": dict(input or {}),
        "toolset_name": "browser",
    }


class Session:
    def __init__(self, toolset: BrowserToolset) -> None:
        self.toolset = toolset
        self.validator = SessionValidator()

    def call(self, name: str, **input: Any) -> dict[str, Any]:
        """One member call; `from_` is sent as `from`."""
        if "from_" in input:
            input["from"] = input.pop("from_")
        block = tool_use(name, input)
        result = dict(self.toolset.tool_result(BetaToolUseBlock.model_validate(block)))
        self.validator.feed(block, result)
        self.validator.assert_valid()
        return result

    def turn(self, *calls: dict[str, Any]) -> dict[str, Any]:
        """One assistant turn through the public batch helper, checked as the plugin checks our users' turns."""
        message = checked_batch(self.toolset, {"role": "assistant", "content": list(calls)}, self.validator)
        self.validator.assert_valid()
        return message


def texts(result: Mapping[str, Any]) -> list[str]:
    content = result["content"]
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block["type"] == "text"]


def text(result: Mapping[str, Any]) -> str:
    return "\n".join(texts(result))


def state(result: Mapping[str, Any]) -> dict[str, Any]:
    blocks = [block for block in result["content"] if isinstance(block, dict) and block["type"] == "browser_state"]
    assert len(blocks) == 1, result
    return blocks[0]


def images(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [block for block in result["content"] if isinstance(block, dict) and block["type"] == "image"]


def ok(result: Mapping[str, Any]) -> Mapping[str, Any]:
    assert not result.get("is_error"), result["content"]
    return result


def error(result: Mapping[str, Any]) -> str:
    assert result.get("is_error") is True, result
    return text(result)
