"""`browser-toolset`'s one entry point: parse the command line (`parsers`), read the settings, and call the
command's function with plain values.

Every command's module is imported here, normally, so a module that cannot be imported is an error with its
traceback, never a command that silently goes missing. The one exception is an optional extra, whose package may
not be installed: `EXTRAS` names its module and function, imported only when its command runs, and a missing
package is a message saying what to install.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Final, cast

import attrs

from ..config import ConfigError, Settings, load_settings, with_default_browser
from ..mcp.options import ServerOptions
from ..registry import driver_names
from ..sessions.replay import replay_command
from ..sessions.report import report_command
from ..testing.fake_api.command import serve_script
from .config_command import init_config, show_config
from .demo import demo_command
from .exec_command import exec_session
from .grid_command import serve_grid
from .parsers import PROG, build_parser, settings_flags
from .run_command import TaskRequest, run_task_command

__all__ = ["EXTRAS", "Extra", "extra_function", "main"]


@attrs.frozen
class Extra:
    """A command from an optional extra: the function `function` of `module`, which needs the package `requires`,
    which `pip install browser-toolset[extra]` installs."""

    module: str
    function: str
    requires: str
    extra: str


EXTRAS: Final = {"mcp": Extra(module="browser_toolset.mcp.command", function="serve", requires="mcp", extra="mcp")}
"""The commands of optional extras, by name; each has its parser in `parsers` like any other."""


def _settings(args: argparse.Namespace) -> Settings:
    """The settings for a command's flags; a refused key or value ends the command with its message."""
    try:
        return load_settings(args.config, flags=settings_flags(args))
    except (ConfigError, ValueError) as exc:
        raise SystemExit(f"{PROG}: {exc}") from exc


def _browser_settings(args: argparse.Namespace) -> Settings:
    """The settings of a command that starts a browser, with the browser chosen when they name none; no browser to
    choose ends the command with status 2, as a browser that cannot start does."""
    settings = _settings(args)
    try:
        return with_default_browser(settings)
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc


def _exec(args: argparse.Namespace) -> int:
    if args.list:
        print("\n".join(driver_names()))
        return 0
    return exec_session(_browser_settings(args))


def _run(args: argparse.Namespace) -> int:
    request = TaskRequest(
        task=args.task,
        start_url=args.start_url,
        system=args.system,
        quiet=args.quiet,
        max_images=args.max_images,
        keep_images=args.keep_images,
        threads=not args.no_threads,
        transcript=args.transcript,
    )
    return run_task_command(_browser_settings(args), request)


def _config(args: argparse.Namespace) -> int:
    if args.action == "init":
        return init_config(args.path, force=args.force)
    return show_config(_settings(args))


def extra_function(name: str) -> Callable[..., int] | None:
    """The function of the extra command `name`, its module imported now; None after saying on stderr what to
    install when its package is missing."""
    extra = EXTRAS[name]
    try:
        module = importlib.import_module(extra.module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != extra.requires:
            raise  # our own module is broken: its traceback says why
        print(
            f"{PROG}: the {name} command needs the {extra.requires!r} package, which is not installed: "
            f"pip install 'browser-toolset[{extra.extra}]'",
            file=sys.stderr,
        )
        return None
    return cast(Callable[..., int], getattr(module, extra.function))


def _mcp(args: argparse.Namespace) -> int:
    serve = extra_function("mcp")
    if serve is None:
        return 2
    try:
        options = ServerOptions.from_flags(
            transport=args.transport,
            host=args.host,
            port=args.port,
            token=args.token,
            allow_non_loopback=args.allow_non_loopback,
            server_names=tuple(args.server_name),
            origins=tuple(args.allow_origin),
            idle_timeout=args.idle_timeout,
            max_sessions=args.max_sessions,
            json_response=args.json_response,
            print_tools=args.print_tools,
        )
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    # the tool list needs no browser; serving chooses it now, as exec and run do, rather than on the first call
    settings = _settings(args) if options.print_tools else _browser_settings(args)
    return serve(settings, options)


def _replay(args: argparse.Namespace) -> int:
    try:
        flags = settings_flags(args)
    except ValueError as exc:
        raise SystemExit(f"{PROG}: {exc}") from exc
    return replay_command(args.session, config_file=args.config, flags=flags, pixel_threshold=args.pixel_threshold)


COMMANDS: Final[dict[str, Callable[[argparse.Namespace], int]]] = {
    "exec": _exec,
    "run": _run,
    "config": _config,
    "replay": _replay,
    "report": lambda args: report_command(args.session, args.output, args.title),
    "demo": lambda args: demo_command(
        args.output, driver=args.driver, live=args.live, model=args.model, quiet=args.quiet
    ),
    "grid": lambda args: serve_grid(nodes=args.nodes, port=args.port, jar=args.jar, config_file=args.config),
    "fake-api": lambda args: serve_script(args.script, port=args.port, max_images=args.max_images, log=args.log),
    "mcp": _mcp,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        # the commands close what they started on the way out (the Selenium driver finishes its cleanup before the
        # interrupt goes on), so what is left to say is one line, not a traceback
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
