"""`browser-toolset fake-api`: serve a script from a shell, so that any client, not only a Python test, can run
against the fake API through `ANTHROPIC_BASE_URL`. The CLI parses the flags (`browser_toolset.cli.parsers`, with
`DESCRIPTION` and the script format as its help) and calls `serve_script`."""

from __future__ import annotations

import json
import sys
import threading
from typing import Final, TextIO

from .rules import MAX_IMAGES
from .script import ScriptError, load_script
from .server import FakeMessagesAPI, RecordedRequest

__all__ = ["DESCRIPTION", "serve_script"]

DESCRIPTION: Final = """\
Serve a fake Messages API on 127.0.0.1: it answers with scripted assistant turns, and rejects what the real API
would reject with the API's own messages. It prints its base URL; point the SDK at it with ANTHROPIC_BASE_URL.
The script format is below, and in docs/fake-api.md.
"""


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


def serve_script(
    script: str,
    *,
    port: int = 0,
    max_images: int = MAX_IMAGES,
    log: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Serve the script file `script` on 127.0.0.1:`port` (0: any free port) until interrupted, after printing the
    base URL on its own line; `log` appends one JSON line per request. Exits 2 on a script that cannot be played."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        turns = load_script(script)
    except ScriptError as exc:
        print(f"browser-toolset fake-api: {exc}", file=err)
        return 2
    log_file = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115

    def on_request(record: RecordedRequest) -> None:
        if record.error:
            print(f"browser-toolset fake-api: request {record.number}: {record.status} {record.error}", file=err)
        if log_file is not None:
            log_file.write(_log_line(record) + "\n")
            log_file.flush()

    api = FakeMessagesAPI(turns, port=port, max_images=max_images, on_request=on_request)
    try:
        with api:
            print(api.base_url, file=out, flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        if log_file is not None:
            log_file.close()
    return 0
