"""A forced garbage collection in every page and in the BiDi mapper of a Chromium, over its DevTools socket.

Without it a memory figure mixes what the browser holds with garbage V8 has not collected yet: V8 lets a heap grow
before it collects, so RSS climbs for hundreds of calls and then falls back. Measuring after a forced collection
separates memory that is kept (a leak) from memory that is merely not yet reclaimed."""

from __future__ import annotations

import itertools
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from .machine import descendants

__all__ = ["collect_garbage"]

TARGET_TYPES = ("page", "iframe", "worker", "shared_worker", "service_worker", "other")
"""DevTools targets with a V8 heap; the BiDi mapper is a target of type "other"."""


def _devtools_port(root: int) -> int | None:
    """The port Chromium wrote to `DevToolsActivePort` in the profile folder of the browser below `root`."""
    for pid in descendants(root):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        found = re.search(r"--user-data-dir=([^\x00]+)", cmdline)
        if found and "--type=" not in cmdline:
            active = Path(found.group(1)) / "DevToolsActivePort"
            try:
                return int(active.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                return None
    return None


def collect_garbage(root: int) -> int:
    """Collect garbage in every heap-holding target of the Chromium below `root`. Returns how many targets were
    collected (0: not a Chromium with a DevTools port, e.g. Firefox)."""
    import websocket  # Selenium's dependency

    port = _devtools_port(root)
    if port is None:
        return 0
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=10) as reply:
        url = json.loads(reply.read())["webSocketDebuggerUrl"]
    socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
    ids = itertools.count(1)

    def command(method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        number = next(ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        socket.send(json.dumps(message))
        while True:
            answer = json.loads(socket.recv())
            if answer.get("id") == number:
                return dict(answer)

    collected = 0
    try:
        for target in command("Target.getTargets").get("result", {}).get("targetInfos", []):
            if target.get("type") not in TARGET_TYPES:
                continue
            attached = command("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
            session = attached.get("result", {}).get("sessionId")
            if not session:
                continue
            if "error" not in command("HeapProfiler.collectGarbage", session=session):
                collected += 1
            command("Target.detachFromTarget", {"sessionId": session})
    finally:
        socket.close()
    return collected
