"""The most each string of a member's input may hold, and how many entries each list: bounded work per call.

Claude's input is untrusted, and a call that cost whatever its input made it cost could take the machine down: a
1 MB `find` query once made the executor grow to 24 GB. So every string field of every member has a limit, kept
here as data and checked on the raw input before anything else reads it (the SDK's parsing, the URL and file
policies, `confirm`, the member itself, the driver). The fields are read off the SDK's member input types, so a
field a new SDK adds is checked too (at `DEFAULT_LIMIT` until it gets a row; tests/unit/test_issue16_limits.py
fails until it does). docs/limits.md lists every limit and the reason for it.

An input over a limit is refused with an error naming the field, its length, the limit and what to do instead;
nothing is cut. Every field is either an identifier (a URL, a ref, a tab id, a path, a key name), which cut names
something else, or text Claude wants entered or run exactly (`type`, `form_input`'s value, a script), which cut
would do something Claude did not ask for; a `find` query at its limit is far past any useful description of an
element, and an error teaches a shorter one where a cut would search for half a sentence.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping

import attrs
import pydantic
from anthropic.types.beta import BetaBrowserMemberInput, BetaBrowserMemberName, BetaResponseBrowserToolUseBlock

from .errors import ActionError

__all__ = [
    "DEFAULT_LIMIT",
    "ENTRY_LIMITS",
    "FIELD_LIMITS",
    "Field",
    "Limit",
    "check_input",
    "input_fields",
    "limit_for",
]


@attrs.frozen
class Limit:
    """The most a field may hold (characters for a string, entries for a list), and the hint an error gives."""

    most: int
    advice: str


DEFAULT_LIMIT = Limit(1_000, "Send a shorter value.")
"""For a string field the SDK adds before this table has a row for it."""

FIELD_LIMITS: Mapping[str, Limit] = {
    # identifiers
    "url": Limit(8_192, "Use the address without its tracking parameters, or open the site and follow its links."),
    "tab_id": Limit(32, "Tab ids look like tab-3: call list_tabs to see the open tabs."),
    "ref": Limit(32, "Refs look like ref_12: use one from read_page or find."),
    "type": Limit(16, 'A target\'s type is "ref" or "coordinate".'),
    "filter": Limit(16, 'filter is "all" or "interactive".'),
    "scroll_direction": Limit(16, "scroll_direction is up, down, left or right."),
    "modifiers": Limit(64, "Modifiers are key names joined by +, such as ctrl+shift."),
    "paths[]": Limit(4_096, "A file path is at most 4,096 characters long (PATH_MAX on Linux)."),
    "document_ids[]": Limit(256, "Use the document id the Files API gave, such as file_011CNha8iCJcU1wXNR6q4V8w."),
    # what Claude describes, enters or runs
    "query": Limit(1_000, 'Describe the element in a few words, such as "search field" or "add to cart button".'),
    "value": Limit(20_000, "Set a shorter value, or type a long text into the field with type, in parts."),
    "type.text": Limit(20_000, "Type it in parts, one call each."),
    "key.text": Limit(10_000, "Send the keys in several calls."),
    "hold_key.text": Limit(100, "hold_key takes one key or one +-joined chord, such as shift or ctrl+a."),
    "javascript_exec.text": Limit(
        100_000, "Run a shorter script, in several calls if need be: the page keeps its state between them."
    ),
}
"""Characters per string field, by the field's name (`paths[]`: each entry of `paths`), or by member and name
where members differ (`type.text`)."""

ENTRY_LIMITS: Mapping[str, Limit] = {
    "paths": Limit(100, "Upload at most 100 files per call."),
    "document_ids": Limit(100, "Upload at most 100 documents per call."),
    "region": Limit(16, "region is four integers: [x0, y0, x1, y1]."),
}
"""Entries per list field, by the field's name."""


