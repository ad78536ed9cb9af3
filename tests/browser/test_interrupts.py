"""Issue 16, item 10: Ctrl-C at any moment of a browser's start or close leaves no process and no folder behind, and
prints no traceback (it once printed one and left a profile folder behind in 2 of 3 tries).

A tiny program starts a `SeleniumDriver` and closes it at once, as any program would, catching `KeyboardInterrupt`
to exit 130. Its runs each get a fresh, short TMPDIR (under which every folder of the session goes), and SIGINT after
a seeded delay between 0 and the time an uninterrupted start and close took (that first run is measured, and
checked the same way). Afterwards no process may carry that TMPDIR (in its environment, as every process of the
session does, or its command line, as the reaper's does), the TMPDIR must be empty, and standard error must hold
no traceback. Ten points per browser (the two browsers in parallel) keep the test to about a minute. A browser of
each run's own: starting and interrupting one is the point.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.support.browsers import require_browser
from tests.support.polling import wait_until

POINTS = 10
"""Interruptions per browser (twenty in all)."""

SEED = 16_10

PROGRAM = """
import sys, time
from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver

print("ready", flush=True)
try:
    begun = time.monotonic()
    driver = SeleniumDriver(SeleniumConfig(browser=sys.argv[1]))
    driver.close()
    print(f"closed {time.monotonic() - begun:.3f}", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def _of_run(base: str) -> list[int]:
    """Live processes of the run whose TMPDIR is `base`: those whose environment names a folder under it (the
    program itself, the WebDriver binary, the browser and its helpers) or whose command line does (the reaper)."""
    wanted = (f"TMPDIR={base}".encode(), f"BROWSER_TOOLSET_SESSION={base}".encode())
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read().decode("latin-1")
            if stat[stat.rindex(")") + 2] in "ZX":
                continue
            with open(f"/proc/{name}/environ", "rb") as file:
                environ = file.read().split(b"\0")
            with open(f"/proc/{name}/cmdline", "rb") as file:
                cmdline = file.read()
        except (OSError, ValueError):
            continue
        if any(entry.startswith(wanted) for entry in environ) or base.encode() in cmdline:
            found.append(int(name))
    return found


class Run:
    """One run of `PROGRAM` on `browser` with a TMPDIR of its own, interrupted after `delay` seconds (None: not)."""

    def __init__(self, browser: str, delay: float | None) -> None:
        self.browser, self.delay = browser, delay
        self.base = tempfile.mkdtemp(prefix="bt-int-", dir="/tmp")
        self.took: float | None = None
        self.outcome = ""
        self.stderr = ""
        self.left: list[int] = []
        self.folders: list[str] = []

    def go(self) -> Run:
        env = {**os.environ, "TMPDIR": self.base}
        process = subprocess.Popen(
            [sys.executable, "-c", PROGRAM, self.browser],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        try:
            assert process.stdout is not None
            ready = process.stdout.readline().strip() == "ready"
            if ready and self.delay is not None:
                time.sleep(self.delay)
                if process.poll() is None:
                    process.send_signal(signal.SIGINT)
            out, self.stderr = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        lines = out.split()
        self.outcome = lines[0] if lines else f"exit {process.returncode}"
        if self.outcome == "closed":
            self.took = float(lines[1])
        try:
            wait_until(lambda: not _of_run(self.base) and not os.listdir(self.base), timeout=30, interval=0.1)
        except AssertionError:
            pass
        self.left = _of_run(self.base)
        self.folders = os.listdir(self.base)
        for pid in self.left:  # never leave a browser behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.base, ignore_errors=True)
        return self

    def problems(self) -> list[str]:
        where = f"{self.browser} interrupted at {self.delay:.2f} s" if self.delay is not None else self.browser
        found = []
        if self.outcome not in ("closed", "interrupted"):
            found.append(f"{where}: the program ended with {self.outcome}: {self.stderr[-800:]}")
        if "Traceback" in self.stderr or "Exception ignored" in self.stderr:
            found.append(f"{where}: a traceback on stderr:\n{self.stderr[-1500:]}")
        if self.left:
            found.append(f"{where}: processes left: {self.left}")
        if self.folders:
            found.append(f"{where}: folders left: {self.folders}")
        return found


def _points(browser: str, seed: int) -> list[Run]:
    """An uninterrupted run (which measures the span), then `POINTS` runs interrupted within that span."""
    first = Run(browser, None).go()
    runs = [first]
    if first.took is None:
        return runs
    chosen = random.Random(seed)
    for _ in range(POINTS):
        runs.append(Run(browser, chosen.uniform(0.0, first.took)).go())
    return runs


@pytest.mark.long(90)
@pytest.mark.firefox
def test_16_10_ctrl_c_while_starting_or_closing_leaves_nothing_on_either_browser() -> None:
    require_browser("chromium")
    require_browser("firefox")
    results: dict[str, list[Run]] = {}

    def work(browser: str, seed: int) -> None:
        results[browser] = _points(browser, seed)

    browsers = ("chromium", "firefox")
    threads = [threading.Thread(target=work, args=(browser, SEED + n)) for n, browser in enumerate(browsers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    problems = [problem for runs in results.values() for run in runs for problem in run.problems()]
    for browser, runs in results.items():
        outcomes = ", ".join(f"{run.delay:.2f}:{run.outcome}" for run in runs if run.delay is not None)
        print(f"\n[interrupts] {browser}: start+close {runs[0].took} s; {outcomes}")
    assert set(results) == {"chromium", "firefox"}
    assert all(runs[0].took is not None for runs in results.values()), problems
    assert all(len(runs) == POINTS + 1 for runs in results.values())
    assert problems == []
    # the points do interrupt (those after the program was done test nothing, but cannot be all of them)
    assert all(any(run.outcome == "interrupted" for run in runs) for runs in results.values())
