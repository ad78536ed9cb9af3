"""The processes and folders a local browser session owns, and ending them whatever happens.

The WebDriver binary starts in a session (and process group) of its own, so the browser and every helper process
it spawns can be found in `/proc` even after their parent died, and `LaunchedSession.shutdown()` ends them all
(SIGTERM, then SIGKILL) and removes the temporary folders. A watchdog does the same as soon as the WebDriver binary
dies, and an `atexit` hook (plus the SIGTERM/SIGHUP handlers of `install_cleanup_handlers`) covers an interpreter
that exits without closing the driver. Nothing of ours runs when the interpreter is SIGKILLed, so a reaper process
of the session's own (`start_reaper`) ends it all then.

Ctrl-C can land anywhere, also in the middle of this bookkeeping: the clean-up runs with SIGINT held back
(`interrupts.interrupts_deferred`) and the `KeyboardInterrupt` raised once it is done, so an interrupted close
still ends every process and removes every folder.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import TYPE_CHECKING, Any

import attrs

from . import reaper as reaper_script
from .connection import BidiConnection
from .interrupts import interrupts_deferred
from .reaper import all_pids, has_marker, proc_stat, session_pids

if TYPE_CHECKING:
    from .egress import EgressProxy

__all__ = [
    "SESSION_ENV",
    "LaunchedSession",
    "SessionProcesses",
    "install_cleanup_handlers",
    "kill_marked",
    "shutdown_all_sessions",
    "start_reaper",
]

log = logging.getLogger(__name__)


# --- the processes and folders a session owns ----------------------------------------------------------------

SESSION_ENV = "BROWSER_TOOLSET_SESSION"


def start_reaper(service_pid: int, marker: bytes | None, folders: Iterable[str]) -> subprocess.Popen[bytes] | None:
    """Start the process that ends the session if this one dies without ending it, even by SIGKILL (no atexit hook,
    signal handler or watchdog thread of ours runs then). It holds the read end of a pipe only we can write to; the
    kernel closes our end when we die, however we die.

    Not `prctl(PR_SET_PDEATHSIG)` on the WebDriver binary: that signal fires when the *thread* that started the
    child exits (a session started from a worker thread would lose its browser with that thread), and it would
    kill only the WebDriver binary, which leaves the browser running. The reaper is in a session of its own, so
    the signal that kills our process group does not reach it. None where there is no /proc to scan."""
    stat = proc_stat(service_pid)
    if stat is None or not os.path.isdir("/proc"):
        return None
    marker_text = marker.decode() if marker else ""
    try:
        return subprocess.Popen(
            [sys.executable, reaper_script.__file__, str(service_pid), str(stat[3]), marker_text, *folders],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        log.warning("could not start the reaper of the browser session", exc_info=True)
        return None


def kill_marked(marker: bytes, grace: float = 1.0) -> list[int]:
    """End every process whose environment carries `marker` (SIGTERM, then SIGKILL after `grace` seconds): what a
    start left behind when it was cut short before the WebDriver binary's process was known. Returns the survivors."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        pids = session_pids(-1, 0, marker)
        if not pids:
            return []
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and session_pids(-1, 0, marker):
            time.sleep(0.05)
    return session_pids(-1, 0, marker)


