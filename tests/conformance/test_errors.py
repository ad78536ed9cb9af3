"""Error results a driver's behaviour decides: stale refs, coordinates outside the viewport, gone elements."""

from __future__ import annotations

from tests.conformance import sites
from tests.conformance.conftest import smoke
from tests.conformance.harness import Target
from tests.support.session import ok


def stale(ref: str) -> str:
    return f"Error: {ref} is stale or not found on the current page. Re-read the page to get fresh references."


@smoke
def test_refs_go_stale_with_their_document(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    about = visit.ref('link "About us"')
    visit.go("/about")
    assert visit.error("left_click", target={"type": "ref", "ref": about}) == stale(about)
    assert visit.error("scroll_to", target={"type": "ref", "ref": about}) == stale(about)
    assert visit.error("read_page", ref=about) == stale(about)


def test_a_reload_makes_refs_stale(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    menu = visit.ref('button "Menu"')
    ok(visit.call("navigate", url="reload"))
    assert visit.error("left_click", target={"type": "ref", "ref": menu}) == stale(menu)
    assert visit.ref('button "Menu"') != menu


def test_refs_of_another_tab_are_unknown(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    menu = visit.ref('button "Menu"')
    ok(visit.call("new_tab"))
    assert visit.error("left_click", target={"type": "ref", "ref": menu}) == stale(menu)


def test_a_ref_that_was_never_handed_out(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    assert visit.error("left_click", target={"type": "ref", "ref": "ref_999"}) == stale("ref_999")


@smoke
def test_coordinates_outside_the_viewport(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    message = visit.error("left_click", target={"type": "coordinate", "x": 1280, "y": 0})
    assert "x must be 0-1279 and y 0-799" in message
    assert "x must be 0-1279 and y 0-799" in visit.error("hover", target={"type": "coordinate", "x": 5, "y": 800})
    ok(visit.call("left_click", target={"type": "coordinate", "x": 1279, "y": 799}))
