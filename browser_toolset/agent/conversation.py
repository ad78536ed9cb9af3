"""The conversation of a run and how each Messages request carries it, on the API's message threads or without.

With threads, the first request is a `thread: {"type": "create"}` with the whole history, `system` and `tools`; the
server keeps the conversation under the reply's `id`, and each later request is a `thread: {"type": "continue",
"previous_message_id": ...}` with only the messages added since that reply and neither `system` nor `tools` (the
thread keeps the ones it was created with). A rewritten history (older images replaced) cannot be continued, so it
starts a new thread. Without threads every request carries the whole history.

The server's refusals of a thread are recovered from the way the SDK's message threads recover: a thread it lost or
that was continued elsewhere (`thread_not_found`, `thread_already_continued`, `thread_continue_in_flight`) is replaced
by a new one carrying the whole history, and if the thread that replaced a lost one is lost again at once, or the
server cannot thread the request at all (`thread_unsupported_request`), the run goes on without threads.

Nothing here sends anything: `request()` says what to send next, `record()` takes the reply."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from anthropic import APIStatusError
from anthropic.types.beta import BetaMessage

__all__ = ["THREADS_BETA", "Conversation"]

THREADS_BETA: Final = "message-threads-2026-08-12"
"""The beta a request must name to carry a `thread` field."""

CREATE_ONLY_FIELDS: Final = ("system", "tools")
"""Fields the server takes from the thread on a `continue`, and rejects if the request repeats them."""

REPLAY_CODES: Final = ("thread_not_found", "thread_already_continued", "thread_continue_in_flight")
"""Thread refusals that a new thread with the whole history recovers from."""

Threading = Literal["threaded", "unthreaded", "off"]


class Conversation:
    """The history of a run, which part of it the server holds, and the request that sends the rest.

    `fields` are every request field except `messages`; `threads` says whether to use message threads."""

    def __init__(self, fields: Mapping[str, Any], prompt: str, *, threads: bool) -> None:
        self._fields = dict(fields)
        self._messages: list[Mapping[str, Any]] = [{"role": "user", "content": prompt}]
        self._threading: Threading = "threaded" if threads else "off"
        self._previous_id: str | None = None
        self._held = 0
        self._replaces_lost_thread = False

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        """The whole history, Claude's replies included (as the SDK returned them), in a new list."""
        return list(self._messages)

    @property
    def threaded(self) -> bool:
        """Whether requests still carry a `thread` field."""
        return self._threading == "threaded"

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next `client.beta.messages.create()` call."""
        if not self.threaded:
            return {**self._fields, "messages": list(self._messages)}
        betas = list(self._fields.get("betas") or ())
        params: dict[str, Any] = {**self._fields, "betas": betas if THREADS_BETA in betas else [*betas, THREADS_BETA]}
        headers = params.get("extra_headers")
        if isinstance(headers, Mapping) and isinstance(headers.get("anthropic-beta"), str):
            # A caller's `anthropic-beta` header replaces the one built from `betas`, so the beta goes in it too.
            named = [beta.strip() for beta in headers["anthropic-beta"].split(",")]
            if THREADS_BETA not in named:
                params["extra_headers"] = {**headers, "anthropic-beta": ",".join([*named, THREADS_BETA])}
        if self._previous_id is None:
            return {**params, "messages": list(self._messages), "thread": {"type": "create"}}
        for field in CREATE_ONLY_FIELDS:
            params.pop(field, None)
        # After a `pause_turn` reply nothing is new: the server resumes the turn it holds from an empty `messages`.
        new = self._messages[self._held :]
        return {**params, "messages": new, "thread": {"type": "continue", "previous_message_id": self._previous_id}}

    def record(self, reply: BetaMessage) -> None:
        """Take Claude's reply to the last request: the next request continues from it."""
        continued = self._previous_id is not None
        self._messages.append({"role": reply.role, "content": reply.content})
        if not self.threaded:
            return
        if reply.stop_reason == "refusal":
            # The server may hold the refused turn, so nothing continues from it.
            self._new_thread()
            return
        self._previous_id = reply.id
        self._held = len(self._messages)
        if continued:
            self._replaces_lost_thread = False
        if any(getattr(part, "type", None) == "fallback_message" for part in reply.usage.iterations or ()):
            # The server keeps no turn that a fallback model wrote.
            self._new_thread()

    def append(self, message: Mapping[str, Any]) -> None:
        """Add a message for the next request."""
        self._messages.append(message)

    def rewrite(self, messages: Sequence[Mapping[str, Any]]) -> None:
        """Replace the history; a thread cannot be rewritten, so the next request starts a new one."""
        self._messages = list(messages)
        self._new_thread()

    def recovers_from(self, error: APIStatusError) -> bool:
        """Whether the last request is to be sent again (as `request()` now builds it) because `error` is a thread
        refusal this conversation has adjusted to."""
        code = _error_details(error).get("error_code")
        if code in REPLAY_CODES and self.threaded and self._previous_id is not None:
            if code == "thread_not_found" and self._replaces_lost_thread:
                # Lost again right after a replay: the server may be unable to keep the conversation.
                self._threading = "unthreaded"
            else:
                self._new_thread()
                self._replaces_lost_thread = code == "thread_not_found"
            return True
        if code == "thread_unsupported_request" and self.threaded:
            self._threading = "unthreaded"
            return True
        return False

    def _new_thread(self) -> None:
        self._previous_id = None
        self._held = 0
        self._replaces_lost_thread = False


def _error_details(error: APIStatusError) -> Mapping[str, Any]:
    """The `error.details` object of the response body, or an empty one when the body has none."""
    body = error.body
    inner = body.get("error") if isinstance(body, Mapping) else None
    details = inner.get("details") if isinstance(inner, Mapping) else None
    return details if isinstance(details, Mapping) else {}
