"""The queue behind `drain_events`, and the small helpers every event handler shares.

Handlers of several domains (tabs, downloads, dialogs, the URL guard) report into one queue, all from the BiDi
dispatcher thread, so the queue keeps the order the browser sent the events in.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from browser_toolset.driver_errors import TabGone
from browser_toolset.values import DriverEvent

if TYPE_CHECKING:
    from .contexts import Contexts

__all__ = ["MAX_BUFFERED", "MAX_ENTRY_CHARS", "EventQueue", "TabEntries", "as_dict", "clip", "timestamp"]

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


class _Stamped(Protocol):
    @property
    def timestamp(self) -> float: ...


E = TypeVar("E", bound=_Stamped)


class TabEntries(Generic[E]):
    """Per tab, the log entries (console lines, requests) since the last drain, at most `MAX_BUFFERED` each, the
    oldest going first. Written from the BiDi dispatcher thread, drained by calls: thread-safe."""

    def __init__(self, contexts: Contexts) -> None:
        self._contexts = contexts
        self._lock = threading.Lock()
        self._buffers: dict[str, deque[E]] = {}

    def add(self, tab: str, entry: E) -> None:
        with self._lock:
            self._buffers.setdefault(tab, deque(maxlen=MAX_BUFFERED)).append(entry)

    def replace(self, tab: str, old: E, new: E) -> bool:
        """Put `new` where `old` still waits to be drained; False when `old` was drained (or dropped) already."""
        with self._lock:
            buffer = self._buffers.get(tab)
            for index, entry in enumerate(buffer or ()):
                if entry is old and buffer is not None:
                    buffer[index] = new
                    return True
        return False

    def forget_contexts(self, handles: Iterable[str]) -> None:
        with self._lock:
            for handle in handles:
                self._buffers.pop(handle, None)

    def drain(self, handle: str) -> list[E]:
        """The tab's entries since the previous drain, oldest first."""
        self._contexts.settle(1.0)
        with self._lock:
            buffer = self._buffers.get(handle)
            entries = list(buffer or ())
            if buffer is not None:
                buffer.clear()
        if not self._contexts.is_tab(handle):
            raise TabGone(handle)
        return sorted(entries, key=lambda entry: entry.timestamp)