@attrs.define
class SessionProcesses:
    """The processes of one local session: the WebDriver binary (started as a session leader, so everything it
    spawns shares its session id even after being orphaned) and every descendant seen. Each is remembered with its
    start time, so a reused PID is never signalled."""

    service_pid: int
    reap: Callable[[], object] | None = None
    """Collects the WebDriver binary's exit status (it is our child), so it does not linger as a zombie."""
    known: dict[int, int] = attrs.field(factory=dict)
    browser_pids: list[int] = attrs.field(factory=list)
    marker: bytes | None = None
    """`SESSION_ENV=<folder>` in the environment of every process of the session: how helpers that detach into a
    session of their own (Chromium's crashpad handler, Firefox's crash helper) are found."""
    reaper: subprocess.Popen[bytes] | None = None
    """The process that ends the session should ours die without doing it (`start_reaper`)."""
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def release_reaper(self) -> None:
        """Tell the reaper the session was ended properly (so it leaves at once), and collect its exit status."""
        reaper, self.reaper = self.reaper, None
        if reaper is None or reaper.stdin is None:
            return
        with contextlib.suppress(OSError, ValueError):
            reaper.stdin.write(b"done")
        with contextlib.suppress(OSError, ValueError):
            reaper.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            reaper.wait(timeout=5)

    def scan(self, *, deep: bool = False) -> list[int]:
        """Every live process of the session now (and remember them). `deep` also reads every process's environment
        for the session's marker, to find helpers that left the session and were reparented."""
        stats = {pid: stat for pid in all_pids() if (stat := proc_stat(pid)) is not None}
        children: dict[int, list[int]] = {}
        for pid, stat in stats.items():
            children.setdefault(stat[0], []).append(pid)
        with self._lock:
            roots = [self.service_pid, *self.known]
            found: set[int] = set()
            stack = [pid for pid in roots if pid in stats and self._same(pid, stats[pid])]
            while stack:
                pid = stack.pop()
                if pid in found:
                    continue
                found.add(pid)
                stack.extend(children.get(pid, ()))
            found.update(pid for pid, stat in stats.items() if stat[2] == self.service_pid)
            if deep and self.marker is not None:
                found.update(pid for pid in stats if pid not in found and has_marker(pid, self.marker))
            for pid in found:
                self.known.setdefault(pid, stats[pid][3])
            return sorted(found)

    def _same(self, pid: int, stat: tuple[int, int, int, int]) -> bool:
        started = self.known.get(pid)
        return started is None or started == stat[3]

    def running(self, pid: int) -> bool:
        """Whether `pid` is still the live process remembered under that number."""
        stat = proc_stat(pid)
        return stat is not None and self._same(pid, stat)

    def note_browser(self) -> None:
        """Remember the WebDriver binary's children now (the browser's main process) for the watchdog."""
        self.scan()
        self.browser_pids = [pid for pid in self.known if (stat := proc_stat(pid)) and stat[0] == self.service_pid]

    def kill(self, grace: float = 3.0) -> list[int]:
        """End every process of the session: SIGTERM, then SIGKILL after `grace` seconds. Returns what was left
        alive after the SIGKILL (normally nothing)."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
            pids = self.scan(deep=True)
            if not pids:
                return []
            with contextlib.suppress(OSError):
                os.killpg(self.service_pid, sig)
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and self.scan():
                self._reap()
                time.sleep(0.05)
        self._reap()
        return self.scan()

    def _reap(self) -> None:
        if self.reap is not None:
            with contextlib.suppress(Exception):
                self.reap()


@attrs.define(eq=False)
class LaunchedSession:
    """A started WebDriver session and what lives as long as it does: temporary folders, the egress proxy, and
    (locally) the processes. `shutdown()` ends all of it and may be called any number of times."""

    webdriver: Any
    """The Selenium WebDriver (untyped: Selenium ships no type information)."""
    websocket_url: str
    download_dir: str
    temp_dirs: tuple[str, ...]
    proxy: EgressProxy | None = None
    processes: SessionProcesses | None = None
    marker: bytes | None = None
    """`SESSION_ENV=<folder>` of a local session: how `shutdown()` finds the processes of a start cut short before
    the WebDriver binary's process was known (it ends every process carrying it)."""
    connection: BidiConnection | None = None
    """The BiDi connection `connect()` opened, closed first by `shutdown()`."""
    _done: bool = attrs.field(default=False, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)
    _death: str | None = attrs.field(default=None, init=False)

    def started(self, websocket_url: str, download_dir: str) -> LaunchedSession:
        """The session `launch` was building, now started: from here on the `atexit` hook and the signal handlers
        end it too."""
        self.websocket_url = websocket_url
        self.download_dir = download_dir
        _LIVE.add(self)
        return self

    def connect(self, timeout: float) -> BidiConnection:
        """Open the session's BiDi connection (`timeout`: its commands' default deadline), which `shutdown()` closes
        first. Behind the egress proxy, a failed navigation says what the proxy met (`EgressProxy.explain`)."""
        explain = self.proxy.explain if self.proxy is not None else None
        self.connection = BidiConnection(self.websocket_url, timeout=timeout, explain=explain)
        return self.connection

    def service_alive(self) -> bool:
        """Whether the local WebDriver binary still runs (always True for a remote session)."""
        process = getattr(getattr(self.webdriver, "service", None), "process", None)
        return process is None or process.poll() is None

    def death(self) -> str | None:
        """Why the local session's WebDriver binary or browser is gone (`chromedriver exited`, `the browser process
        exited`), or None while both run (always None for a remote session).

        The first answer is kept: the watchdog ends the browser once the WebDriver binary is gone, and geckodriver
        may exit once its browser is gone, so a later look would find both dead. The browser is looked at first
        because a WebDriver binary's death does not take the browser with it (only the watchdog does), while a
        browser's death can take the binary: when both are found gone at one look, the browser went first."""
        if self._death is not None:
            return self._death
        processes = self.processes
        if (
            processes is not None
            and processes.browser_pids
            and not any(processes.running(pid) for pid in processes.browser_pids)
        ):
            self._death = "the browser process exited"
        elif not self.service_alive():
            binary = "geckodriver" if "firefox" in type(self.webdriver).__module__ else "chromedriver"
            self._death = f"{binary} exited"
        return self._death

    def quit(self, timeout: float = 10.0, *, interrupted: Callable[[], bool] = lambda: False) -> None:
        """Ask WebDriver to end the session, giving up after `timeout` seconds (a wedged browser is killed anyway)
        or as soon as `interrupted()` says Ctrl-C was pressed."""
        worker = threading.Thread(target=self._quit, name="webdriver-quit", daemon=True)
        worker.start()
        deadline = time.monotonic() + timeout
        while worker.is_alive() and not interrupted() and time.monotonic() < deadline:
            worker.join(min(0.1, max(0.0, deadline - time.monotonic())))

    def _quit(self) -> None:
        try:
            self.webdriver.quit()
        except Exception:  # the browser may already be gone; closing must not fail
            log.debug("quitting the WebDriver session failed", exc_info=True)

    def shutdown(self, *, graceful: bool = True) -> None:
        """End the session: its BiDi connection, WebDriver's quit (when `graceful` and the binary is alive), then
        every leftover process, the proxy and the temporary folders. Ctrl-C meanwhile skips the graceful quit and
        is raised once everything is gone."""
        with interrupts_deferred() as interrupted:
            with self._lock:
                if self._done:
                    return
                self._done = True
            _LIVE.discard(self)
            if self.connection is not None:
                self.connection.close()
            if self.processes is not None:
                self.processes.scan()  # remember the tree before quitting reshapes it
            if graceful and not interrupted() and self.service_alive():
                self.quit(interrupted=interrupted)
            if self.processes is not None:
                left = self.processes.kill(grace=0.5 if interrupted() else 3.0)
                if left:
                    log.warning("processes %s of the browser session survived SIGKILL", left)
            elif self.marker is not None:
                kill_marked(self.marker)
            if self.proxy is not None:
                self.proxy.stop()
            for folder in self.temp_dirs:
                shutil.rmtree(folder, ignore_errors=True)
            if self.processes is not None:
                self.processes.release_reaper()

    def watch(self, on_death: Callable[[str], None], interval: float = 0.5) -> None:
        """Call `on_death(why)` once (on a daemon thread) when the local WebDriver binary or the browser exits,
        after ending every process the session left behind."""
        processes = self.processes
        if processes is None:
            return

        def run() -> None:
            while not self._done:
                why = self.death()
                if why is not None:
                    if not self._done:
                        processes.kill(grace=1.0)
                    with contextlib.suppress(Exception):
                        on_death(why)
                    return
                time.sleep(interval)

        threading.Thread(target=run, name="webdriver-watchdog", daemon=True).start()


