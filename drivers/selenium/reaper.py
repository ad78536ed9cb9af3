"""The reaper of a local browser session, and the /proc readings it shares with `processes.SessionProcesses`.

`processes.start_reaper` runs this file as a script with a Python of its own (standard library only, nothing of ours
imported, so it starts fast and cannot fail on our imports): it waits for end of file on its stdin; unless the last
bytes say `done`, its parent died without shutting the session down (even SIGKILL closes the pipe), so it ends
every process of the session and removes the session's temporary folders.

    python reaper.py SERVICE_PID SERVICE_START MARKER FOLDER...

A process belongs to the session when its session id is the WebDriver binary's (started as a session leader, so
everything it spawns keeps that id even once orphaned) and it started no earlier than the binary (so a reused PID
is never signalled), or when its environment carries the session's marker (`SESSION_ENV=<folder>`: helpers that
detach into a session of their own, such as Chromium's crashpad handler).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from collections.abc import Sequence

__all__ = ["all_pids", "has_marker", "main", "proc_stat", "session_pids"]


def proc_stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, process group, session id, start time) of `pid` from /proc, or None when it is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode("latin-1")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])


def has_marker(pid: int, marker: bytes) -> bool:
    """Whether `marker` (`NAME=value`) is in the environment of `pid` (never our own process)."""
    if pid == os.getpid():
        return False
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return marker in file.read().split(b"\0")
    except OSError:
        return False


def all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def session_pids(service: int, started: int, marker: bytes) -> list[int]:
    """The live processes of the session (see the module's docstring), never our own."""
    found = []
    for pid in all_pids():
        if pid == os.getpid():
            continue
        stat = proc_stat(pid)
        if stat is not None and ((stat[2] == service and stat[3] >= started) or (marker and has_marker(pid, marker))):
            found.append(pid)
    return found


def main(argv: Sequence[str]) -> int:
    service, started, marker, folders = int(argv[0]), int(argv[1]), argv[2].encode(), argv[3:]
    if sys.stdin.buffer.read().endswith(b"done"):
        return 0
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = session_pids(service, started, marker)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and session_pids(service, started, marker):
            time.sleep(0.05)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
