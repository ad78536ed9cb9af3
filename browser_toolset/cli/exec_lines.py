"""The `exec` wire: assistant messages in, one JSON line each; the `user` messages answering their browser calls
out, one line each.

Every non-blank input line gets exactly one output line. A line that cannot be answered (not UTF-8, not JSON,
nested too deeply, not a message) gets an error object instead, `{"type": "error", "line": N, "error": {...}}`, is
reported on stderr, and makes the status 1; the session carries on either way, so one bad line never costs the
browser or the lines after it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TextIO

from ..executor.batch import run_batch
from ..executor.toolset import BrowserToolset
from ..safety.sanitize import LONE_SURROGATE_RE, one_line

__all__ = ["serve"]

log = logging.getLogger("browser_toolset")

PROBLEM_SHOWN = 500
"""The longest reason for an unanswered line that is echoed (on stderr and in its error object)."""


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


def serve(
    toolset: BrowserToolset,
    lines: TextIO,
    out: TextIO,
    err: TextIO,
    *,
    record: Callable[[Any, Mapping[str, Any]], None] | None = None,
    before: Callable[[], None] | None = None,
) -> int:
    """Answer every line of `lines` on `out` (problems also on `err`); 0 when every line was answered, else 1.
    `record` sees each answered line with its answer; `before` runs before each line is answered."""
    status = 0
    for number, raw in enumerate(_input_lines(lines), start=1):
        text, problem = _decoded(raw, number)
        if problem is None and not text.strip():
            continue
        message: dict[str, Any] | None = None
        if problem is None:
            if before is not None:
                before()
            message, problem = _answer(toolset, text)
            if record is not None and problem is None and message is not None:
                record(json.loads(text), message)
        if problem is not None or message is None:
            shown = one_line(problem or "no answer", PROBLEM_SHOWN)
            print(f"browser-toolset: line {number}: {shown}", file=err)
            status = 1
            message = _error_document(number, shown)
        _write(out, message)
    return status
