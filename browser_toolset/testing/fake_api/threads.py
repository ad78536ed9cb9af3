"""Thread state: the conversations the fake API holds under its replies' ids, for a thread to continue from.

The SDK continues a thread from the latest reply with only the new messages, so the server must keep everything
a later request is judged against: the history, the `system` and `tools` the thread was created with, the tab ids
open at its end, its images, and per message its tokens and a fingerprint, from which the cache reads in `usage`
are estimated. A reply continued once cannot be continued again (`409 thread_already_continued`), and an unknown
id is `404 thread_not_found`: the SDK recovers from both by replaying the whole history in a new thread.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .rules import Rejected, Tally, message_tokens


@attrs.frozen
class Held:
    """A conversation as the server keeps it: what a request continuing from it is judged against."""

    system: Any
    tools: Any
    messages: tuple[Mapping[str, Any], ...] = ()
    listed: frozenset[str] = frozenset()
    """The tab ids open at the end of the conversation, as its latest browser result listed them."""
    images: Tally = attrs.field(factory=Tally)
    tokens: tuple[int, ...] = ()
    fingerprints: tuple[str, ...] = ()

    def extended(self, messages: Sequence[Mapping[str, Any]], *, listed: frozenset[str], images: Tally) -> Held:
        """The conversation with a request's new messages, which leave `listed` tabs open and bring it to
        `images`."""
        return attrs.evolve(
            self,
            messages=(*self.messages, *messages),
            listed=listed,
            images=images,
            tokens=(*self.tokens, *(message_tokens(message) for message in messages)),
            fingerprints=(*self.fingerprints, *(_fingerprint(message) for message in messages)),
        )

    def replied(self, reply: Mapping[str, Any], output_tokens: int) -> Held:
        """The conversation with the reply to it."""
        return attrs.evolve(
            self,
            messages=(*self.messages, reply),
            tokens=(*self.tokens, output_tokens),
            fingerprints=(*self.fingerprints, _fingerprint(reply)),
        )


def _normalized(value: object) -> object:
    """A message as its content matters to a cache: without `cache_control` and without null fields, which the SDK
    drops or adds when it replays a history."""
    if isinstance(value, Mapping):
        return {k: _normalized(v) for k, v in value.items() if k != "cache_control" and v is not None}
    if isinstance(value, list | tuple):
        return [_normalized(item) for item in value]
    return value


def _fingerprint(message: Mapping[str, Any]) -> str:
    canonical = json.dumps(_normalized(message), sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class Threads:
    """Every conversation held under a reply's id, the ids already continued from, and the last conversation
    served. Not thread-safe: the server calls it under its own lock."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}
        self._continued: set[str] = set()
        self._last_served: tuple[str, ...] = ()

    def resume(self, thread: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[str, Held]:
        """The id a `continue` request continues from and what the server holds under it; raises what the API
        answers when it cannot be continued."""
        previous_id = thread.get("previous_message_id")
        if not isinstance(previous_id, str) or not previous_id:
            raise Rejected("thread.previous_message_id: Field required when continuing a thread")
        for field in ("system", "tools"):
            if body.get(field) is not None:
                raise Rejected(
                    f"{field}: cannot be set when continuing a thread; the thread keeps the one it was created with"
                )
        held = self._held.get(previous_id)
        if held is None:
            raise Rejected(
                f"thread.previous_message_id: no thread holds a message {previous_id!r}",
                status=404,
                kind="not_found_error",
                details={"error_code": "thread_not_found"},
            )
        if previous_id in self._continued:
            raise Rejected(
                f"thread.previous_message_id: {previous_id!r} was already continued; continue from its latest reply",
                status=409,
                kind="invalid_request_error",
                details={"error_code": "thread_already_continued"},
            )
        return previous_id, held

    def cached_tokens(self, asked: Held, continued: Held | None, tools_tokens: int) -> int:
        """What a prompt cache would plausibly hold of the conversation `asked`: on a continue, everything the
        thread held; otherwise the messages it shares, from the start, with the last conversation served."""
        if continued is not None:
            return tools_tokens + sum(continued.tokens)
        shared = 0
        limit = min(len(asked.fingerprints), len(self._last_served))
        while shared < limit and asked.fingerprints[shared] == self._last_served[shared]:
            shared += 1
        return tools_tokens + sum(asked.tokens[:shared]) if shared else 0

    def hold(self, reply_id: str, conversation: Held, *, continued_from: str | None) -> None:
        """Keep `conversation` (ending with the reply `reply_id`) for a thread to continue from; the reply it
        continued from, if any, may not be continued again."""
        self._held[reply_id] = conversation
        self._last_served = conversation.fingerprints
        if continued_from is not None:
            self._continued.add(continued_from)

    def forget(self) -> None:
        """Drop every thread, as a server that lost them would."""
        self._held.clear()
        self._continued.clear()
