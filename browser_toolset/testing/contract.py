"""An independent checker for what the API rejects with `invalid_request_error` (docs/contract.md §5 and §7).

It is public so that anyone testing an agent can hold every `tool_result` the agent sends to the same rules we hold
ours to. It imports nothing else of `browser_toolset` (only Pillow, to measure images), so a bug in the executor
cannot hide itself here by sharing code with its own checker. Every check works on plain dicts exactly as they go on
the wire. The pytest plugin (`browser_toolset.testing.plugin`) offers it as the `browser_contract` fixture.

- `validate_tool_result(tool_use, result)`: one `tool_result` against the `tool_use` it answers.
- `validate_user_message(assistant_content, user_message)`: a whole answer to one assistant turn (every browser call
  answered once and in order, the batch rule), plus each result as above.
- `SessionValidator`: the same, fed a session result by result (or turn by turn), additionally holding the executor
  to its promise never to reuse a `tab_id`.

Each returns a list of human-readable violations (empty means valid); the `assert_*` twins raise `AssertionError`
listing them all.

Choices where the contract, the public docs and the SDK's wire types leave room (see the tables below for where each
rule comes from; a bare §N is a section of docs/contract.md):

- "Control characters" are Unicode's Cc category: C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F), plus
  U+2028 / U+2029. Bidi formatting characters (which the SDK also folds away) are not rejected by the API and are
  not flagged. An unpaired surrogate is flagged too: it cannot be encoded as UTF-8, so the request cannot be sent.
- "At most 4,096 characters" counts code points (`len()` on a Python `str`), as the SDK's own `FIELD_MAX` does.
- Fields the wire types declare `Optional[...]` (`state_changes`, `path`, `size_bytes`, `error`, `cache_control`,
  `toolset_name`) may be `null`, which counts as absent; `active` is a plain `bool` and may be `true` or `false`,
  never `null`. `browser_state` may carry `cache_control` (declared on `BetaBrowserStateBlockParam`).
- A `new_tab` block needs exactly one `tab_opened` in all, naming the active tab (the SDK's reading: it holds back
  any other `tab_opened` "rather than making this one invalid").
- The batch rule's skipped result may be the plain string (what the SDK's runner and the public docs use) or a list of
  exactly one text block with that text.
- Image sources other than `base64` cannot be measured, so they are flagged: our executor only sends base64.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import warnings
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from PIL import Image

__all__ = [
    "DEFAULT_IMAGE_LIMIT",
    "NOT_EXECUTED",
    "SessionValidator",
    "assert_valid_result",
    "assert_valid_user_message",
    "tab_id_problems",
    "validate_tool_result",
    "validate_user_message",
]

# --- Behaviour tables ------------------------------------------------------------------------------------------------

TOOLSET_NAME: Final = "browser"
"""§1.3: a member call's `tool_use.toolset_name`, echoed on its `tool_result`."""

RESULT_FIELDS: Final = frozenset({"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"})
"""The fields `BetaToolResultBlockParam` declares; any other key is an undeclared field."""

MEMBER_BLOCK_TYPES: Final = frozenset({"text", "image", "browser_state"})
"""§4 / §7: the only content block types a member result may contain."""

BLOCK_FIELDS: Final[Mapping[str, frozenset[str]]] = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),  # BetaTextBlockParam
    "image": frozenset({"type", "source", "cache_control", "transformations"}),  # BetaImageBlockParam
    "browser_state": frozenset({"type", "tabs", "state_changes", "cache_control"}),  # §5 + BetaBrowserStateBlockParam
}
"""Declared fields of each block type a member result may hold."""

BASE64_SOURCE_FIELDS: Final = frozenset({"type", "media_type", "data"})
"""BetaBase64ImageSourceParam."""

TAB_MANAGEMENT_MEMBERS: Final = frozenset({"new_tab", "list_tabs", "switch_tab", "close_tab"})
"""§4 / §5 "Tab-management results": a success is exactly one `browser_state` block."""

TAB_ID_INPUT_MEMBERS: Final = frozenset({"switch_tab", "close_tab"})
"""§5: members whose `input.tab_id` the API renders, so it is held to the `tab_id` limits."""

