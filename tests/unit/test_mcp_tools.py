"""The MCP tools are the members as the SDK defines them: the same names, in the SDK's order, the optional ones only
when enabled, and input schemas that accept and refuse what the SDK's input models accept and refuse. Prints the
size of the whole tool list (in characters and estimated tokens; counted by the Messages API when an API key is
set), the figure docs/mcp.md states."""

from __future__ import annotations

import json
import os
import typing

import jsonschema  # type: ignore[import-untyped]
import pytest
from anthropic.types.beta import BetaBrowserMemberName
from pydantic import ValidationError

from browser_toolset.config import OPTIONAL_MEMBERS
from browser_toolset.mcp.tools import (
    enabled_members,
    estimate_tokens,
    input_schema,
    member_inputs,
    tool_list,
    tool_list_size,
)

SAMPLES: dict[str, list[dict[str, object]]] = {
    "navigate": [{"url": "example.com"}, {"url": "back", "tab_id": "tab-2"}, {}, {"url": 5}],
    "left_click": [
        {"target": {"type": "ref", "ref": "ref_3"}},
        {"target": {"type": "coordinate", "x": 10, "y": 20}, "modifiers": "shift"},
        {"target": {"type": "coordinate", "x": "left"}},
        {},
    ],
    "read_page": [{}, {"filter": "interactive", "depth": 3}, {"filter": "everything"}, {"depth": "deep"}],
    "form_input": [{"target": {"type": "ref", "ref": "ref_1"}, "value": True}, {"value": "x"}],
    "scroll": [
        {"scroll_direction": "down", "target": {"type": "coordinate", "x": 1, "y": 2}},
        {"scroll_direction": "sideways", "target": {"type": "coordinate", "x": 1, "y": 2}},
    ],
    "wait": [{"duration": 1.5}, {"duration": "long"}],
    "find": [{"query": "the search box"}, {"query": None}],
}


def test_the_tools_are_the_members_of_the_sdk_with_optional_ones_only_when_enabled() -> None:
    assert set(member_inputs()) == set(typing.get_args(BetaBrowserMemberName))
    names = [tool.name for tool in tool_list()]
    assert names == [name for name in member_inputs() if name not in OPTIONAL_MEMBERS]
    assert len(names) == 31 - len(OPTIONAL_MEMBERS)
    with_js = [tool.name for tool in tool_list(["javascript_exec"])]
    assert set(with_js) - set(names) == {"javascript_exec"}
    assert enabled_members(OPTIONAL_MEMBERS) == list(member_inputs())


def test_each_description_is_the_sdk_models_own() -> None:
    for tool in tool_list(OPTIONAL_MEMBERS):
        model = member_inputs()[tool.name]
        assert tool.description == " ".join((model.__doc__ or "").split())
        fields = {field.alias or name: field for name, field in model.model_fields.items()}
        assert set(tool.input_schema["properties"]) == set(fields)
        required = {name for name, field in fields.items() if field.is_required()}
        assert set(tool.input_schema.get("required", [])) == required, tool.name
        assert "$defs" not in json.dumps(tool.input_schema) and '"title"' not in json.dumps(tool.input_schema)


def test_fields_are_described_by_their_docstrings_in_the_sdk() -> None:
    url = input_schema("navigate")["properties"]["url"]
    assert url == {
        "description": 'The URL to navigate to, or "back" / "forward" / "reload" for history navigation.',
        "type": "string",
    }
    assert input_schema("left_click_drag")["properties"]["from"]["description"]
    assert input_schema("read_page")["properties"]["tab_id"] == {
        "description": "Tab to act on. Defaults to the active tab when omitted.",
        "type": "string",
    }


@pytest.mark.parametrize("member", sorted(SAMPLES))
def test_the_schemas_accept_what_the_sdk_accepts(member: str) -> None:
    model = member_inputs()[member]
    validator = jsonschema.Draft202012Validator(input_schema(member))
    for sample in SAMPLES[member]:
        try:
            model.model_validate(sample)
            sdk = True
        except ValidationError:
            sdk = False
        assert validator.is_valid(sample) == sdk, (member, sample)


def test_the_size_of_the_tool_list() -> None:
    for enabled in ((), OPTIONAL_MEMBERS):
        tools = tool_list(enabled)
        size = tool_list_size(tools)
        counted = _api_count(tools)
        tokens = (
            f"{counted} tokens (counted by the Messages API)"
            if counted
            else f"about {estimate_tokens(size)} tokens (estimated)"
        )
        print(f"\n[mcp tools] {len(tools)} tools: {size} characters, {tokens}")
        assert 0 < size < 40_000


def _api_count(tools: list[typing.Any]) -> int | None:
    """The tool list's tokens as the Messages API counts them (with a key), else None."""
    if not os.environ.get("ANTHROPIC_API_KEY"):
        return None
    import anthropic

    client = anthropic.Anthropic()
    message = [{"role": "user", "content": "hi"}]
    model = os.environ.get("BROWSER_TOOLSET_TEST_COUNT_MODEL", "claude-sonnet-4-5")
    definitions = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]
    with_tools = client.messages.count_tokens(model=model, messages=message, tools=definitions)  # type: ignore[arg-type]
    without = client.messages.count_tokens(model=model, messages=message)  # type: ignore[arg-type]
    return int(with_tools.input_tokens - without.input_tokens)
