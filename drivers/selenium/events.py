"""The queue behind `drain_events`, the clock of what the handlers keep, and the small helpers every event handler
shares.

Handlers of several domains (tabs, downloads, dialogs, the URL guard) report into one queue, all from the BiDi
dispatcher thread, so the queue keeps the order the browser sent the events in.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from browser_toolset.values import DriverEvent

__all__ = ["MAX_BUFFERED", "MAX_ENTRY_CHARS", "Changes", "EventQueue", "as_dict", "clip", "timestamp"]

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


class Changes:
    """One lock and one clock for what the handlers keep about browsing contexts, their documents and navigations
    (`Documents`, `Contexts`). A handler changes that state under the lock and ticks the clock, which wakes every
    waiter: a wait sees documents and navigations change together, and wakes for a change in either.

    The clock (`seq`) orders changes: note it before an action to tell what the action started."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._counter = itertools.count(1)
        self._seq = 0

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self._lock.release()

    @property
    def seq(self) -> int:
        with self._lock:
            return self._seq

    def tick(self) -> int:
        """A new sequence number, with waiters woken. Call under the lock."""
        self._seq = next(self._counter)
        self._changed.notify_all()
        return self._seq

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until `predicate()` (evaluated under the lock) holds; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(min(remaining, 0.25))
            return True
