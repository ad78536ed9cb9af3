"""`browser-toolset mcp`: the browser toolset as an MCP server, over stdio (the default, one browser for the life of
the process) or streamable HTTP (one browser per client). `serve(settings, options)` serves until the client goes
away or a signal stops it; the command line (`browser_toolset.cli`) reads its flags and imports this module only
when the command runs, since it needs the `mcp` extra. docs/mcp.md tells how to use it.
"""

from __future__ import annotations

import signal

import anyio
from mcp.server.stdio import stdio_server

from ..config import Settings
from .http import serve_http
from .options import ServerOptions
from .server import BrowserService, build_server
from .tools import estimate_tokens, tool_list, tool_list_size

__all__ = ["serve"]


async def _serve_stdio(service: BrowserService) -> None:
    server = build_server(service)
    async with anyio.create_task_group() as group:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(stop_on_signal)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        group.cancel_scope.cancel()


def _print_tools(settings: Settings) -> int:
    tools = tool_list(settings.enable)
    size = tool_list_size(tools)
    for tool in tools:
        print(f"{tool.name}: {tool.description}")
    print(f"{len(tools)} tools, {size} characters, about {estimate_tokens(size)} tokens (estimated)")
    return 0


def serve(settings: Settings, options: ServerOptions) -> int:
    """Serve the browsers `settings` describe as `options` say (or print the tool list); the exit status. Each
    browser session saves `storage.save`, when set, as it closes."""
    if options.print_tools:
        return _print_tools(settings)
    service = BrowserService(settings, max_sessions=options.session_limit, idle_timeout=options.idle_seconds)
    try:
        if options.transport == "stdio":
            anyio.run(_serve_stdio, service)
        else:
            anyio.run(serve_http, build_server(service), service, options)
    except KeyboardInterrupt:
        pass
    return 0
