"""Ref tables and the tab inventory on their own: the bookkeeping rules of docs/contract.md §3 and §5."""

from __future__ import annotations

import pytest

from browser_toolset.executor.errors import ActionError, StaleRefError
from browser_toolset.executor.refs import RefTable
from browser_toolset.executor.tabs import TabInventory, check_tab_id
from browser_toolset.values import AXNode

STALE = "Error: ref_{} is stale or not found on the current page. Re-read the page to get fresh references."


def test_refs_are_stable_across_rereads_and_new_for_renamed_elements() -> None:
    table = RefTable()
    table.observe("doc-1")
    save = AXNode(role="button", name="Save", key="e1")
    link = AXNode(role="link", name="Home", key="e2")
    assert table.ref_for(save) == "ref_1"
    assert table.ref_for(link) == "ref_2"
    assert table.ref_for(save) == "ref_1"  # a re-read keeps the number
    renamed = AXNode(role="button", name="Delete", key="e1")
    assert table.ref_for(renamed) == "ref_3"  # role or name changed: a new number
    with pytest.raises(StaleRefError) as caught:
        table.key_of("ref_1")  # and the old ref no longer acts on it
    assert str(caught.value) == STALE.format(1)
    assert table.key_of("ref_3") == "e1"
    assert table.ref_for(AXNode(role="text", name="plain")) is None


def test_a_new_document_makes_every_ref_stale_and_numbers_are_never_reused() -> None:
    table = RefTable()
    table.observe("doc-1")
    table.ref_for(AXNode(role="button", name="A", key="e1"))
    table.observe("doc-1")
    assert table.key_of("ref_1") == "e1"
    table.observe("doc-2")
    with pytest.raises(StaleRefError):
        table.key_of("ref_1")
    # the same key in the new document is a different element: it gets a new number
    assert table.ref_for(AXNode(role="button", name="A", key="e1")) == "ref_2"


def test_check_live_retires_removed_and_changed_elements() -> None:
    table = RefTable()
    table.observe("d")
    a = AXNode(role="button", name="A", key="e1")
    b = AXNode(role="button", name="B", key="e2")
    table.ref_for(a)
    table.ref_for(b)
    table.check_live({"e2": AXNode(role="button", name="B2", key="e2")})
    with pytest.raises(StaleRefError):
        table.key_of("ref_1")
    with pytest.raises(StaleRefError):
        table.key_of("ref_2")


def test_tab_ids_count_up_and_are_never_reused() -> None:
    tabs = TabInventory()
    assert tabs.add("h1").tab_id == "tab-1"
    assert tabs.add("h2").tab_id == "tab-2"
    assert tabs.add("h1").tab_id == "tab-1"
    tabs.remove("h2")
    assert tabs.add("h3").tab_id == "tab-3"


def test_closing_the_active_tab_activates_a_neighbour() -> None:
    tabs = TabInventory()
    for handle in ("a", "b", "c"):
        tabs.add(handle)
    tabs.activate("b")
    tabs.remove("b")
    assert tabs.active == "c"  # the next one
    tabs.remove("c")
    assert tabs.active == "a"  # else the previous one
    tabs.remove("a")
    assert tabs.active is None
    with pytest.raises(ActionError, match="No tab is open"):
        tabs.target(None)


def test_closing_another_tab_keeps_the_active_one() -> None:
    tabs = TabInventory()
    for handle in ("a", "b", "c"):
        tabs.add(handle)
    tabs.activate("c")
    tabs.remove("a")
    assert tabs.active == "c"


@pytest.mark.parametrize(
    ("tab_id", "message"),
    [
        ("", "empty"),
        ("x" * 4097, "at most 4,096"),
        ("tab-1\n", "control"),
        ("tab\u20281", "control"),
        ("tab\x851", "control"),
    ],
)
def test_tab_id_limits(tab_id: str, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        check_tab_id(tab_id)


def test_unknown_tab_ids_list_the_open_ones() -> None:
    tabs = TabInventory()
    tabs.add("a")
    tabs.add("b")
    with pytest.raises(ActionError) as caught:
        tabs.by_id("tab-9")
    assert "tab-1, tab-2" in str(caught.value)
    assert tabs.target("tab-2").handle == "b"
