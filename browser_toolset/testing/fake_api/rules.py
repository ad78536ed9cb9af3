"""The Messages API's rules for one request, and its token accounting, as the fake API applies them.

A broken request raises `Rejected` with the status, error type and message the API answers with. The answers to
tool-calling turns are judged by the independent checker `browser_toolset.testing.contract`, whose helpers for
reading content blocks are reused here, so that the fake API and the checker read a message the same way.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

import attrs
from PIL import Image

from ..contract import TOOLSET_NAME, _block_type, _blocks, _listed_after, _opened, _tool_uses, validate_user_message
from .script import MEMBERS

THREADS_BETA: Final = "message-threads-2026-08-12"
"""The beta a request must name to carry a `thread` field (the SDK adds it to every threaded request)."""

TOOLSET_TYPE: Final = "browser_toolset_20260801"
OPTIONAL_MEMBERS: Final = frozenset({"javascript_exec", "file_upload", "read_console", "read_network"})

STRICT_IMAGE_COUNT: Final = 20
"""Above this many images in a request, every image must fit `STRICT_IMAGE_LIMIT`."""
STRICT_IMAGE_LIMIT: Final = (2000, 2000)
IMAGE_LIMIT: Final = (8000, 8000)
MAX_IMAGES: Final = 100
"""The API's ceiling on images in one request."""

TOOLSET_TOKENS: Final = 6600
OPTIONAL_MEMBER_TOKENS: Final = 220
UNMEASURED_IMAGE_TOKENS: Final = 1600
MAX_REPORTED_PROBLEMS: Final = 12


class Rejected(Exception):
    """A request the API would refuse: the status, error type, message and any `details` of its answer."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 400,
        kind: str = "invalid_request_error",
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind
        self.details = details


def reject_if(problems: Sequence[str]) -> None:
    """Reject with every problem found, as the API lists them, up to a readable number."""
    if not problems:
        return
    shown = list(problems[:MAX_REPORTED_PROBLEMS])
    if len(problems) > MAX_REPORTED_PROBLEMS:
        shown.append(f"and {len(problems) - MAX_REPORTED_PROBLEMS} more")
    raise Rejected("; ".join(shown))


# --- The request's own fields ----------------------------------------------------------------------------------------


def check_body(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Raises what the API says about the fields every request needs; returns the request's `messages`."""
    if body.get("stream"):
        raise Rejected("stream: the fake API answers only non-streaming requests")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise Rejected("model: Field required")
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise Rejected("max_tokens: Field required (a positive integer)")
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise Rejected("messages: must be a list")
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise Rejected(f"messages.{index}: must be an object")
        if message.get("role") not in ("user", "assistant"):
            raise Rejected(f"messages.{index}.role: must be 'user' or 'assistant'")
        content = message.get("content")
        if not isinstance(content, str | list):
            raise Rejected(f"messages.{index}.content: must be a string or a list of blocks")
    return list(messages)


def thread_kind(thread: object, headers: Mapping[str, str]) -> str | None:
    """`create` or `continue` for a threaded request (None for a plain one); raises for a thread the API refuses.
    `headers` are keyed in lower case."""
    if thread is None:
        return None
    if not isinstance(thread, Mapping) or thread.get("type") not in ("create", "continue"):
        raise Rejected("thread.type: must be 'create' or 'continue'")
    betas = {beta.strip() for beta in headers.get("anthropic-beta", "").split(",")}
    if THREADS_BETA not in betas:
        raise Rejected(f"thread: requires the anthropic-beta header {THREADS_BETA!r}")
    return str(thread["type"])


def check_tools(tools: object) -> bool:
    """Raises what the API says about a bad `tools` list; returns whether it declares the browser toolset."""
    if tools is None:
        return False
    if not isinstance(tools, list):
        raise Rejected("tools: must be a list")
    toolsets = 0
    for index, tool in enumerate(tools):
        at = f"tools.{index}"
        if not isinstance(tool, Mapping):
            raise Rejected(f"{at}: must be an object")
        kind = tool.get("type")
        if isinstance(kind, str) and kind.startswith("browser_toolset"):
            if kind != TOOLSET_TYPE:
                raise Rejected(f"{at}.type: unknown browser toolset version {kind!r}; expected {TOOLSET_TYPE!r}")
            toolsets += 1
            extra = sorted(set(tool) - {"type", "configs", "cache_control", "allowed_callers"})
            if extra:
                raise Rejected(f"{at}: a browser toolset entry does not accept {', '.join(map(repr, extra))}")
            _check_configs(tool.get("configs"), f"{at}.configs")
        elif tool.get("name") == TOOLSET_NAME:
            raise Rejected(f"{at}.name: 'browser' is reserved for the browser toolset")
    if toolsets > 1:
        raise Rejected("tools: at most one browser toolset entry is allowed per request")
    return toolsets == 1


