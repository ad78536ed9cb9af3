"""The console log behind `read_console`: each tab's console messages and uncaught errors, from `log.entryAdded`."""

from __future__ import annotations

from browser_toolset.values import ConsoleEntry

from .connection import JSON, Handler
from .documents import Documents
from .entries import TabEntries
from .events import as_dict, clip, timestamp

__all__ = ["ConsoleLog"]

_LEVELS: dict[str, str] = {
    "log": "log",
    "warning": "warn",
    "warn": "warn",
    "error": "error",
    "info": "info",
    "debug": "debug",
    "trace": "debug",
}
"""BiDi's console methods and log levels -> the levels of `ConsoleEntry`."""


class ConsoleLog:
    """Per tab, the console entries since the last drain (a frame's go to its tab). Thread-safe."""

    def __init__(self, documents: Documents) -> None:
        self._documents = documents
        self._entries: TabEntries[ConsoleEntry] = TabEntries(documents)

    def handlers(self) -> dict[str, Handler]:
        return {"log.entryAdded": self._entry_added}

    def forget_contexts(self, handles: frozenset[str]) -> None:
        self._entries.forget_contexts(handles)

    def drain(self, handle: str) -> list[ConsoleEntry]:
        """The tab's entries since the previous drain, oldest first."""
        return self._entries.drain(handle)

    def _entry_added(self, params: JSON) -> None:
        if self._documents.is_title_report(params):
            return  # the driver's own title watch, not the page's
        top = self._documents.top_of(as_dict(params.get("source")).get("context"))
        if top is None:
            return
        method = str(params.get("method") or "")
        level = _LEVELS.get(method) or _LEVELS.get(str(params.get("level") or ""), "log")
        text = str(params.get("text") or "")
        if params.get("type") == "javascript":
            level = "error"
            if not text.lower().startswith("uncaught"):
                text = f"Uncaught {text}"
        entry = ConsoleEntry(level, clip(text), timestamp(params), str(params.get("type") or "console"))
        self._entries.add(top, entry)
