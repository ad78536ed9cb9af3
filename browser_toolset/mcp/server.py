"""The MCP server: the members as tools, each call run by the calling client's own `BrowserToolset` (the executor
`browser-toolset exec` runs, opened from the same settings), its `tool_result` answered as MCP content.

It serves what the official SDK's low-level `Server` serves: the `initialize` handshake (with MCP sessions and
server-to-client requests) and the 2026-07-28 per-request protocol, over stdio or streamable HTTP. Whose browser a
call uses is `client_key`: the one browser of a stdio server, an MCP session's own over HTTP, and on the per-request
protocol (which has no sessions) the one named by the request's `Browser-Toolset-Client` header.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import attrs
import mcp_types as types
from anthropic.tools.browser import BetaConfirmContext
from mcp.server import Server, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from ..config import OPTIONAL_MEMBERS, Settings, open_toolset
from ..config.toolsets import save_storage_on_close
from ..executor.toolset import BrowserToolset
from .confirm import CURRENT, CallContext, InputNeeded, ask
from .metrics import CallMetrics
from .results import call_result, error_result
from .sessions import SessionPool, SessionUnavailable
from .tools import input_schema, tool_list

__all__ = ["CLIENT_HEADER", "SESSION_HEADER", "BrowserService", "build_server", "client_key"]

log = logging.getLogger("browser_toolset")

NAME = "browser-toolset"
CLIENT_HEADER = "browser-toolset-client"
"""The request header naming a client on the per-request protocol, whose requests carry no MCP session."""
SESSION_HEADER = "mcp-session-id"
CLIENT_KEY_MAX = 200
STDIO_KEY = "stdio"


def client_key(headers: Mapping[str, str] | None) -> str:
    """Whose browser a request uses (see the module's docstring), from its HTTP headers (None on stdio)."""
    if headers is None:
        return STDIO_KEY
    session = headers.get(SESSION_HEADER)
    if session:
        return f"session:{session[:CLIENT_KEY_MAX]}"
    return f"client:{headers.get(CLIENT_HEADER, '').strip()[:CLIENT_KEY_MAX]}"


def _approve_unattended(context: BetaConfirmContext) -> bool:
    """`--enable` is the operator's consent for the optional members; each of their calls is logged."""
    if context.member in OPTIONAL_MEMBERS:
        log.info("approved %s unattended (enabled with --enable)", context.member)
    return True


@attrs.define
class BrowserService:
    """What the server serves: the settings the browsers open with, their sessions, the tools and the counters."""

    settings: Settings
    max_sessions: int = 4
    idle_timeout: float | None = 600.0
    pool: SessionPool = attrs.field(init=False)
    metrics: CallMetrics = attrs.field(factory=CallMetrics, init=False)
    tools: list[types.Tool] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.tools = tool_list(self.settings.enable)
        self.pool = SessionPool(self.open, max_sessions=self.max_sessions, idle_timeout=self.idle_timeout)

    def open(self) -> BrowserToolset:
        """A client's browser, loaded with `storage.load` and saving `storage.save` as it closes (each session to
        the same file: the last one closed wins)."""
        toolset = open_toolset(self.settings, ask=ask, then=_approve_unattended)
        save_storage_on_close(toolset, self.settings)
        return toolset

    @asynccontextmanager
    async def running(self, _server: object = None) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: idle sessions are closed while it runs, and every browser when it stops."""
        async with anyio.create_task_group() as group:
            group.start_soon(self.pool.watch_idle)
            try:
                yield {}
            finally:
                group.cancel_scope.cancel()
                await self.pool.close_all()

    async def call(
        self, request: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        member = params.name
        if member not in {tool.name for tool in self.tools}:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {member}")
        headers = request.request.headers if request.request is not None else None
        started = time.perf_counter()
        try:
            session = await self.pool.get(client_key(headers))
        except SessionUnavailable as exc:
            result = error_result(str(exc))
        else:
            token = CURRENT.set(CallContext(request, params.input_responses, params.request_state))
            try:
                block = await session.call(member, params.arguments or {}, self.pool.clock)
            except InputNeeded as needed:
                return needed.result()
            finally:
                CURRENT.reset(token)
            result = call_result(block)
        self.metrics.observe(member, time.perf_counter() - started, error=result.is_error)
        return result


def build_server(service: BrowserService) -> Server[dict[str, Any]]:
    from .. import __version__

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=service.tools)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        return await service.call(ctx, params)

    names = {tool.name for tool in service.tools}
    server: Server[dict[str, Any]] = Server(
        NAME,
        version=__version__,
        lifespan=service.running,
        get_tool_input_schema=lambda name: input_schema(name) if name in names else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # the per-request protocol's confirmation round trip carries its question's digest in `requestState`: sealed,
    # bound to the call's tool and arguments, and short-lived
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=NAME))
    return server
