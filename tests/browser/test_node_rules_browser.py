"""What one element's line says, on real Chromium and Firefox (tests/pages/node_rules.html): tiny images keep their
nodes, a field the user filled wrongly reads as invalid until fixed, and what an inner scroll box has scrolled out
of view is still on the page for filter "all" and `find` (and a click on it scrolls it in). (Field kinds, states
and long values are in tests/conformance/test_node_rules.py, on every driver.) On the session's shared browsers
(`driver`, tests/browser/conftest.py)."""

from __future__ import annotations

from tests.support.browser_suite import BrowserSession, refs
from tests.support.session import ok, text


def read_all(session: BrowserSession, **read: object) -> str:
    return text(ok(session.call("read_page", filter="all", **read)))


def lines(output: str) -> list[str]:
    """The element lines of a read, without indentation or refs."""
    return list(refs(output))


def test_tiny_images_and_image_buttons_keep_their_nodes(session: BrowserSession) -> None:
    session.go("node_rules.html")
    tree = read_all(session)
    shown = lines(tree)
    # a 1x1 image with alt text, and image buttons: without a source and with a broken one (both drawn as their
    # alt text), a 1x1 one and a 16x16 one
    assert 'img "Status OK"' in shown
    for name in ("Go", "Send", "Next", "Search"):
        assert f'button "{name}"' in shown
    # truly invisible images stay out: zero size, display:none, visibility:hidden, and alt="" (decorative)
    assert [line for line in shown if line.startswith("img")] == ['img "Status OK"']
    for gone in ("Zero size", "Display none", "Visibility hidden"):
        assert gone not in tree
    found = text(ok(session.call("find", query="Status OK image")))
    assert found.startswith('img "Status OK" [ref_')


def test_a_field_filled_wrongly_reads_as_invalid_until_it_is_fixed(session: BrowserSession) -> None:
    session.go("node_rules.html")
    email = session.ref('textbox "Email"')
    ok(session.call("form_input", target={"type": "ref", "ref": email}, value="still not an address"))
    assert 'textbox "Email" type=email value="still not an address" invalid' in lines(read_all(session))
    ok(session.call("form_input", target={"type": "ref", "ref": email}, value="ada@example.test"))
    assert 'textbox "Email" type=email value="ada@example.test"' in lines(read_all(session))
    birthday = session.ref('textbox "Birthday"')
    ok(session.call("form_input", target={"type": "ref", "ref": birthday}, value="2026-11-30"))
    assert 'textbox "Birthday" type=date format=yyyy-mm-dd value="2026-11-30" required' in lines(read_all(session))


def test_what_an_inner_scroll_box_scrolled_out_is_on_the_page_but_not_in_view(session: BrowserSession) -> None:
    session.go("node_rules.html")
    everything = read_all(session)
    shown = lines(everything)
    # a scroll box of 30 rows, a list scrolled on one axis and cut on the other, a <select size=4>, a listbox
    assert [line for line in shown if line.startswith('button "Row ')] == [f'button "Row {i}"' for i in range(1, 31)]
    assert "Line 10" in everything
    assert 'option "Lime"' in shown and 'option "Paris"' in shown
    # overflow:hidden is not scrollable: what it cuts off is gone
    assert "Kept row" in everything and "Cropped row" not in everything
    in_view = text(ok(session.call("read_page")))
    assert 'button "Row 1"' in in_view and 'button "Row 28"' not in in_view
    found = text(ok(session.call("find", query="Row 28 button")))
    assert found.startswith('button "Row 28" [ref_')
    row = found.split("[", 1)[1].split("]", 1)[0]
    ok(session.call("left_click", target={"type": "ref", "ref": row}))
    assert session.until(lambda: session.js("window.clicked")) == 28
    # the click scrolled the row into view, so a plain read shows it now
    assert 'button "Row 28"' in text(ok(session.call("read_page")))
