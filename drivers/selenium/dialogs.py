"""Native dialogs (alert, confirm, prompt, beforeunload), answered by the driver as soon as they open.

The session leaves prompts open for this handler (`unhandledPromptBehavior: ignore`), so each one is answered once,
by the configured policy, and reported as `DialogHandled`.
"""

from __future__ import annotations

from typing import Any

from browser_toolset.values import DialogHandled

from .connection import JSON, BidiConnection, Handler
from .events import EventQueue, clip

__all__ = ["Dialogs"]


class Dialogs:
    """Answers every dialog: accepted when `accept`, else dismissed; a `beforeunload` is always accepted."""

    def __init__(self, connection: BidiConnection, events: EventQueue, *, accept: bool) -> None:
        self._conn = connection
        self._events = events
        self._accept = accept

    def handlers(self) -> dict[str, Handler]:
        return {"browsingContext.userPromptOpened": self._opened}

    def _opened(self, params: JSON) -> None:
        kind = str(params.get("type") or "alert")
        # A refused beforeunload would leave every later navigation of the tab hanging on it.
        accept = self._accept or kind == "beforeunload"
        answer: dict[str, Any] = {"context": params.get("context"), "accept": accept}
        if accept and kind == "prompt" and isinstance(params.get("defaultValue"), str):
            answer["userText"] = params["defaultValue"]
        self._conn.send("browsingContext.handleUserPrompt", answer)
        self._events.emit(DialogHandled(kind, clip(str(params.get("message") or "")), accept))
