"""A local Selenium Grid for the scale-out figures: a hub and two nodes (each with four Chromium slots), all bound to
127.0.0.1, or Grid standalone when the hub and nodes do not come up. The jar is found like the test suite finds it
(`SELENIUM_SERVER_JAR`, `.cache/grid/`, `/tmp/gridjar/`)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["Grid", "grid_jar", "local_grid"]

ROOT = Path(__file__).resolve().parent.parent


def grid_jar() -> str | None:
    configured = os.environ.get("SELENIUM_SERVER_JAR")
    if configured and os.path.isfile(configured):
        return configured
    for pattern in (ROOT / ".cache/grid/package/jar", Path("/tmp/gridjar/package/jar")):
        found = sorted(glob.glob(str(pattern / "selenium-server-*.jar")))
        if found:
            return found[-1]
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def node_config(folder: Path, slots: int) -> Path:
    """Names the Debian Chromium and its chromedriver outright: Grid's own detection looks for Google Chrome and
    would ask Selenium Manager to download one."""
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    stereotype = json.dumps({"browserName": "chrome", "goog:chromeOptions": {"binary": browser}})
    path = folder / f"node-{slots}.toml"
    path.write_text(
        f"[node]\ndetect-drivers = false\nselenium-manager = false\noverride-max-sessions = true\n"
        f'max-sessions = {slots}\n\n[[node.driver-configuration]]\ndisplay-name = "chromium"\n'
        f"webdriver-executable = \"{driver}\"\nmax-sessions = {slots}\nstereotype = '{stereotype}'\n"
    )
    return path


class Grid:
    def __init__(self, url: str, kind: str, processes: list[subprocess.Popen[bytes]]) -> None:
        self.url = url
        self.kind = kind
        self.processes = processes

    def slots(self) -> int:
        with urllib.request.urlopen(f"{self.url}/status", timeout=5) as response:
            nodes = json.load(response)["value"].get("nodes", [])
        return sum(len(node.get("slots", [])) for node in nodes)

    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]


def _ready(url: str, slots: int) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/status", timeout=2) as response:
            value = json.load(response)["value"]
    except (OSError, ValueError):
        return False
    have = sum(len(node.get("slots", [])) for node in value.get("nodes", []))
    return bool(value.get("ready")) and have >= slots


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def local_grid(sessions: int = 8, timeout: float = 120.0) -> Iterator[Grid]:
    """Hub + two nodes of `sessions / 2` slots; Grid standalone with `sessions` slots if that fails to start."""
    jar, java = grid_jar(), shutil.which("java")
    if not jar or not java:
        raise FileNotFoundError("no Selenium Grid jar (SELENIUM_SERVER_JAR) or no java")
    folder = Path(tempfile.mkdtemp(prefix="bench-grid-"))
    log = (folder / "grid.log").open("wb")
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> None:
        processes.append(
            subprocess.Popen([java, "-jar", jar, *args], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        )

    def wait(url: str, slots: int) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _ready(url, slots):
                return True
            if any(process.poll() is not None for process in processes):
                return False
            time.sleep(0.5)
        return False

    try:
        port, publish, subscribe = free_port(), free_port(), free_port()
        url = f"http://127.0.0.1:{port}"
        bus = ["--publish-events", f"tcp://127.0.0.1:{publish}", "--subscribe-events", f"tcp://127.0.0.1:{subscribe}"]
        start("hub", "--host", "127.0.0.1", "--port", str(port), *bus)
        half = max(1, sessions // 2)
        for _ in range(2):
            start("node", "--host", "127.0.0.1", "--port", str(free_port()), *bus, "--hub", url,
                  "--config", str(node_config(folder, half)))  # fmt: skip
        kind = "hub + 2 nodes"
        if not wait(url, 2 * half):
            _stop(processes)
            processes.clear()
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            start(
                "standalone", "--host", "127.0.0.1", "--port", str(port), "--config", str(node_config(folder, sessions))
            )
            kind = "standalone (hub + nodes did not come up)"
            if not wait(url, sessions):
                tail = (folder / "grid.log").read_text(errors="replace")[-1500:]
                raise RuntimeError(f"Selenium Grid did not start:\n{tail}")
        yield Grid(url, kind, processes)
    finally:
        _stop(processes)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
