"""The smoke suite through a Selenium Grid standalone on 127.0.0.1, for Chromium and Firefox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset.drivers.selenium import SeleniumConfig, SeleniumDriver
from tests.support.browser_suite import SmokeSuite
from tests.support.browsers import require_browser

pytestmark = [pytest.mark.browser, pytest.mark.grid]


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def driver(request: pytest.FixtureRequest, grid: str) -> Iterator[SeleniumDriver]:
    require_browser(request.param)
    with SeleniumDriver(SeleniumConfig(browser=request.param, remote_url=grid)) as remote:
        yield remote


class TestGrid(SmokeSuite):
    pass
