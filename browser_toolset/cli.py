"""`browser-toolset exec`: Claude's browser calls in, `tool_result` messages out, one JSON document per line.

Each stdin line is an assistant message (or a whole Messages API response, or a bare list of content blocks); each
stdout line is the `user` message answering its browser calls, with the batch rule applied. The browser lives for
the whole session, so a multi-step conversation can be replayed line by line. A line that is not valid JSON, or
not a message, is reported on stderr and skipped; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from typing import TextIO

from anthropic.tools.browser import BetaConfirmContext, BetaLocalFilePolicy

from .batch import run_batch
from .images import ImageLimits
from .registry import driver_names, load_driver
from .toolset import BrowserToolset
from .urls import URLPolicy

__all__ = ["main"]

OPTIONAL_MEMBERS = ("file_upload", "javascript_exec", "read_console", "read_network")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="browser-toolset", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("exec", help="answer assistant messages read from stdin, one JSON document per line")
    run.add_argument("--driver", default="mock", help="driver name (installed: %(default)s and others, see --list)")
    run.add_argument("--list", action="store_true", help="list the installed drivers and exit")
    run.add_argument("--site", help="mock driver: a JSON site file (without it the mock starts with one blank tab)")
    run.add_argument("--browser", help="selenium driver: chromium, chrome or firefox")
    run.add_argument("--remote", help="selenium driver: a Selenium Grid URL, such as http://127.0.0.1:4444")
    run.add_argument("--viewport", help="viewport in CSS pixels, WIDTHxHEIGHT (default 1280x800)")
    run.add_argument("--headed", action="store_true", help="selenium driver: show the browser window")
    run.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a driver option")
    run.add_argument(
        "--enable", action="append", default=[], choices=OPTIONAL_MEMBERS, metavar="MEMBER",
        help=f"enable an optional member ({', '.join(OPTIONAL_MEMBERS)}); its calls are approved unattended",
    )  # fmt: skip
    run.add_argument("--allow-host", action="append", default=None, metavar="HOST", help="restrict to these hosts")
    run.add_argument("--allow-private", action="store_true", help="allow localhost and private-network addresses")
    run.add_argument("--upload-dir", help="file_upload: the one directory uploads may come from")
    run.add_argument("--image-format", choices=("png", "jpeg", "webp"), default="png")
    run.add_argument("--image-quality", type=int, default=85, help="JPEG / WebP quality, 1-100")
    run.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    return parser


def _driver_options(args: argparse.Namespace) -> dict[str, str]:
    options: dict[str, str] = {}
    for name in ("site", "browser", "remote", "viewport"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    if args.headed:
        options["headless"] = "false"
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"browser-toolset: -o takes KEY=VALUE, not {item!r}")
        options[key] = value
    return options


def _approve_unattended(context: BetaConfirmContext) -> bool:
    """`--enable` is the operator's consent for the optional members; each of their calls is logged so it can be
    read. Every other member runs as it would with no `confirm` at all."""
    if context.member in OPTIONAL_MEMBERS:
        print(f"browser-toolset: approved {context.member} unattended (enabled with --enable)", file=sys.stderr)
    return True


def _serve(toolset: BrowserToolset, lines: TextIO, out: TextIO, err: TextIO) -> int:
    status = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            document = json.loads(line)
            message = run_batch(toolset, document)
        except (json.JSONDecodeError, ValueError) as exc:
            print(f"browser-toolset: line {number}: not an assistant message: {exc}", file=err)
            status = 1
            continue
        out.write(json.dumps(message, ensure_ascii=False) + "\n")
        out.flush()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.list:
        print("\n".join(driver_names()))
        return 0
    try:
        limits = ImageLimits(format=args.image_format, quality=args.image_quality)
    except ValueError as exc:
        raise SystemExit(f"browser-toolset: {exc}") from exc
    driver = load_driver(args.driver, _driver_options(args))
    file_policy = BetaLocalFilePolicy(upload_roots=[args.upload_dir]) if args.upload_dir else None
    toolset = BrowserToolset(
        driver,
        navigation=URLPolicy(allowed_hosts=args.allow_host, allow_private=args.allow_private),
        image_limits=limits,
        configs={name: {"enabled": True} for name in args.enable} or None,
        confirm=_approve_unattended if args.enable else None,
        file_policy=file_policy,
    )
    with toolset:
        return _serve(toolset, sys.stdin, sys.stdout, sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
