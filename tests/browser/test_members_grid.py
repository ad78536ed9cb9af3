"""The smoke suite through a Selenium Grid standalone on 127.0.0.1, for Chromium and Firefox.

The Grid's own record proves the browser ran there: its log shows the one session it created for the module's
driver, with the driver's WebDriver session id and the right browser, its `/status` shows a slot holding that
session while the suite runs, and its log shows the session stopped at the driver's request when the module is
done. The suite's navigations check that each page reached the test page server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset.drivers.selenium import Browser, SeleniumConfig, SeleniumDriver
from tests.support.browser_suite import SmokeSuite
from tests.support.browsers import require_browser
from tests.support.grid import GridWatch, held_sessions

pytestmark = [pytest.mark.browser, pytest.mark.grid]


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def driver(request: pytest.FixtureRequest, grid: str) -> Iterator[SeleniumDriver]:
    browser: Browser = request.param
    require_browser(browser)
    watch = GridWatch(grid)
    with SeleniumDriver(SeleniumConfig(browser=browser, remote_url=grid)) as remote:
        created = watch.one_started(browser)
        assert created.id == remote._session.webdriver.session_id
        assert created.id in held_sessions(grid)
        yield remote
        assert created.id in held_sessions(grid), "the Grid let go of the session while the suite ran"
    assert watch.one_ran(browser) == created


class TestGrid(SmokeSuite):
    pass