NOT_EXECUTED: Final = "Not executed: an earlier action in this turn failed."
"""§2 / §7: the exact text of every browser result after the first failure in a turn."""

FIELD_MAX: Final = 4096
"""§5: the longest `tab_id`, `title`, `url`, `download_id`, `path` or `error`."""

MAX_TABS: Final = 100
"""§5: the most entries `tabs` may hold."""

MAX_STATE_CHANGES: Final = 200
"""docs/contract.md §5 (the public docs' "200 state changes"): the most entries `state_changes` may hold."""

FORBIDDEN_CHARS: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""§5: control characters (Unicode Cc: C0, DEL, C1; newlines included) and the line / paragraph separators."""

LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""Not UTF-8 encodable: a string holding one cannot be sent at all."""

FieldKind = Literal["id", "text", "size", "flag"]
"""`id`: a non-empty limited string; `text`: a limited string, may be empty; `size`: a non-negative integer;
`flag`: a boolean."""


@dataclass(frozen=True)
class FieldRule:
    kind: FieldKind
    required: bool
    nullable: bool = False
    """Declared `Optional[...]` on the wire type: `null` is accepted and counts as absent."""


TAB_FIELDS: Final[Mapping[str, FieldRule]] = {
    # §5 and BetaBrowserStateTabEntryParam: title and url may be empty ("a blank tab legitimately has both empty")
    "tab_id": FieldRule("id", required=True),
    "title": FieldRule("text", required=True),
    "url": FieldRule("text", required=True),
    "active": FieldRule("flag", required=False),
}

STATE_CHANGE_FIELDS: Final[Mapping[str, Mapping[str, FieldRule]]] = {
    # §5 "Downloads" table and the BetaBrowserStateChange*Param wire types; `type` itself is checked separately
    "tab_opened": {"tab_id": FieldRule("id", required=True)},
    "download_started": {
        "download_id": FieldRule("id", required=True),
        "url": FieldRule("text", required=True),
    },
    "download_completed": {
        "download_id": FieldRule("id", required=True),
        "url": FieldRule("text", required=True),
        "path": FieldRule("text", required=False, nullable=True),
        "size_bytes": FieldRule("size", required=False, nullable=True),
    },
    "download_failed": {
        "download_id": FieldRule("id", required=True),
        "url": FieldRule("text", required=True),
        "error": FieldRule("text", required=False, nullable=True),
    },
}

MEDIA_TYPES: Final = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The media types a base64 image source may declare."""

PIL_FORMATS: Final[Mapping[str, str]] = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
}

DEFAULT_IMAGE_LIMIT: Final = (2000, 2000)
"""§3: the per-image limit (width, height) once a request carries more than 20 images, which our executor always
keeps to. Pass `(8000, 8000)` to check against the looser single-image limit instead."""


# --- Small helpers ---------------------------------------------------------------------------------------------------


def _is_array(value: object) -> bool:
    """A JSON array as Python holds it: a list or tuple (a string is not one)."""
    return isinstance(value, (list, tuple))


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _string_problems(value: object, where: str, *, non_empty: bool) -> list[str]:
    """What is wrong with `value` as a §5-limited string field (`tab_id`, `title`, `url`, `download_id`, ...)."""
    if not isinstance(value, str):
        return [f"{where}: must be a string, got {type(value).__name__}"]

    problems: list[str] = []
    if non_empty and not value:
        problems.append(f"{where}: must be non-empty")
    if len(value) > FIELD_MAX:
        problems.append(f"{where}: is {len(value)} characters long; the limit is {FIELD_MAX}")
    bad = [(m.start(), m.group()) for m in FORBIDDEN_CHARS.finditer(value)]
    if bad:
        shown = ", ".join(f"U+{ord(char):04X} at {index}" for index, char in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        problems.append(f"{where}: contains a control or line/paragraph separator character ({shown}{more})")
    if LONE_SURROGATE.search(value):
        problems.append(f"{where}: contains an unpaired surrogate (not encodable as UTF-8)")
    return problems


def tab_id_problems(value: object, where: str = "tab_id") -> list[str]:
    """What is wrong with `value` as a `tab_id` (§5: non-empty, at most 4,096 characters, no control or
    separator characters). The same limits apply to `input.tab_id` of `switch_tab` / `close_tab`."""
    return _string_problems(value, where, non_empty=True)


def _field_problems(entry: Mapping[str, object], rules: Mapping[str, FieldRule], where: str) -> list[str]:
    problems: list[str] = []
    for name, rule in rules.items():
        at = f"{where}.{name}"
        if name not in entry:
            if rule.required:
                problems.append(f"{at}: required field is missing")
            continue
        value = entry[name]
        if value is None and rule.nullable:
            continue
        if rule.kind == "id":
            problems += _string_problems(value, at, non_empty=True)
        elif rule.kind == "text":
            problems += _string_problems(value, at, non_empty=False)
        elif rule.kind == "size":
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(f"{at}: must be an integer, got {_describe(value)}")
            elif value < 0:
                problems.append(f"{at}: must be non-negative, got {value}")
        elif not isinstance(value, bool):
            problems.append(f"{at}: must be true or false, got {_describe(value)}")
    return problems


def _undeclared(entry: Mapping[str, object], declared: Collection[str], where: str) -> list[str]:
    extra = sorted(str(key) for key in entry if key not in declared)
    return [f"{where}: undeclared field(s) {', '.join(map(repr, extra))}"] if extra else []


def _cache_control_problems(value: object, where: str) -> list[str]:
    """BetaCacheControlEphemeralParam, when present and not null."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [f"{where}.cache_control: must be an object"]
    problems = _undeclared(value, {"type", "ttl"}, f"{where}.cache_control")
    if value.get("type") != "ephemeral":
        problems.append(f"{where}.cache_control.type: must be 'ephemeral'")
    if "ttl" in value and value["ttl"] not in ("5m", "1h"):
        problems.append(f"{where}.cache_control.ttl: must be '5m' or '1h'")
    return problems


