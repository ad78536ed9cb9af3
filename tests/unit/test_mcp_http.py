"""`browser-toolset mcp --transport http` on the mock driver, through the official `mcp` client library on both
protocol versions (the client's `legacy` mode: the initialize handshake and MCP sessions; `auto`: the 2026-07-28
per-request protocol): each concurrent client sees only its own tabs, the session limit refuses the next client,
confirmation goes through the client, Host/Origin and the bearer token are checked, and an idle client's browser
is closed. Each server runs as `python -m browser_toolset.mcp`, shared by the tests that can share it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.polling import wait_until

ROOT = Path(__file__).parents[2]
SHOP = str(ROOT / "examples" / "shop.json")
MODES = ["legacy", "auto"]
_ADDRESS = re.compile(r"MCP over HTTP at (http://\S+/mcp)")


class HttpServer:
    """A `python -m browser_toolset.mcp --transport http` process on a free port."""

    def __init__(self, process: subprocess.Popen[str], url: str, token: str | None) -> None:
        self.process = process
        self.url = url
        self.token = token

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def headers(self, client: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if client is not None:
            headers["Browser-Toolset-Client"] = client
        return headers

    def client(self, mode: str, client: str | None = None, **options: Any) -> Client:
        """An MCP client of this server; `client` is its key on the per-request protocol."""
        http = httpx2.AsyncClient(headers=self.headers(client), timeout=httpx2.Timeout(60.0))
        return Client(streamable_http_client(self.url, http_client=http), mode=mode, **options)

    def metric(self, name: str) -> float:
        text = httpx2.get(f"{self.base}/metrics", headers=self.headers(), timeout=30).text
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
        assert found, text
        return float(found[1])


@contextmanager
def http_server(*flags: str, token: str | None = None, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    """Start the server with `flags` and yield it once it listens; stop it (SIGTERM, then SIGKILL) afterwards."""
    command = [sys.executable, "-m", "browser_toolset.mcp", "--transport", "http", "--port", "0", "--driver", "mock"]
    command += flags
    if token:
        command += ["--token", token]
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        cwd=ROOT, env={**os.environ, **(env or {})},
    )  # fmt: skip
    try:
        assert process.stderr is not None
        lines: list[str] = []
        for line in process.stderr:
            lines.append(line)
            found = _ADDRESS.search(line)
            if found:
                break
        else:
            raise AssertionError(f"the server did not start: {''.join(lines)}")
        yield HttpServer(process, found[1], token)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def texts(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def ok(result: types.CallToolResult) -> types.CallToolResult:
    assert not result.is_error, texts(result)
    return result


def ref_of(listing: str, role: str, name: str) -> str:
    found = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[(ref_\d+)\]', listing)
    assert found, listing
    return found[1]


# --- four clients at once, each with its own browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def shop() -> Iterator[HttpServer]:
    with http_server("--site", SHOP, "--max-sessions", "4") as server:
        yield server


PAGES = ["/", "/checkout", "/terms", "/offers"]


async def _own_tabs(server: HttpServer, mode: str, number: int, opened: anyio.Event, all_open: list[int]) -> Any:
    async with server.client(mode, f"{mode}-{number}") as client:
        ok(await client.call_tool("navigate", {"url": f"https://shop.test{PAGES[number]}"}))
        ok(await client.call_tool("new_tab", {}))
        ok(await client.call_tool("navigate", {"url": f"https://shop.test/search?q=client{number}"}))
        all_open.append(number)
        if len(all_open) == len(PAGES):
            opened.set()
        await opened.wait()  # every client has its browser open now: the tabs below are read side by side
        listing = ok(await client.call_tool("list_tabs", {}))
        return listing.structured_content, texts(listing)


@pytest.mark.parametrize("mode", MODES)
def test_four_concurrent_clients_each_see_only_their_own_tabs(shop: HttpServer, mode: str) -> None:
    opened_before = shop.metric("browser_toolset_mcp_sessions_opened_total")

    async def main() -> list[Any]:
        opened = anyio.Event()
        all_open: list[int] = []
        results: list[Any] = [None] * len(PAGES)

        async def one(number: int) -> None:
            results[number] = await _own_tabs(shop, mode, number, opened, all_open)

        async with anyio.create_task_group() as group:
            for number in range(len(PAGES)):
                group.start_soon(one, number)
        return results

    results = anyio.run(main)
    for number, (structured, text) in enumerate(results):
        print(f"\n[mcp http {mode}] client {number}: {text!r}")
        urls = sorted(tab["url"] for tab in structured["tabs"])
        assert urls == sorted([f"https://shop.test{PAGES[number]}", f"https://shop.test/search?q=client{number}"])
        assert sum(1 for tab in structured["tabs"] if tab.get("active")) == 1
    assert shop.metric("browser_toolset_mcp_sessions_opened_total") == opened_before + 4


def test_the_fifth_client_is_refused_while_four_browsers_are_open(shop: HttpServer) -> None:
    async def main() -> str:
        release, holding = anyio.Event(), anyio.Event()
        # the clients of the tests before may still hold browsers (per-request clients have no session to end)
        free = 4 - int(shop.metric("browser_toolset_mcp_sessions_open"))
        ready: list[int] = []

        async def hold(number: int) -> None:
            async with shop.client("legacy") as client:
                ok(await client.call_tool("list_tabs", {}))
                ready.append(number)
                if len(ready) == free:
                    holding.set()
                await release.wait()

        async with anyio.create_task_group() as group:
            for number in range(free):
                group.start_soon(hold, number)
            if free == 0:
                holding.set()
            await holding.wait()
            assert shop.metric("browser_toolset_mcp_sessions_open") == 4
            async with shop.client("legacy") as fifth:
                refused = await fifth.call_tool("list_tabs", {})
            release.set()
        assert refused.is_error
        return texts(refused)

    text = anyio.run(main)
    print(f"\n[mcp http] the fifth client: {text!r}")
    assert text.startswith("Error: No browser is available: this server already runs 4 browser sessions")
    assert shop.metric("browser_toolset_mcp_sessions_refused_total") >= 1


# --- confirmation, Origin and the token -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded() -> Iterator[HttpServer]:
    with http_server("--site", SHOP, "--max-sessions", "8", token="test-token-0123456789") as server:
        yield server


async def _place_order(server: HttpServer, mode: str, key: str, answer: str | None) -> tuple[types.CallToolResult, str]:
    """Go to the checkout and click "Place order" (a purchase, so `ask`); `answer` is the person's, or None for a
    client that cannot ask. The result of the click, and the tab's URL after it."""
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        assert answer is not None
        return types.ElicitResult(action=answer)  # type: ignore[arg-type]

    options = {} if answer is None else {"elicitation_callback": elicit}
    async with server.client(mode, key, **options) as client:
        ok(await client.call_tool("navigate", {"url": "https://shop.test/checkout"}))
        page = texts(ok(await client.call_tool("read_page", {"filter": "interactive"})))
        click = await client.call_tool(
            "left_click", {"target": {"type": "ref", "ref": ref_of(page, "button", "Place order")}}
        )
        tabs = ok(await client.call_tool("list_tabs", {})).structured_content
    assert (len(asked) == 1) == (answer is not None), asked
    if asked:
        assert "left_click on button 'Place order'" in asked[0] and "a purchase or payment" in asked[0], asked
    return click, tabs["tabs"][0]["url"]


