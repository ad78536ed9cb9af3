"""`browser-toolset mcp` on real headless browsers, through the official `mcp` client library: over stdio on
Chromium and Firefox on both protocol versions (the tool list, navigate, read_page, a click by ref, a screenshot),
over HTTP in front of a local Selenium Grid (each MCP client its own Grid session, proved from the Grid's log), and
a server killed with SIGKILL, whose browser the session's reaper ends."""

from __future__ import annotations

import base64
import io
import os
import signal
import sys
import tempfile
import time
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from PIL import Image

from tests.support.browsers import require_browser
from tests.support.grid import GridWatch
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.unit.test_mcp_http import MODES, ROOT, http_server, ok, ref_of, texts

pytestmark = pytest.mark.browser
BROWSERS = ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)]


def stdio_client(browser: str, mode: str, env: dict[str, str] | None = None) -> Client:
    args = ["-m", "browser_toolset.mcp", "--driver", "selenium", "--browser", browser, "--allow-private"]
    command = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT), env=env or dict(os.environ))
    return Client(command, mode=mode)


async def _browse(client: Client, server: PageServer) -> dict[str, Any]:
    seen: dict[str, Any] = {"version": client.protocol_version}
    seen["tools"] = [tool.name for tool in (await client.list_tools()).tools]
    seen["navigate"] = ok(await client.call_tool("navigate", {"url": server.url("index.html")}))
    seen["read"] = texts(ok(await client.call_tool("read_page", {"filter": "interactive"})))
    target = {"type": "ref", "ref": ref_of(seen["read"], "link", "Form")}
    seen["click"] = ok(await client.call_tool("left_click", {"target": target}))
    seen["shot"] = ok(await client.call_tool("screenshot", {}))
    return seen


@pytest.mark.long
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("browser", BROWSERS)
def test_stdio_on_a_real_browser(browser: str, mode: str, server: PageServer) -> None:
    require_browser(browser)  # type: ignore[arg-type]

    async def main() -> dict[str, Any]:
        async with stdio_client(browser, mode) as client:
            return await _browse(client, server)

    seen = anyio.run(main)
    print(f"\n[mcp stdio {browser} {mode}] {seen['version']}: {texts(seen['navigate'])!r}")
    assert len(seen["tools"]) == 27
    assert texts(seen["navigate"]).startswith(f"Navigated to {server.url('index.html')} — Index")
    assert seen["navigate"].structured_content["tabs"][0]["url"] == server.url("index.html")
    wait_until(lambda: ("GET", "/form.html") in server.requests, timeout=30)
    (image,) = [block for block in seen["shot"].content if isinstance(block, types.ImageContent)]
    with Image.open(io.BytesIO(base64.b64decode(image.data))) as png:
        assert png.size == (1280, 800)


@pytest.mark.long
@pytest.mark.grid
def test_http_in_front_of_a_grid_gives_each_client_its_own_grid_session(grid: str, server: PageServer) -> None:
    require_browser("chromium")
    watch = GridWatch(grid)
    flags = ["--driver", "selenium", "--browser", "chromium", "--remote", grid, "--allow-private"]
    with http_server(*flags) as mcp:

        async def client(mode: str, page: str) -> Any:
            async with mcp.client(mode, f"grid-{mode}") as session:
                ok(await session.call_tool("navigate", {"url": server.url(page)}))
                return ok(await session.call_tool("list_tabs", {})).structured_content

        # the Grid fixture has one Chromium slot: the clients take turns (the legacy one's session ends with it)
        first = anyio.run(client, "legacy", "index.html")
        second = anyio.run(client, "auto", "form.html")
    print(f"\n[mcp grid] {first} / {second}")
    assert [tab["url"] for tab in first["tabs"]] == [server.url("index.html")]
    assert [tab["url"] for tab in second["tabs"]] == [server.url("form.html")]
    sessions = wait_until(lambda: watch.created() if len(watch.created()) == 2 else [], timeout=60)
    assert [session.browser for session in sessions] == ["chrome", "chrome"]
    assert sessions[0].id != sessions[1].id


def _marked(prefix: str) -> list[int]:
    """Live processes whose environment marks them as a browser session's under `prefix` (the driver's marker)."""
    wanted = f"BROWSER_TOOLSET_SESSION={prefix}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as file:
                entries = file.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read().decode("latin-1")
        except OSError:
            continue
        if any(entry.startswith(wanted) for entry in entries) and stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(name))
    return found


def _server_pid() -> int:
    """Our child running `browser_toolset.mcp`."""
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as file:
                command = file.read()
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read().decode("latin-1")
        except OSError:
            continue
        if b"browser_toolset.mcp" in command and int(stat[stat.rindex(")") + 2 :].split()[1]) == os.getpid():
            return int(name)
    raise AssertionError("the MCP server process was not found")


def test_a_sigkilled_server_leaves_no_local_browser(server: PageServer) -> None:
    require_browser("chromium")
    with tempfile.TemporaryDirectory(prefix="mcp-kill-", dir="/tmp") as scratch:
        env = {**os.environ, "TMPDIR": scratch}
        found: dict[str, Any] = {}

        async def main() -> None:
            try:
                async with stdio_client("chromium", "legacy", env) as client:
                    ok(await client.call_tool("navigate", {"url": server.url("index.html")}))
                    found["browser"] = _marked(scratch)
                    os.kill(_server_pid(), signal.SIGKILL)
                    found["killed"] = time.monotonic()
                    with anyio.fail_after(60):
                        await client.call_tool("list_tabs", {})
            except Exception as exc:  # the client sees its server gone
                found["client"] = repr(exc)

        anyio.run(main)
        assert found["browser"], "the browser and its WebDriver binary carry the session's marker"
        try:
            wait_until(lambda: _marked(scratch) == [], timeout=30, interval=0.1)
        finally:
            for pid in _marked(scratch):  # never leave a browser behind, even when the test fails
                os.kill(pid, signal.SIGKILL)
        print(f"\n[mcp kill] {len(found['browser'])} processes gone {time.monotonic() - found['killed']:.1f} s after "
              f"SIGKILL; the client saw {found.get('client', 'nothing')[:120]}")  # fmt: skip