def _blocks(content: object) -> list[tuple[int, object]]:
    """The content as `(index, block)` pairs: a string is one text block (index -1), a missing or null content
    none."""
    if isinstance(content, str):
        return [(-1, {"type": "text", "text": content})]
    if _is_array(content):
        assert isinstance(content, (list, tuple))
        return list(enumerate(content))
    return []


def _block_type(block: object) -> object:
    return block.get("type") if isinstance(block, Mapping) else None


def _state_blocks(result: Mapping[str, object]) -> list[Mapping[str, object]]:
    return [
        block
        for _, block in _blocks(result.get("content"))
        if isinstance(block, Mapping) and block.get("type") == "browser_state"
    ]


def _is_error(result: Mapping[str, object]) -> bool:
    return result.get("is_error") is True


def _is_not_executed(result: Mapping[str, object]) -> bool:
    """Whether `result` is the batch rule's skipped answer: error, and exactly the text `NOT_EXECUTED`."""
    if not _is_error(result):
        return False
    content = result.get("content")
    if content == NOT_EXECUTED:
        return True
    if not _is_array(content):
        return False
    assert isinstance(content, (list, tuple))
    if len(content) != 1 or not isinstance(content[0], Mapping):
        return False
    return content[0].get("type") == "text" and content[0].get("text") == NOT_EXECUTED


def _sniff(raw: bytes) -> str | None:
    """The media type the bytes actually are, by their magic number."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(raw) >= 12 and raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def _opened(raw: bytes) -> Image.Image:
    """`raw` as an image, its header read and no pixels decoded yet. Pillow's decompression-bomb warning is
    silenced, since the size limits judge the size the image declares; past Pillow's own ceiling it still raises
    `DecompressionBombError`. The fake Messages API measures images with it too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return Image.open(io.BytesIO(raw))


# --- Block checks ----------------------------------------------------------------------------------------------------


