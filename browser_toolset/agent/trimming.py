"""Keeping a long conversation within the API's image limits.

The API counts every image in the conversation the model sees, earlier screenshots included, and rejects a request
with more than 20 of them unless each is at most 2000x2000 px; images are also what makes a long run expensive. When
the conversation would hold more than `max_images`, the oldest screenshots and zoom images of browser results are
replaced by a short text (`[screenshot omitted: 7 turns old]`) until `keep` remain. That rewrites the history, which
starts a new thread and invalidates the prompt cache from the first changed message on, so it is done in batches
(with the defaults, once every ten screenshots) and never to the latest images."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from .describe import block_field

__all__ = ["KEEP_IMAGES", "MAX_IMAGES", "count_images", "omit_old_images"]

MAX_IMAGES: Final = 20
"""The API's threshold: above 20 images in a request, each must be at most 2000x2000 px."""
KEEP_IMAGES: Final = 10


@attrs.frozen
class _Image:
    message: int
    result: int
    block: int
    turn: int
    member: str


def _replaceable_images(messages: Sequence[Mapping[str, Any]]) -> tuple[int, list[_Image]]:
    """How many images the conversation holds, and those inside browser results, oldest first, with the turn that
    produced each."""
    total = 0
    found: list[_Image] = []
    turn = 0
    members: dict[str, str] = {}
    for number, message in enumerate(messages):
        if message.get("role") == "assistant":
            turn += 1
        content = message.get("content")
        for index, block in enumerate(content if isinstance(content, list) else ()):
            kind = block_field(block, "type")
            if kind == "tool_use":
                members[str(block_field(block, "id"))] = str(block_field(block, "name"))
            elif kind == "image":
                total += 1
            elif kind == "tool_result":
                inner = block_field(block, "content")
                for position, nested in enumerate(inner if isinstance(inner, list) else ()):
                    if block_field(nested, "type") != "image":
                        continue
                    total += 1
                    if block_field(block, "toolset_name") == "browser" and message.get("role") == "user":
                        member = members.get(str(block_field(block, "tool_use_id")), "screenshot")
                        found.append(_Image(number, index, position, turn, member))
    return total, found


def count_images(messages: Sequence[Mapping[str, Any]]) -> int:
    """Every image in the conversation, the ones `omit_old_images` may replace and the others."""
    return _replaceable_images(messages)[0]


def _placeholder(image: _Image, turn: int) -> dict[str, str]:
    age = turn - image.turn
    what = "zoom image" if image.member == "zoom" else "screenshot"
    return {"type": "text", "text": f"[{what} omitted: {age} turn{'' if age == 1 else 's'} old]"}


def omit_old_images(
    messages: Sequence[Mapping[str, Any]], *, turn: int, max_images: int = MAX_IMAGES, keep: int = KEEP_IMAGES
) -> tuple[list[Mapping[str, Any]], int]:
    """`messages` with images of browser results replaced, oldest first, by a placeholder saying how many turns old
    they are (`turn` is the current turn), and how many were replaced.

    Nothing changes while the conversation holds at most `max_images` images; past that, images are replaced until
    `keep` remain, so that the next rewrite of the history (which costs the prompt cache from that point on) is
    `max_images - keep` screenshots away. Messages that change are copied; the others are returned as they are."""
    if not 0 <= keep <= max_images:
        raise ValueError(f"keep_images must be between 0 and max_images ({max_images}), not {keep}")
    total, replaceable = _replaceable_images(messages)
    if total <= max_images:
        return list(messages), 0
    chosen = replaceable[: max(0, total - keep)]
    if not chosen:
        return list(messages), 0
    by_message: dict[int, list[_Image]] = {}
    for image in chosen:
        by_message.setdefault(image.message, []).append(image)
    rewritten = list(messages)
    for number, images in by_message.items():
        message = dict(messages[number])
        content = list(message["content"])
        for image in images:
            result = dict(content[image.result])
            inner = list(result["content"])
            inner[image.block] = _placeholder(image, turn)
            result["content"] = inner
            content[image.result] = result
        message["content"] = content
        rewritten[number] = message
    return rewritten, len(chosen)
