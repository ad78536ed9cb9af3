"""Recording `exec` and `run` sessions (`--record DIR`) for `replay` and `report`: a recorder for the settings, the
time each call took, and a finished run's transcript as recorded exchanges."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import Settings, as_mapping
from ..executor.toolset import BrowserToolset
from ..sessions.recording import Recorder

__all__ = ["Timed", "assistant_message", "record_transcript", "recorder_for"]


def recorder_for(settings: Settings, extra: Mapping[str, object] | None = None) -> Recorder | None:
    """A recorder for `loop.record_dir` that keeps the effective settings (and `extra`), or None when no recording
    was asked for."""
    directory = settings.loop.record_dir
    if not directory:
        return None
    return Recorder(directory, {**as_mapping(settings), **(extra or {})})


class Timed:
    """Times each `tool_result` call of a toolset (by patching the instance), and keeps each whole result."""

    def __init__(self, toolset: BrowserToolset) -> None:
        self.seconds: list[float] = []
        self.results: dict[str, tuple[Any, float]] = {}
        original = toolset.tool_result

        def timed(call: Any) -> Any:
            started = time.monotonic()
            try:
                return_value = original(call)
            finally:
                self.seconds.append(time.monotonic() - started)
            call_id = call.get("id") if isinstance(call, Mapping) else getattr(call, "id", None)
            if call_id is not None:
                self.results[str(call_id)] = (return_value, self.seconds[-1])
            return return_value

        setattr(toolset, "tool_result", timed)  # noqa: B010 (an instance attribute shadowing the method)


def assistant_message(document: Any) -> Mapping[str, Any]:
    """The assistant message an `exec` input line stands for (a bare list is its content)."""
    if isinstance(document, list):
        return {"role": "assistant", "content": document}
    return document if isinstance(document, Mapping) else {"role": "assistant", "content": []}


def record_transcript(recorder: Recorder, messages: Sequence[Mapping[str, Any]], timed: Timed) -> None:
    """Record each assistant turn with the `user` message answering it, its results whole (the transcript may hold
    placeholders for older images) and the seconds each call took."""
    index = 0
    while index < len(messages):
        message = messages[index]
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message.get("role") == "assistant" and following is not None and following.get("role") == "user":
            content, timings = [], []
            for block in _blocks(following.get("content")):
                found = timed.results.get(str(block.get("tool_use_id"))) if isinstance(block, Mapping) else None
                content.append(found[0] if found is not None else block)
            for block in _blocks(message.get("content")):
                if (
                    isinstance(block, Mapping)
                    and block.get("type") == "tool_use"
                    and block.get("toolset_name") == "browser"
                ):
                    found = timed.results.get(str(block.get("id")))
                    timings.append(found[1] if found is not None else 0.0)
            recorder.record_exchange(message, {**following, "content": content}, timings)
            index += 2
            continue
        recorder.record_message(message, role=str(message.get("role", "user")))
        index += 1


def _blocks(content: object) -> list[Any]:
    return list(content) if isinstance(content, list) else []
