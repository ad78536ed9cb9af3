"""`browser-toolset fake-api` (and `python -m browser_toolset.testing.fake_api`): serve a script from a shell, so
that any client, not only a Python test, can run against the fake API through `ANTHROPIC_BASE_URL`."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from typing import Final, TextIO

from .rules import MAX_IMAGES
from .script import FORMAT_HELP, ScriptError, load_script
from .server import FakeMessagesAPI, RecordedRequest

DESCRIPTION: Final = """\
Serve a fake Messages API on 127.0.0.1: it answers with scripted assistant turns, and rejects what the real API
would reject with the API's own messages. It prints its base URL; point the SDK at it with ANTHROPIC_BASE_URL.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `browser-toolset fake-api`, for the CLI's subcommand parser; its help ends with the script
    format."""
    parser.description = DESCRIPTION
    parser.epilog = FORMAT_HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the example's lines as written
    parser.add_argument("--script", required=True, help="a JSON list of scripted assistant turns (format below)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--max-images", type=int, default=MAX_IMAGES, help="most images a request may hold")
    parser.add_argument("--log", help="append one JSON line per request (status, thread, turn, images, error)")


def _log_line(record: RecordedRequest) -> str:
    return json.dumps(
        {
            "number": record.number,
            "status": record.status,
            "thread": record.thread,
            "turn": record.turn,
            "images_sent": record.images_sent,
            "images_in_context": record.images_in_context,
            "error": record.error,
        }
    )


def run(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Serve `args.script` until interrupted, after printing the base URL on its own line."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        script = load_script(args.script)
    except ScriptError as exc:
        print(f"browser-toolset fake-api: {exc}", file=err)
        return 2
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115

    def on_request(record: RecordedRequest) -> None:
        if record.error:
            print(f"browser-toolset fake-api: request {record.number}: {record.status} {record.error}", file=err)
        if log is not None:
            log.write(_log_line(record) + "\n")
            log.flush()

    api = FakeMessagesAPI(script, port=args.port, max_images=args.max_images, on_request=on_request)
    try:
        with api:
            print(api.base_url, file=out, flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        if log is not None:
            log.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="browser-toolset fake-api")
    add_arguments(parser)
    return run(parser.parse_args(argv))
