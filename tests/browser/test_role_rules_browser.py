"""Roles and visibility as browsers have them, on Chromium and Firefox, through `read_page`, `find` and ref actions.

The pages are in tests/pages/roles/ (roles that need a context, image maps, visibility overrides, file inputs,
aria-owns) and tests/pages/hidden_controls/ (one page per way pages hide a native radio, checkbox or select behind
a drawing of their own)."""

from __future__ import annotations

import re

import pytest

from tests.support.browser_suite import BrowserSession, ref_starting
from tests.support.session import ok, text

pytestmark = pytest.mark.browser

REF = re.compile(r" \[ref_\d+\]$")


def read(session: BrowserSession, **options: object) -> str:
    return text(ok(session.call("read_page", **options)))


def lines(output: str) -> list[str]:
    """A read's lines without indentation or refs."""
    return [REF.sub("", line.strip()) for line in output.splitlines()]


def has(shown: list[str], start: str) -> bool:
    """Whether a line starts with `start` (states that follow, such as `focused`, aside)."""
    return any(line == start or line.startswith(start + " ") for line in shown)


def nested(output: str) -> list[tuple[int, str]]:
    """A read's lines as (indentation level, line without its ref)."""
    return [((len(line) - len(line.lstrip(" "))) // 2, REF.sub("", line.strip())) for line in output.splitlines()]


def children_of(output: str, parent: str) -> list[str]:
    """The lines printed one level under the first line that starts with `parent`."""
    rows = nested(output)
    start = next(i for i, (_, line) in enumerate(rows) if line.startswith(parent))
    level = rows[start][0]
    out: list[str] = []
    for depth, line in rows[start + 1 :]:
        if depth <= level:
            break
        if depth == level + 1:
            out.append(line)
    return out


# --- roles that need a context, and the roles of plain elements ---------------------------------------------------


def test_roles_outside_their_context_fall_back_to_the_element_s_own(session: BrowserSession) -> None:
    session.go("roles/context.html")
    output = read(session, filter="all")
    shown = lines(output)
    # list items, options and tree items outside a list, list box or tree are what their tags make them
    assert shown[1:8] == [
        'text "Orphan item"',
        "paragraph",
        'text "Orphan paragraph"',
        'generic "Orphan option"',
        'button "Orphan option button"',
        'button "Orphan tree button"',
        'navigation "Orphan tree nav"',
    ]
    # in their contexts (wrappers in between or not) they keep their roles
    assert children_of(output, 'list "Real list"') == ["listitem"]
    assert children_of(output, 'listbox "Real listbox"') == ['option "Real option" selected']
    assert children_of(output, 'tree "Real tree"') == ['treeitem "Real branch Real leaf" expanded']
    assert 'treeitem "Real leaf"' in shown


def test_regions_and_forms_need_a_name(session: BrowserSession) -> None:
    session.go("roles/context.html")
    shown = lines(read(session, filter="all"))
    at = shown.index('text "Unnamed region"')
    assert shown[at : at + 9] == [
        'text "Unnamed region"',
        'region "Named region"',
        'text "Named region text"',
        "navigation",
        'text "Unnamed form nav"',
        'form "Named form"',
        'text "Named form text"',
        # the next token of the role attribute stands in for a region without a name
        "group",
        'text "Region then group"',
    ]


def test_only_the_first_summary_of_a_details_is_a_button(session: BrowserSession) -> None:
    session.go("roles/context.html")
    output = read(session, filter="all")
    assert 'text "Orphan summary"' in lines(output)
    assert children_of(output, "group expanded") == [
        'button "Real summary" expanded',
        'text "Second summary"',
        "paragraph",
    ]


def test_role_none_on_a_list_or_table_reaches_its_items_and_cells(session: BrowserSession) -> None:
    session.go("roles/context.html")
    output = read(session, filter="all")
    shown = lines(output)
    at = shown.index('text "Plain item one Plain item two"')
    # focus keeps an item's role (the same conflict rule as for the list itself); a list without role=none is one
    assert shown[at + 1 : at + 5] == ['listitem "Focusable item"', "list", "listitem", 'text "Kept item"']
    # a layout table's rows and cells are wrappers; a data table keeps them (its row groups are wrappers)
    assert 'text "Layout cell"' in shown
    assert children_of(output, "table") == ['row "Head"', 'row "Data cell"']
    assert children_of(output, 'row "Data cell"') == ['cell "Data cell"']
    assert not [line for line in shown if line.startswith(("rowgroup", 'cell "Layout'))]


# --- image maps -----------------------------------------------------------------------------------------------------


def test_image_map_links_are_on_their_image_and_work(session: BrowserSession) -> None:
    session.go("roles/image_map.html")
    output = read(session)
    assert children_of(output, 'img "Regions"') == ['link "North"', 'link "South"']
    assert "Not a link" not in output
    found = text(ok(session.call("find", query="South link")))
    assert found.startswith('link "South" [ref_')
    north = ref_starting(output, 'link "North"')
    ok(session.call("left_click", target={"type": "ref", "ref": north}))
    assert session.until(lambda: session.js("location.hash")) == "#north"
    south = found.split("[", 1)[1].split("]", 1)[0]
    ok(session.call("left_click", target={"type": "ref", "ref": south}))
    assert session.until(lambda: session.js("location.hash") == "#south")


# --- visibility -----------------------------------------------------------------------------------------------------


def test_visible_inside_hidden_is_shown_and_hidden_pseudo_text_names_nothing(session: BrowserSession) -> None:
    session.go("roles/visibility.html")
    output = read(session)
    shown = lines(output)
    assert 'button "Shown again"' in shown
    assert "Still hidden" not in output and "Hidden text" not in output
    ref = ref_starting(output, 'button "Shown again"')
    ok(session.call("left_click", target={"type": "ref", "ref": ref}))
    assert session.until(lambda: session.js("document.getElementById('again').dataset.clicked")) == "yes"
    # a ::after with visibility: hidden adds nothing; a shown ::before does; a display:none one does not
    assert 'link "Link"' in shown
    assert 'link "hi Greeting"' in shown
    assert 'link "Plain"' in shown
    assert "bye" not in output and "gone" not in output


def test_file_inputs_are_named_as_the_browser_names_them(session: BrowserSession, browser_kind: str) -> None:
    session.go("roles/file_input.html")
    shown = lines(read(session))
    if browser_kind == "firefox":
        assert 'button "Browse… No file selected."' in shown
        assert 'button "Browse… No files selected."' in shown
    else:
        assert 'button "Choose File"' in shown and 'button "Choose Files"' in shown
    assert 'button "Resume"' in shown


def test_aria_owns_moves_elements_under_their_owner(session: BrowserSession) -> None:
    session.go("roles/aria_owns.html")
    output = read(session, filter="all")
    shown = lines(output)
    assert shown[:5] == ['list "Owning list"', "listitem", 'text "Near item"', "listitem", 'text "Far item"']
    assert children_of(output, 'list "Owning list"') == ["listitem", "listitem"]
    # in the owner's order, not the page's
    assert children_of(output, 'menu "Owning menu"') == ['menuitem "Beta"', 'menuitem "Alpha"']
    # the first owner wins (the second owns nothing, so has nothing to show); an element that would own its own
    # ancestor changes nothing
    assert children_of(output, 'group "First owner"') == ['button "Shared"']
    assert shown.count('button "Shared"') == 1 and "Second owner" not in output
    assert shown[-1] == 'link "Loop"'
    # a moved element keeps a ref that acts on it
    beta = ref_starting(output, 'menuitem "Beta"')
    ok(session.call("left_click", target={"type": "ref", "ref": beta}))
    assert session.until(lambda: session.js("document.activeElement.id")) == "item-b"


# --- native controls hidden behind a drawing of their own -----------------------------------------------------------

TECHNIQUES = ["opacity", "zero_size", "clip", "clip_path", "sr_only", "appearance", "offscreen", "covered"]


@pytest.mark.parametrize("technique", TECHNIQUES)
def test_a_hidden_radio_or_checkbox_reads_and_works_through_its_label(session: BrowserSession, technique: str) -> None:
    session.go(f"hidden_controls/{technique}.html")
    # the default read (what is in the viewport) has each control's own line
    output = read(session)
    shown = lines(output)
    for line in (
        'radio "Apple" checked',
        'radio "Pear" unchecked',
        'radio "Orange" unchecked',
        'checkbox "Send me news" unchecked',
    ):
        assert line in shown, f"{line!r} not in:\n{output}"
    # a click on the ref clicks where a person would, and the page sees the change
    pear = ref_starting(output, 'radio "Pear"')
    ok(session.call("left_click", target={"type": "ref", "ref": pear}))
    assert session.until(lambda: session.js("document.getElementById('status').textContent")) == ("fruit=Pear news=off")
    after = lines(read(session))
    assert 'radio "Apple" unchecked' in after and has(after, 'radio "Pear" checked')
    news = ref_starting(output, 'checkbox "Send me news"')
    ok(session.call("form_input", target={"type": "ref", "ref": news}, value=True))
    assert session.until(lambda: session.js("document.getElementById('status').textContent")) == ("fruit=Pear news=on")
    assert has(lines(read(session)), 'checkbox "Send me news" checked')
    ok(session.call("left_click", target={"type": "ref", "ref": news}))
    assert has(lines(read(session)), 'checkbox "Send me news" unchecked')


def test_custom_selects_over_hidden_selects_read_and_work(session: BrowserSession) -> None:
    session.go("hidden_controls/select.html")
    output = read(session)
    shown = lines(output)
    assert 'combobox "Size" value="Medium"' in shown, output
    assert 'combobox "Colour" value="Red"' in shown, output
    size = ref_starting(output, 'combobox "Size"')
    # a click on the hidden select's ref clicks the drop-down drawn for it, which opens its menu
    ok(session.call("left_click", target={"type": "ref", "ref": size}))
    assert session.until(lambda: session.js("!document.getElementById('size-menu').hidden"))
    ok(session.call("form_input", target={"type": "ref", "ref": size}, value="Large"))
    assert session.js("document.getElementById('size-face').textContent") == "Large ▾"
    assert 'combobox "Size" value="Large"' in lines(read(session))
    colour = ref_starting(output, 'combobox "Colour"')
    ok(session.call("form_input", target={"type": "ref", "ref": colour}, value="Blue"))
    assert session.js("document.getElementById('colour-face').textContent") == "Blue ▾"
    assert 'combobox "Colour" value="Blue"' in lines(read(session))
