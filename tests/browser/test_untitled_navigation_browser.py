"""Issue 16, item 12 on Chromium and Firefox: an untitled page navigates as `Navigated to URL (HTTP 200)`, with no
dangling title separator (the mock's case is in tests/unit/test_untitled_navigation.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from tests.support.server import PageServer
from tests.support.session import Session, ok, texts

PAGES = {
    "/untitled": "<p>A page with no title</p>",
    "/titled": "<title>Pricing</title><p>Plans</p>",
}


@pytest.fixture(scope="module")
def pages() -> Iterator[PageServer]:
    with PageServer(None, PAGES) as server:
        yield server


def test_16_12_an_untitled_page_navigates_without_a_dangling_separator(
    driver: SeleniumDriver, pages: PageServer
) -> None:
    session = Session(BrowserToolset(driver, navigation=URLPolicy(allow_private=True)))
    untitled = texts(ok(session.call("navigate", url=pages.url("untitled"))))
    assert untitled[0] == f"Navigated to {pages.url('untitled')} (HTTP 200)"
    titled = texts(ok(session.call("navigate", url=pages.url("titled"))))
    assert titled[0] == f"Navigated to {pages.url('titled')} — Pricing (HTTP 200)"
