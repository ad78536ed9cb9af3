"""Issue 16, items 2 and 6 on real browsers through `browser-toolset exec`: both browsers start and load a page with
a 120-character TMPDIR (Chromium could not, once TMPDIR reached 33: its singleton socket's path passed the 107-byte
limit), with the session's folders under a short base, which the reaper still removes when the command is
SIGKILLed; and a browser binary that is not there is named in the command's message.

The messages of starts that cannot happen without a browser (nothing installed, the Grid's three failures, `grid`
on a port in use) are in tests/unit/test_start_errors.py. Each test here runs a `browser-toolset exec` of its own:
its TMPDIR and its processes are the point.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browsers import require_browser
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import tool_use

BROWSERS = ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)]
EXE = str(Path(sys.executable).with_name("browser-toolset"))
MARKER = b"BROWSER_TOOLSET_SESSION="


def _reaper_folders(pids: list[int]) -> list[str]:
    """The folders the session's reaper (one of `pids`) is to remove: the arguments after its pid, start time and
    marker (`reaper.py SERVICE_PID SERVICE_START MARKER FOLDER...`)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                args = file.read().decode().split("\0")
        except OSError:
            continue
        if len(args) > 1 and args[1].endswith("reaper.py"):
            return [arg for arg in args[5:] if arg]
    return []


def _marked(folder: str) -> list[int]:
    """Live processes carrying the marker of the session whose scratch folder is `folder`."""
    wanted = MARKER + folder.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read().decode("latin-1")
            with open(f"/proc/{name}/environ", "rb") as file:
                entries = file.read().split(b"\0")
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX" and wanted in entries:
            found.append(int(name))
    return found


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                data = file.read().decode("latin-1")
        except OSError:
            continue
        parents[int(name)] = int(data[data.rindex(")") + 2 :].split()[1])
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                stack.append(child)
    return sorted(found)


@pytest.fixture
def long_tmpdir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="bt-long-tmpdir-" + "t" * 92, dir="/tmp"))
    assert len(str(folder)) == 120
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.long
@pytest.mark.parametrize("browser", BROWSERS)
def test_16_2_long_tmpdir(browser: str, long_tmpdir: Path, server: PageServer) -> None:
    require_browser(browser)  # type: ignore[arg-type]
    env = {**os.environ, "TMPDIR": str(long_tmpdir)}
    command = [EXE, "exec", "--driver", "selenium", "--browser", browser, "--allow-private"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    folders: list[str] = []
    scratch = ""
    try:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(json.dumps([tool_use("navigate", {"url": server.url("index.html")})]) + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
        assert "(HTTP 200)" in answer, answer or process.stderr.read()
        folders = _reaper_folders(_descendants(process.pid))
        print(f"\n[long tmpdir] {browser}: under a {len(str(long_tmpdir))}-character TMPDIR, the folders are {folders}")
        scratch = next(folder for folder in folders if Path(folder).name.startswith("browser-toolset-tmp-"))
        assert all(Path(folder).parent == Path("/tmp") for folder in folders), "under a short base"
        assert os.listdir(long_tmpdir) == [], "nothing of the session goes under the long TMPDIR"
        assert _marked(scratch), "the WebDriver binary and the browser carry the session's marker"
        process.kill()  # no handler of ours runs: the reaper ends the session and removes its folders
        process.wait(timeout=30)
        wait_until(lambda: not _marked(scratch) and not any(os.path.exists(f) for f in folders), timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _marked(scratch) if scratch else []:  # never leave a browser behind, even when the test fails
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("browser", BROWSERS)
def test_16_6_a_browser_binary_that_is_not_there_is_named(browser: str) -> None:
    missing = f"/nonexistent/{browser}"
    done = subprocess.run(
        [EXE, "exec", "--driver", "selenium", "--browser", browser, "-o", f"browser_binary={missing}"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"the {'Firefox' if browser == 'firefox' else 'Chromium'} binary {missing} (from the driver option " in (
        done.stderr
    )
    assert "browser_binary) does not exist" in done.stderr and "Traceback" not in done.stderr
    assert "session not created" not in done.stderr
