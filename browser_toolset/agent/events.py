"""What a run reports: one event per browser call, Claude's text and dropped images as the run goes, a summary at
the end, and the finished run as a whole (`RunResult`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

__all__ = ["CallEvent", "Event", "ImagesOmitted", "Outcome", "RunResult", "Summary", "TextEvent"]

Outcome = Literal["ok", "error", "not_executed"]


@attrs.frozen
class CallEvent:
    """One browser call: `turn` is the assistant turn that asked for it (0 for the start page), `target` a short
    description of what it acted on, `detail` the first line of what Claude reads back."""

    turn: int
    member: str
    target: str
    outcome: Outcome
    seconds: float
    detail: str


@attrs.frozen
class TextEvent:
    """Text Claude wrote in a turn."""

    turn: int
    text: str


@attrs.frozen
class ImagesOmitted:
    """Older images were replaced by placeholders before `turn`'s results went out."""

    turn: int
    omitted: int
    kept: int


@attrs.frozen
class Summary:
    """How the run ended. `calls`, `errors` and `not_executed` count Claude's calls (not the loop's own opening of
    the start page); `input_tokens` counts every input token the API reported, `cached_input_tokens` the part of
    them read from the prompt cache."""

    stop_reason: str
    turns: int
    calls: int
    errors: int
    not_executed: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    elapsed: float
    error: str | None = None


Event = CallEvent | TextEvent | ImagesOmitted | Summary


@attrs.frozen
class RunResult:
    """A finished run.

    `stop_reason` is the model's last `stop_reason` (`end_turn`, `max_tokens`, `refusal`, ...) or one of the loop's
    own: `max_turns`, `interrupted`, `api_error`. `messages` is the conversation as it was last sent, as plain JSON
    values (older images already replaced by their placeholders), ending with Claude's last reply. `final_text` is the
    text of that reply."""

    summary: Summary
    messages: tuple[Mapping[str, Any], ...]
    final_text: str
    events: tuple[Event, ...]

    @property
    def stop_reason(self) -> str:
        return self.summary.stop_reason

    @property
    def turns(self) -> int:
        return self.summary.turns

    @property
    def calls(self) -> int:
        return self.summary.calls

    @property
    def errors(self) -> int:
        return self.summary.errors

    @property
    def error(self) -> str | None:
        return self.summary.error
