"""Downloads, reported as `DownloadStarted` / `DownloadCompleted` / `DownloadFailed` events.

BiDi says when a download begins and ends, but not whether it arrived whole: Firefox reports a download the server
cut off as complete. So the `Content-Length` of every response is remembered, and a finished file smaller than it
is reported as failed.

A remote browser (a Selenium Grid) saves downloads on its own machine. With managed downloads, a finished one is
fetched into the local download directory (`remote_files`) before it is reported, so its `path` is local, as it is
for a local browser; the fetch is an HTTP round trip, so it runs on the caller's thread when events are drained,
never on the event dispatcher. Without managed downloads the file cannot reach this machine, and the first such
download says why.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

import attrs

from browser_toolset.driver_errors import DriverError
from browser_toolset.values import DownloadCompleted, DownloadFailed, DownloadStarted, DriverEvent

from .connection import JSON, Handler
from .events import MAX_BUFFERED, EventQueue, as_dict, clip
from .remote_files import FileNotOffered, RemoteFiles

__all__ = ["NOT_FETCHED", "NOT_FETCHED_AGAIN", "Downloads"]

NOT_FETCHED = (
    "the file was saved on the remote browser's machine and cannot be fetched to this one: the remote end does not "
    "offer managed downloads (a Selenium Grid offers them when its nodes run with --enable-managed-downloads true), "
    "so no download of this session will reach this machine"
)
"""Why a remote download has no local file, said on the first one."""
NOT_FETCHED_AGAIN = "saved on the remote browser's machine only (no managed downloads)"
"""The same, on every later one."""

OFFER_WAIT = 10.0
"""Seconds a finished remote download may take to appear in the Grid's list before it is reported as failed."""


@attrs.define
class _Download:
    key: str
    url: str
    navigation: str | None
    suggested: str = ""
    done: bool = False


@attrs.frozen
class _Fetch:
    """A download finished on the Grid's node, waiting to be fetched."""

    download: _Download
    name: str
    expected: int | None
    since: float


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


def _file_name(path: object) -> str:
    """The last segment of a path of the node's machine, whichever separator it uses."""
    return re.split(r"[\\/]", path)[-1] if isinstance(path, str) else ""


class Downloads:
    """Downloads by key (the navigation id BiDi gives them, or a counter). A local browser saves into
    `download_dir`; with `remote` the browser is on another machine, and finished downloads are fetched into
    `download_dir` by `fetch_finished` where the session has managed downloads. Thread-safe."""

    def __init__(self, events: EventQueue, download_dir: str, remote: RemoteFiles | None = None) -> None:
        self._events = events
        self._download_dir = download_dir
        self._remote = remote
        self._lock = threading.Lock()
        self._downloads: dict[str, _Download] = {}
        self._ids = itertools.count(1)
        self._content_length: dict[str, int] = {}
        self._pending: list[_Fetch] = []
        self._told = False

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
        suggested = str(params.get("suggestedFilename") or "")
        with self._lock:
            key = navigation or f"download-{next(self._ids)}"
            self._downloads[key] = _Download(key, url, navigation, suggested)
        self._events.emit(DownloadStarted(key, clip(url), clip(suggested)))

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
        if params.get("status") != "complete":
            self._events.emit(
                DownloadFailed(download.key, clip(download.url), "the download was canceled or interrupted")
            )
        elif self._remote is None:
            path = params.get("filepath")
            size: int | None = None
            if isinstance(path, str):
                try:
                    size = os.path.getsize(path)
                except OSError:
                    size = None
            self._events.emit(self._finished(download, path if isinstance(path, str) else None, size, expected))
        elif self._remote.managed:
            name = _file_name(params.get("filepath")) or download.suggested
            with self._lock:
                self._pending.append(_Fetch(download, name, expected, time.monotonic()))
        else:
            with self._lock:
                told, self._told = self._told, True
            self._events.emit(
                DownloadFailed(download.key, clip(download.url), NOT_FETCHED_AGAIN if told else NOT_FETCHED)
            )

    def _finished(self, download: _Download, path: str | None, size: int | None, expected: int | None) -> DriverEvent:
        if size is not None and expected is not None and size < expected:
            # Firefox reports a download cut off by the server as complete.
            return DownloadFailed(download.key, clip(download.url), f"incomplete: received {size} of {expected} bytes")
        return DownloadCompleted(download.key, clip(download.url), None if path is None else clip(path), size)

    def fetch_finished(self) -> None:
        """Fetch every download the remote browser finished into the local download directory, and report it (on
        the caller's thread: each fetch is an HTTP round trip to the Grid). One the Grid does not list yet waits for
        a later call, up to `OFFER_WAIT` seconds."""
        if self._remote is None:
            return
        with self._lock:
            pending, self._pending = self._pending, []
        waiting: list[_Fetch] = []
        for item in pending:
            download = item.download
            event: DriverEvent
            try:
                if not item.name:
                    raise DriverError("the browser named no file")
                path, size = self._remote.fetch(item.name)
            except FileNotOffered:
                if time.monotonic() - item.since < OFFER_WAIT:
                    waiting.append(item)
                    continue
                event = DownloadFailed(download.key, clip(download.url), "the Grid never offered the downloaded file")
            except DriverError as exc:
                event = DownloadFailed(download.key, clip(download.url), f"not fetched from the Grid: {exc}")
            else:
                event = self._finished(download, path, size, item.expected)
            self._events.emit(event)
        if waiting:
            with self._lock:
                self._pending[:0] = waiting