_LIVE: set[LaunchedSession] = set()
"""Sessions not shut down yet: ended by the atexit hook and the signal handlers."""


def _shutdown_all(graceful: bool = True) -> None:
    for session in list(_LIVE):
        with contextlib.suppress(Exception):
            session.shutdown(graceful=graceful)


atexit.register(_shutdown_all)

_HANDLED_SIGNALS = ("SIGTERM", "SIGHUP")


def install_cleanup_handlers(signals: Iterable[str] = _HANDLED_SIGNALS) -> bool:
    """End every live browser session when the process gets SIGTERM or SIGHUP, then exit with status 128+signal
    (SIGINT already raises `KeyboardInterrupt`, and the `atexit` hook covers it). Only installs over the default
    disposition, from the main thread; returns whether anything was installed. `launch` calls it; a program with its
    own handlers should call `shutdown_all_sessions()` from them instead."""
    if threading.current_thread() is not threading.main_thread():
        return False
    installed = False
    for name in signals:
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            if signal.getsignal(number) is not signal.SIG_DFL:
                continue
            signal.signal(number, _on_signal)
            installed = True
        except (OSError, ValueError):
            continue
    return installed


def shutdown_all_sessions() -> None:
    """Kill every process and remove every folder of every live session now (for a program's own signal handler)."""
    _shutdown_all(graceful=False)


def _on_signal(number: int, frame: FrameType | None) -> None:
    _shutdown_all(graceful=False)
    raise SystemExit(128 + number)