@attrs.frozen
class Field:
    """One string or list field of a member's input, by its path in the raw input: `("target", "ref")`; a list's
    entries are its path with `[]` after the list's name, `("paths[]",)`."""

    path: tuple[str, ...]
    is_list: bool = False

    @property
    def name(self) -> str:
        return self.path[-1]

    def values(self, raw: Mapping[str, object]) -> Iterator[tuple[str, object]]:
        """Each value the raw input holds at this path, with the name an error calls it by."""
        yield from _values(raw, self.path, "")


def _values(raw: object, path: tuple[str, ...], where: str) -> Iterator[tuple[str, object]]:
    if not isinstance(raw, Mapping) or not path:
        return
    head, rest = path[0], path[1:]
    if head.endswith("[]"):
        entries = raw.get(head[:-2])
        if not isinstance(entries, list):
            return
        for index, entry in enumerate(entries):
            if rest:
                yield from _values(entry, rest, f"{where}{head[:-2]}[{index}].")
            else:
                yield f"{where}{head[:-2]}[{index}]", entry
        return
    if head not in raw:
        return
    if rest:
        yield from _values(raw[head], rest, f"{where}{head}.")
    else:
        yield f"{where}{head}", raw[head]


def _fields_of(annotation: object, prefix: tuple[str, ...]) -> Iterator[Field]:
    """The string and list fields a value of `annotation` may hold, at `prefix`."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            yield from _fields_of(member, prefix)
    elif origin is typing.Literal:
        if any(isinstance(value, str) for value in typing.get_args(annotation)):
            yield Field(prefix)
    elif origin is list:
        yield Field(prefix, is_list=True)
        (entry,) = typing.get_args(annotation) or (object,)
        yield from _fields_of(entry, (*prefix[:-1], f"{prefix[-1]}[]"))
    elif annotation is str:
        yield Field(prefix)
    elif isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        for name, info in annotation.model_fields.items():
            yield from _fields_of(info.annotation, (*prefix, info.alias or name))


def input_fields(model: type[BetaBrowserMemberInput] | type[pydantic.BaseModel]) -> tuple[Field, ...]:
    """Every string and list field of a member's input model, nested ones included, by their wire names."""
    return tuple(dict.fromkeys(_fields_of(model, ())))


def _member_fields() -> dict[str, tuple[Field, ...]]:
    """From the public `tool_use` union: one variant per member, each with its `name` and its `input` model."""
    (variants, *_) = typing.get_args(BetaResponseBrowserToolUseBlock)
    fields: dict[str, tuple[Field, ...]] = {}
    for variant in typing.get_args(variants):
        (name,) = typing.get_args(variant.model_fields["name"].annotation)
        model = variant.model_fields["input"].annotation
        fields[name] = input_fields(model) if isinstance(model, type) else ()
    return fields


MEMBER_FIELDS: Mapping[str, tuple[Field, ...]] = _member_fields()
"""Each member's string and list fields, from the SDK's input types."""


def limit_for(member: str, field: Field) -> Limit:
    """The limit of `field` of `member`'s input (entries for a list, characters for a string)."""
    if field.is_list:
        return ENTRY_LIMITS.get(field.name, DEFAULT_LIMIT)
    return FIELD_LIMITS.get(f"{member}.{field.name}") or FIELD_LIMITS.get(field.name) or DEFAULT_LIMIT


def check_input(member: BetaBrowserMemberName | str, raw: Mapping[str, object]) -> None:
    """Raise `ActionError` for the first field of `raw` (a member's input, before parsing) over its limit. A value
    of the wrong type is left to the SDK's parsing, which reports it."""
    for field in MEMBER_FIELDS.get(member, ()):
        limit = limit_for(member, field)
        for where, value in field.values(raw):
            if field.is_list and isinstance(value, list) and len(value) > limit.most:
                raise ActionError(
                    f"{where} has {len(value):,} entries; {member} takes at most {limit.most:,}. {limit.advice}"
                )
            if not field.is_list and isinstance(value, str) and len(value) > limit.most:
                raise ActionError(
                    f"{where} is {len(value):,} characters long; {member} takes at most {limit.most:,}. {limit.advice}"
                )
