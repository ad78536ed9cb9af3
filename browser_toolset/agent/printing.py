"""The default `on_event`: progress on a terminal, one line per event."""

from __future__ import annotations

import sys
from typing import TextIO

import attrs

from .events import CallEvent, Event, ImagesOmitted, TextEvent

__all__ = ["TerminalPrinter"]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@attrs.define
class TerminalPrinter:
    """The default `on_event`: one line per call, Claude's text, and the summary, on `stream` (standard error by
    default, so that standard output stays free for the answer). `quiet` prints nothing."""

    stream: TextIO | None = None
    quiet: bool = False

    def __call__(self, event: Event) -> None:
        if self.quiet:
            return
        line = self.format(event)
        stream = self.stream if self.stream is not None else sys.stderr
        print(line, file=stream, flush=True)

    @staticmethod
    def format(event: Event) -> str:
        if isinstance(event, CallEvent):
            head = f"  [{event.turn:>3}] {event.member} {event.target}".rstrip()
            if event.outcome == "not_executed":
                return f"{head}  not executed"
            tail = f": {event.detail}" if event.outcome == "error" and event.detail else ""
            return f"{head}  {event.outcome} {event.seconds:.2f}s{tail}"
        if isinstance(event, TextEvent):
            return "Claude: " + event.text.strip().replace("\n", "\n        ")
        if isinstance(event, ImagesOmitted):
            return f"  [{event.turn:>3}] omitted {event.omitted} older images ({event.kept} kept)"
        cached = f" ({event.cached_input_tokens:,} cached)" if event.cached_input_tokens else ""
        failure = f": {event.error}" if event.error else ""
        verb = "Finished" if event.stop_reason == "end_turn" else "Stopped"
        return (
            f"{verb} ({event.stop_reason}{failure}) after {_count(event.turns, 'turn')}: "
            f"{_count(event.calls, 'call')}, {_count(event.errors, 'error')}, {event.not_executed} not executed; "
            f"tokens in {event.input_tokens:,}{cached} / out {event.output_tokens:,}; {event.elapsed:.1f}s"
        )
