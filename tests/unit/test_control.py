"""`BrowserControl`, a peer product's tab-index API, over the one executor: its documented examples (the `list_tabs`
text, indices that shift after a close, the fall-back after closing the active tab), bad indices, and the actions
an agent needs, each answering `(element_map, image)`, on the mock driver (on real browsers:
`tests/browser/test_control_browser.py`).

Its docs write `https://github.com`; browsers (and the mock) report the URL they loaded, `https://github.com/`,
so the lines here carry the slash. The format around it is the documented one, character for character.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.control import BrowserControl, BrowserControlError, TabIndexError, TabSummary
from browser_toolset.drivers.mock import (
    MockDriver,
    Navigate,
    Site,
    button,
    form,
    heading,
    link,
    paragraph,
    textbox,
)

STALE = "Error: {} is stale or not found on the current page. Re-read the page to get fresh references."


def seed_site() -> Site:
    site = Site("https://github.com")
    site.page("https://github.com/", "GitHub", heading("GitHub"), link("Pricing", "/pricing"), button("Sign in"))
    site.page("https://github.com/pricing", "Pricing", heading("Pricing"), link("Home", "/"))
    site.page(
        "https://news.ycombinator.com/",
        "Hacker News",
        link("new", "/newest"),
        form(
            textbox("Search", id="q"),
            on_submit=[Navigate("https://news.ycombinator.com/search?q={q}")],
        ),
    )
    site.page("https://news.ycombinator.com/search", "Search results", heading("Results"))
    site.page(
        "https://long.test/",
        "Long",
        button("Top"),
        paragraph("filler " * 3000),
        button("Far below"),
    )
    return site


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(seed_site(), start_url="https://github.com/", sleep=lambda s: None) as mock:
        yield mock


@pytest.fixture
def control(driver: MockDriver) -> Iterator[BrowserControl]:
    with BrowserControl(driver) as browser:
        yield browser


def seed_tabs(control: BrowserControl) -> None:
    """The documented example's three tabs: GitHub (active), Hacker News, and a blank one."""
    control.create_tab("https://news.ycombinator.com")
    control.create_tab()
    control.switch_tab(0)


# --- the documented examples --------------------------------------------------------------------------------------


def test_list_tabs_is_the_seeds_plain_text(control: BrowserControl) -> None:
    seed_tabs(control)
    assert control.list_tabs() == (
        "Open Tabs:\n"
        "  [0] GitHub - https://github.com/ (active)\n"
        "  [1] Hacker News - https://news.ycombinator.com/\n"
        "  [2] about:blank"
    )


def test_create_tab_focuses_the_new_tab_and_shows_its_page(control: BrowserControl) -> None:
    element_map, image = control.create_tab("https://news.ycombinator.com")
    assert element_map == '[ref_1] link "new"\n[ref_2] textbox "Search"'
    assert isinstance(image, Image.Image) and image.size == (1280, 800)
    assert control.list_tabs().endswith("[1] Hacker News - https://news.ycombinator.com/ (active)")
    element_map, image = control.create_tab()
    assert element_map == ""
    assert image.size == (1280, 800)
    assert control.list_tabs().endswith("  [2] about:blank (active)")


def test_switch_tab_focuses_the_tab_at_the_index_and_shows_it(control: BrowserControl) -> None:
    seed_tabs(control)
    element_map, _ = control.switch_tab(1)
    assert element_map == '[ref_1] link "new"\n[ref_2] textbox "Search"'
    assert control.list_tabs().split("\n")[1:] == [
        "  [0] GitHub - https://github.com/",
        "  [1] Hacker News - https://news.ycombinator.com/ (active)",
        "  [2] about:blank",
    ]


def test_indices_shift_down_after_a_close(control: BrowserControl) -> None:
    seed_tabs(control)
    control.close_tab(1)
    assert control.list_tabs() == "Open Tabs:\n  [0] GitHub - https://github.com/ (active)\n  [1] about:blank"


