"""The Selenium driver: Chromium, Chrome, Firefox or a Selenium Grid, steered through WebDriver BiDi.

`SeleniumDriver(SeleniumConfig(...))` starts a browser; `SeleniumDriver.from_options({...})` does the same from
driver option strings (the `selenium` entry point, `--driver selenium -o key=value`), whose keys `options()` lists.
The modules are organised by BiDi domain; `driver` says how they fit together.
"""

from __future__ import annotations

from .driver import SeleniumDriver
from .launch import CHROMIUM_FLAGS, find_browser_binary, find_driver_binary
from .options import BROWSERS, DIALOG_POLICIES, Browser, DialogPolicy, DriverOption, Option, SeleniumConfig, options
from .script import walker_source

__all__ = [
    "BROWSERS",
    "CHROMIUM_FLAGS",
    "DIALOG_POLICIES",
    "Browser",
    "DialogPolicy",
    "DriverOption",
    "Option",
    "SeleniumConfig",
    "SeleniumDriver",
    "find_browser_binary",
    "find_driver_binary",
    "options",
    "walker_source",
]
