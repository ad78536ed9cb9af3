"""The queue behind `drain_events`, and the small helpers every event handler shares.

Handlers of several domains (tabs, downloads, dialogs, the URL guard) report into one queue, all from the BiDi
dispatcher thread, so the queue keeps the order the browser sent the events in.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from browser_toolset.values import DriverEvent

__all__ = ["MAX_BUFFERED", "MAX_ENTRY_CHARS", "EventQueue", "as_dict", "clip", "timestamp"]

MAX_BUFFERED = 1000
"""Console and network entries kept per tab between drains; the oldest go first. A chatty page must not grow the
driver's memory without bound while nobody reads."""

MAX_ENTRY_CHARS = 4096
"""Longest URL or console text kept (a `data:` URL can be megabytes)."""


def clip(text: str) -> str:
    return text if len(text) <= MAX_ENTRY_CHARS else text[:MAX_ENTRY_CHARS] + "…"


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def timestamp(params: Mapping[str, Any]) -> float:
    """The event's own time in epoch ms, or now when the browser gave none."""
    value = params.get("timestamp")
    return float(value) if isinstance(value, (int, float)) else time.time() * 1000


class EventQueue:
    """What happened by itself since the last drain, oldest first. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[DriverEvent] = []

    def emit(self, event: DriverEvent) -> None:
        with self._lock:
            self._events.append(event)

    def drain(self) -> list[DriverEvent]:
        with self._lock:
            events, self._events = self._events, []
        return events
