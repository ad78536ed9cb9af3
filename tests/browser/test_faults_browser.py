"""Fault injection on real headless browsers: a killed browser, a killed chromedriver/geckodriver, SIGTERM to a
`browser-toolset exec` mid-session, and a frozen page. Checks the error texts, the recovery with `restart=on`, and
that no process and no temporary folder is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.driver_errors import DriverError
from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver
from tests.support.browsers import require_browser
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import Session, images, ok, state, text, tool_use

pytestmark = pytest.mark.browser

BROWSERS = ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)]
SHORT_BASE = "/tmp"
"""Where the exec tests make the TMPDIR they give the session: short, so that the session's folders go under it
(under a TMPDIR too long for the browser's sockets they would go to /tmp, where the test would not look for them)."""


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie is dead: only its exit status is left, for a parent that never collects it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read().decode("latin-1")
    except OSError:
        return False
    return data[data.rindex(")") + 2] not in "ZX"


def _all_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if _alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [pid for pid in left if _alive(pid)]
    return left


def _marked(prefix: str) -> list[int]:
    """Live processes whose environment has `BROWSER_TOOLSET_SESSION` starting with `prefix`: the session's helpers
    that detach into sessions of their own (Chromium's crashpad handler, Firefox's crash helper) included."""
    wanted = f"BROWSER_TOOLSET_SESSION={prefix}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as file:
                entries = file.read().split(b"\0")
        except OSError:
            continue
        if any(entry.startswith(wanted) for entry in entries) and _alive(int(name)):
            found.append(int(name))
    return found


def _session_of(driver: SeleniumDriver) -> tuple[list[int], tuple[str, ...], list[int]]:
    """(every process of the driver's session, its temporary folders, the browser's main processes)."""
    session = driver._session
    assert session.processes is not None
    return session.processes.scan(), session.temp_dirs, list(session.processes.browser_pids)


@pytest.fixture(scope="module")
def pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


@pytest.mark.parametrize("browser", BROWSERS)
def test_a_killed_browser_is_reported_and_leaves_nothing(browser: str) -> None:
    require_browser(browser)  # type: ignore[arg-type]
    driver = SeleniumDriver(SeleniumConfig(browser=browser))
    try:
        pids, folders, main = _session_of(driver)
        assert main, "the browser's main process is known"
        os.kill(main[0], signal.SIGKILL)
        why = wait_until(driver.dead, timeout=10)
        print(f"\n[faults] {browser} browser killed: {why}")
        assert why == "the browser process exited"
        # the watchdog ended the rest of the browser (and the WebDriver binary keeps running or exits by itself)
        with pytest.raises(DriverError) as failure:
            driver.list_tabs()
        assert "the browser session has ended" in str(failure.value)
        assert "restart=on" in str(failure.value)
    finally:
        driver.close()
    assert _all_gone(pids) == []
    assert [folder for folder in folders if os.path.exists(folder)] == []
    assert [_marked(folder) for folder in folders if "-tmp-" in folder] == [[]]


@pytest.mark.parametrize("browser", BROWSERS)
def test_a_killed_webdriver_binary_takes_the_browser_with_it(browser: str) -> None:
    require_browser(browser)  # type: ignore[arg-type]
    driver = SeleniumDriver(SeleniumConfig(browser=browser))
    try:
        pids, folders, _ = _session_of(driver)
        service = driver._session.processes.service_pid  # type: ignore[union-attr]
        os.kill(service, signal.SIGKILL)
        why = wait_until(driver.dead, timeout=10)
        print(f"\n[faults] {browser} WebDriver binary killed: {why}")
        assert why in ("chromedriver exited", "geckodriver exited")
        # without any further call, the watchdog has ended the browser's whole process tree
        assert _all_gone(pids) == []
    finally:
        driver.close()
    assert [folder for folder in folders if os.path.exists(folder)] == []


@pytest.mark.long
@pytest.mark.parametrize("browser", BROWSERS)
def test_restart_on_starts_a_fresh_browser_and_reports_its_tabs(browser: str, pages: PageServer) -> None:
    require_browser(browser)  # type: ignore[arg-type]
    driver = SeleniumDriver(SeleniumConfig(browser=browser, restart=True))
    toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True))
    session = Session(toolset)
    try:
        session.call("navigate", url=pages.url("index.html"))
        old_pids, old_folders, main = _session_of(driver)
        os.kill(main[0], signal.SIGKILL)
        wait_until(driver.dead, timeout=10)
        failed = session.call("navigate", url=pages.url("form.html"))
        print(f"\n[faults] {browser} restart: {text(failed)!r}")
        assert failed.get("is_error") is True
        assert "a fresh browser was started with one blank tab" in text(failed)
        assert "Call list_tabs" in text(failed)
        listing = session.call("list_tabs")
        print(f"[faults] {browser} tabs after the restart: {state(listing)}")
        tabs = state(listing)["tabs"]
        assert len(tabs) == 1 and tabs[0]["url"] == "about:blank"
        assert {"type": "tab_opened", "tab_id": tabs[0]["tab_id"]} in state(listing).get("state_changes", [])
        # the new browser works, and the old one left nothing behind
        again = session.call("navigate", url=pages.url("form.html"))
        assert not again.get("is_error"), text(again)
        assert driver.restarts == 1
        assert _all_gone(old_pids) == []
        assert [folder for folder in old_folders if os.path.exists(folder)] == []
        new_pids, new_folders, _ = _session_of(driver)
    finally:
        toolset.close()
    assert _all_gone(new_pids) == []
    assert [folder for folder in new_folders if os.path.exists(folder)] == []