def test_closing_the_active_tab_falls_back_to_its_neighbour(control: BrowserControl) -> None:
    seed_tabs(control)
    # the active tab is 0: the next tab, Hacker News, takes over, and moves to index 0
    element_map, _ = control.close_tab(0)
    assert element_map == '[ref_1] link "new"\n[ref_2] textbox "Search"'
    assert control.list_tabs() == (
        "Open Tabs:\n  [0] Hacker News - https://news.ycombinator.com/ (active)\n  [1] about:blank"
    )
    # the active tab is the last one: there is no next tab, so the previous one takes over
    control.switch_tab(1)
    control.close_tab(1)
    assert control.list_tabs() == "Open Tabs:\n  [0] Hacker News - https://news.ycombinator.com/ (active)"


def test_closing_a_background_tab_keeps_the_active_one(control: BrowserControl) -> None:
    seed_tabs(control)
    control.switch_tab(2)
    control.close_tab(0)
    assert control.list_tabs() == (
        "Open Tabs:\n  [0] Hacker News - https://news.ycombinator.com/\n  [1] about:blank (active)"
    )


def test_closing_the_last_tab_leaves_a_blank_one(control: BrowserControl, driver: MockDriver) -> None:
    element_map, image = control.close_tab(0)
    assert (element_map, image.size) == ("", (1280, 800))
    assert control.list_tabs() == "Open Tabs:\n  [0] about:blank (active)"
    assert len(driver.list_tabs()) == 1


@pytest.mark.parametrize("index", [3, 4, -1])
def test_a_bad_index_says_how_many_tabs_are_open_and_changes_nothing(control: BrowserControl, index: int) -> None:
    seed_tabs(control)
    before = control.list_tabs()
    message = (
        rf"^No tab at index {index}: 3 tabs are open, so indices run from 0 to 2\. Call list_tabs\(\) to see them\.$"
    )
    with pytest.raises(TabIndexError, match=message) as raised:
        control.switch_tab(index)
    assert isinstance(raised.value, IndexError)
    with pytest.raises(TabIndexError, match=message):
        control.close_tab(index)
    assert control.list_tabs() == before


def test_a_bad_index_with_one_tab_or_none(driver: MockDriver) -> None:
    control = BrowserControl(driver)
    with pytest.raises(TabIndexError, match=r"^No tab at index 1: 1 tab is open, so indices run from 0 to 0\."):
        control.switch_tab(1)
    driver.close_tab(driver.handles[0])
    assert control.list_tabs() == "Open Tabs:"
    with pytest.raises(
        TabIndexError, match=r"^No tab at index 0: no tabs are open\. Call create_tab\(\) to open one\.$"
    ):
        control.close_tab(0)
    control.create_tab()
    assert control.list_tabs() == "Open Tabs:\n  [0] about:blank (active)"


@pytest.mark.parametrize("index", [True, 1.0, "1"])
def test_an_index_is_an_int(control: BrowserControl, index: object) -> None:
    with pytest.raises(TypeError, match="a tab index is an int"):
        control.switch_tab(index)  # type: ignore[arg-type]


def test_tab_lines_show_the_url_alone_for_a_tab_without_a_title_of_its_own() -> None:
    assert TabSummary(0, "tab-1", "", "https://x.test/", True).line() == "[0] https://x.test/ (active)"
    assert TabSummary(1, "tab-2", "https://x.test/", "https://x.test/", False).line() == "[1] https://x.test/"
    assert TabSummary(2, "tab-3", "X", "https://x.test/", False).line() == "[2] X - https://x.test/"


# --- navigation and actions ---------------------------------------------------------------------------------------


def test_navigate_and_click_a_mark(control: BrowserControl) -> None:
    element_map, _ = control.screenshot()
    assert element_map == '[ref_1] link "Pricing"\n[ref_2] button "Sign in"'
    element_map, _ = control.click("ref_1")
    assert element_map == '[ref_3] link "Home"'
    assert control.messages[0].startswith("Clicked.")
    assert control.list_tabs() == "Open Tabs:\n  [0] Pricing - https://github.com/pricing (active)"
    element_map, _ = control.navigate("https://github.com/")
    assert element_map == '[ref_4] link "Pricing"\n[ref_5] button "Sign in"'
    assert control.messages == ("Navigated to https://github.com/ — GitHub (HTTP 200)",)