@pytest.mark.parametrize("mode", MODES)
def test_an_accepted_confirmation_runs_the_call(guarded: HttpServer, mode: str) -> None:
    click, url = anyio.run(_place_order, guarded, mode, f"accept-{mode}", "accept")
    print(f"\n[mcp http {mode}] accepted: {texts(click)!r} -> {url}")
    assert texts(ok(click)).startswith("Clicked.")
    assert url.startswith("https://shop.test/thanks")


@pytest.mark.parametrize(("mode", "answer"), [("legacy", "decline"), ("auto", "decline"), ("auto", "cancel")])
def test_a_declined_confirmation_is_an_error_saying_so(guarded: HttpServer, mode: str, answer: str) -> None:
    click, url = anyio.run(_place_order, guarded, mode, f"{answer}-{mode}", answer)
    print(f"\n[mcp http {mode}] {answer}: {texts(click)!r}")
    assert click.is_error
    assert texts(click).startswith("Error: left_click on button 'Place order' was not run: it looks like a purchase")
    assert "the user declined it" in texts(click)
    assert url == "https://shop.test/checkout"


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_cannot_ask_is_refused_as_without_a_person(guarded: HttpServer, mode: str) -> None:
    click, url = anyio.run(_place_order, guarded, mode, f"mute-{mode}", None)
    assert click.is_error
    assert "this session refuses such actions without a person to confirm them" in texts(click)
    assert url == "https://shop.test/checkout"