def _image_problems(block: Mapping[str, object], where: str, limit: tuple[int, int]) -> list[str]:
    """§3 / §7: an image the API can read, of the type it claims, within `limit` (width, height)."""
    problems = _undeclared(block, BLOCK_FIELDS["image"], where)
    problems += _cache_control_problems(block.get("cache_control"), where)
    source = block.get("source")
    if not isinstance(source, Mapping):
        return [*problems, f"{where}.source: must be an object"]
    if source.get("type") != "base64":
        return [
            *problems,
            f"{where}.source.type: {_describe(source.get('type'))} cannot be checked against the image size limit; "
            "the executor sends base64 images only",
        ]
    problems += _undeclared(source, BASE64_SOURCE_FIELDS, f"{where}.source")

    declared = source.get("media_type")
    if declared not in MEDIA_TYPES:
        problems.append(f"{where}.source.media_type: {_describe(declared)} is not one of {sorted(MEDIA_TYPES)}")

    data = source.get("data")
    if not isinstance(data, str):
        return [*problems, f"{where}.source.data: must be a base64 string"]
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return [*problems, f"{where}.source.data: is not valid base64"]

    actual = _sniff(raw)
    if actual is None:
        return [*problems, f"{where}.source.data: is not a PNG, JPEG, GIF or WebP image"]
    if declared in MEDIA_TYPES and actual != declared:
        problems.append(f"{where}.source.media_type: says {declared} but the data is {actual}")

    max_width, max_height = limit
    try:
        with _opened(raw) as image:
            width, height = image.size
            if width > max_width or height > max_height:
                return [*problems, f"{where}: image is {width}x{height} px; the limit is {max_width}x{max_height}"]
            image.load()  # a truncated or corrupt image fails here
    except Image.DecompressionBombError:
        return [*problems, f"{where}: image is too large to open; the limit is {max_width}x{max_height}"]
    except Exception as exc:
        return [*problems, f"{where}.source.data: is not a decodable image ({type(exc).__name__}: {exc})"]
    return problems


def _tab_problems(tabs: object, where: str) -> tuple[list[str], list[Mapping[str, object]]]:
    """§5 `tabs`: the problems, and the entries that are objects (for the cross-checks)."""
    if not _is_array(tabs):
        return [f"{where}.tabs: must be an array"], []
    assert isinstance(tabs, (list, tuple))

    problems: list[str] = []
    if len(tabs) > MAX_TABS:
        problems.append(f"{where}.tabs: lists {len(tabs)} tabs; at most {MAX_TABS} are allowed")

    entries: list[Mapping[str, object]] = []
    for index, tab in enumerate(tabs):
        at = f"{where}.tabs[{index}]"
        if not isinstance(tab, Mapping):
            problems.append(f"{at}: must be an object")
            continue
        entries.append(tab)
        problems += _undeclared(tab, TAB_FIELDS, at)
        problems += _field_problems(tab, TAB_FIELDS, at)

    ids = Counter(tab.get("tab_id") for tab in entries if isinstance(tab.get("tab_id"), str))
    for tab_id, count in ids.items():
        if count > 1:
            problems.append(f"{where}.tabs: duplicate tab_id {tab_id!r} ({count} entries)")

    active = [tab for tab in entries if tab.get("active") is True]
    if tabs and len(active) != 1:
        problems.append(f"{where}.tabs: a non-empty inventory needs exactly one active tab, found {len(active)}")
    return problems, entries


def _change_problems(
    changes: object, where: str, tab_ids: Collection[object], listed_before: Collection[str]
) -> list[str]:
    """§5 `state_changes` (absent or null already excluded)."""
    at = f"{where}.state_changes"
    if not _is_array(changes):
        return [f"{at}: must be an array (omit the field when there is nothing to report)"]
    assert isinstance(changes, (list, tuple))
    if not changes:
        return [f"{at}: is empty; omit the field when there is nothing to report"]

    problems: list[str] = []
    if len(changes) > MAX_STATE_CHANGES:
        problems.append(f"{at}: holds {len(changes)} entries; at most {MAX_STATE_CHANGES} are allowed")

    downloads: Counter[object] = Counter()
    opened: Counter[object] = Counter()
    for index, change in enumerate(changes):
        entry_at = f"{at}[{index}]"
        if not isinstance(change, Mapping):
            problems.append(f"{entry_at}: must be an object")
            continue
        kind = change.get("type")
        if not isinstance(kind, str) or kind not in STATE_CHANGE_FIELDS:
            problems.append(f"{entry_at}.type: {_describe(kind)} is not a declared state change type")
            continue
        rules = STATE_CHANGE_FIELDS[kind]
        problems += _undeclared(change, {"type", *rules}, f"{entry_at} ({kind})")
        problems += _field_problems(change, rules, entry_at)

        if kind == "tab_opened":
            tab_id = change.get("tab_id")
            opened[tab_id] += 1
            if isinstance(tab_id, str) and tab_id not in tab_ids:
                problems.append(f"{entry_at}: tab_opened names tab_id {tab_id!r}, which is not in tabs")
            if isinstance(tab_id, str) and tab_id in listed_before:
                problems.append(
                    f"{entry_at}: tab_opened names tab_id {tab_id!r}, which an earlier result still lists as open "
                    "(a tab_id reused while listed, or a late report of an old tab)"
                )
        elif isinstance(change.get("download_id"), str):
            downloads[change["download_id"]] += 1

    for download_id, count in downloads.items():
        if count > 1:
            problems.append(f"{at}: {count} changes for download_id {download_id!r}; at most one per block")
    for tab_id, count in opened.items():
        if count > 1 and isinstance(tab_id, str):
            problems.append(f"{at}: {count} tab_opened entries for tab_id {tab_id!r}; report each opened tab once")
    return problems


