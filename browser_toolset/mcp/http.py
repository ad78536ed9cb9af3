"""Streamable HTTP: the SDK's transport at `/mcp`, and `GET /healthz` and `GET /metrics` beside it.

Every request passes `Guard` first. Its `Host` must name this server and its `Origin`, when it has one, must be one
the server was told to accept (the SDK's `TransportSecuritySettings`), so that a web page, in any browser on the
machine and in the browsers this server drives, cannot reach it by DNS rebinding or a cross-site request. With a
token, every request but `/healthz` (which says nothing but that the server runs) must carry it as a bearer
token. When a client ends its MCP session (`DELETE /mcp`), its browser is closed at once.
"""

from __future__ import annotations

import hmac
import logging
import socket
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server import Server
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .metrics import render
from .options import ServerOptions
from .server import SESSION_HEADER, BrowserService, client_key

__all__ = ["build_app", "serve_http"]

log = logging.getLogger("browser_toolset")

MCP_PATH = "/mcp"
OPEN_PATHS = ("/healthz",)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
MCP_SESSIONS_PER_BROWSER = 4
"""MCP sessions the SDK admits per browser session allowed: a session holds a browser only once it calls a tool."""


def security_settings(options: ServerOptions) -> TransportSecuritySettings:
    names = [*LOOPBACK_NAMES, *options.server_names]
    host = options.host if ":" not in options.host else f"[{options.host.strip('[]')}]"
    if options.host not in ("0.0.0.0", "::", ""):
        names.append(host)
    hosts = [name if ":" in name.strip("[]").rpartition("]")[2] else f"{name}:*" for name in dict.fromkeys(names)]
    origins = [f"http://{name}:*" for name in LOOPBACK_NAMES] + list(options.origins)
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class Guard:
    """The checks every request passes first (see the module's docstring)."""

    def __init__(self, app: ASGIApp, service: BrowserService, options: ServerOptions) -> None:
        self.app = app
        self.service = service
        self.token = options.token
        self.security = TransportSecurityMiddleware(security_settings(options))

    def _authorized(self, request: Request) -> bool:
        if self.token is None or request.url.path in OPEN_PATHS:
            return True
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = await self.security.validate_request(request, is_post=False)
        if refused is None and not self._authorized(request):
            refused = PlainTextResponse(
                "Unauthorized: this server needs its bearer token (Authorization: Bearer TOKEN)",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="browser-toolset"'},
            )
        if refused is not None:
            await refused(scope, receive, send)
            return
        ending = request.method == "DELETE" and request.url.path == MCP_PATH and SESSION_HEADER in request.headers
        status: list[int] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        await self.app(scope, receive, watched if ending else send)
        if ending and status and status[0] < 400:
            key = client_key(request.headers)
            self.service.pool.forget(key)
            await self.service.pool.close(key)


def build_app(server: Server[Any], service: BrowserService, options: ServerOptions) -> ASGIApp:
    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok\n")

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(render(service.metrics, service.pool), media_type="text/plain; version=0.0.4")

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=options.json_response,
        session_idle_timeout=service.idle_timeout,
        max_sessions=service.max_sessions * MCP_SESSIONS_PER_BROWSER,
        transport_security=security_settings(options),
        host=options.host,
        custom_starlette_routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
        ],
    )
    return Guard(app, service, options)


def _listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def serve_http(server: Server[Any], service: BrowserService, options: ServerOptions) -> None:
    """Serve until SIGINT or SIGTERM; every browser is closed on the way out. The listening address (with the port
    chosen when 0 asked for any) is printed to stderr."""
    app = build_app(server, service, options)
    sock = _listening_socket(options.host, options.port)
    port = sock.getsockname()[1]
    shown = options.host if ":" not in options.host else f"[{options.host}]"
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    web = uvicorn.Server(config)
    print(f"browser-toolset: MCP over HTTP at http://{shown}:{port}{MCP_PATH}", file=sys.stderr, flush=True)
    try:
        await web.serve(sockets=[sock])
    finally:
        sock.close()
    await anyio.lowlevel.checkpoint()
