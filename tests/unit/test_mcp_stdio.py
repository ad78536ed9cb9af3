"""`browser-toolset mcp` over stdio on the mock driver, through the official `mcp` client library on both protocol
versions (`legacy`: the initialize handshake; `auto`: the 2026-07-28 per-request protocol): the tool list, and
navigate, read_page, a click by ref and a screenshot answered as MCP content, a private address refused."""

from __future__ import annotations

import base64
import io
import sys
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from PIL import Image

from browser_toolset.config import load_settings
from browser_toolset.mcp.server import BrowserService, build_server
from browser_toolset.mcp.tools import enabled_members, input_schema
from tests.unit.test_mcp_http import MODES, ROOT, SHOP, ok, ref_of, texts


def stdio_client(mode: str, *flags: str, **options: Any) -> Client:
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "browser_toolset.mcp", "--driver", "mock", "--site", SHOP, *flags],
        cwd=str(ROOT),
    )
    return Client(command, mode=mode, **options)


@pytest.mark.parametrize("mode", MODES)
def test_a_session_over_stdio(mode: str) -> None:
    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with stdio_client(mode) as client:
            seen["version"] = client.protocol_version
            listed = await client.list_tools()
            seen["tools"] = {tool.name: tool.input_schema for tool in listed.tools}
            seen["navigate"] = ok(await client.call_tool("navigate", {"url": "https://shop.test/"}))
            seen["read"] = texts(ok(await client.call_tool("read_page", {"filter": "interactive"})))
            target = {"type": "ref", "ref": ref_of(seen["read"], "link", "Checkout")}
            seen["click"] = ok(await client.call_tool("left_click", {"target": target}))
            seen["shot"] = ok(await client.call_tool("screenshot", {}))
            seen["private"] = await client.call_tool("navigate", {"url": "http://192.168.1.10/admin"})
            seen["bad ref"] = await client.call_tool("left_click", {"target": {"type": "ref", "ref": "ref_999"}})
        return seen

    seen = anyio.run(main)
    print(f"\n[mcp stdio {mode}] protocol {seen['version']}, {len(seen['tools'])} tools")
    assert seen["version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert list(seen["tools"]) == enabled_members()
    assert all(seen["tools"][name] == input_schema(name) for name in seen["tools"])
    navigate = seen["navigate"]
    assert (
        texts(navigate)
        == "Navigated to https://shop.test/ — Mock Shop (HTTP 200)\nTabs (1):\n* tab-1: Mock Shop <https://shop.test/>"
    )
    assert navigate.structured_content == {
        "tabs": [{"tab_id": "tab-1", "title": "Mock Shop", "url": "https://shop.test/", "active": True}]
    }
    assert 'searchbox "Search products"' in seen["read"]
    click = seen["click"]
    assert texts(click).startswith("Clicked.")
    assert click.structured_content["tabs"][0]["url"] == "https://shop.test/checkout"
    (image,) = [block for block in seen["shot"].content if isinstance(block, types.ImageContent)]
    assert image.mime_type == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(image.data))) as png:
        assert png.size == (1280, 800)
    private = seen["private"]
    assert private.is_error and private.structured_content is None
    assert texts(private) == (
        "Error: Navigation refused: 192.168.1.10 is a private-network address (192.168.0.0/16); this session does not "
        "allow local or private-network addresses."
    )
    assert seen["bad ref"].is_error
    assert (
        texts(seen["bad ref"])
        == "Error: ref_999 is stale or not found on the current page. Re-read the page to get fresh references."
    )


@pytest.mark.parametrize("mode", MODES)
def test_allow_private_admits_the_private_address(mode: str) -> None:
    """The same server in-process (the client library's in-memory transport), with `--allow-private`."""
    settings = load_settings(flags={"driver": "mock", "driver_options.site": SHOP, "urls.allow_private": True}, env={})

    async def main() -> types.CallToolResult:
        async with Client(build_server(BrowserService(settings)), mode=mode) as client:
            return await client.call_tool("navigate", {"url": "http://192.168.1.10/admin"})

    result = anyio.run(main)
    print(f"\n[mcp {mode}] --allow-private: {texts(result)!r}")
    assert "Navigation refused" not in texts(result)
    assert result.structured_content["tabs"][0]["url"] == "http://192.168.1.10/admin"


@pytest.mark.parametrize("mode", MODES)
def test_an_enabled_optional_member_is_offered_and_runs(mode: str) -> None:
    settings = load_settings(
        flags={"driver": "mock", "driver_options.site": SHOP, "enable": ["javascript_exec"]}, env={}
    )

    async def main() -> tuple[list[str], types.CallToolResult]:
        async with Client(build_server(BrowserService(settings)), mode=mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            ok(await client.call_tool("navigate", {"url": "https://shop.test/"}))
            return names, await client.call_tool("javascript_exec", {"text": "window.cartCount"})

    names, result = anyio.run(main)
    assert names == enabled_members(["javascript_exec"]) and "read_console" not in names
    assert texts(ok(result)).startswith("2\n")
