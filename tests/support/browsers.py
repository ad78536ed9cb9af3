"""What the browser tests add to the plugin's browser helpers (`browser_toolset.testing.plugin`: `start_browser`,
`require_browser`, `reset_browser` and the session's `chromium_driver` / `firefox_driver`): the tests' URL guard,
and small readers of tabs, trees and screenshots.

`fresh_tab` and `require_browser` are the plugin's, under the names support modules import them by here."""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import pytest
from PIL import Image

from browser_toolset.driver import Driver
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.testing.plugin import require_browser, reset_browser, start_browser
from browser_toolset.values import AXNode

__all__ = [
    "active_tab",
    "find",
    "fresh_tab",
    "guard_allows",
    "guarded",
    "js",
    "only",
    "open_tab_at",
    "own_browser",
    "pixel",
    "png_size",
    "require_browser",
]


fresh_tab = reset_browser


def guard_allows(url: str) -> bool:
    """What the tests' URL guard allows: http(s) outside `/forbidden/`, plus the blank pages."""
    if url in ("about:blank", "about:srcdoc"):
        return True
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and not parts.path.startswith("/forbidden/")


def guarded(driver: SeleniumDriver) -> SeleniumDriver:
    """`driver` reset to one blank tab (`reset_browser`) with the tests' URL guard."""
    reset_browser(driver)
    driver.set_url_guard(guard_allows)
    return driver


def only(browser: str) -> pytest.MarkDecorator:
    """Run a test on the `driver` fixture (tests/browser/conftest.py) of one shared browser, not of each."""
    return pytest.mark.parametrize("browser_kind", [browser])


def own_browser(browser: str, **options: str) -> SeleniumDriver:
    """A browser of the test's own (not the session's shared one), with the tests' URL guard: for a test whose
    point needs a launch option of its own or a browser nothing else has touched. Close it (`with`)."""
    if browser not in ("chromium", "firefox"):
        raise ValueError(f"no local browser {browser!r}: chromium or firefox")
    driver = start_browser("firefox" if browser == "firefox" else "chromium", **options)
    driver.set_url_guard(guard_allows)
    return driver


def active_tab(driver: Driver) -> str | None:
    """The handle `list_tabs` marks active, or None when no tab is open."""
    return next((info.handle for info in driver.list_tabs() if info.active), None)


def open_tab_at(driver: Driver, url: str) -> str:
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


def js(driver: Driver, handle: str, expression: str) -> str:
    """`evaluate` as a string, for page-state checks."""
    return str(driver.evaluate(handle, expression))
