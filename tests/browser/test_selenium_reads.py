"""The Selenium driver's fast paths on Chromium and Firefox: reads pruned in the page print exactly what the whole
tree prints, an unchanged page is not walked again, the walker is sent once per document, big results travel
compressed, and tab URLs and titles come from events. Speed itself is measured (benchmarks/), never asserted here.

Each test runs on both of the session's shared browsers (`driver`), against this module's own page server."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.drivers.selenium.script import COMPRESSED_PREFIX, walker_call_declaration
from browser_toolset.drivers.selenium.titles import TITLE_MARKER
from browser_toolset.executor import tree_text
from browser_toolset.values import WHOLE_TREE, AXNode, AXSnapshot, SnapshotRequest, TabInfo
from tests.support.browsers import js
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import Session, ok
from tests.support.session import text as session_text

BIG_PAGE = "<!doctype html><title>Big</title><main>{}</main>".format(
    "".join(
        f"<p>Item {i} <a href='#i{i}'>link {i}</a> <button>buy {i}</button>"
        f"<span style='display:{'none' if i % 7 == 0 else 'inline'}'>note {i}</span></p>"
        for i in range(600)
    )
)


HUGE_PAGE = "<!doctype html><title>Huge</title><main>{}</main><footer><button>Last</button></footer>".format(
    "".join(
        f"<section><h3>Item {i}</h3><p>Words about item {i} <a href='#i{i}'>details {i}</a></p>"
        f"<div hidden><button>hidden {i}</button></div><button>Buy {i}</button></section>"
        for i in range(3000)
    )
)
"""Far more than a read's 50,000 characters, in every filter's reach: a read may stop early."""

DEEP_PAGE = "<!doctype html><title>Deep</title>{}".format(
    "".join(
        "<ul><li>" * 18 + f"<a href='#d{i}'>deep link number {i} with some words</a>" + "</li></ul>" * 18
        for i in range(700)
    )
)
"""Links 36 printed levels down: a read that counts them towards its cap would stop too early at depth 15."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageServer]:
    from tests.support.server import PAGES

    root = tmp_path_factory.mktemp("reads")
    for page in PAGES.iterdir():
        if page.is_file():
            (root / page.name).write_bytes(page.read_bytes())
    (root / "big.html").write_text(BIG_PAGE)
    (root / "huge.html").write_text(HUGE_PAGE)
    (root / "deep.html").write_text(DEEP_PAGE)
    with PageServer(root) as page_server:
        yield page_server


def render(root: AXNode, filter: tree_text.Filter | None, depth: int, max_chars: int = 10**7) -> str:
    refs: dict[str, str] = {}
    counter = itertools.count(1)

    def ref_for(node: AXNode) -> str | None:
        if node.key is None:
            return None
        return refs.setdefault(node.key, f"ref_{next(counter)}")

    return tree_text.render_tree(root, ref_for=ref_for, filter=filter, depth=depth, max_chars=max_chars)


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
    # A change to the page after each read: the whole tree of an unchanged page would answer the pruned reads.
    js(driver, tab, "document.body.dataset.read = '1'")
    interactive = sum(1 for _ in driver.snapshot(tab, SnapshotRequest(filter="interactive")).root.walk())
    js(driver, tab, "document.body.dataset.read = '2'")
    budgeted = sum(1 for _ in driver.snapshot(tab, SnapshotRequest(filter="all", budget=50)).root.walk())
    assert interactive < whole / 5
    assert budgeted <= 51  # the budget, and the document node


@pytest.mark.parametrize("filter", ["all", "interactive", None])
def test_a_capped_read_stops_early_and_prints_what_the_whole_tree_prints(
    driver: SeleniumDriver, tab: str, server: PageServer, filter: tree_text.Filter | None
) -> None:
    driver.navigate(tab, server.url("huge.html"))
    whole = driver.snapshot(tab)
    js(driver, tab, "document.body.dataset.read = '1'")  # no answer from the whole tree's cache
    capped = driver.snapshot(tab, SnapshotRequest(filter=filter or "visible", chars=75_000))
    expected = render(whole.root, filter, 15, max_chars=50_000)
    if filter == "all":
        assert capped.truncated
        assert sum(1 for _ in capped.root.walk()) < sum(1 for _ in whole.root.walk()) / 2
        refs: dict[str, str] = {}
        shown = tree_text.render_tree_prefix(
            capped.root,
            ref_for=lambda node: refs.setdefault(str(node.key), f"ref_{len(refs) + 1}"),
            filter=filter,
            depth=15,
        )
        assert shown is not None
        *lines, note = shown.split("\n")
        # the same lines, but for the last one or two: its note is worded, so sized, differently
        whole_lines = expected.split("\n")[:-1]
        assert lines == whole_lines[: len(lines)]
        assert len(lines) >= len(whole_lines) - 2
        assert note.startswith("[Truncated at 50,000 characters: at least ")
    else:
        # a read of the viewport prints little: it is never cut, and names nothing outside the viewport
        assert not capped.truncated
        assert render(capped.root, filter, 15) == expected


def test_a_capped_read_whose_estimate_runs_long_is_read_whole(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """Lines deeper than the depth count towards the driver's estimate but are not printed: the prefix does not
    reach the cap, and the executor reads the whole page instead of showing a short, wrongly cut text."""
    from browser_toolset import BrowserToolset, URLPolicy

    driver.navigate(tab, server.url("deep.html"))
    toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True))
    whole = render(driver.snapshot(tab).root, "all", 15, max_chars=50_000)
    js(driver, tab, "document.body.dataset.read = '1'")
    capped = driver.snapshot(tab, SnapshotRequest(filter="all", chars=75_000))
    assert capped.truncated
    refs: dict[str, str] = {}
    ref_for = lambda node: refs.setdefault(str(node.key), f"ref_{len(refs) + 1}")  # noqa: E731
    assert tree_text.render_tree_prefix(capped.root, ref_for=ref_for, filter="all", depth=15) is None
    js(driver, tab, "document.body.dataset.read = '2'")
    text = session_text(ok(Session(toolset).call("read_page", filter="all")))
    assert "at least" not in text
    assert [line.split(" [")[0] for line in text.split("\n")] == [line.split(" [")[0] for line in whole.split("\n")]


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


