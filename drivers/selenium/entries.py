"""The per-tab buffers behind `read_console` and `read_network`: what each tab logged since the last drain.

A frame's entries go to its tab's buffer (the logs find the tab with `Documents.top_of`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar

from browser_toolset.driver_errors import TabGone

from .documents import Documents
from .events import MAX_BUFFERED

__all__ = ["TabEntries"]


class _Stamped(Protocol):
    @property
    def timestamp(self) -> float: ...


E = TypeVar("E", bound=_Stamped)


class TabEntries(Generic[E]):
    """Per tab, the log entries (console lines, requests) since the last drain, at most `MAX_BUFFERED` each, the
    oldest going first. Written from the BiDi dispatcher thread, drained by calls: thread-safe."""

    def __init__(self, documents: Documents) -> None:
        self._documents = documents
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
        """The tab's entries since the previous drain, oldest first (the events received so far handled first)."""
        self._documents.settle(1.0)
        with self._lock:
            buffer = self._buffers.get(handle)
            entries = list(buffer or ())
            if buffer is not None:
                buffer.clear()
        if not self._documents.is_tab(handle):
            raise TabGone(handle)
        return sorted(entries, key=lambda entry: entry.timestamp)
