"""Every conformance test runs once per driver: its `target` fixture is parametrized here.

The drivers: `mock`; `chromium` and `firefox` (the plugin's session-wide `chromium_driver` / `firefox_driver`,
skipped when not installed, failing under CI); `grid-chromium` and `grid-firefox` through the Selenium Grid of the
`grid` fixture, for tests marked `@smoke` only; and any driver registered under the `browser_toolset.drivers`
entry-point group that `BROWSER_TOOLSET_CONFORMANCE_DRIVERS` names (see `docs/writing-a-driver.md`):

    BROWSER_TOOLSET_CONFORMANCE_DRIVERS="mydriver headless=true,viewport=1280x800; other" pytest tests/conformance

Each entry is a driver name, then optionally its string options. Real drivers are started once per session and
reset to one blank tab before each test (`browser_toolset.testing.plugin.reset_browser`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from browser_toolset import load_driver
from browser_toolset.driver import Driver
from browser_toolset.drivers.selenium import SeleniumDriver
from tests.conformance.harness import Target

ENV = "BROWSER_TOOLSET_CONFORMANCE_DRIVERS"
F = TypeVar("F", bound=Callable[..., Any])


def smoke(test: F) -> F:
    """Also run this test through the Selenium Grid: the few tests that show a remote browser works at all."""
    test.conformance_smoke = True  # type: ignore[attr-defined]
    return test


def entry_point_drivers(value: str | None = None) -> list[tuple[str, dict[str, str]]]:
    """The drivers `BROWSER_TOOLSET_CONFORMANCE_DRIVERS` names, each with its options."""
    value = os.environ.get(ENV, "") if value is None else value
    drivers = []
    for entry in value.split(";"):
        name, _, rest = entry.strip().partition(" ")
        if not name:
            continue
        options = {}
        for pair in rest.split(","):
            if pair.strip():
                key, sep, option = pair.partition("=")
                if not sep:
                    raise pytest.UsageError(f"{ENV}: option {pair.strip()!r} of {name} is not key=value")
                options[key.strip()] = option.strip()
        drivers.append((name, options))
    return drivers


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" not in metafunc.fixturenames:
        return
    params = [
        pytest.param("mock", id="mock"),
        pytest.param("chromium", id="chromium", marks=pytest.mark.browser),
        pytest.param("firefox", id="firefox", marks=[pytest.mark.browser, pytest.mark.firefox]),
    ]
    if getattr(metafunc.function, "conformance_smoke", False):
        params += [
            pytest.param("grid-chromium", id="grid-chromium", marks=[pytest.mark.browser, pytest.mark.grid]),
            pytest.param(
                "grid-firefox", id="grid-firefox", marks=[pytest.mark.browser, pytest.mark.firefox, pytest.mark.grid]
            ),
        ]
    params += [
        pytest.param(f"entry:{name}", id=f"entry-{name}", marks=pytest.mark.browser)
        for name, _ in entry_point_drivers()
    ]
    metafunc.parametrize("target", params, indirect=True)


@pytest.fixture(scope="session")
def driver_pool() -> Iterator[dict[str, Driver]]:
    """Drivers the plugin does not provide (through the Grid, by entry point), started on first use and closed when
    the session ends."""
    pool: dict[str, Driver] = {}
    yield pool
    for driver in pool.values():
        driver.close()


def _pooled(pool: dict[str, Driver], key: str, start: Callable[[], Driver]) -> Driver:
    if key not in pool:
        pool[key] = start()
    return pool[key]


@pytest.fixture
def target(request: pytest.FixtureRequest, driver_pool: dict[str, Driver]) -> Iterator[Target]:
    name: str = request.param
    driver: Driver | None
    if name == "mock":
        driver = None
    elif name in ("chromium", "firefox"):
        driver = request.getfixturevalue(f"{name}_driver")
    elif name.startswith("grid-"):
        grid: str = request.getfixturevalue("grid")
        browser = name.removeprefix("grid-")
        driver = _pooled(driver_pool, name, lambda: SeleniumDriver.from_options({"browser": browser, "remote": grid}))
    else:
        wanted = name.removeprefix("entry:")
        options = dict(entry_point_drivers()).get(wanted, {})
        driver = _pooled(driver_pool, name, lambda: load_driver(wanted, options))
    chosen = Target(name, driver)
    yield chosen
    chosen.close()
