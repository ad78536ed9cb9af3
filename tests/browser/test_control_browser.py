"""`BrowserControl` on headless Chromium and Firefox (the session's shared browsers): the documented tab examples
with real tabs, the actions by mark, and marks that follow a scroll."""

from __future__ import annotations

import pytest
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import URLPolicy
from browser_toolset.control import BrowserControl, TabIndexError
from browser_toolset.drivers.selenium import SeleniumDriver
from tests.support.server import PageServer


@pytest.fixture
def browser(driver: SeleniumDriver) -> BrowserControl:
    """`BrowserControl` over the shared browser, which `driver` left with one blank tab (not closed: closing it
    would close the browser)."""
    control = BrowserControl(driver, navigation=URLPolicy(allow_private=True))
    assert control.list_tabs() == "Open Tabs:\n  [0] about:blank (active)"
    return control


def test_real_browser_tabs_follow_the_seed(browser: BrowserControl, server: PageServer) -> None:
    alpha, beta = server.url("control_alpha.html"), server.url("control_beta.html")
    element_map, image = browser.navigate(alpha)
    assert [line.split("] ", 1)[1] for line in element_map.split("\n")] == [
        'link "Go to Beta"',
        'textbox "Query" placeholder="Type here"',
        'button "Say it"',
    ]
    assert image.size == (1280, 800)
    browser.create_tab(beta)
    assert browser.create_tab()[0] == ""
    browser.switch_tab(0)
    assert browser.list_tabs() == (
        f"Open Tabs:\n  [0] Alpha - {alpha} (active)\n  [1] Beta - {beta}\n  [2] about:blank"
    )
    # closing the active tab: Beta takes over and becomes index 0
    element_map, _ = browser.close_tab(0)
    assert element_map.endswith('link "Back to Alpha"')
    assert browser.list_tabs() == f"Open Tabs:\n  [0] Beta - {beta} (active)\n  [1] about:blank"
    with pytest.raises(TabIndexError, match=r"^No tab at index 2: 2 tabs are open, so indices run from 0 to 1\."):
        browser.switch_tab(2)
    browser.close_tab(1)
    browser.close_tab(0)
    assert browser.list_tabs() == "Open Tabs:\n  [0] about:blank (active)"


def test_real_browser_actions_by_mark(browser: BrowserControl, server: PageServer) -> None:
    browser.navigate(server.url("control_alpha.html"))
    refs = {mark.line.split("] ", 1)[1].split('"')[1]: mark.ref for mark in browser.marks}
    browser.click(refs["Query"])
    element_map, _ = browser.type("hello")
    assert any(line.startswith(f'[{refs["Query"]}] textbox "Query" value="hello"') for line in element_map.split("\n"))
    browser.key("ctrl+a Backspace")
    browser.type("bye")
    browser.click(refs["Say it"])
    page = browser.toolset.tool_result(
        BetaToolUseBlock.model_validate(
            {"type": "tool_use", "id": "toolu_text", "name": "get_page_text", "input": {}, "toolset_name": "browser"}
        )
    )
    assert "Said: bye" in str(page["content"])
    element_map, _ = browser.click(refs["Go to Beta"])
    assert element_map.endswith('link "Back to Alpha"')
    element_map, _ = browser.navigate("back")
    assert 'button "Say it"' in element_map


def test_real_browser_scroll_moves_marks(browser: BrowserControl, server: PageServer) -> None:
    browser.navigate(server.url("control_marks.html"))
    assert "Below the fold" not in "".join(mark.line for mark in browser.marks)
    for _ in range(5):
        element_map, _ = browser.scroll("down", 10)
        if "Below the fold" in element_map:
            break
    assert "Below the fold" in element_map
    assert 'button "Save"' not in element_map, "the top of the page is still marked after scrolling past it"