def _browser_state_problems(block: Mapping[str, object], where: str, listed_before: Collection[str]) -> list[str]:
    """§5: one `browser_state` block on its own."""
    problems = _undeclared(block, BLOCK_FIELDS["browser_state"], where)
    problems += _cache_control_problems(block.get("cache_control"), where)
    if "tabs" not in block:
        problems.append(f"{where}.tabs: required field is missing")
        entries: list[Mapping[str, object]] = []
    else:
        tab_problems, entries = _tab_problems(block["tabs"], where)
        problems += tab_problems
    changes = block.get("state_changes")
    if changes is not None:
        tab_ids = {tab.get("tab_id") for tab in entries}
        problems += _change_problems(changes, where, tab_ids, listed_before)
    return problems


def _new_tab_problems(block: Mapping[str, object], where: str) -> list[str]:
    """§5: a `new_tab` block carries exactly one `tab_opened`, naming the entry marked active."""
    changes = block.get("state_changes")
    changes = changes if isinstance(changes, (list, tuple)) else []
    opened = [c.get("tab_id") for c in changes if isinstance(c, Mapping) and c.get("type") == "tab_opened"]
    tabs = block.get("tabs")
    tabs = tabs if isinstance(tabs, (list, tuple)) else []
    active = [t.get("tab_id") for t in tabs if isinstance(t, Mapping) and t.get("active") is True]

    if len(opened) != 1:
        return [f"{where}: a new_tab result needs exactly one tab_opened, found {len(opened)}"]
    if len(active) != 1:
        return [f"{where}: a new_tab result's tab_opened must match the active tab, but {len(active)} tabs are active"]
    if opened[0] != active[0]:
        return [f"{where}: new_tab's tab_opened names {opened[0]!r} but the active tab is {active[0]!r}"]
    return []


# --- Public checks ---------------------------------------------------------------------------------------------------