@pytest.mark.long
def test_a_frozen_page_fails_within_the_deadlines(pages: PageServer) -> None:
    require_browser("chromium")
    config = SeleniumConfig(browser="chromium", script_timeout=2, command_timeout=4)
    driver = SeleniumDriver(config)
    elsewhere = PageServer(host="127.0.0.2")
    try:
        pids, folders, _ = _session_of(driver)
        driver.set_url_guard(lambda url: True)
        handle = driver.list_tabs()[0].handle
        # another tab, of another site (a page of the same site may share the frozen page's renderer process)
        other = driver.open_tab()
        driver.navigate(other, elsewhere.url("form.html"))
        driver.navigate(handle, pages.url("index.html"))
        # Which deadline ended each call is in its error (script_timeout for the script, command_timeout for the
        # capture); the time each took is printed, never asserted.
        started = time.monotonic()
        with pytest.raises(DriverError) as frozen:
            driver.evaluate(handle, "(() => { for (;;) {} })()")
        print(f"\n[faults] busy loop: {frozen.value} ({time.monotonic() - started:.1f} s)")
        assert str(frozen.value) == "the browser did not finish the script within 2 seconds"
        started = time.monotonic()
        with pytest.raises(DriverError) as capture:
            driver.capture(handle)
        print(f"[faults] capture of the frozen page: {capture.value} ({time.monotonic() - started:.1f} s)")
        assert str(capture.value) == "the browser did not capture the page within 4 seconds"
        # The session goes on: the other tab answers, and a new tab opens. (Chromium's BiDi stopped answering for
        # every tab after such a freeze about half the time, until the driver stopped handing out the tab Chromium
        # starts with: see `Tabs.reserve_first`.)
        assert driver.evaluate(other, "document.querySelector('form').id") == "form"
        assert driver.capture(other).png.startswith(b"\x89PNG")
        third = driver.open_tab()
        driver.navigate(third, elsewhere.url("index.html"))
        assert {tab.handle for tab in driver.list_tabs()} == {handle, other, third}
    finally:
        driver.close()
        elsewhere.close()
    assert _all_gone(pids) == []
    assert [folder for folder in folders if os.path.exists(folder)] == []


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


