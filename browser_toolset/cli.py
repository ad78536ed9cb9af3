"""`browser-toolset exec`: Claude's browser calls in, `tool_result` messages out, one JSON document per line.

Each stdin line is an assistant message (or a whole Messages API response, or a bare list of content blocks); each
stdout line is the `user` message answering its browser calls, with the batch rule applied. The browser lives for
the whole session, so a multi-step conversation can be replayed line by line. Every non-blank input line gets
exactly one output line: a line that cannot be answered (not UTF-8, not JSON, nested too deeply, not a message)
gets an error object instead, `{"type": "error", "line": N, "error": {...}}`, is reported on stderr, and makes the
exit status 1; the session carries on either way.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any, TextIO

from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaConfirmContext

from .batch import run_batch
from .confirm import CATEGORIES, DECISIONS, ActionGate, Ask, Assessment, parse_decisions
from .images import ImageLimits
from .registry import driver_names, load_driver
from .sanitize import LONE_SURROGATE_RE, one_line
from .toolset import BrowserToolset
from .uploads import DEFAULT_MAX_BYTES, UploadPolicy
from .urls import URLPolicy

__all__ = ["main"]

log = logging.getLogger("browser_toolset")

OPTIONAL_MEMBERS = ("file_upload", "javascript_exec", "read_console", "read_network")
PROBLEM_SHOWN = 500


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
    run.add_argument(
        "--upload-max-mib", type=float, default=DEFAULT_MAX_BYTES / (1024 * 1024), metavar="MIB",
        help="file_upload: the largest file that may be uploaded, in MiB (default %(default)g)",
    )  # fmt: skip
    run.add_argument(
        "--confirm", action="append", default=[], metavar="CATEGORY=DECISION",
        help=f"what to do with a high-impact call: CATEGORY is {', '.join(CATEGORIES)} or all; DECISION is "
        f"{', '.join(DECISIONS)} (ask prompts on the terminal when there is one, else denies). Default: all=deny",
    )  # fmt: skip
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


def _input_lines(stream: TextIO) -> Iterator[bytes | str]:
    """The lines of stdin as bytes when it has them (so a line that is not UTF-8 is one bad line, not the end of
    the session), else as text."""
    buffer = getattr(stream, "buffer", None)
    yield from buffer if buffer is not None else stream


def _decoded(raw: bytes | str, number: int) -> tuple[str, str | None]:
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return "", f"not valid UTF-8 (byte {exc.start + 1})"
    else:
        text = raw
    return (text.lstrip("\ufeff") if number == 1 else text), None


def _document_line(document: dict[str, Any]) -> str:
    """One output line. Text that is not valid Unicode cannot be written as UTF-8, so an unpaired surrogate that
    got this far becomes U+FFFD rather than ending the session."""
    return LONE_SURROGATE_RE.sub("\ufffd", json.dumps(document, ensure_ascii=False)) + "\n"


def _write(out: TextIO, document: dict[str, Any]) -> None:
    """Write one output line; on a stream that cannot encode all of Unicode (PYTHONIOENCODING=ascii), escaped."""
    try:
        out.write(_document_line(document))
    except UnicodeEncodeError:
        out.write(json.dumps(json.loads(_document_line(document)), ensure_ascii=True) + "\n")
    out.flush()


def _error_document(number: int, problem: str) -> dict[str, Any]:
    return {
        "type": "error",
        "line": number,
        "error": {"type": "invalid_request_error", "message": f"line {number}: {problem}"},
    }


def _answer(toolset: BrowserToolset, text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The answer to one line, or why there is none."""
    try:
        document = json.loads(text)
    except RecursionError:
        return None, "not an assistant message: the JSON is nested too deeply"
    except ValueError as exc:
        return None, f"not an assistant message: {exc}"
    try:
        return run_batch(toolset, document, contain_usage_errors=True), None
    except RecursionError:
        return None, "not an assistant message: it is nested too deeply"
    except ValueError as exc:
        return None, f"not an assistant message: {exc}"
    except Exception as exc:
        log.error("a line could not be answered", exc_info=True)
        return None, f"could not be answered: {type(exc).__name__}: {exc}"


def _serve(toolset: BrowserToolset, lines: TextIO, out: TextIO, err: TextIO) -> int:
    status = 0
    for number, raw in enumerate(_input_lines(lines), start=1):
        text, problem = _decoded(raw, number)
        if problem is None and not text.strip():
            continue
        message: dict[str, Any] | None = None
        if problem is None:
            message, problem = _answer(toolset, text)
        if problem is not None or message is None:
            shown = one_line(problem or "no answer", PROBLEM_SHOWN)
            print(f"browser-toolset: line {number}: {shown}", file=err)
            status = 1
            message = _error_document(number, shown)
        _write(out, message)
    return status


def _download_dir(driver: Any, options: dict[str, str]) -> str | None:
    given = options.get("download_dir")
    if given:
        return given
    found = getattr(driver, "download_dir", None)
    return None if found is None else str(found)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.list:
        print("\n".join(driver_names()))
        return 0
    try:
        limits = ImageLimits(format=args.image_format, quality=args.image_quality)
        decisions = parse_decisions(args.confirm)
    except ValueError as exc:
        raise SystemExit(f"browser-toolset: {exc}") from exc
    options = _driver_options(args)
    try:
        driver = load_driver(args.driver, options)
    except SystemExit:
        raise
    except Exception as exc:
        print(
            f"browser-toolset: could not start the {args.driver} driver: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        return 2
    try:
        file_policy = None
        if args.upload_dir:
            file_policy = UploadPolicy(
                args.upload_dir,
                max_bytes=int(args.upload_max_mib * 1024 * 1024),
                download_dir=_download_dir(driver, options),
            )
        asker = _terminal_asker() if "ask" in decisions.values() else None
        gate = ActionGate(decisions=decisions, default="deny", ask=asker, then=_approve_unattended)
        toolset = BrowserToolset(
            driver,
            navigation=URLPolicy(allowed_hosts=args.allow_host, allow_private=args.allow_private),
            image_limits=limits,
            configs={name: {"enabled": True} for name in args.enable} or None,
            confirm=gate,
            file_policy=file_policy,
        )
        gate.lookup = toolset.describe_ref
    except (ToolsetConfigError, ValueError) as exc:
        _close_quietly(driver)
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        _close_quietly(driver)
        print(f"browser-toolset: the browser could not be set up: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    try:
        return _serve(toolset, sys.stdin, sys.stdout, sys.stderr)
    except BrokenPipeError:
        # whoever reads the answers has gone: stop quietly, and keep the interpreter's final flush from failing too
        _silence_stdout()
        print("browser-toolset: the output was closed; stopping", file=sys.stderr)
        return 1
    finally:
        _close_quietly(toolset)


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
