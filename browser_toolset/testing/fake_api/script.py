"""The script format: the assistant turns the fake API plays, checked when loaded so that a mistake in a script
fails where the script is read, naming the turn and block, rather than as a strange reply mid-conversation."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, get_args

import attrs
from anthropic.types.beta import BetaBrowserMemberName

MEMBERS: Final = frozenset(get_args(BetaBrowserMemberName))

END_OF_SCRIPT: Final = "(The fake API's script has no more turns.)"
"""The text of every reply past the end of the script."""

FORMAT_HELP: Final = """\
script format: a JSON list of assistant turns, played in order. A turn is a list of content blocks
({"type": "text", "text": ...} or {"type": "tool_use", "toolset_name": "browser", "name": MEMBER, "input": {...}};
leave toolset_name out for a custom tool), or {"content": [blocks], "stop_reason": ...}. tool_use ids are
generated when left out; stop_reason defaults to tool_use when the turn calls a tool, else end_turn. A request
gets the turn whose index is the number of assistant messages in its conversation; past the end, end_turn.

  [[{"type": "tool_use", "toolset_name": "browser", "name": "navigate", "input": {"url": "https://shop.test/"}}],
   [{"type": "text", "text": "Done."}]]
"""
"""The format in a few lines, for `browser-toolset fake-api --help`."""


class ScriptError(ValueError):
    """A script that is not a list of turns the fake API can play; the message says where."""


@attrs.frozen
class ScriptTurn:
    """One scripted assistant turn: its content blocks (as the API sends them, ids filled in when served) and
    its `stop_reason`."""

    content: tuple[Mapping[str, Any], ...]
    stop_reason: str

    @property
    def calls_browser(self) -> bool:
        return any(block.get("type") == "tool_use" and block.get("toolset_name") == "browser" for block in self.content)


def served_content(scripted: ScriptTurn | None, turn: int) -> list[dict[str, Any]]:
    """The content of the reply that plays `scripted` as turn number `turn` (the end-of-script text when None):
    every `tool_use` gets an `id`, stable for the turn so that a replayed history gets the same ids, and an
    `input`."""
    if scripted is None:
        return [{"type": "text", "text": END_OF_SCRIPT}]
    content: list[dict[str, Any]] = []
    for index, block in enumerate(scripted.content):
        served = copy.deepcopy(dict(block))
        if served["type"] == "tool_use":
            served.setdefault("id", f"toolu_fake_{turn:03d}_{index:02d}")
            served.setdefault("input", {})
        content.append(served)
    return content


def _turn_from(raw: object, where: str) -> ScriptTurn:
    if isinstance(raw, ScriptTurn):
        return raw
    stop_reason: object = None
    if isinstance(raw, Mapping):
        unknown = sorted(set(raw) - {"content", "stop_reason"})
        if unknown:
            raise ScriptError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
        stop_reason = raw.get("stop_reason")
        raw = raw.get("content")
    if not isinstance(raw, list | tuple) or not raw:
        raise ScriptError(f"{where}: a turn is a non-empty list of content blocks, or an object with 'content'")
    blocks: list[Mapping[str, Any]] = []
    for index, block in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(block, Mapping):
            raise ScriptError(f"{at}: a content block must be an object")
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise ScriptError(f"{at}: a text block needs a string 'text'")
        elif kind == "tool_use":
            if not isinstance(block.get("name"), str) or not block["name"]:
                raise ScriptError(f"{at}: a tool_use block needs a 'name'")
            if not isinstance(block.get("input", {}), Mapping):
                raise ScriptError(f"{at}: 'input' must be an object")
            family = block.get("toolset_name")
            if family is not None and family != "browser":
                raise ScriptError(f"{at}: toolset_name must be 'browser' (or absent for a custom tool)")
            if family == "browser" and block["name"] not in MEMBERS:
                raise ScriptError(f"{at}: {block['name']!r} is not a browser member")
        else:
            raise ScriptError(f"{at}: type must be 'text' or 'tool_use', not {kind!r}")
        blocks.append(copy.deepcopy(dict(block)))
    if stop_reason is None:
        stop_reason = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
    if not isinstance(stop_reason, str):
        raise ScriptError(f"{where}: stop_reason must be a string")
    return ScriptTurn(content=tuple(blocks), stop_reason=stop_reason)


def load_script(source: str | Path | Sequence[object]) -> tuple[ScriptTurn, ...]:
    """A script from a JSON file, or from a list of turns: parsed JSON turns, `ScriptTurn`s, or a mix."""
    where = "script"
    if isinstance(source, str | Path):
        where = str(source)
        try:
            raw: object = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ScriptError(f"{where}: {exc}") from exc
    else:
        raw = source
    if not isinstance(raw, list | tuple):
        raise ScriptError(f"{where}: a script is a JSON list of turns")
    return tuple(_turn_from(turn, f"{where}[{number}]") for number, turn in enumerate(raw))