def _post(server: HttpServer, **headers: str) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers}
    return httpx2.post(server.url, json=body, headers=sent, timeout=30)


def test_a_foreign_origin_or_host_is_refused(guarded: HttpServer) -> None:
    foreign = _post(guarded, Origin="http://evil.example", **guarded.headers())
    print(f"\n[mcp http] foreign Origin: {foreign.status_code} {foreign.text!r}")
    assert foreign.status_code == 403
    rebound = _post(guarded, Host="evil.example", **guarded.headers())
    assert rebound.status_code == 421
    for path in ("/metrics", "/healthz"):
        assert httpx2.get(f"{guarded.base}{path}", headers={"Origin": "http://evil.example"}).status_code == 403
    local = _post(guarded, Origin="http://localhost:3000", **guarded.headers())
    assert local.status_code not in (401, 403, 421), local.text


@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_token_is_refused_on_every_request(guarded: HttpServer, mode: str) -> None:
    assert _post(guarded).status_code == 401
    assert _post(guarded, Authorization="Bearer wrong").status_code == 401
    assert httpx2.get(f"{guarded.base}/metrics").status_code == 401
    assert httpx2.get(f"{guarded.base}/healthz").text == "ok\n"

    opened = guarded.metric("browser_toolset_mcp_sessions_opened_total")

    async def main() -> None:
        http = httpx2.AsyncClient(headers={"Authorization": "Bearer wrong"})
        async with Client(streamable_http_client(guarded.url, http_client=http), mode=mode) as client:
            await client.call_tool("list_tabs", {})

    # a 401 reaches the client as its transport's error, whose type differs by mode
    with pytest.raises(Exception) as failure:
        anyio.run(main)
    print(f"\n[mcp http {mode}] wrong token: {failure.value!r}")
    assert guarded.metric("browser_toolset_mcp_sessions_opened_total") == opened

    async def right() -> None:
        async with guarded.client(mode, f"token-{mode}") as client:
            ok(await client.call_tool("list_tabs", {}))

    anyio.run(right)
    assert guarded.metric("browser_toolset_mcp_sessions_opened_total") == opened + 1


# --- idle sessions --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def idle() -> Iterator[HttpServer]:
    with http_server("--site", SHOP, "--idle-timeout", "0.5") as server:
        yield server


@pytest.mark.parametrize("mode", MODES)
def test_an_idle_clients_browser_is_closed_after_its_idle_time(idle: HttpServer, mode: str) -> None:
    closed = idle.metric("browser_toolset_mcp_sessions_idle_closed_total")

    async def main() -> Sequence[str]:
        async with idle.client(mode, f"idle-{mode}") as client:
            ok(await client.call_tool("navigate", {"url": "https://shop.test/terms"}))
            # this client's browser is the only one open until the idle watcher closes it
            wait_until(lambda: idle.metric("browser_toolset_mcp_sessions_open") == 0, timeout=30)
            assert idle.metric("browser_toolset_mcp_sessions_idle_closed_total") >= closed + 1
            told = await client.call_tool("list_tabs", {})
            again = ok(await client.call_tool("list_tabs", {}))
            return texts(told), str(again.structured_content)

    told, again = anyio.run(main)
    print(f"\n[mcp http {mode}] after the idle time: {told!r}; then {again}")
    assert told.startswith("Error: This client's browser was closed after 0.5 s without a call")
    assert "shop.test/terms" not in again