def _check_configs(configs: object, where: str) -> None:
    if configs is None:
        return
    if not isinstance(configs, Mapping):
        raise Rejected(f"{where}: must be an object")
    deferred: set[object] = set()
    enabled_any = False
    for name, config in configs.items():
        if name not in MEMBERS:
            raise Rejected(f"{where}: {name!r} is not a browser member")
        if config is None:
            enabled_any = enabled_any or name not in OPTIONAL_MEMBERS
            continue
        if not isinstance(config, Mapping):
            raise Rejected(f"{where}.{name}: must be an object")
        extra = sorted(set(config) - {"enabled", "defer_loading"})
        if extra:
            raise Rejected(f"{where}.{name}: only 'enabled' and 'defer_loading' are accepted, not {extra}")
        for flag in ("enabled", "defer_loading"):
            if flag in config and not isinstance(config[flag], bool):
                raise Rejected(f"{where}.{name}.{flag}: must be true or false")
        enabled = config.get("enabled", name not in OPTIONAL_MEMBERS)
        if enabled:
            enabled_any = True
            deferred.add(config.get("defer_loading", False))
    if len(deferred) > 1:
        raise Rejected(f"{where}: defer_loading must be the same on every enabled member")
    untouched = MEMBERS - OPTIONAL_MEMBERS - set(configs)
    if not enabled_any and not untouched:
        raise Rejected(f"{where}: leaves no member enabled")


# --- Images ----------------------------------------------------------------------------------------------------------


@attrs.frozen
class Tally:
    """Images in part of a conversation: how many, and the widest and tallest among those that could be measured."""

    count: int = 0
    width: int = 0
    height: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.count + other.count, max(self.width, other.width), max(self.height, other.height))


@attrs.frozen
class Measured:
    """One measured image: the index of its message, where in the message, whether it is inside a `tool_result`,
    and its size."""

    message: int
    where: str
    in_result: bool
    width: int
    height: int


def image_size(block: Mapping[str, Any]) -> tuple[int, int] | None:
    """The size of a base64 image block, or None when it cannot be read (the checker reports why, in a result)."""
    source = block.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    try:
        with _opened(base64.b64decode(source["data"], validate=True)) as image:
            width, height = image.size
    except (binascii.Error, ValueError, OSError, Image.DecompressionBombError):
        return None
    return int(width), int(height)


def _images(message: Mapping[str, Any]) -> Iterator[tuple[str, bool, Mapping[str, Any]]]:
    """Every image block of a message, top-level or inside a `tool_result`: where it is, whether it is inside a
    result, and the block."""
    content = message.get("content")
    for index, block in _blocks(content) if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "image":
            yield f"content.{index}", False, block
        elif block.get("type") == "tool_result":
            for inner, nested in _blocks(block.get("content")):
                if isinstance(nested, Mapping) and nested.get("type") == "image":
                    yield f"content.{index}.content.{inner}", True, nested


def count_images(messages: object) -> int:
    if not isinstance(messages, list):
        return 0
    return sum(1 for message in messages if isinstance(message, Mapping) for _ in _images(message))


def measure(messages: Sequence[Mapping[str, Any]]) -> tuple[Tally, list[Measured]]:
    """The images of `messages`, and the ones that could be measured."""
    total = Tally()
    sizes: list[Measured] = []
    for number, message in enumerate(messages):
        for where, in_result, block in _images(message):
            size = image_size(block)
            if size is None:
                total += Tally(1)
                continue
            total += Tally(1, *size)
            sizes.append(Measured(number, where, in_result, *size))
    return total, sizes


def image_limit(images: Tally, earlier: Tally, max_images: int) -> tuple[int, int]:
    """The largest (width, height) each image of a request holding `images` may have. Raises when the request holds
    too many, or when the stricter limit that many images bring catches an image an earlier request sent."""
    if images.count > max_images:
        raise Rejected(f"messages: too many images in the request ({images.count}); the maximum is {max_images}")
    if images.count <= STRICT_IMAGE_COUNT:
        return IMAGE_LIMIT
    limit = STRICT_IMAGE_LIMIT
    if earlier.width > limit[0] or earlier.height > limit[1]:
        raise Rejected(
            f"messages: the request holds {images.count} images, more than {STRICT_IMAGE_COUNT}, so each must be "
            f"at most {limit[0]}x{limit[1]} px, but an earlier image is {earlier.width}x{earlier.height} px"
        )
    return limit


