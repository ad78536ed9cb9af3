"""The conversation as the drivers send it: on one of the SDK's message threads, or whole with every request.

The SDK's message threads carry the thread protocol (the first request creates the thread, each later one continues
it with only the new messages) and recover from the server's refusals (a lost thread is replayed under a new one,
and a request the server cannot thread goes on without a thread, which `continue_unthreaded` asks for), so none of
that is done here. A thread's history cannot be rewritten: a rewrite (older images replaced) starts a new thread
from the old one's `params`, whose first request creates it with the whole rewritten history. Without threads (for
clients that have none, or `threads=False`) each request carries the whole history, kept here.

`Conversation` and `AsyncConversation` differ only in `send`; what a turn adds or rewrites is the flow's
`SendTurn`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

import anthropic
from anthropic.lib.threads import BetaAsyncMessageThread, BetaMessageThread
from anthropic.types.beta import BetaMessage, BetaMessageParam

from ..executor.sdk_surface import supports_message_threads
from .flow import SendTurn

__all__ = ["AsyncConversation", "Conversation"]

ThreadT = TypeVar("ThreadT", BetaMessageThread[None], BetaAsyncMessageThread[None])


def _params(messages: Sequence[Mapping[str, Any]]) -> list[BetaMessageParam]:
    """The flow's messages as the SDK types them (plain dicts, and Claude's replies as the SDK returned them)."""
    return cast("list[BetaMessageParam]", list(messages))


class _History(Generic[ThreadT]):
    """What the sync and async conversations share: the thread, or the whole history when there is none.

    `fields` are every request field except `messages`; with `threads`, a thread is made from them at once."""

    def __init__(
        self, client: anthropic.Anthropic | anthropic.AsyncAnthropic, fields: Mapping[str, Any], *, threads: bool
    ) -> None:
        if threads and not supports_message_threads(client):
            # The SDK would refuse the thread too; this says what to do instead.
            raise anthropic.AnthropicError(
                f"message threads are not available on {type(client).__name__}; pass threads=False to send the whole "
                "history with every request"
            )
        self._fields = dict(fields)
        self._messages: list[BetaMessageParam] = []
        self._thread: ThreadT | None = None
        if threads:
            self._thread = self._new_thread({**fields, "unsupported_request_behavior": "continue_unthreaded"})

    def _new_thread(self, params: Mapping[str, Any]) -> ThreadT:
        raise NotImplementedError

    def _stage(self, turn: SendTurn) -> None:
        """Take what `turn` rewrites and adds, for the request that sends it."""
        if turn.rewrite is not None:
            if self._thread is not None:
                self._thread = self._new_thread({**self._thread.params, "messages": _params(turn.rewrite)})
            else:
                self._messages = _params(turn.rewrite)
        if self._thread is not None:
            self._thread.append(*_params(turn.messages))
        else:
            self._messages += _params(turn.messages)

    def _unthreaded_request(self) -> dict[str, Any]:
        return {**self._fields, "messages": list(self._messages)}

    def _unthreaded_reply(self, reply: BetaMessage) -> BetaMessage:
        self._messages.append({"role": reply.role, "content": reply.content})
        return reply


class Conversation(_History[BetaMessageThread[None]]):
    """The conversation on `anthropic.Anthropic`."""

    def __init__(self, client: anthropic.Anthropic, fields: Mapping[str, Any], *, threads: bool) -> None:
        self._client = client
        super().__init__(client, fields, threads=threads)

    def _new_thread(self, params: Mapping[str, Any]) -> BetaMessageThread[None]:
        thread: BetaMessageThread[None] = self._client.beta.messages.thread(**params)
        return thread

    def send(self, turn: SendTurn) -> BetaMessage:
        """Send `turn` and return Claude's reply."""
        self._stage(turn)
        if self._thread is not None:
            return self._thread.send()
        reply: BetaMessage = self._client.beta.messages.create(**self._unthreaded_request())
        return self._unthreaded_reply(reply)


class AsyncConversation(_History[BetaAsyncMessageThread[None]]):
    """The conversation on `anthropic.AsyncAnthropic`."""

    def __init__(self, client: anthropic.AsyncAnthropic, fields: Mapping[str, Any], *, threads: bool) -> None:
        self._client = client
        super().__init__(client, fields, threads=threads)

    def _new_thread(self, params: Mapping[str, Any]) -> BetaAsyncMessageThread[None]:
        thread: BetaAsyncMessageThread[None] = self._client.beta.messages.thread(**params)
        return thread

    async def send(self, turn: SendTurn) -> BetaMessage:
        """Send `turn` and return Claude's reply."""
        self._stage(turn)
        if self._thread is not None:
            return await self._thread.send()
        reply: BetaMessage = await self._client.beta.messages.create(**self._unthreaded_request())
        return self._unthreaded_reply(reply)
