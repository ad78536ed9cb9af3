"""Downloads, reported as `DownloadStarted` / `DownloadCompleted` / `DownloadFailed` events.

BiDi says when a download begins and ends, but not whether it arrived whole: Firefox reports a download the server
cut off as complete. So the `Content-Length` of every response is remembered, and a finished file smaller than it
is reported as failed.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Mapping
from typing import Any

import attrs

from browser_toolset.values import DownloadCompleted, DownloadFailed, DownloadStarted, DriverEvent

from .connection import JSON, Handler
from .events import MAX_BUFFERED, EventQueue, as_dict, clip

__all__ = ["Downloads"]


@attrs.define
class _Download:
    key: str
    url: str
    navigation: str | None
    done: bool = False


def _content_length(response: Mapping[str, Any]) -> int | None:
    for header in response.get("headers") or ():
        if str(header.get("name", "")).lower() == "content-length":
            value = header.get("value")
            text = value.get("value") if isinstance(value, dict) else value
            try:
                return int(str(text))
            except ValueError:
                return None
    return None


class Downloads:
    """Downloads by key (the navigation id BiDi gives them, or a counter). `download_dir` is None when the files
    are on another machine (a Grid), so no local path or size can be reported. Thread-safe."""

    def __init__(self, events: EventQueue, download_dir: str | None) -> None:
        self._events = events
        self._download_dir = download_dir
        self._lock = threading.Lock()
        self._downloads: dict[str, _Download] = {}
        self._ids = itertools.count(1)
        self._content_length: dict[str, int] = {}

    def handlers(self) -> dict[str, Handler]:
        return {
            "browsingContext.downloadWillBegin": self._began,
            "browsingContext.downloadEnd": self._ended,
            "network.responseStarted": self._remember_length,
            "network.responseCompleted": self._remember_length,
        }

    def _remember_length(self, params: JSON) -> None:
        response = as_dict(params.get("response"))
        length = _content_length(response)
        if length is None:
            return
        with self._lock:
            if params.get("navigation"):
                self._content_length[str(params["navigation"])] = length
            self._content_length[str(response.get("url") or "")] = length
            if len(self._content_length) > 4 * MAX_BUFFERED:
                for old in list(self._content_length)[:MAX_BUFFERED]:
                    del self._content_length[old]

    def _began(self, params: JSON) -> None:
        navigation = str(params["navigation"]) if params.get("navigation") else None
        url = str(params.get("url") or "")
        with self._lock:
            key = navigation or f"download-{next(self._ids)}"
            self._downloads[key] = _Download(key, url, navigation)
        self._events.emit(DownloadStarted(key, clip(url), clip(str(params.get("suggestedFilename") or ""))))

    def _find(self, params: JSON) -> _Download | None:
        """Call under the lock."""
        navigation = params.get("navigation")
        if navigation and str(navigation) in self._downloads:
            return self._downloads[str(navigation)]
        # No id to go by (older Firefox): the oldest unfinished download of that URL.
        url = params.get("url")
        for download in self._downloads.values():
            if not download.done and download.url == url:
                return download
        return None

    def _ended(self, params: JSON) -> None:
        with self._lock:
            download = self._find(params)
            if download is None:
                download = _Download(f"download-{next(self._ids)}", str(params.get("url") or ""), None)
            download.done = True
            expected = self._content_length.get(download.navigation or "") or self._content_length.get(download.url)
        event: DriverEvent
        if params.get("status") != "complete":
            event = DownloadFailed(download.key, clip(download.url), "the download was canceled or interrupted")
        else:
            path = params.get("filepath")
            local = self._download_dir is not None
            size: int | None = None
            if local and isinstance(path, str):
                try:
                    size = os.path.getsize(path)
                except OSError:
                    size = None
            if size is not None and expected is not None and size < expected:
                # Firefox reports a download cut off by the server as complete.
                event = DownloadFailed(
                    download.key, clip(download.url), f"incomplete: received {size} of {expected} bytes"
                )
            else:
                shown = clip(path) if local and isinstance(path, str) else None
                event = DownloadCompleted(download.key, clip(download.url), shown, size)
        self._events.emit(event)
