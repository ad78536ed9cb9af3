"""The network log behind `read_network`: each tab's finished and failed requests, from BiDi `network.*` events."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import attrs

from browser_toolset.values import NetworkEntry

from .connection import JSON, Handler
from .documents import Documents
from .entries import TabEntries
from .events import MAX_BUFFERED, as_dict, clip, timestamp

__all__ = ["NetworkLog"]


def _duration(timings: Mapping[str, Any]) -> float | None:
    """A request's duration from its BiDi timings: Chromium gives them relative to `timeOrigin` (with
    `requestTime` 0), Firefox as epoch times; `responseEnd - requestTime` is right for both."""
    end, start = timings.get("responseEnd") or timings.get("responseStart"), timings.get("requestTime")
    if not isinstance(end, (int, float)) or not isinstance(start, (int, float)) or end <= 0 or end < start:
        return None
    return round(float(end) - float(start), 1)


class NetworkLog:
    """Per tab, the requests since the last drain (a frame's go to its tab). Thread-safe."""

    def __init__(self, documents: Documents) -> None:
        self._documents = documents
        self._lock = threading.Lock()
        self._entries: TabEntries[NetworkEntry] = TabEntries(documents)
        self._request_started: dict[str, float] = {}
        self._open_entries: dict[str, NetworkEntry] = {}
        """Entries of responses that started but have not completed, by request id and redirect count."""

    def handlers(self) -> dict[str, Handler]:
        return {
            "network.beforeRequestSent": self._request_sent,
            "network.responseStarted": self._response_started,
            "network.responseCompleted": self._response_completed,
            "network.fetchError": self._fetch_error,
        }

    def forget_contexts(self, handles: frozenset[str]) -> None:
        self._entries.forget_contexts(handles)

    def drain(self, handle: str) -> list[NetworkEntry]:
        """The tab's entries since the previous drain, oldest first."""
        return self._entries.drain(handle)

    def _request_sent(self, params: JSON) -> None:
        request_id = str(as_dict(params.get("request")).get("request"))
        with self._lock:
            if request_id not in self._request_started:
                self._request_started[request_id] = timestamp(params)
                if len(self._request_started) > 4 * MAX_BUFFERED:
                    for old in list(self._request_started)[:MAX_BUFFERED]:
                        del self._request_started[old]

    def _response_started(self, params: JSON) -> None:
        """Entries are made when the response starts: a response whose body the page never reads never
        completes (Chromium then sends no `responseCompleted`), yet it is traffic `read_network` must show."""
        self._response(params, final=False)

    def _response_completed(self, params: JSON) -> None:
        self._response(params, final=True)

    def _response(self, params: JSON, *, final: bool) -> None:
        response = as_dict(params.get("response"))
        status = response.get("status")
        self._add(params, status if isinstance(status, int) else None, response, "", final=final)

    def _fetch_error(self, params: JSON) -> None:
        self._add(params, None, {}, str(params.get("errorText") or "failed"), final=True)

    def _add(self, params: JSON, status: int | None, response: Mapping[str, Any], error: str, *, final: bool) -> None:
        """Add or complete the request's entry in its tab's buffer."""
        top = self._documents.top_of(params.get("context"))
        if top is None:
            return
        request = as_dict(params.get("request"))
        request_id = str(request.get("request"))
        exchange = f"{request_id}/{params.get('redirectCount', 0)}"
        duration = _duration(as_dict(request.get("timings")))
        ended = timestamp(params)
        with self._lock:
            started = self._request_started.get(request_id)
            if duration is None and started is not None and ended > started:
                duration = round(ended - started, 1)
            if started is not None and duration is not None:
                # Chromium stamps a response with its request's start time.
                ended = max(ended, started + duration)
            entry = NetworkEntry(
                method=str(request.get("method") or "GET"),
                url=clip(str(request.get("url") or "")),
                status=status,
                mime_type=str(response.get("mimeType") or ""),
                duration_ms=duration,
                error=clip(error),
                timestamp=ended,
            )
            previous = self._open_entries.pop(exchange, None)
            current = entry
            if previous is None:
                self._entries.add(top, entry)
            else:
                # Complete the entry if it still waits to be drained; one already drained stays as it was read.
                current = attrs.evolve(entry, timestamp=previous.timestamp)
                self._entries.replace(top, previous, current)
            if final:
                self._request_started.pop(request_id, None)
            else:
                self._open_entries[exchange] = current
                if len(self._open_entries) > 4 * MAX_BUFFERED:
                    for old_key in list(self._open_entries)[:MAX_BUFFERED]:
                        del self._open_entries[old_key]