@pytest.mark.parametrize("mark", ["ref_1", 1, "1", " [ref_1] "], ids=["ref", "int", "digits", "tag"])
def test_a_mark_is_a_ref_its_number_or_its_element_map_tag(control: BrowserControl, mark: str | int) -> None:
    control.screenshot()
    control.click(mark)
    assert control.list_tabs() == "Open Tabs:\n  [0] Pricing - https://github.com/pricing (active)"


def test_a_mark_that_is_not_one_or_is_stale_raises_the_executors_error(control: BrowserControl) -> None:
    control.screenshot()
    with pytest.raises(BrowserControlError, match="'Sign in' is not a mark"):
        control.click("Sign in")
    control.navigate("https://news.ycombinator.com/")
    with pytest.raises(BrowserControlError) as raised:
        control.click("ref_2")
    assert str(raised.value) == STALE.format("ref_2")


def test_type_and_key_act_on_the_focused_field(control: BrowserControl) -> None:
    control.navigate("https://news.ycombinator.com/")
    control.click(2)
    element_map, _ = control.type("rust")
    assert '[ref_2] textbox "Search" value="rust" focused' in element_map.split("\n")
    element_map, _ = control.key("Enter")
    assert (
        control.list_tabs() == "Open Tabs:\n  [0] Search results - https://news.ycombinator.com/search?q=rust (active)"
    )
    assert element_map == ""


def test_scroll_brings_marks_into_view(control: BrowserControl) -> None:
    element_map, _ = control.navigate("https://long.test/")
    assert element_map == '[ref_1] button "Top"'
    for _ in range(20):
        element_map, _ = control.scroll("down", 10)
        if "Far below" in element_map:
            break
    assert element_map == '[ref_2] button "Far below"'
    with pytest.raises(BrowserControlError, match="scroll_direction"):
        control.scroll("sideways", 1)  # type: ignore[arg-type]
    with pytest.raises(BrowserControlError, match="scroll_amount"):
        control.scroll("up", 11)


def test_refused_navigation_raises_and_create_tab_keeps_its_blank_tab(control: BrowserControl) -> None:
    with pytest.raises(BrowserControlError, match=r"^Error: .*http"):
        control.navigate("file:///etc/passwd")
    with pytest.raises(BrowserControlError, match=r"^Error: "):
        control.create_tab("javascript:alert(1)")
    assert control.list_tabs() == "Open Tabs:\n  [0] GitHub - https://github.com/\n  [1] about:blank (active)"


def test_marks_are_the_refs_claude_gets_on_a_shared_toolset(driver: MockDriver) -> None:
    toolset = BrowserToolset(driver)

    def claude(name: str, **input: object) -> str:
        block = BetaToolUseBlock.model_validate(
            {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": input, "toolset_name": "browser"}
        )
        result = toolset.tool_result(block)
        assert not result.get("is_error"), result
        content = result["content"]
        assert not isinstance(content, str)
        return "\n".join(str(b["text"]) for b in content if b["type"] == "text")

    assert claude("read_page", filter="interactive") == 'link "Pricing" [ref_1]\nbutton "Sign in" [ref_2]'
    control = BrowserControl(toolset)
    element_map, _ = control.screenshot()
    assert element_map == '[ref_1] link "Pricing"\n[ref_2] button "Sign in"'
    # a mark from the annotated image works as Claude's ref target, and the other way round
    claude("left_click", target={"type": "ref", "ref": "ref_1"})
    assert control.list_tabs() == "Open Tabs:\n  [0] Pricing - https://github.com/pricing (active)"
    assert claude("find", query="home link").endswith("[ref_3]")
    assert control.screenshot()[0] == '[ref_3] link "Home"'


def test_toolset_options_go_to_the_toolset_not_beside_it(driver: MockDriver) -> None:
    with pytest.raises(ValueError, match="belong to the toolset"):
        BrowserControl(BrowserToolset(driver), navigation=URLPolicy(allow_private=True))
