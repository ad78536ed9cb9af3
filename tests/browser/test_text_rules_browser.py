"""The text rules of get_page_text and read_page's text lines, on headless Chromium and Firefox (tests/pages/
text_rules.html, on the session's shared browsers): form fields show their values where they are, text no sighted
user can see is left out of both reads (while accessible names made from it still count), and text split across
touching inline boxes reads as the one word it renders as."""

from __future__ import annotations

import itertools

import pytest

from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.executor import tree_text
from browser_toolset.values import SnapshotRequest
from tests.support.browsers import js
from tests.support.server import PageServer

PAGE = "text_rules.html"

# Text the page hides from sight in one way each (tests/pages/text_rules.html says how).
HIDDEN = [
    "hidden-sr-only",
    "hidden-clip-path",
    "hidden-offleft",
    "hidden-offtop",
    "hidden-indent",
    "hidden-transparent",
    "hidden-alpha0",
    "hidden-white-on-white",
    "hidden-near-white",
    "hidden-same-as-panel",
    "hidden-near-panel",
    "hidden-link-name",
]
# Text in the same section that looks as if it might be hidden, but is seen.
SHOWN = [
    "Shown one",
    "Shown on panel",
    "Shown gradient",
    "Shown filled",
    "Shown shadow",
    "Shown over image",
    "Shown over picture",
    "Shown on pseudo",
    "Shown caption",
    "Shown two",
]


@pytest.fixture
def tab(tab: str, driver: SeleniumDriver, server: PageServer) -> str:
    """The driver's one tab, at the page."""
    driver.navigate(tab, server.url(PAGE))
    return tab


def tree_lines(driver: SeleniumDriver, tab: str) -> list[str]:
    """read_page's lines for the whole tree, refs left out."""
    root = driver.snapshot(tab, SnapshotRequest(filter="all", depth=100)).root
    return tree_text.render_tree(root, ref_for=lambda node: None, filter="all", depth=100, max_chars=10**7).splitlines()


def text_lines(lines: list[str]) -> list[str]:
    """The text runs among read_page's lines, unquoted."""
    return [line.strip()[len('text "') : -1] for line in lines if line.strip().startswith('text "')]


def page_lines(driver: SeleniumDriver, tab: str) -> list[str]:
    return driver.page_text(tab).splitlines()


# --- form values ------------------------------------------------------------------------------------------------


def test_page_text_shows_what_form_fields_show_where_they_are(driver: SeleniumDriver, tab: str) -> None:
    lines = page_lines(driver, tab)
    text = "\n".join(lines)
    # the labels and fields flow in one line, as they render; a text area of two lines is set apart, line by line
    assert "Full name Ada Lovelace Secret Bio" in lines
    assert lines.index("Counts") + 1 == lines.index("engines")
    assert "Colour Green Sizes Small, Large Empty Hidden field" in lines
    assert lines.index("Before fields") < lines.index("Full name Ada Lovelace Secret Bio") < lines.index("After fields")
    # a password shows as dots: never its value; a hidden input and a placeholder are not field values
    assert "hunter2" not in text and "token-123" not in text and "Type here" not in text
    # the value shown now, not the one the page was served with
    js(driver, tab, "document.getElementById('name').value = 'Grace Hopper'")
    js(driver, tab, "document.getElementById('colour').value = 'Red'")
    text = driver.page_text(tab)
    assert "Full name Grace Hopper Secret Bio" in text and "Ada Lovelace" not in text
    assert "Colour Red Sizes" in text


# --- hidden text ------------------------------------------------------------------------------------------------


def test_text_no_one_can_see_is_in_neither_read(driver: SeleniumDriver, tab: str) -> None:
    page = driver.page_text(tab)
    tree = tree_lines(driver, tab)
    texts = "\n".join(text_lines(tree))
    for word in HIDDEN:
        assert word not in page, word
        assert word not in texts, word
    page_set = set(page.splitlines())
    for words in SHOWN:
        assert words in page_set, words
        assert words in texts, words


def test_names_made_of_hidden_text_still_count(driver: SeleniumDriver, tab: str) -> None:
    tree = [line.strip() for line in tree_lines(driver, tab)]
    assert 'link "Skip to hidden-sr-only content"' in tree
    assert 'link "hidden-link-name"' in tree
    assert "Skip" in driver.page_text(tab).splitlines()


def test_text_shows_again_once_its_colour_does(driver: SeleniumDriver, tab: str) -> None:
    assert "hidden-alpha0" not in driver.page_text(tab)
    js(driver, tab, "document.querySelector('.alpha0').style.color = 'rgb(200, 10, 10)'")
    js(driver, tab, "document.querySelector('.panel p').style.background = '#ffffff'")
    assert {"hidden-alpha0", "hidden-same-as-panel"} <= set(driver.page_text(tab).splitlines())
    assert {"hidden-alpha0", "hidden-same-as-panel"} <= set(text_lines(tree_lines(driver, tab)))


def test_text_scrolled_out_of_a_scroll_container_is_still_there(driver: SeleniumDriver, tab: str) -> None:
    js(driver, tab, "document.getElementById('scroller').scrollLeft = 5000")
    assert js(driver, tab, "document.getElementById('scroller').scrollLeft > 1000") == "true"
    # the start of the strip lies left of the page now, but scrolling the strip back shows it
    assert "Scrolled away" in driver.page_text(tab)
    assert "Scrolled away" in "\n".join(text_lines(tree_lines(driver, tab)))


# --- inline boxes -----------------------------------------------------------------------------------------------


def test_touching_inline_boxes_read_as_one_word(driver: SeleniumDriver, tab: str) -> None:
    lines = page_lines(driver, tab)
    texts = text_lines(tree_lines(driver, tab))
    joined = ["6gHF", "Code: 42x", "Hellow"]
    # boxes set apart by a margin, by padding or by a space read as separate words
    apart = ["alpha beta", "left right", "one two"]
    for words in joined + apart:
        assert words in lines, words
        assert words in texts, words
    # inline-block cards made of paragraphs keep their lines
    assert lines[lines.index("Card one") :][:3] == ["Card one", "First body", "Card two"]


def test_touching_boxes_inside_a_link_join_and_a_margin_keeps_words_apart(driver: SeleniumDriver, tab: str) -> None:
    js(
        driver,
        tab,
        "document.body.insertAdjacentHTML('beforeend', '<p><a href=\"#c\">"
        + "".join(f'<span style="display:inline-block">{c}</span>' for c in "X7q")
        + '</a> and <span style="display:inline-block; margin-left: 6px">more</span></p>\')',
    )
    assert "X7q and more" in page_lines(driver, tab)
    tree = [line.strip() for line in tree_lines(driver, tab)]
    link = next(i for i, line in enumerate(tree) if line.startswith('link "X'))
    # the link's own text is one word: a line of its own ("X7q") while it differs from the link's name
    after = list(itertools.takewhile(lambda line: line.startswith('text "'), tree[link + 1 :]))
    assert after in (['text "X7q"', 'text "and more"'], ['text "and more"'])
