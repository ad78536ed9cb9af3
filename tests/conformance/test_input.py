"""Clicks, typing, keys, form_input, hover and scrolling, as read_page sees their effects."""

from __future__ import annotations

from typing import Any

import pytest

from browser_toolset.driver import implements
from browser_toolset.drivers.mock import Navigate, Site, Submit, button, form, link, searchbox, textbox
from browser_toolset.safety.targets import KeyPress
from tests.conformance import sites
from tests.conformance.conftest import smoke
from tests.conformance.harness import Target
from tests.support.session import ok, state, text


def ref_target(ref: str) -> dict[str, str]:
    return {"type": "ref", "ref": ref}


@smoke
def test_click_and_type_into_a_field(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    name = visit.ref('textbox "Name"')
    clicked = ok(visit.call("left_click", target=ref_target(name)))
    assert text(clicked) == f'Clicked.\ntextbox "Name" [{name}]'
    ok(visit.call("type", text="Ada Lovelace"))
    assert '  textbox "Name" value="Ada Lovelace" focused' in visit.read(filter="all")
    ok(visit.call("key", text="ctrl+a"))
    ok(visit.call("key", text="BackSpace"))
    ok(visit.call("type", text="Grace"))
    assert '  textbox "Name" value="Grace" focused' in visit.read(filter="all")
    ok(visit.call("key", text="BackSpace", repeat=2))
    assert '  textbox "Name" value="Gra" focused' in visit.read(filter="all")


def test_a_triple_click_selects_a_field_s_text(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    name = visit.ref('textbox "Name"')
    ok(visit.call("form_input", target=ref_target(name), value="Ada Lovelace"))
    ok(visit.call("triple_click", target=ref_target(name)))
    ok(visit.call("type", text="Grace"))
    assert '  textbox "Name" value="Grace" focused' in visit.read(filter="all")


def test_typing_a_newline_in_a_textarea(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    visit.click('textbox "Notes"')
    ok(visit.call("type", text="one"))
    ok(visit.call("key", text="Return"))
    ok(visit.call("type", text="two"))
    # values are folded to one line in the tree
    assert '  textbox "Notes" value="one two" multiline focused' in visit.read(filter="all")


def test_readonly_fields_ignore_typing(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    visit.click('textbox "Code"')
    ok(visit.call("type", text="zzz"))
    assert '  textbox "Code" value="X-1" readonly focused' in visit.read(filter="all")


def test_tab_moves_focus_in_document_order(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    visit.click('textbox "Name"')
    ok(visit.call("key", text="Tab"))
    ok(visit.call("type", text="a@b.c"))
    assert '  textbox "Email" value="a@b.c" placeholder="you@example.com" required focused' in visit.read(filter="all")
    ok(visit.call("key", text="shift+Tab"))
    assert '  textbox "Name" focused' in visit.read(filter="all")


def test_clicks_check_boxes_and_radios(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    visit.click('checkbox "I agree"')
    visit.click('radio "Small"')
    lines = visit.read(filter="all")
    assert '  checkbox "I agree" checked' in lines
    assert '    radio "Small" checked focused' in lines and '    radio "Large" unchecked' in lines
    visit.click('checkbox "I agree"')
    assert '  checkbox "I agree" unchecked focused' in visit.read(filter="all")
    ok(visit.call("key", text="space"))
    assert '  checkbox "I agree" checked focused' in visit.read(filter="all")


def holds(result: dict[str, Any]) -> str:
    """What form_input says the control holds now (its last line)."""
    return text(ok(result)).splitlines()[-1]


def test_form_input_sets_values(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    name = visit.ref('textbox "Name"')
    assert text(ok(visit.call("form_input", target=ref_target(name), value="Ada"))) == (
        f"Set the value of {name}.\nIt now holds 'Ada'."
    )
    agree = visit.ref('checkbox "I agree"')
    assert holds(visit.call("form_input", target=ref_target(agree), value=True)) == "It now holds 'true'."
    colour = visit.ref('combobox "Colour"')
    assert holds(visit.call("form_input", target=ref_target(colour), value="bl")) == "It now holds 'Blue'."
    assert holds(visit.call("form_input", target=ref_target(colour), value="Green")) == "It now holds 'Green'."
    ok(visit.call("form_input", target=ref_target(visit.ref('textbox "Notes"')), value=42))
    lines = visit.read(filter="all")
    for line in (
        '  textbox "Name" value="Ada"',
        '  checkbox "I agree" checked',
        '  combobox "Colour" value="Green"',
        '  textbox "Notes" value="42" multiline',
    ):
        assert line in lines


def test_form_input_refuses_what_a_control_cannot_hold(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    message = visit.error("form_input", target=ref_target(visit.ref('combobox "Colour"')), value="Purple")
    assert message.startswith("Error: ") and "Purple" in message
    assert all(option in message for option in ("Red", "Green", "Blue"))
    heading = visit.ref('heading "Sign up"')
    assert visit.error("form_input", target=ref_target(heading), value="x").startswith("Error: ")


def test_enter_submits_a_form_with_its_fields(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    visit.click('searchbox "Search"')
    ok(visit.call("type", text="felt hats"))
    ok(visit.call("key", text="Return"))
    visit.read_until(lambda lines: lines[:1] == ['heading "Results" level=1'])
    assert visit.tabs()[0][2] == sites.BASE + "/search?q=felt+hats"


def test_what_enter_and_space_activate_and_what_a_link_loads(target: Target) -> None:
    """What the confirmation gate reads before a key call (`Driver.key_target`, through `describe_ref`): nothing
    without focus; Enter in the one field of a form without a button submits the form (as `Submit`), Space there
    types; on a button both press it. And a link's `action` is the address it loads."""
    site = Site(sites.BASE)
    site.page(
        "/",
        "Keys",
        form(searchbox("Search", id="q"), on_submit=[Navigate("/search?q={q}")], name="Search the shop"),
        form(textbox("Note"), button("Save", Submit()), on_submit=[Navigate("/")], name="Notes"),
        link("About us", "/about"),
    )
    visit = target.visit(site)
    if not implements(visit.toolset.driver, "key_target"):
        pytest.skip(f"the {visit.driver_name} driver does not implement key_target")
    visit.go("/")

    def activated(key: str) -> tuple[str, str, tuple[str, ...]] | None:
        found = visit.toolset.describe_ref(None, KeyPress(key))
        return None if found is None else (found.role, found.name, found.context)

    assert activated("Enter") is None
    visit.click('searchbox "Search"')
    assert activated("Enter") == ("button", "Submit", ("Search the shop",))
    assert activated(" ") is None
    visit.click('textbox "Note"')
    assert activated(" ") is None
    ok(visit.call("key", text="Tab"))
    assert activated(" ") == ("button", "Save", ("Notes",))
    assert activated("Enter") == ("button", "Save", ("Notes",))
    about = next(node for node in visit.toolset.view().tree.walk() if node.name == "About us")
    assert (about.role, about.action) == ("link", f"GET {visit.url('/about')}")


def test_a_navigation_an_input_starts_is_in_that_calls_state(target: Target) -> None:
    """The call that pressed Enter answers once the search it submitted has loaded: its own state shows the new
    page, so Claude's next call does not read the old one."""
    visit = target.visit(sites.shop())
    visit.go("/")
    visit.click('searchbox "Search"')
    ok(visit.call("type", text="felt hats"))
    pressed = ok(visit.call("key", text="Return"))
    assert [visit.site_url(tab["url"]) for tab in state(pressed)["tabs"]] == [sites.BASE + "/search?q=felt+hats"]


def test_a_submit_button_sends_every_kind_of_field(target: Target) -> None:
    visit = target.visit(sites.forms())
    visit.go("/form")
    ok(visit.call("form_input", target=ref_target(visit.ref('textbox "Name"')), value="Ada L"))
    ok(visit.call("form_input", target=ref_target(visit.ref('combobox "Colour"')), value="Blue"))
    ok(visit.call("form_input", target=ref_target(visit.ref('checkbox "I agree"')), value=True))
    visit.click('button "Send"')
    visit.read_until(lambda lines: lines == ['heading "Thank you" level=1'])
    assert visit.tabs()[0][2] == sites.BASE + "/sent?name=Ada+L&colour=bl&agree=on"


def test_show_hide_and_disabled(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert 'generic "Sale"' not in visit.read(filter="all")
    visit.click('button "Sold out"')
    ok(visit.call("right_click", target=ref_target(visit.ref('button "Menu"'))))
    assert 'generic "Sale"' not in visit.read(filter="all")
    visit.click('button "Menu"')
    lines = visit.read_until(lambda now: 'generic "Sale"' in now)
    assert lines[lines.index('generic "Sale"') :][:3] == ['generic "Sale"', "  paragraph", '    text "Secret sale"']
    assert visit.tabs()[0][2] == sites.BASE + "/"


def test_hover_runs_the_page_s_hover_behaviour(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    assert 'button "Extra"' not in visit.read(filter="all")
    ok(visit.call("hover", target=ref_target(visit.ref('button "More"'))))
    visit.read_until(lambda lines: 'button "Extra"' in lines, filter="interactive")
    visit.click('button "Extra"')
    visit.read_until(lambda lines: 'button "Extra"' not in lines, filter="interactive")


def test_scrolling_brings_far_elements_into_view(target: Target) -> None:
    visit = target.visit(sites.long_page())
    visit.go("/long")
    assert visit.read() == ['heading "Top" level=1', 'link "Jump to the end"']
    middle = {"type": "coordinate", "x": 640, "y": 400}
    for _ in range(3):
        ok(visit.call("scroll", target=middle, scroll_direction="down", scroll_amount=10))
    lines = visit.read_until(lambda now: 'button "Bottom button"' in now)
    assert 'heading "Top" level=1' not in lines
    ok(visit.call("key", text="Home"))
    visit.read_until(lambda now: now == ['heading "Top" level=1', 'link "Jump to the end"'])


def test_scroll_to_and_click_a_far_element(target: Target) -> None:
    visit = target.visit(sites.long_page())
    visit.go("/long")
    bottom = visit.ref('button "Bottom button"')
    ok(visit.call("scroll_to", target=ref_target(bottom)))
    assert 'button "Bottom button"' in visit.read()
    ok(visit.call("left_click", target=ref_target(bottom)))
    visit.read_until(lambda lines: '  text "Bottom reached"' in lines or 'paragraph "Bottom reached"' in lines)


def test_end_key_scrolls_the_page(target: Target) -> None:
    visit = target.visit(sites.long_page())
    visit.go("/long")
    ok(visit.call("key", text="End"))
    visit.read_until(lambda lines: 'button "Bottom button"' in lines)