def oversized(sizes: Sequence[Measured], first: int, limit: tuple[int, int]) -> list[str]:
    """The images outside `tool_result`s that break `limit`, in messages numbered from `first`. Images inside
    results are the checker's to judge; the API holds any other image to the same limit."""
    strict = " once a request holds more than 20 images" if limit == STRICT_IMAGE_LIMIT else ""
    return [
        f"messages.{first + image.message}.{image.where}: image is {image.width}x{image.height} px; the limit "
        f"is {limit[0]}x{limit[1]}{strict}"
        for image in sizes
        if not image.in_result and (image.width > limit[0] or image.height > limit[1])
    ]


# --- Tool calls and their answers ------------------------------------------------------------------------------------


def _calls(message: Mapping[str, Any]) -> list[Mapping[str, object]]:
    content = message.get("content")
    return _tool_uses(content) if isinstance(content, list) else []


def _answers(message: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    content = message.get("content")
    pairs = _blocks(content) if isinstance(content, list) else []
    return [
        (index, block) for index, block in pairs if _block_type(block) == "tool_result" and isinstance(block, Mapping)
    ]


def turn_problems(
    conversation: Sequence[Mapping[str, Any]], first_new: int, listed: frozenset[str], limit: tuple[int, int]
) -> tuple[list[str], frozenset[str]]:
    """The problems of every answer to a tool-calling turn that the new messages (from `first_new` on) hold, and
    the tab ids open after the last of them."""
    problems: list[str] = []
    for index in range(max(first_new, 0), len(conversation)):
        message = conversation[index]
        previous = conversation[index - 1] if index > 0 else None
        asked = _calls(previous) if previous is not None and previous.get("role") == "assistant" else []
        asked_ids = {use.get("id") for use in asked}
        for position, result in _answers(message):
            if message.get("role") != "user" or result.get("tool_use_id") not in asked_ids:
                problems.append(
                    f"messages.{index}.content.{position}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{result.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message."
                )
        if not asked:
            continue
        answered = {result.get("tool_use_id") for _, result in _answers(message)}
        missing = [str(use.get("id")) for use in asked if use.get("id") not in answered]
        if message.get("role") != "user" or missing:
            problems.append(_unanswered(index - 1, missing or [str(use.get("id")) for use in asked]))
            continue
        found = validate_user_message(asked, message, listed_before=listed, image_limit=limit)
        problems += [f"messages.{index}: {problem}" for problem in found]
        by_id = {use.get("id"): use for use in asked}
        for _, result in _answers(message):
            use = by_id.get(result.get("tool_use_id"))
            now = None if use is None else _listed_after(use, result)
            listed = listed if now is None else frozenset(now)
    last = conversation[-1] if conversation else None
    if last is not None and last.get("role") == "assistant" and _calls(last) and len(conversation) > first_new:
        problems.append(_unanswered(len(conversation) - 1, [str(use.get("id")) for use in _calls(last)]))
    return problems, listed


def _unanswered(index: int, ids: Sequence[str]) -> str:
    """The API's words for tool calls of the assistant message `index` that the next message does not answer."""
    return (
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


# --- Token accounting ------------------------------------------------------------------------------------------------
# Plausible, not exact: about four characters a token, an image by its area, and the toolset declaration at its
# documented size, so that a test can watch usage grow with a conversation and the cache take most of it.


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _block_tokens(block: object) -> int:
    if isinstance(block, str):
        return text_tokens(block)
    if not isinstance(block, Mapping):
        return 0
    kind = block.get("type")
    if kind == "text":
        return text_tokens(str(block.get("text", "")))
    if kind == "image":
        size = image_size(block)
        return UNMEASURED_IMAGE_TOKENS if size is None else max(1, math.ceil(size[0] * size[1] / 750))
    if kind == "tool_result":
        return 5 + sum(_block_tokens(item) for _, item in _blocks(block.get("content")))
    return text_tokens(json.dumps(block, default=str))


def message_tokens(message: Mapping[str, Any]) -> int:
    return 4 + sum(_block_tokens(block) for _, block in _blocks(message.get("content")))


def tools_tokens(system: Any, tools: Any) -> int:
    """What the system prompt and the tool declarations cost, on every request."""
    tokens = text_tokens(json.dumps(system, default=str)) if system else 0
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, Mapping) and tool.get("type") == TOOLSET_TYPE:
            configs = tool.get("configs")
            configs = configs if isinstance(configs, Mapping) else {}
            enabled = [
                name
                for name in OPTIONAL_MEMBERS
                if isinstance(configs.get(name), Mapping) and configs[name].get("enabled") is True
            ]
            tokens += TOOLSET_TOKENS + OPTIONAL_MEMBER_TOKENS * len(enabled)
        else:
            tokens += text_tokens(json.dumps(tool, default=str))
    return tokens
