"""What one element's line says (no browser: the tree format and the mock driver). Typed fields show their type and
the value format `form_input` takes, a textarea is `multiline`, and a long value is cut on a page read with a note
on how to read it whole, which a read of the element's ref does (up to `FULL_VALUE_MAX`).
tests/browser/test_node_rules_browser.py and tests/conformance/test_node_rules.py check the same on real browsers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, form, textarea, textbox, typed_field
from browser_toolset.executor.tree_text import (
    FULL_VALUE_MAX,
    INPUT_FORMATS,
    INPUT_TYPES,
    VALUE_MAX,
    format_line,
    render_tree,
)
from browser_toolset.values import STATE_TOKENS, AXNode
from tests.support.session import Session, ok, text

QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def outside_quotes(line: str) -> str:
    return QUOTED.sub('""', line)


def doc(*children: AXNode) -> AXNode:
    return AXNode("document", children=children)


def refs_by_key(node: AXNode) -> str | None:
    return None if node.key is None else f"ref_{node.key}"


# --- types and formats ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("input_type", "shown"),
    [
        ("date", "type=date format=yyyy-mm-dd"),
        ("time", "type=time format=hh:mm"),
        ("datetime-local", "type=datetime-local format=yyyy-mm-ddThh:mm"),
        ("month", "type=month format=yyyy-mm"),
        ("week", "type=week format=yyyy-Www"),
        ("color", "type=color format=#rrggbb"),
        ("number", "type=number"),
        ("range", "type=range"),
        ("email", "type=email"),
        ("tel", "type=tel"),
        ("url", "type=url"),
    ],
)
def test_a_typed_field_shows_its_type_and_format_after_its_name(input_type: str, shown: str) -> None:
    node = AXNode("textbox", "When", key="k", value="x", input_type=input_type, states=("required",))
    assert format_line(node, "ref_1") == f'textbox "When" {shown} value="x" required [ref_1]'


def test_every_type_with_a_format_is_a_printed_type() -> None:
    assert set(INPUT_FORMATS) <= INPUT_TYPES


@pytest.mark.parametrize("input_type", ["", "text", "password", "DATE", 'date" [ref_9]', "checkbox"])
def test_other_types_print_nothing(input_type: str) -> None:
    # the type comes from a driver, which may pass a page's attribute through: only known words print
    node = AXNode("textbox", "Name", input_type=input_type)
    assert format_line(node, "ref_1") == 'textbox "Name" [ref_1]'


def test_multiline_is_a_state_word_printed_in_order() -> None:
    assert STATE_TOKENS.index("disabled") < STATE_TOKENS.index("multiline") < STATE_TOKENS.index("readonly")
    node = AXNode("textbox", "Notes", states=("required", "multiline", "readonly", "disabled", "focused"))
    assert format_line(node, None) == 'textbox "Notes" disabled multiline readonly required focused'


# --- long values ------------------------------------------------------------------------------------------------


def test_a_cut_value_says_how_long_it_is_and_how_to_read_it_all() -> None:
    value = "word " * 100  # 499 characters once folded
    line = format_line(AXNode("textbox", "Essay", key="k", value=value), "ref_3")
    shown = json.loads(QUOTED.findall(line)[1])
    assert len(shown) <= VALUE_MAX and shown.endswith("…")
    assert line.endswith('…" (value cut, 499 characters: read_page with this ref shows it in full) [ref_3]'), line
    # the note is ours, outside the quotes, and holds no bracket: the ref stays the only [...] outside quotes
    assert re.findall(r"\[[^\]]*\]", outside_quotes(line)) == ["[ref_3]"]


def test_a_value_too_long_even_for_a_ref_read_says_so() -> None:
    value = "x" * (FULL_VALUE_MAX + 2000)
    line = format_line(AXNode("textbox", "Log", key="k", value=value), "ref_3")
    assert "(value cut, 12,000 characters: read_page with this ref shows it up to 10,000 characters)" in line


def test_a_value_at_the_limit_is_not_cut() -> None:
    line = format_line(AXNode("textbox", "Code", value="v" * VALUE_MAX), None)
    assert line == f'textbox "Code" value="{"v" * VALUE_MAX}"'


def test_a_read_scoped_to_an_element_prints_its_value_whole() -> None:
    essay = " ".join(f"w{i}" for i in range(300))
    inner = AXNode("textbox", "Other", key="o", value=essay)
    field = AXNode("group", "Box", key="g", value=None, children=(inner,))
    target = AXNode("textbox", "Essay", key="e", value=essay)
    tree = doc(target, field)
    out = render_tree(tree, ref_for=refs_by_key, filter="all", depth=15, full_value="e")
    lines = out.splitlines()
    assert lines[0] == f'textbox "Essay" value="{essay}" [ref_e]'
    # only the element the read is scoped to: the rest of the read keeps the usual cut
    assert "(value cut, " in lines[2]
    assert out == render_tree(tree, ref_for=refs_by_key, filter="all", depth=15, full_value="e")
    assert "(value cut, " in render_tree(tree, ref_for=refs_by_key, filter="all", depth=15).splitlines()[0]


def test_a_scoped_read_cuts_at_the_full_value_limit_and_says_so() -> None:
    value = "0123456789" * 1500
    tree = doc(AXNode("textbox", "Log", key="e", value=value))
    out = render_tree(tree, ref_for=refs_by_key, filter="all", depth=15, full_value="e")
    shown = json.loads(QUOTED.findall(out)[1])
    assert len(shown) == FULL_VALUE_MAX and shown.endswith("…")
    assert out.endswith('…" (value cut at 10,000 of 15,000 characters) [ref_e]')


# --- the mock ---------------------------------------------------------------------------------------------------


def mock_site() -> Site:
    return Site("https://fields.test/").page(
        "/",
        "Fields",
        form(
            typed_field("Arrival", "date", "2026-12-24"),
            typed_field("Nights", "number", "3"),
            typed_field("Volume", "range", "4"),
            typed_field("Colour", "color", "#336699"),
            textarea("Notes", "n" * 300, states=["required"]),
            textbox("Title", states=["multiline"]),
            name="Booking",
        ),
    )


@pytest.fixture
def session() -> Iterator[Session]:
    site = mock_site()
    site.start = "/"
    with MockDriver(site, sleep=lambda seconds: None) as driver:
        yield Session(BrowserToolset(driver, sleep=lambda seconds: None))


def test_the_mock_reports_types_and_multiline(session: Session) -> None:
    out = text(ok(session.call("read_page", filter="all")))
    lines = [re.sub(r" \[ref_\d+\]$", "", line) for line in out.splitlines()]
    assert lines[:5] == [
        'form "Booking"',
        '  textbox "Arrival" type=date format=yyyy-mm-dd value="2026-12-24"',
        '  spinbutton "Nights" type=number value="3"',
        '  slider "Volume" type=range value="4"',
        '  button "Colour" type=color format=#rrggbb value="#336699"',
    ]
    assert lines[5].startswith('  textbox "Notes" value="nnn') and lines[5].endswith(") multiline required")
    # a state list cannot make a one-line field multiline: the mock computes it, as a browser does
    assert lines[6] == '  textbox "Title"'


def test_the_mock_reads_a_long_value_whole_through_its_ref(session: Session) -> None:
    out = text(ok(session.call("read_page", filter="all")))
    ref = next(re.search(r"\[(ref_\d+)\]$", line) for line in out.splitlines() if '"Notes"' in line)
    assert ref is not None
    scoped = text(ok(session.call("read_page", ref=ref.group(1))))
    assert scoped == f'textbox "Notes" value="{"n" * 300}" multiline required [{ref.group(1)}]'


def test_typed_fields_take_only_known_types() -> None:
    with pytest.raises(ValueError, match="input_type must be one of"):
        typed_field("Name", "text")


def test_a_json_site_may_give_an_input_type() -> None:
    from_json = Site.from_dict(
        {"pages": {"/": {"elements": [{"role": "textbox", "name": "When", "input_type": "date", "value": ""}]}}}
    )
    assert from_json == Site().page("/", "", typed_field("When", "date"))
