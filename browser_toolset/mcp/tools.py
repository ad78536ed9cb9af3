"""The MCP tools: one per browser member, named as the API names it, its description and input schema read off
the anthropic SDK's generated member input models (`anthropic.types.beta.BetaResponseBrowserToolUseBlock`, one
variant per member), never written here, so they follow the SDK when it changes.

Pydantic's schema of those models is verbose (titles, `anyOf` with `null` for every optional field, `$defs`), and
every byte of a tool list is context the model carries on every turn, so the schema is made plain: references
inlined, optional fields written as their type (they are simply not `required`), titles and nested class
descriptions dropped, and each field described by its own docstring in the SDK's source.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import math
import textwrap
import typing
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

import mcp_types as types
from anthropic.types.beta import BetaResponseBrowserToolUseBlock
from pydantic import BaseModel

from ..config import OPTIONAL_MEMBERS

__all__ = ["enabled_members", "estimate_tokens", "member_inputs", "tool_list", "tool_list_size"]

CHARS_PER_TOKEN = 3.5
"""The estimate for JSON tool definitions when the Messages API cannot count them: English prose runs about four
characters a token, JSON with its punctuation and identifiers fewer."""


@cache
def member_inputs() -> dict[str, type[BaseModel]]:
    """Member name -> its input model, in the order of the SDK's generated `tool_use` union."""
    union = typing.get_args(BetaResponseBrowserToolUseBlock)[0]
    found: dict[str, type[BaseModel]] = {}
    for variant in typing.get_args(union):
        (name,) = typing.get_args(variant.model_fields["name"].annotation)
        found[str(name)] = variant.model_fields["input"].annotation
    return found


def enabled_members(enable: Iterable[str] = ()) -> list[str]:
    """The members a session serves: every member but the optional ones, plus the optional ones `enable` names
    (the configuration's `enable`)."""
    wanted = set(enable)
    return [name for name in member_inputs() if name not in OPTIONAL_MEMBERS or name in wanted]


def _one_line(text: str | None) -> str | None:
    if not text:
        return None
    return " ".join(textwrap.dedent(text).split()) or None


@cache
def _field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string literal after its annotation in the class body), as one line."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(model)))
    except (OSError, TypeError, SyntaxError):
        return {}
    docs: dict[str, str] = {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            line = _one_line(following.value.value)
            if line:
                docs[node.target.id] = line
    return docs


def _wire_names(model: type[BaseModel], docs: Mapping[str, str]) -> dict[str, str]:
    """`docs` by the names the wire uses (a field's alias, such as `from` for `from_`)."""
    fields = model.model_fields
    wire: dict[str, str] = {}
    for name, doc in docs.items():
        alias = fields[name].alias if name in fields else None
        wire[alias or name] = doc
    return wire


def _models_in(annotation: Any, seen: dict[str, type[BaseModel]]) -> None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__name__ in seen:
            return
        seen[annotation.__name__] = annotation
        for field in annotation.model_fields.values():
            _models_in(field.annotation, seen)
        return
    for argument in typing.get_args(annotation):
        _models_in(argument, seen)


def _plain(node: Any, defs: Mapping[str, Any], docs: Mapping[str, Mapping[str, str]]) -> Any:
    """`node` of a pydantic schema made plain (see the module's docstring)."""
    if isinstance(node, list):
        return [_plain(item, defs, docs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        return _plain({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs, docs)
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and node.get("default", ...) is None:
        rest = [option for option in options if option != {"type": "null"}]
        merged = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
        merged.update(rest[0] if len(rest) == 1 else {"anyOf": rest})
        return _plain(merged, defs, docs)
    field_docs = docs.get(str(node.get("title")), {}) if "properties" in node else {}
    plain: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$defs") or (key == "additionalProperties" and value is True):
            continue
        if key == "description" and "properties" in node:
            continue  # a nested model's class docstring: the field that holds it says what it is for
        if key == "properties":
            plain[key] = {
                name: _described(_plain(schema, defs, docs), field_docs.get(name)) for name, schema in value.items()
            }
        else:
            plain[key] = _plain(value, defs, docs)
    return plain


def _described(schema: Any, doc: str | None) -> Any:
    if doc and isinstance(schema, dict) and "description" not in schema:
        return {"description": doc, **schema}
    return schema


@cache
def input_schema(member: str) -> dict[str, Any]:
    """The plain JSON Schema of `member`'s input."""
    model = member_inputs()[member]
    raw = model.model_json_schema()
    seen: dict[str, type[BaseModel]] = {}
    _models_in(model, seen)
    docs = {name: _wire_names(cls, _field_docs(cls)) for name, cls in seen.items()}
    schema = _plain(raw, raw.get("$defs", {}), docs)
    schema.pop("description", None)
    schema.setdefault("properties", {})
    return {"type": "object", **{k: v for k, v in schema.items() if k != "type"}}


def tool_list(enable: Iterable[str] = ()) -> list[types.Tool]:
    """The MCP tools for the members a session serves."""
    return [
        types.Tool(
            name=name,
            description=_one_line(member_inputs()[name].__doc__) or name,
            input_schema=input_schema(name),
        )
        for name in enabled_members(enable)
    ]


def tool_list_size(tools: Iterable[types.Tool]) -> int:
    """The characters of the tool list as `tools/list` sends it (compact JSON)."""
    wire = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]
    return len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False))


def estimate_tokens(characters: int) -> int:
    return math.ceil(characters / CHARS_PER_TOKEN)