def validate_tool_result(
    tool_use: Mapping[str, object],
    result: Mapping[str, object],
    *,
    listed_before: Collection[str] = (),
    image_limit: tuple[int, int] = DEFAULT_IMAGE_LIMIT,
) -> list[str]:
    """Every way `result` breaks §5 / §7 as the answer to `tool_use`: the violations, empty when it is valid.

    `listed_before` is the tab ids the latest earlier result listed as open: a `tab_opened` naming one of them is
    a reuse. `image_limit` is the largest (width, height) an image may have."""
    use_id = tool_use.get("id") if isinstance(tool_use, Mapping) else None
    where = f"tool_result[{use_id!r}]"
    if not isinstance(tool_use, Mapping) or not isinstance(use_id, str):
        return [f"{where}: the tool_use it answers must be an object with a string id"]
    if not isinstance(result, Mapping):
        return [f"{where}: must be an object"]

    problems = _undeclared(result, RESULT_FIELDS, where)
    if result.get("type") != "tool_result":
        problems.append(f"{where}.type: must be 'tool_result', got {_describe(result.get('type'))}")
    if result.get("tool_use_id") != use_id:
        problems.append(f"{where}.tool_use_id: {_describe(result.get('tool_use_id'))} does not match {use_id!r}")
    if "is_error" in result and not isinstance(result["is_error"], bool):
        problems.append(f"{where}.is_error: must be true or false, got {_describe(result['is_error'])}")
    problems += _cache_control_problems(result.get("cache_control"), where)

    family = tool_use.get("toolset_name")
    echoed = result.get("toolset_name")
    if family is None and echoed is not None:
        problems.append(f"{where}.toolset_name: {echoed!r} on a result answering a non-member tool_use")
    elif family is not None and echoed != family:
        problems.append(f"{where}.toolset_name: must echo {family!r}, got {_describe(echoed)}")

    content = result.get("content")
    if content is not None and not isinstance(content, str) and not _is_array(content):
        problems.append(f"{where}.content: must be a string or an array of blocks")
    blocks = _blocks(content)

    if family != TOOLSET_NAME:
        # Not ours to judge beyond this: a browser_state block answers only a browser member call.
        for index, block in blocks:
            if _block_type(block) == "browser_state":
                problems.append(
                    f"{where}.content[{index}]: browser_state on a result that does not answer a browser member call"
                )
        return problems

    name = tool_use.get("name")
    is_error = _is_error(result)
    states = [(index, block) for index, block in blocks if _block_type(block) == "browser_state"]

    for index, block in blocks:
        at = f"{where}.content[{index}]"
        if not isinstance(block, Mapping):
            problems.append(f"{at}: must be an object")
            continue
        kind = block.get("type")
        if kind not in MEMBER_BLOCK_TYPES:
            problems.append(
                f"{at}.type: {_describe(kind)} is not allowed in a member result (text, image, browser_state)"
            )
        elif kind == "text":
            problems += _undeclared(block, BLOCK_FIELDS["text"], at)
            problems += _cache_control_problems(block.get("cache_control"), at)
            text = block.get("text")
            if not isinstance(text, str):
                problems.append(f"{at}.text: must be a string")
            elif not text and index >= 0:
                problems.append(f"{at}.text: a text block must be non-empty")
        elif kind == "image":
            if is_error:
                problems.append(f"{at}: an is_error result may hold text only, not an image")
            problems += _image_problems(block, at, image_limit)
        else:
            problems += _browser_state_problems(block, at, listed_before)

    if len(states) > 1:
        problems.append(f"{where}.content: {len(states)} browser_state blocks; at most one per result")

    if is_error:
        if not blocks or content == "":
            problems.append(f"{where}.content: an is_error result needs non-empty text content")
        for index, _ in states:
            problems.append(f"{where}.content[{index}]: browser_state on an is_error result")
        return problems

    if name in TAB_MANAGEMENT_MEMBERS:
        if not (_is_array(content) and len(blocks) == 1 and states):
            shape = "a string" if isinstance(content, str) else f"{len(blocks)} block(s)"
            problems.append(
                f"{where}.content: a successful {name} result must be exactly one browser_state block, got {shape}"
            )
        if name == "new_tab" and len(states) == 1 and isinstance(states[0][1], Mapping):
            problems += _new_tab_problems(states[0][1], f"{where}.content[{states[0][0]}]")

    if name in TAB_ID_INPUT_MEMBERS:
        given = tool_use.get("input")
        tab_id = given.get("tab_id") if isinstance(given, Mapping) else None
        bad = tab_id_problems(tab_id, f"input.tab_id {_describe(tab_id)}")
        if bad:
            problems.append(
                f"{where}: a successful {name} result answers a call whose {'; '.join(bad)} "
                "(answer such a call with an error result)"
            )
    return problems


def _raise_if(problems: Sequence[str]) -> None:
    if problems:
        listing = "\n".join(f"- {problem}" for problem in problems)
        raise AssertionError(f"{len(problems)} contract violation(s):\n{listing}")


def assert_valid_result(
    tool_use: Mapping[str, object],
    result: Mapping[str, object],
    *,
    listed_before: Collection[str] = (),
    image_limit: tuple[int, int] = DEFAULT_IMAGE_LIMIT,
) -> None:
    """`validate_tool_result`, raising `AssertionError` with every violation."""
    _raise_if(validate_tool_result(tool_use, result, listed_before=listed_before, image_limit=image_limit))


