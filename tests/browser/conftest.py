"""Fixtures of the browser lane. A test asks for `driver` and gets the session's shared browser (the plugin's
`chromium_driver` / `firefox_driver`, started once per worker) reset to one blank tab (`reset_browser`) with the
tests' URL guard; `tab` is that tab. `driver` runs on each of `BROWSERS` in turn; a test about one browser says
`@only("chromium")` (`tests.support.browsers.only`).

A test whose point needs a browser of its own (a launch option such as a viewport or a profile, a fault it
injects, a process it watches) starts one with `tests.support.browsers.own_browser` and says why.

`session` is the member suites' session on the module's `driver`; `walker_browser` the one headless Chromium
the walker tests share (driven through Selenium directly, so it is not the `SeleniumDriver` of `driver`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_toolset.drivers.selenium import SeleniumDriver
from tests.support.browser_suite import BrowserSession, member_session
from tests.support.browsers import active_tab, guarded
from tests.support.server import PageServer
from tests.support.walker import WalkerBrowser, chromium

BROWSERS = ["chromium", "firefox"]


@pytest.fixture(params=BROWSERS)
def browser_kind(request: pytest.FixtureRequest) -> str:
    """Which shared browser `driver` is."""
    return str(request.param)


@pytest.fixture
def driver(request: pytest.FixtureRequest, browser_kind: str) -> SeleniumDriver:
    shared: SeleniumDriver = request.getfixturevalue(f"{browser_kind}_driver")
    return guarded(shared)


@pytest.fixture
def tab(driver: SeleniumDriver) -> str:
    """The one tab `driver` has, blank and active."""
    handle = active_tab(driver)
    assert handle is not None
    return handle


@pytest.fixture
def session(driver: SeleniumDriver, server: PageServer, uploads: Path) -> BrowserSession:
    """The member suites' session on the module's `driver`."""
    return member_session(driver, server, uploads)


@pytest.fixture(scope="session")
def walker_browser() -> Iterator[WalkerBrowser]:
    with chromium() as browser:
        yield browser
