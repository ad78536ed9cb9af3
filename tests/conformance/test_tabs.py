"""The tab inventory: new_tab, switch_tab, close_tab, list_tabs, and tabs the page opens by itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.conformance import sites
from tests.conformance.conftest import smoke
from tests.conformance.harness import Target
from tests.support.session import ok, state


def inventory(result: Mapping[str, Any]) -> list[tuple[str, bool]]:
    return [(tab["tab_id"], bool(tab.get("active"))) for tab in state(result)["tabs"]]


@smoke
def test_new_switch_and_close(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    opened = ok(visit.call("new_tab"))
    assert state(opened)["tabs"] == [
        {"tab_id": "tab-1", "title": "Mock Shop", "url": visit.url("/")},
        {"tab_id": "tab-2", "title": "", "url": "about:blank", "active": True},
    ]
    assert state(opened)["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
    visit.go("/about")
    assert visit.tabs() == [
        ("tab-1", "Mock Shop", sites.BASE + "/", False),
        ("tab-2", "About", sites.BASE + "/about", True),
    ]
    switched = ok(visit.call("switch_tab", tab_id="tab-1"))
    assert state(switched)["tabs"] == [
        {"tab_id": "tab-1", "title": "Mock Shop", "url": visit.url("/"), "active": True},
        {"tab_id": "tab-2", "title": "About", "url": visit.url("/about")},
    ]
    assert visit.read()[0] == 'heading "Welcome" level=1'
    closed = ok(visit.call("close_tab", tab_id="tab-2"))
    assert inventory(closed) == [("tab-1", True)]


def test_closing_the_active_tab_activates_another(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    ok(visit.call("new_tab"))
    visit.go("/about")
    assert inventory(ok(visit.call("close_tab", tab_id="tab-2"))) == [("tab-1", True)]
    assert visit.read()[0] == 'heading "Welcome" level=1'
    ok(visit.call("new_tab"))
    # ids are never reused
    assert [tab[0] for tab in visit.tabs()] == ["tab-1", "tab-3"]


def test_a_link_opening_a_new_tab(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    clicked = visit.click('link "Help"')
    changes = visit.state_changes_until(clicked, lambda seen: bool(seen))
    assert changes == [{"type": "tab_opened", "tab_id": "tab-2"}]
    # the opener stays active: the new tab opened in the background, or the executor kept its choice
    assert [(tab_id, active) for tab_id, _, _, active in visit.tabs()] == [("tab-1", True), ("tab-2", False)]
    ok(visit.call("switch_tab", tab_id="tab-2"))
    assert visit.read_until(lambda lines: bool(lines) and lines[0] == 'heading "Help" level=1') == [
        'heading "Help" level=1',
        "paragraph",
        '  text "Ask us anything."',
    ]
    assert visit.tabs()[1] == ("tab-2", "Help", sites.BASE + "/help", True)


def test_a_script_opening_a_tab(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    clicked = visit.click('button "Open help"')
    assert visit.state_changes_until(clicked, lambda seen: bool(seen)) == [{"type": "tab_opened", "tab_id": "tab-2"}]
    ok(visit.call("switch_tab", tab_id="tab-2"))
    visit.read_until(lambda lines: lines == ['heading "Help" level=1'])
    assert [tab[:3] for tab in visit.tabs()] == [
        ("tab-1", "Events", sites.BASE + "/"),
        ("tab-2", "Help", sites.BASE + "/help"),
    ]


def test_a_page_closing_its_own_tab(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    clicked = visit.click('button "Open popup"')
    assert visit.state_changes_until(clicked, lambda seen: bool(seen)) == [{"type": "tab_opened", "tab_id": "tab-2"}]
    ok(visit.call("switch_tab", tab_id="tab-2"))
    visit.read_until(lambda lines: lines == ['button "Close me"'])
    # the click may return before the tab is gone, or find it gone (which is an error result): either is fine
    visit.call("left_click", target={"type": "ref", "ref": visit.ref('button "Close me"')})
    visit.until(lambda: len(visit.tabs()) == 1)
    assert visit.tabs() == [("tab-1", "Events", sites.BASE + "/", True)]
    assert visit.read()[0] == 'button "Open help"'


def test_a_middle_click_opens_a_link_in_a_new_tab(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    clicked = ok(visit.call("middle_click", target={"type": "ref", "ref": visit.ref('link "About us"')}))
    assert visit.state_changes_until(clicked, lambda seen: bool(seen)) == [{"type": "tab_opened", "tab_id": "tab-2"}]
    ok(visit.call("switch_tab", tab_id="tab-2"))
    visit.read_until(lambda lines: lines[:1] == ['heading "About us" level=1'])
    assert [tab[:3] for tab in visit.tabs()] == [
        ("tab-1", "Mock Shop", sites.BASE + "/"),
        ("tab-2", "About", sites.BASE + "/about"),
    ]


@smoke
def test_unknown_tab_ids(target: Target) -> None:
    visit = target.visit(sites.shop())

    def message(tab_id: str) -> str:
        return f"Error: No open tab has tab_id {tab_id!r}. Open tabs: tab-1. Call list_tabs to see them."

    assert visit.error("switch_tab", tab_id="tab-9") == message("tab-9")
    assert visit.error("close_tab", tab_id="tab-9") == message("tab-9")
    assert visit.error("read_page", tab_id="tab-9") == message("tab-9")
    ok(visit.call("new_tab"))
    ok(visit.call("close_tab", tab_id="tab-2"))
    assert visit.error("switch_tab", tab_id="tab-2") == message("tab-2")