def _tool_uses(assistant_content: Iterable[object]) -> list[Mapping[str, object]]:
    return [b for b in assistant_content if isinstance(b, Mapping) and b.get("type") == "tool_use"]


def _tool_results(user_message: Mapping[str, object]) -> list[Mapping[str, object]]:
    content = user_message.get("content")
    if not _is_array(content):
        return []
    assert isinstance(content, (list, tuple))
    return [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"]


def _answered_pairs(
    assistant_content: Sequence[Mapping[str, object]], user_message: Mapping[str, object]
) -> list[tuple[Mapping[str, object], Mapping[str, object]]]:
    """Each tool_result that answers a tool_use of the turn, with that tool_use, in the user message's order."""
    by_id = {use.get("id"): use for use in _tool_uses(assistant_content)}
    return [(by_id[r["tool_use_id"]], r) for r in _tool_results(user_message) if r.get("tool_use_id") in by_id]


def _message_problems(
    assistant_content: Sequence[Mapping[str, object]], user_message: Mapping[str, object]
) -> list[str]:
    """The turn-level rules: role, every browser call answered once and in order, the batch rule."""
    if not isinstance(user_message, Mapping):
        return ["user message: must be an object"]
    problems: list[str] = []
    if user_message.get("role") != "user":
        problems.append(f"user message: role must be 'user', got {_describe(user_message.get('role'))}")

    content = user_message.get("content")
    if _is_array(content):
        assert isinstance(content, (list, tuple))
        first_other = next((i for i, b in enumerate(content) if _block_type(b) != "tool_result"), None)
        if first_other is not None and any(_block_type(b) == "tool_result" for b in content[first_other:]):
            problems.append("user message: tool_result blocks must come before any other content")

    uses = _tool_uses(assistant_content)
    known = {use.get("id") for use in uses}
    results = _tool_results(user_message)
    for result in results:
        if result.get("tool_use_id") not in known:
            problems.append(f"tool_result[{result.get('tool_use_id')!r}]: answers no tool_use of the assistant turn")

    answers: dict[object, list[Mapping[str, object]]] = {}
    for result in results:
        answers.setdefault(result.get("tool_use_id"), []).append(result)

    browser = [use for use in uses if use.get("toolset_name") == TOOLSET_NAME]
    for use in browser:
        count = len(answers.get(use.get("id"), []))
        if count == 0:
            problems.append(f"tool_use[{use.get('id')!r}] ({use.get('name')}): browser call has no tool_result")
        elif count > 1:
            problems.append(f"tool_use[{use.get('id')!r}] ({use.get('name')}): answered {count} times")

    once = {use.get("id") for use in browser if len(answers.get(use.get("id"), [])) == 1}
    expected = [use.get("id") for use in browser if use.get("id") in once]
    actual = [r.get("tool_use_id") for r in results if r.get("tool_use_id") in once]
    if actual != expected:
        problems.append(f"user message: browser tool_results are out of order: expected {expected}, got {actual}")

    failed: object = None
    for use in browser:
        found = answers.get(use.get("id"), [])
        if len(found) != 1:
            continue
        result = found[0]
        where = f"tool_result[{use.get('id')!r}] ({use.get('name')})"
        if failed is None:
            if _is_error(result):
                failed = use.get("id")
                if _is_not_executed(result):
                    problems.append(f"{where}: says {NOT_EXECUTED!r} but no earlier browser call in the turn failed")
        elif not _is_not_executed(result):
            problems.append(
                f"{where}: after {failed!r} failed, every later browser call must be answered with is_error: true "
                f"and exactly {NOT_EXECUTED!r}"
            )
    return problems


def _listed_after(tool_use: Mapping[str, object], result: Mapping[str, object]) -> set[str] | None:
    """The tab ids `result` reports open, or None when it reports no inventory (an error, a non-member result, a
    result without a block, or one with several)."""
    if tool_use.get("toolset_name") != TOOLSET_NAME or _is_error(result):
        return None
    states = _state_blocks(result)
    if len(states) != 1 or not _is_array(states[0].get("tabs")):
        return None
    tabs = states[0]["tabs"]
    assert isinstance(tabs, (list, tuple))
    return {t["tab_id"] for t in tabs if isinstance(t, Mapping) and isinstance(t.get("tab_id"), str)}


def validate_user_message(
    assistant_content: Sequence[Mapping[str, object]],
    user_message: Mapping[str, object],
    *,
    listed_before: Collection[str] = (),
    image_limit: tuple[int, int] = DEFAULT_IMAGE_LIMIT,
) -> list[str]:
    """Every way `user_message` breaks §1-§2 / §5 / §7 as the answer to the assistant turn `assistant_content`:
    the turn-level rules, then `validate_tool_result` for each result that answers a call of the turn (the tabs
    listed by one result are `listed_before` for the next)."""
    problems = _message_problems(assistant_content, user_message)
    if not isinstance(user_message, Mapping):
        return problems
    listed: Collection[str] = listed_before
    for use, result in _answered_pairs(assistant_content, user_message):
        problems += validate_tool_result(use, result, listed_before=listed, image_limit=image_limit)
        listed = _listed_after(use, result) or listed
    return problems


def assert_valid_user_message(
    assistant_content: Sequence[Mapping[str, object]],
    user_message: Mapping[str, object],
    *,
    listed_before: Collection[str] = (),
    image_limit: tuple[int, int] = DEFAULT_IMAGE_LIMIT,
) -> None:
    """`validate_user_message`, raising `AssertionError` with every violation."""
    _raise_if(
        validate_user_message(assistant_content, user_message, listed_before=listed_before, image_limit=image_limit)
    )


class SessionValidator:
    """A whole session's results, fed in order, checked one by one and against each other.

    Beyond `validate_tool_result` it tracks the tab ids the latest inventory lists as open and the ids that were
    listed once and then disappeared. A `tab_opened` for a listed id is flagged (by `validate_tool_result`), and so
    is a retired id reappearing in any later inventory: the contract only forbids reuse while listed, but our
    executor promises never to reuse an id at all. `switch_tab` / `close_tab` successes for a `tab_id` that breaks
    the `tab_id` limits are flagged by `validate_tool_result`.

    ```
    session = SessionValidator()
    for tool_use, result in pairs:
        session.feed(tool_use, result)
    session.assert_valid()
    ```
    """

    def __init__(self, *, image_limit: tuple[int, int] = DEFAULT_IMAGE_LIMIT) -> None:
        self._image_limit = image_limit
        self._listed: set[str] = set()
        self._retired: set[str] = set()
        self.violations: list[str] = []
        """Every violation found so far, in the order found."""

    @property
    def listed(self) -> frozenset[str]:
        """The tab ids the latest successful inventory lists as open."""
        return frozenset(self._listed)

    @property
    def retired(self) -> frozenset[str]:
        """Tab ids once listed as open and no longer listed: never to be seen again."""
        return frozenset(self._retired)

    def feed(self, tool_use: Mapping[str, object], result: Mapping[str, object]) -> list[str]:
        """Check the next result of the session; returns (and records) its violations."""
        problems = validate_tool_result(tool_use, result, listed_before=self._listed, image_limit=self._image_limit)
        problems += self._track(tool_use, result)
        self.violations += problems
        return problems

    def feed_turn(
        self, assistant_content: Sequence[Mapping[str, object]], user_message: Mapping[str, object]
    ) -> list[str]:
        """Check a whole answer to one assistant turn: the turn-level rules of `validate_user_message`, then each
        result that answers one of its calls, fed in order. Returns (and records) the violations."""
        problems = _message_problems(assistant_content, user_message)
        self.violations += problems
        if isinstance(user_message, Mapping):
            for use, result in _answered_pairs(assistant_content, user_message):
                problems += self.feed(use, result)
        return problems

    def _track(self, tool_use: Mapping[str, object], result: Mapping[str, object]) -> list[str]:
        now = _listed_after(tool_use, result)
        if now is None:
            return []
        where = f"tool_result[{tool_use.get('id')!r}] ({tool_use.get('name')})"
        problems = [
            f"{where}: tab_id {tab_id!r} reappears after it was no longer listed as open (tab_id reuse)"
            for tab_id in sorted(now & self._retired)
        ]
        self._retired = (self._retired | (self._listed - now)) - now
        self._listed = now
        return problems

    def assert_valid(self) -> None:
        """Raise `AssertionError` listing every violation found so far."""
        _raise_if(self.violations)