def test_a_whole_tree_answers_any_read_of_the_unchanged_page(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """A `find` right after a `read_page` of "all" (both ask for the whole tree, or a part of it) costs one short
    round trip: the whole tree is valid for every request, so it is reused while the page is unchanged."""
    driver.navigate(tab, server.url("form.html"))
    whole = driver.snapshot(tab)
    for request in (SnapshotRequest(filter="interactive", depth=15), SnapshotRequest(filter="visible"), WHOLE_TREE):
        assert driver.snapshot(tab, request) is whole
    js(driver, tab, "document.body.append(Object.assign(document.createElement('button'), {textContent: 'Added'}))")
    interactive = driver.snapshot(tab, SnapshotRequest(filter="interactive", depth=15))
    assert interactive is not whole
    assert any(node.name == "Added" for node in interactive.root.walk())
    # the pruned read is not taken for a whole one: the next whole read walks the page again
    again = driver.snapshot(tab)
    assert again is not whole and again is not interactive
    assert any(node.name == "Added" for node in again.root.walk())


@pytest.fixture
def script_calls(driver: SeleniumDriver, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, Any]]:
    """Every script command the driver sends from now on, as (method, params, reply)."""
    calls: list[tuple[str, Any, Any]] = []
    scripts = driver._scripts
    run = scripts.run

    def spy(handle: str, method: str, params: Any, **kwargs: Any) -> Any:
        reply = run(handle, method, params, **kwargs)
        calls.append((method, params, reply))
        return reply

    monkeypatch.setattr(scripts, "run", spy)
    return calls


def test_the_walker_source_is_sent_once_per_document(
    driver: SeleniumDriver, tab: str, server: PageServer, script_calls: list[tuple[str, Any, Any]]
) -> None:
    def sent() -> list[str]:
        return [
            str(params["functionDeclaration"]) for method, params, _ in script_calls if method == "script.callFunction"
        ]

    driver.navigate(tab, server.url("form.html"))
    script_calls.clear()
    for _ in range(3):
        driver.snapshot(tab)
    driver.page_text(tab)
    assert len(sent()) == 4
    assert sent()[0] != walker_call_declaration()  # the install
    assert sent()[1:] == [walker_call_declaration()] * 3
    driver.navigate(tab, server.url("index.html"))
    script_calls.clear()
    driver.snapshot(tab)
    driver.snapshot(tab, SnapshotRequest(filter="interactive"))
    assert sent()[0] != walker_call_declaration() and sent()[1] == walker_call_declaration()


def test_a_big_snapshot_travels_compressed(
    driver: SeleniumDriver, tab: str, server: PageServer, script_calls: list[tuple[str, Any, Any]]
) -> None:
    driver.navigate(tab, server.url("big.html"))
    snapshot = driver.snapshot(tab)
    assert isinstance(snapshot, AXSnapshot)
    assert str(script_calls[-1][2]["result"]["value"]).startswith(COMPRESSED_PREFIX)
    assert any(node.name == "buy 599" for node in snapshot.root.walk())


def test_tab_urls_and_titles_come_from_events(
    driver: SeleniumDriver, tab: str, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver.navigate(tab, server.url("form.html"))
    commands: list[str] = []
    conn = driver._conn
    command = conn.command
    test_thread = threading.get_ident()

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == test_thread:  # not the guard's answers to requests, sent as events arrive
            commands.append(method)
        return command(method, *args, **kwargs)

    def listing() -> list[TabInfo]:
        before = len(commands)
        listed = driver.list_tabs()
        assert commands[before:] == [], "list_tabs asked the browser instead of keeping up with its events"
        return listed

    monkeypatch.setattr(conn, "command", spy)
    assert [(info.url, info.title, info.active) for info in listing()] == [(server.url("form.html"), "Form", True)]
    js(driver, tab, "document.title = 'Renamed'")
    assert wait_until(lambda: listing()[0].title == "Renamed")
    js(driver, tab, "history.pushState(null, '', '#pushed')")
    assert wait_until(lambda: listing()[0].url == server.url("form.html") + "#pushed")
    assert listing()[0].title == "Renamed"


def test_title_reports_stay_out_of_the_console_and_pages_cannot_forge_them(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """The title watch reports through the console with a per-session secret: its reports never show in the
    console log, and a page that logs what looks like one (the marker without the secret, or with a guess) only
    logs, and does not rename its tab."""
    driver.navigate(tab, server.url("form.html"))
    driver.drain_console(tab)
    js(driver, tab, "document.title = 'Renamed'")
    assert wait_until(lambda: driver.list_tabs()[0].title == "Renamed")
    marker = TITLE_MARKER
    js(driver, tab, f"console.debug({marker!r}, 'Forged'), console.debug({marker + ':0'!r}, 'Forged again'), 0")
    js(driver, tab, "console.log('after'), 0")
    seen: list[str] = []

    def logged_after() -> bool:
        seen.extend(entry.text for entry in driver.drain_console(tab))
        return "after" in seen

    assert wait_until(logged_after)
    assert seen == [f"{marker} Forged", f"{marker}:0 Forged again", "after"]
    assert driver.list_tabs()[0].title == "Renamed"
