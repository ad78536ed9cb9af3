"""The Selenium driver's fast paths on Chromium and Firefox: reads pruned in the page print exactly what the whole
tree prints, an unchanged page is not walked again, the walker is sent once per document, big results travel
compressed, and tab URLs and titles come from events. Speed itself is measured (benchmarks/), never asserted here."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from browser_toolset import tree_text
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.drivers.selenium.script import COMPRESSED_PREFIX, walker_call_declaration
from browser_toolset.values import AXNode, AXSnapshot, SnapshotRequest
from tests.support.browsers import fresh_tab, guarded_driver, js
from tests.support.polling import wait_until
from tests.support.server import PageServer

pytestmark = pytest.mark.browser

BIG_PAGE = "<!doctype html><title>Big</title><main>{}</main>".format(
    "".join(
        f"<p>Item {i} <a href='#i{i}'>link {i}</a> <button>buy {i}</button>"
        f"<span style='display:{'none' if i % 7 == 0 else 'inline'}'>note {i}</span></p>"
        for i in range(600)
    )
)


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def driver(request: pytest.FixtureRequest) -> Iterator[SeleniumDriver]:
    with guarded_driver(request.param) as selenium_driver:
        yield selenium_driver


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageServer]:
    from tests.support.server import PAGES

    root = tmp_path_factory.mktemp("reads")
    for page in PAGES.iterdir():
        if page.is_file():
            (root / page.name).write_bytes(page.read_bytes())
    (root / "big.html").write_text(BIG_PAGE)
    with PageServer(root) as page_server:
        yield page_server


@pytest.fixture
def tab(driver: SeleniumDriver) -> str:
    return fresh_tab(driver)


def render(root: AXNode, filter: tree_text.Filter | None, depth: int) -> str:
    refs: dict[str, str] = {}
    counter = itertools.count(1)

    def ref_for(node: AXNode) -> str | None:
        if node.key is None:
            return None
        return refs.setdefault(node.key, f"ref_{next(counter)}")

    return tree_text.render_tree(root, ref_for=ref_for, filter=filter, depth=depth, max_chars=10**7)


def keys(root: AXNode) -> set[str]:
    return {node.key for node in root.walk() if node.key is not None}


@pytest.mark.parametrize("page", ["index.html", "form.html", "long.html", "shadow.html", "iframe.html", "big.html"])
def test_a_pruned_read_prints_what_the_whole_tree_prints(
    driver: SeleniumDriver, tab: str, server: PageServer, page: str
) -> None:
    driver.navigate(tab, server.url(page))
    whole = driver.snapshot(tab)
    filters: tuple[tree_text.Filter | None, ...] = (None, "interactive", "all")
    for filter, depth in itertools.product(filters, (1, 2, 4, 15)):
        request = SnapshotRequest(filter=filter or "visible", depth=depth)
        pruned = driver.snapshot(tab, request)
        assert pruned.document == whole.document
        assert keys(pruned.root) <= keys(whole.root)
        assert render(pruned.root, filter, depth) == render(whole.root, filter, depth), (filter, depth)


def test_a_read_scoped_to_an_element_prints_what_its_subtree_prints(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    driver.navigate(tab, server.url("big.html"))
    whole = driver.snapshot(tab)
    paragraphs = [node for node in whole.root.walk() if node.role == "paragraph" and node.key][:3]
    assert paragraphs
    for node in paragraphs:
        assert node.key is not None
        filters: tuple[tree_text.Filter | None, ...] = (None, "interactive", "all")
        for filter in filters:
            pruned = driver.snapshot(tab, SnapshotRequest(filter=filter or "visible", depth=15, root_key=node.key))
            scoped = next(n for n in pruned.root.walk() if n.key == node.key)
            expected = render(AXNode(role="document", children=(node,)), filter, 15)
            assert render(AXNode(role="document", children=(scoped,)), filter, 15) == expected


def test_a_pruned_read_is_smaller_and_stops_at_its_budget(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("big.html"))
    whole = sum(1 for _ in driver.snapshot(tab).root.walk())
    interactive = sum(1 for _ in driver.snapshot(tab, SnapshotRequest(filter="interactive")).root.walk())
    budgeted = sum(1 for _ in driver.snapshot(tab, SnapshotRequest(filter="all", budget=50)).root.walk())
    assert interactive < whole / 5
    assert budgeted <= 51  # the budget, and the document node


def test_an_unchanged_page_is_not_walked_again(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    request = SnapshotRequest(filter="all", depth=15)
    first = driver.snapshot(tab, request)
    assert driver.snapshot(tab, request) is first
    js(driver, tab, "document.body.append(Object.assign(document.createElement('button'), {textContent: 'Added'}))")
    changed = driver.snapshot(tab, request)
    assert changed is not first
    assert any(node.name == "Added" for node in changed.root.walk())
    driver.navigate(tab, server.url("big.html"))
    visible = SnapshotRequest(filter="visible", depth=15)
    before = driver.snapshot(tab, visible)
    assert driver.snapshot(tab, visible) is before
    js(driver, tab, "window.scrollTo(0, 2000)")
    scrolled = driver.snapshot(tab, visible)
    assert scrolled is not before
    assert render(scrolled.root, None, 15) != render(before.root, None, 15)


def test_the_walker_source_is_sent_once_per_document(
    driver: SeleniumDriver, tab: str, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver.navigate(tab, server.url("form.html"))
    sent: list[str] = []
    scripts = driver._scripts
    run = scripts.run

    def spy(handle: str, method: str, params: Any, **kwargs: Any) -> Any:
        if method == "script.callFunction":
            sent.append(str(params["functionDeclaration"]))
        return run(handle, method, params, **kwargs)

    monkeypatch.setattr(scripts, "run", spy)
    for _ in range(3):
        driver.snapshot(tab)
    driver.page_text(tab)
    assert len(sent) == 4
    assert sent[0] != walker_call_declaration()  # the install
    assert sent[1:] == [walker_call_declaration()] * 3
    driver.navigate(tab, server.url("index.html"))
    sent.clear()
    driver.snapshot(tab)
    driver.snapshot(tab, SnapshotRequest(filter="interactive"))
    assert sent[0] != walker_call_declaration() and sent[1] == walker_call_declaration()


def test_a_big_snapshot_travels_compressed(
    driver: SeleniumDriver, tab: str, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver.navigate(tab, server.url("big.html"))
    replies: list[Any] = []
    scripts = driver._scripts
    run = scripts.run

    def spy(handle: str, method: str, params: Any, **kwargs: Any) -> Any:
        reply = run(handle, method, params, **kwargs)
        replies.append(reply)
        return reply

    monkeypatch.setattr(scripts, "run", spy)
    snapshot = driver.snapshot(tab)
    assert isinstance(snapshot, AXSnapshot)
    assert str(replies[-1]["result"]["value"]).startswith(COMPRESSED_PREFIX)
    assert any(node.name == "buy 599" for node in snapshot.root.walk())


def test_tab_urls_and_titles_come_from_events(
    driver: SeleniumDriver, tab: str, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver.navigate(tab, server.url("form.html"))
    commands: list[str] = []
    conn = driver._conn
    command = conn.command

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        commands.append(method)
        return command(method, *args, **kwargs)

    monkeypatch.setattr(conn, "command", spy)
    listed = driver.list_tabs()
    assert [(info.url, info.active) for info in listed] == [(server.url("form.html"), True)]
    assert commands == []
    title = listed[0].title
    js(driver, tab, "document.title = 'Renamed'")
    assert wait_until(lambda: driver.list_tabs()[0].title == "Renamed")
    js(driver, tab, "history.pushState(null, '', '#pushed')")
    assert wait_until(lambda: driver.list_tabs()[0].url == server.url("form.html") + "#pushed")
    assert title != "Renamed"