def _exec_with_a_page(browser: str, scratch: str, pages: PageServer) -> subprocess.Popen[str]:
    """`browser-toolset exec` on `browser`, its temporary folders under `scratch`, once it has loaded a page."""
    env = {**os.environ, "TMPDIR": scratch}
    exe = Path(sys.executable).with_name("browser-toolset")
    command = [str(exe), "exec", "--driver", "selenium", "--browser", browser, "--allow-private"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps([tool_use("navigate", {"url": pages.url("index.html")})]) + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
        assert "tool_result" in answer, answer
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_exec_leaves_no_process_or_folder(signal_number: int, pages: PageServer) -> None:
    require_browser("chromium")
    with tempfile.TemporaryDirectory(prefix="faults-tmp-", dir=SHORT_BASE) as scratch:
        process = _exec_with_a_page("chromium", scratch, pages)
        try:
            tree = _descendants(process.pid)
            assert len(tree) >= 2, "chromedriver and the browser run"
            process.send_signal(signal_number)
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        print(f"\n[faults] exec after {signal.Signals(signal_number).name}: exit {process.returncode}")
        left = _all_gone(tree + _marked(scratch))
        for pid in left:  # do not leave them behind even when the test fails
            os.kill(pid, signal.SIGKILL)
        assert left == []
        assert os.listdir(scratch) == []


@pytest.mark.long
@pytest.mark.parametrize("browser", BROWSERS)
def test_a_sigkilled_exec_leaves_no_process_or_folder(browser: str, pages: PageServer) -> None:
    """SIGKILL runs no handler of ours: the session's reaper (a process of its own, `launch.start_reaper`) sees our
    end of its pipe close and ends the WebDriver binary, the browser and its detached helpers, and removes the
    temporary folders."""
    require_browser(browser)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="faults-tmp-", dir=SHORT_BASE) as scratch:
        process = _exec_with_a_page(browser, scratch, pages)
        try:
            tree = _descendants(process.pid)
            marked = _marked(scratch)
            assert len(tree) >= 3, "the WebDriver binary, the browser and the reaper run"
            assert marked, "the session's processes carry its marker"
            process.kill()
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        print(f"\n[faults] {browser} exec after SIGKILL: {len(tree)} processes to end")
        left = _all_gone(tree + marked + _marked(scratch), timeout=20)
        for pid in left:  # do not leave them behind even when the test fails
            os.kill(pid, signal.SIGKILL)
        assert left == []
        wait_until(lambda: os.listdir(scratch) == [], timeout=10)


class _Silent:
    """A listener that accepts connections and never answers: a server that hangs every request."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.mark.long
def test_a_hung_script_and_a_silent_server_fail_at_their_deadlines_and_the_session_goes_on(pages: PageServer) -> None:
    """Through the executor on Chromium: a script that never returns (`javascript_exec` of `while (true) {}`) and a
    server that never answers (`navigate`) each end in an error result naming its configured deadline; the
    session keeps working (another tab navigates, screenshots and runs scripts)."""
    require_browser("chromium")
    config = SeleniumConfig(browser="chromium", script_timeout=2, navigation_timeout=3, command_timeout=6)
    silent = _Silent()
    driver = SeleniumDriver(config)
    try:
        session = Session(
            BrowserToolset(
                driver,
                navigation=URLPolicy(allow_private=True),
                configs={"javascript_exec": {"enabled": True}},
                confirm=lambda context: True,
            )
        )
        started = time.monotonic()
        never = f"http://127.0.0.1:{silent.port}/never"
        hung = text(session.call("navigate", url=never))
        print(f"\n[faults] navigate to a silent server: {hung} ({time.monotonic() - started:.1f} s)")
        assert hung == f"Error: Navigation to {never} timed out after 3 seconds. The page may be unavailable."
        # The navigation is still pending, and holds every script of the tab: the tab list (and so every call's
        # browser_state) asks the page once and briefly, never with the patient title read (three 3-second tries).
        (handle,) = [info.handle for info in driver.list_tabs() if info.active]
        pending = driver._contexts.latest_navigation(handle)
        assert pending is not None and pending.stage == "started"
        asked: list[str] = []
        title = driver._scripts.title

        def spy(handle: str) -> str:
            asked.append(handle)
            return title(handle)

        driver._scripts.title = spy  # type: ignore[method-assign]
        driver.list_tabs()
        driver._scripts.title = title  # type: ignore[method-assign]
        assert asked == []
        ok(session.call("navigate", url=pages.url("index.html")))
        started = time.monotonic()
        frozen = text(session.call("javascript_exec", text="while (true) {}"))
        print(f"[faults] javascript_exec busy loop: {frozen} ({time.monotonic() - started:.1f} s)")
        assert frozen == "Error: the browser did not finish the script within 2 seconds", frozen
        # the session goes on in a fresh tab
        started = time.monotonic()
        ok(session.call("new_tab"))
        ok(session.call("navigate", url=pages.url("form.html")))
        assert text(ok(session.call("javascript_exec", text="document.title"))) == "Form"
        assert images(ok(session.call("screenshot")))
        print(f"[faults] then a new tab works ({time.monotonic() - started:.1f} s)")
    finally:
        driver.close()
        silent.close()
