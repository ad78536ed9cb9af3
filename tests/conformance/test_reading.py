"""read_page, find and get_page_text: the same tree lines, matches and text on every driver."""

from __future__ import annotations

import base64
import struct

from tests.conformance import sites
from tests.conformance.conftest import smoke
from tests.conformance.differences import (
    FILE_INPUT_TEXT,
    LABEL_TEXT,
    SELECT_OPTIONS,
    expect,
)
from tests.conformance.harness import Target, without_refs
from tests.support.session import images, ok, text

SHOP_TREE = [
    'heading "Welcome" level=1',
    "paragraph",
    '  text "Fine hats since 1999."',
    'text "Free delivery on orders over 50."',
    'link "About us"',
    'link "Help"',
    'form "Search the shop"',
    '  searchbox "Search" placeholder="Hats, caps"',
    '  button "Go"',
    'button "Menu"',
    'button "Sold out" disabled',
    'heading "Contact" level=2 description="Answers within a day"',
    'button "Far away"',
]


@smoke
def test_read_page_shows_the_whole_tree(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert visit.read(filter="all") == SHOP_TREE


def test_read_page_without_a_filter_shows_what_is_in_the_viewport(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert visit.read() == SHOP_TREE[:-1]


def test_read_page_interactive_filter(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert visit.read(filter="interactive") == [
        'link "About us"',
        'link "Help"',
        'searchbox "Search" placeholder="Hats, caps"',
        'button "Go"',
        'button "Menu"',
    ]


def test_read_page_of_one_element(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    search = visit.ref('form "Search the shop"')
    assert visit.read(ref=search) == [
        'form "Search the shop"',
        '  searchbox "Search" placeholder="Hats, caps"',
        '  button "Go"',
    ]
    assert visit.read(ref=search, depth=1) == ['form "Search the shop"']


def test_form_controls_in_the_tree(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    assert visit.read(filter="all") == expect(
        target.driver_name,
        [
            'heading "Sign up" level=1',
            'form "Sign up"',
            '  textbox "Name"',
            '  textbox "Email" placeholder="you@example.com" required',
            '  textbox "Notes" multiline',
            '  checkbox "I agree" unchecked',
            LABEL_TEXT.line('  text "I agree"'),
            '  radiogroup "Size"',
            '    radio "Small" unchecked',
            LABEL_TEXT.line('    text "Small"'),
            '    radio "Large" checked',
            LABEL_TEXT.line('    text "Large"'),
            '  combobox "Colour" value="Red"',
            SELECT_OPTIONS.line('    option "Red" selected'),
            SELECT_OPTIONS.line('    option "Green"'),
            SELECT_OPTIONS.line('    option "Blue"'),
            '  button "Attachment"',
            '  textbox "Code" value="X-1" readonly',
            '  button "Send"',
        ],
    )


def test_form_controls_in_the_page_text(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    assert text(ok(visit.call("get_page_text"))).splitlines() == expect(
        target.driver_name,
        [
            "Sign up",
            "I agree",
            "Small",
            "Large",
            "Red",
            FILE_INPUT_TEXT.line("Attachment"),
            "X-1",
            "Send",
        ],
    )


def test_lists_in_the_tree(target: Target) -> None:
    visit = target.visit(sites.reading())
    visit.go("/plain")
    assert visit.read() == [
        'heading "Opening hours" level=1',
        "paragraph",
        '  text "Monday to Friday, nine to five."',
        "list",
        "  listitem",
        '    text "Saturday: ten to two"',
        "  listitem",
        '    text "Sunday: closed"',
        'link "Directions"',
        'button "Call us"',
    ]


def test_find_ranks_the_best_match_first(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert without_refs(text(ok(visit.call("find", query="search box"))))[0] == (
        'searchbox "Search" placeholder="Hats, caps"'
    )
    assert without_refs(text(ok(visit.call("find", query="about link"))))[0] == 'link "About us"'
    assert text(ok(visit.call("find", query="zebra"))).startswith('No elements match "zebra"')


def test_find_hands_out_refs_read_page_agrees_with(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    found = text(ok(visit.call("find", query="menu button"))).splitlines()[0]
    menu = visit.ref('button "Menu"')
    assert found == f'button "Menu" [{menu}]'


def test_page_text_in_reading_order_without_hidden_text(target: Target) -> None:
    visit = target.visit(sites.reading())
    visit.go("/plain")
    assert text(ok(visit.call("get_page_text"))) == "\n".join(
        [
            "Opening hours",
            "Monday to Friday, nine to five.",
            "Saturday: ten to two",
            "Sunday: closed",
            "Directions",
            "Call us",
        ]
    )


def test_page_text_puts_the_main_region_first(target: Target) -> None:
    visit = target.visit(sites.reading())
    visit.go("/article")
    lines = text(ok(visit.call("get_page_text"))).splitlines()
    assert lines[:2] == ["Hats through the ages", "People have worn hats for millennia."]
    # navigation comes after the main content, or not at all (the protocol allows either)
    assert "Home" not in lines[:2] and "Blog" not in lines[:2]


def test_a_blank_page(target: Target) -> None:
    visit = target.visit(sites.shop())
    assert text(ok(visit.call("get_page_text"))) == "The page has no visible text."
    assert text(ok(visit.call("read_page", filter="all"))).startswith("No visible elements.")


def test_screenshots_show_the_whole_viewport(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    (image,) = images(ok(visit.call("screenshot")))
    png = base64.b64decode(image["source"]["data"])
    assert image["source"]["media_type"] == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1280, 800)
    (zoomed,) = images(ok(visit.call("zoom", region=[0, 0, 640, 400])))
    width, height = struct.unpack(">II", base64.b64decode(zoomed["source"]["data"])[16:24])
    assert width >= 640 and abs(width / height - 640 / 400) < 0.01
