"""Shared fixtures. `walker_browser` is the one headless Chromium the walker tests share for the whole session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.walker_support import WalkerBrowser, chromium


@pytest.fixture(scope="session")
def walker_browser() -> Iterator[WalkerBrowser]:
    with chromium() as browser:
        yield browser
