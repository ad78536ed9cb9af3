"""`browser-toolset mcp`: the browser toolset as an MCP server, over stdio (the default, one browser for the life of
the process) or streamable HTTP (one browser per client). `add_arguments(parser)` declares its flags on a
subcommand's parser and `run(args)` serves until the client goes away or a signal stops it (`python -m
browser_toolset.mcp` runs it on its own). docs/mcp.md tells how to use it.
"""

from __future__ import annotations

import argparse
import logging
import math
import signal
import sys
from collections.abc import Mapping, Sequence

import anyio
from mcp.server.stdio import stdio_server

from ..config import ConfigError, Settings
from .flags import MCP_ENV_PREFIX, add_settings_arguments, mcp_env, settings_from
from .http import HttpOptions, is_loopback, serve_http
from .server import BrowserService, build_server
from .tools import estimate_tokens, tool_list, tool_list_size

__all__ = ["add_arguments", "main", "run"]

DEFAULT_IDLE_TIMEOUT = 600.0
DEFAULT_MAX_SESSIONS = 4
DEFAULT_PORT = 8931


def add_arguments(parser: argparse.ArgumentParser) -> None:
    server = parser.add_argument_group("MCP server")
    server.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default %(default)s")
    server.add_argument("--host", default="127.0.0.1", help="http: the address to listen on (default %(default)s)")
    server.add_argument("--port", type=int, default=DEFAULT_PORT, help="http: the port (default %(default)s; 0: any)")
    server.add_argument(
        "--allow-non-loopback", action="store_true",
        help="http: allow --host to be an address other machines reach (needs a token)",
    )  # fmt: skip
    server.add_argument("--token", help=f"http: the bearer token every request must carry (or ${MCP_ENV_PREFIX}TOKEN)")
    server.add_argument(
        "--server-name", action="append", default=[], metavar="HOST[:PORT]",
        help="http: a further Host name clients reach the server by (loopback names always work)",
    )  # fmt: skip
    server.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN",
        help="http: a further browser origin (scheme://host:port) allowed to call the server",
    )  # fmt: skip
    server.add_argument(
        "--idle-timeout", type=float, default=None, metavar="SECONDS",
        help=f"close a client's browser after this long without a call (default {DEFAULT_IDLE_TIMEOUT:g}; 0: never; "
        f"or ${MCP_ENV_PREFIX}IDLE_TIMEOUT)",
    )  # fmt: skip
    server.add_argument(
        "--max-sessions", type=int, default=None, metavar="N",
        help=f"http: browser sessions open at once (default {DEFAULT_MAX_SESSIONS}; or ${MCP_ENV_PREFIX}MAX_SESSIONS)",
    )  # fmt: skip
    server.add_argument("--json-response", action="store_true", help="http: answer with JSON rather than SSE streams")
    server.add_argument("--print-tools", action="store_true", help="print the tool list and its size, and exit")
    server.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    add_settings_arguments(parser)


def _number(given: float | None, env: Mapping[str, str], name: str, default: float) -> float:
    if given is not None:
        return given
    text = env.get(name)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{MCP_ENV_PREFIX}{name.upper()} = {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{MCP_ENV_PREFIX}{name.upper()} = {text!r} is not a finite number")
    return value


def _service(args: argparse.Namespace, settings: Settings, env: Mapping[str, str]) -> BrowserService:
    idle = _number(args.idle_timeout, env, "idle_timeout", DEFAULT_IDLE_TIMEOUT)
    sessions = _number(args.max_sessions, env, "max_sessions", DEFAULT_MAX_SESSIONS)
    if idle < 0:
        raise ConfigError(f"the idle timeout must be 0 (never) or a number of seconds, not {idle:g}")
    if sessions < 1 or sessions != int(sessions):
        raise ConfigError(f"--max-sessions must be a whole number, at least 1, not {sessions:g}")
    # stdio serves one client, whose browser lives as long as the process
    max_sessions = 1 if args.transport == "stdio" else int(sessions)
    timeout = None if args.transport == "stdio" or idle == 0 else idle
    return BrowserService(settings, max_sessions=max_sessions, idle_timeout=timeout)


def _http_options(args: argparse.Namespace, env: Mapping[str, str]) -> HttpOptions:
    token = args.token or env.get("token") or None
    if not is_loopback(args.host):
        if not args.allow_non_loopback:
            raise ConfigError(
                f"--host {args.host} is not a loopback address: other machines could reach the browser. Add "
                f"--allow-non-loopback and a token (--token or ${MCP_ENV_PREFIX}TOKEN) to serve it there"
            )
        if not token:
            raise ConfigError(
                f"--host {args.host} needs a bearer token: set --token or ${MCP_ENV_PREFIX}TOKEN (a long random string)"
            )
    return HttpOptions(
        host=args.host,
        port=args.port,
        token=token,
        server_names=tuple(args.server_name),
        origins=tuple(args.allow_origin),
        json_response=args.json_response,
    )


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


def run(args: argparse.Namespace) -> int:
    """Serve MCP as `args` say; the exit status."""
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="browser-toolset: %(message)s")
    env = mcp_env()
    try:
        settings = settings_from(args)
        if args.print_tools:
            return _print_tools(settings)
        service = _service(args, settings, env)
        options = _http_options(args, env) if args.transport == "http" else None
    except ConfigError as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    try:
        if options is None:
            anyio.run(_serve_stdio, service)
        else:
            anyio.run(serve_http, build_server(service), service, options)
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="browser-toolset mcp", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))
