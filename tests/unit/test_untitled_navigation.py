"""Issue 16, item 12: no title is no title. An untitled page navigates as `Navigated to URL (HTTP 200)`: the executor
hands the SDK no title (None), for which it leaves the title's separator out, where an empty one read
`Navigated to URL —  (HTTP 200)`. On the mock here; on Chromium and Firefox in
tests/browser/test_untitled_navigation_browser.py."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.drivers.mock.elements import paragraph

SITE = (
    Site("https://titles.test/")
    .page("/untitled", "", paragraph("A page with no title"))
    .page("/blank-title", "   ", paragraph("A title of spaces"))
    .page("/titled", "Pricing", paragraph("Plans"))
)


def navigate(toolset: BrowserToolset, url: str) -> list[Any]:
    tool_use = BetaToolUseBlock(
        id="toolu_nav", type="tool_use", name="navigate", input={"url": url}, toolset_name="browser"
    )
    result = toolset.tool_result(tool_use)
    assert not result.get("is_error"), result["content"]
    return list(result["content"])


@pytest.mark.parametrize("path", ["/untitled", "/blank-title"])
def test_16_12_an_untitled_page_navigates_without_a_dangling_separator(path: str) -> None:
    with MockDriver(SITE) as driver:
        content = navigate(BrowserToolset(driver), f"https://titles.test{path}")
    assert content[0] == {"type": "text", "text": f"Navigated to https://titles.test{path} (HTTP 200)"}


def test_16_12_a_titled_page_keeps_its_title() -> None:
    with MockDriver(SITE) as driver:
        content = navigate(BrowserToolset(driver), "https://titles.test/titled")
    assert content[0] == {"type": "text", "text": "Navigated to https://titles.test/titled — Pricing (HTTP 200)"}
