"""Recording a browser session to a directory, for `replay` and `report`.

A session directory holds:

- `messages.jsonl`: the exchanged messages, one JSON object per line, in order (the task, Claude's replies, the
  `user` messages of tool results). Images are not inlined: each image block's source is
  `{"type": "path", "media_type": "image/png", "path": "images/0001.png"}`, relative to the directory.
- `images/NNNN.png` (or `.jpg`, `.webp`, `.gif`): every image once (identical images share a file).
- `calls.jsonl`: one line per browser call, in the order they were answered: `index`, `turn` (the assistant
  turn that asked for it, 0 for the loop's own opening of the start page), `tool_use_id`, `member`, `input`,
  `outcome` (`ok`, `error` or `not_executed`), `ms` (wall time of the call), `tabs` (the tab inventory after the
  call: the result's own `browser_state` when it has one, else the last one known, with `tabs_reported` false)
  and `result` (the `tool_result`'s content blocks, images by path as above).
- `settings.json`: the effective settings, with every value under a secret-looking key (`api_key`, `token`,
  `secret`, `password`, `authorization`, `cookie`, ...) and every `sk-ant-...` string replaced by `"***"`.
- `session.json`: the format version and when the recording started.

`Recorder(directory, settings)` is used by `exec --record DIR` (one `record_exchange` per answered line);
`record_run(toolset, task, directory, ...)` wraps `run_task` so a whole run is recorded.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final, cast

from anthropic.tools.browser import BetaAbstractBrowserToolset20260801

from ..executor.batch import NOT_EXECUTED

__all__ = [
    "FORMAT",
    "MASK",
    "RecordedCall",
    "Recorder",
    "Session",
    "load_session",
    "mask_secrets",
    "record_run",
    "run_batch_timed",
]

FORMAT: Final = 1
MASK: Final = "***"

SECRET_KEY_RE: Final = re.compile(
    r"api[_-]?key|token|secret|passw(or)?d|passphrase|authori[sz]ation|credential|cookie|private[_-]?key|"
    r"session[_-]?id|^auth$|bearer",
    re.IGNORECASE,
)
SECRET_VALUE_RE: Final = re.compile(r"\bsk-ant-[A-Za-z0-9_\-]+")
EXTENSIONS: Final[Mapping[str, str]] = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
}
MEDIA_TYPES: Final[Mapping[str, str]] = {ext: media for media, ext in EXTENSIONS.items()} | {"jpeg": "image/jpeg"}


# --- Secrets -------------------------------------------------------------------------------------------------------


def _is_secret_key(key: object) -> bool:
    return isinstance(key, str) and SECRET_KEY_RE.search(key) is not None


def mask_secrets(value: Any) -> Any:
    """`value` as plain JSON values, with every value under a secret-looking key masked, `KEY=VALUE` strings with
    such a key masked after the `=`, and API keys masked wherever they appear."""
    if isinstance(value, Mapping):
        return {
            str(key): (MASK if _is_secret_key(key) and item not in (None, "", False) else mask_secrets(item))
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [mask_secrets(item) for item in value]
    if isinstance(value, str):
        key, sep, _ = value.partition("=")
        if sep and key and " " not in key and _is_secret_key(key):
            return f"{key}={MASK}"
        return SECRET_VALUE_RE.sub(MASK, value)
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return SECRET_VALUE_RE.sub(MASK, str(value))


# --- Plain values --------------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list | tuple) else []


def _message_of(message: Any, role: str) -> dict[str, Any]:
    """A message as a plain dict: an assistant message, a whole API response, or a bare list of blocks."""
    plain = _plain(message)
    if isinstance(plain, list):
        return {"role": role, "content": plain}
    if not isinstance(plain, Mapping):
        raise ValueError(f"expected a {role} message, not {type(message).__name__}")
    result = {"role": plain.get("role", role), "content": plain.get("content", [])}
    if plain.get("stop_reason") is not None:
        result["stop_reason"] = plain["stop_reason"]
    return result


def _tabs_of(content: Sequence[Any]) -> list[Any] | None:
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "browser_state" and isinstance(block.get("tabs"), list):
            return list(block["tabs"])
    return None


def outcome_of(result: Mapping[str, Any]) -> str:
    """`ok`, `error`, or `not_executed` (the batch rule's fixed answer)."""
    if not result.get("is_error"):
        return "ok"
    texts = [b.get("text") for b in _blocks(result.get("content")) if isinstance(b, Mapping)]
    return "not_executed" if NOT_EXECUTED in texts else "error"


# --- The recorder --------------------------------------------------------------------------------------------------


class Recorder:
    """Writes one session directory (see the module docstring). A context manager; files are flushed after every
    record, so an interrupted session leaves a readable directory.

    `record_exchange(assistant_message, user_message, timings)` records one turn: the assistant message (a dict,
    an API response, or a list of blocks), the `user` message answering it, and the seconds each of the turn's
    browser calls took, in order (missing timings count as 0; a call that was not executed took none)."""

    def __init__(self, directory: str | Path, settings: Mapping[str, object] | None = None) -> None:
        self.directory = Path(directory)
        self.settings: Mapping[str, object] = dict(settings or {})
        self.turn = 0
        self.calls = 0
        self._images: dict[str, str] = {}
        self._tabs: list[Any] = []
        self._messages: Any = None
        self._calls: Any = None

    # context management

    def open(self) -> Recorder:
        if self._messages is not None:
            return self
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "images").mkdir(exist_ok=True)
        _write_json(self.directory / "settings.json", mask_secrets(self.settings))
        _write_json(
            self.directory / "session.json",
            {"format": FORMAT, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        )
        self._messages = open(self.directory / "messages.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self._calls = open(self.directory / "calls.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        return self

    def close(self) -> None:
        for stream in (self._messages, self._calls):
            if stream is not None:
                stream.close()
        self._messages = self._calls = None

    def __enter__(self) -> Recorder:
        return self.open()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    # recording

    def record_message(self, message: Any, *, role: str = "user") -> None:
        """Record one message as it is (the task, or a reply that asked for nothing). An assistant message counts
        as a turn."""
        self.open()
        plain = _message_of(message, role)
        if plain.get("role") == "assistant":
            self.turn += 1
        self._write_message(plain)

    def record_exchange(
        self, assistant_message: Mapping[str, Any], user_message: Mapping[str, Any], timings: Sequence[float]
    ) -> None:
        """Record one assistant turn and the `user` message answering it, and one `calls.jsonl` line per browser
        call of the turn."""
        self.open()
        assistant = _message_of(assistant_message, "assistant")
        assistant["role"] = "assistant"
        user = _message_of(user_message, "user")
        self.turn += 1
        self._write_message(assistant)
        user = self._externalized_message(user)
        self._write_message(user, externalized=True)
        results = {
            block.get("tool_use_id"): block
            for block in _blocks(user.get("content"))
            if isinstance(block, Mapping) and block.get("type") == "tool_result"
        }
        browser = 0
        for block in _blocks(assistant.get("content")):
            if not (isinstance(block, Mapping) and block.get("type") == "tool_use"):
                continue
            if block.get("toolset_name") != "browser":
                continue
            seconds = float(timings[browser]) if browser < len(timings) else 0.0
            browser += 1
            result = results.get(block.get("id"))
            if result is None:
                continue
            self._write_call(block, result, seconds, self.turn)

    def record_call(self, call: Mapping[str, Any], result: Mapping[str, Any], seconds: float, *, turn: int) -> None:
        """Record one browser call that is not part of an exchange (the loop's opening of the start page)."""
        self.open()
        self._write_call(_plain(call), self._externalized_result(_plain(result)), seconds, turn)

    # internals

    def _write_message(self, message: Mapping[str, Any], *, externalized: bool = False) -> None:
        if not externalized:
            message = self._externalized_message(message)
        self._messages.write(json.dumps(message, ensure_ascii=False) + "\n")
        self._messages.flush()

    def _write_call(self, call: Mapping[str, Any], result: Mapping[str, Any], seconds: float, turn: int) -> None:
        content = _blocks(result.get("content"))
        tabs = _tabs_of(content)
        reported = tabs is not None
        if tabs is not None:
            self._tabs = tabs
        self.calls += 1
        line = {
            "index": self.calls,
            "turn": turn,
            "tool_use_id": call.get("id"),
            "member": call.get("name"),
            "input": call.get("input", {}),
            "outcome": outcome_of(result),
            "ms": round(seconds * 1000, 1),
            "tabs": self._tabs,
            "tabs_reported": reported,
            "result": content,
        }
        self._calls.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._calls.flush()

    def _externalized_message(self, message: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(message)
        content = message.get("content")
        if isinstance(content, list):
            out["content"] = [self._externalized_block(block) for block in content]
        return out

    def _externalized_result(self, result: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(result)
        content = result.get("content")
        if isinstance(content, list):
            out["content"] = [self._externalized_block(block) for block in content]
        return out

    def _externalized_block(self, block: Any) -> Any:
        if not isinstance(block, Mapping):
            return block
        if block.get("type") == "image":
            return self._image_block(block)
        if block.get("type") == "tool_result":
            return self._externalized_result(block)
        return dict(block)

    def _image_block(self, block: Mapping[str, Any]) -> dict[str, Any]:
        source = block.get("source")
        if not isinstance(source, Mapping) or source.get("type") != "base64":
            return dict(block)
        media_type = str(source.get("media_type", "image/png"))
        try:
            data = base64.b64decode(str(source.get("data", "")), validate=True)
        except (binascii.Error, ValueError):
            return dict(block)
        digest = hashlib.sha256(data).hexdigest()
        path = self._images.get(digest)
        if path is None:
            path = f"images/{len(self._images) + 1:04d}.{EXTENSIONS.get(media_type, 'bin')}"
            (self.directory / path).write_bytes(data)
            self._images[digest] = path
        out = {key: value for key, value in block.items() if key != "source"}
        out["source"] = {"type": "path", "media_type": media_type, "path": path}
        return out


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# --- Recording a run_task run --------------------------------------------------------------------------------------


class _Captured:
    """A call the toolset answered during a run: its result (images inline) and how long it took."""

    def __init__(self, call: Mapping[str, Any], result: Mapping[str, Any], seconds: float) -> None:
        self.call = call
        self.result = result
        self.seconds = seconds


class _CapturingToolset:
    """Stands in for a toolset in `run_task`: every `tool_result` is passed on and its call, result and time kept."""

    def __init__(self, toolset: BetaAbstractBrowserToolset20260801) -> None:
        self._toolset = toolset
        self.captured: dict[str, _Captured] = {}
        self.order: list[str] = []

    def tool_result(self, call: Any) -> Any:
        started = time.monotonic()
        result = self._toolset.tool_result(call)
        seconds = time.monotonic() - started
        plain_call = _plain(call)
        call_id = str(plain_call.get("id"))
        self.captured[call_id] = _Captured(plain_call, _plain(result), seconds)
        self.order.append(call_id)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._toolset, name)


def _restored(message: Mapping[str, Any], captured: Mapping[str, _Captured]) -> dict[str, Any]:
    """A `user` message of results with each result the toolset produced put back whole (the loop may have replaced
    older images by placeholders in the history it returns)."""
    content = []
    for block in _blocks(message.get("content")):
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            found = captured.get(str(block.get("tool_use_id")))
            if found is not None:
                block = found.result
        content.append(block)
    return {**message, "content": content}


def record_run(
    toolset: BetaAbstractBrowserToolset20260801,
    task: str,
    directory: str | Path,
    *,
    settings: Mapping[str, object] | None = None,
    run: Callable[..., Any] | None = None,
    **run_task_arguments: Any,
) -> Any:
    """`run_task(toolset, task, **run_task_arguments)`, recorded to `directory`; returns the `RunResult`.

    The loop's opening of `start_url` is recorded as turn 0 of `calls.jsonl`; every result is recorded whole, even
    when the loop later replaced its images by placeholders. `settings` defaults to the run's own arguments (model,
    limits, start URL); the client and hooks are not recorded."""
    from ..agent.run import run_task

    runner = run if run is not None else run_task
    if settings is None:
        settings = {
            key: value
            for key, value in run_task_arguments.items()
            if isinstance(value, str | int | float | bool | type(None) | list | tuple | dict)
        }
        settings = {"task": task, **settings}
    capturing = _CapturingToolset(toolset)
    with Recorder(directory, settings) as recorder:
        result = None
        try:
            result = runner(cast(BetaAbstractBrowserToolset20260801, capturing), task, **run_task_arguments)
        finally:
            _write_run(recorder, capturing, result)
    return result


def _write_run(recorder: Recorder, capturing: _CapturingToolset, result: Any) -> None:
    captured = capturing.captured
    start = captured.get("toolu_start_url")
    if start is not None:
        recorder.record_call(start.call, start.result, start.seconds, turn=0)
    messages: list[Mapping[str, Any]] = list(result.messages) if result is not None else []
    seen: set[str] = {"toolu_start_url"}
    index = 0
    while index < len(messages):
        message = messages[index]
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message.get("role") == "assistant" and following is not None and following.get("role") == "user":
            user = _restored(following, captured)
            timings = []
            for block in _blocks(message.get("content")):
                if isinstance(block, Mapping) and block.get("type") == "tool_use":
                    if block.get("toolset_name") != "browser":
                        continue
                    found = captured.get(str(block.get("id")))
                    timings.append(found.seconds if found is not None else 0.0)
                    seen.add(str(block.get("id")))
            recorder.record_exchange(message, user, timings)
            index += 2
            continue
        recorder.record_message(message, role=str(message.get("role", "user")))
        index += 1
    # Calls the conversation does not show (a run that ended by an exception): their results alone.
    for call_id in capturing.order:
        if call_id not in seen:
            found = captured[call_id]
            recorder.record_call(found.call, found.result, found.seconds, turn=recorder.turn)


# --- Reading a session back ----------------------------------------------------------------------------------------


class RecordedCall:
    """One line of `calls.jsonl`."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.index = int(raw.get("index", 0))
        self.turn = int(raw.get("turn", 0))
        self.tool_use_id = str(raw.get("tool_use_id"))
        self.member = str(raw.get("member"))
        self.input: Mapping[str, Any] = raw.get("input") or {}
        self.outcome = str(raw.get("outcome", "ok"))
        self.ms = float(raw.get("ms", 0.0))
        self.tabs: list[Any] = list(raw.get("tabs") or [])
        self.result: list[Any] = list(raw.get("result") or [])


class Session:
    """A session directory, read back: its messages, calls and settings."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        if not (self.directory / "calls.jsonl").is_file():
            raise ValueError(f"{self.directory} is not a recorded session (no calls.jsonl)")
        self.messages = list(_read_jsonl(self.directory / "messages.jsonl"))
        self.calls = [RecordedCall(raw) for raw in _read_jsonl(self.directory / "calls.jsonl")]
        settings_path = self.directory / "settings.json"
        self.settings: Mapping[str, Any] = {}
        if settings_path.is_file():
            loaded = json.loads(settings_path.read_text(encoding="utf-8"))
            if isinstance(loaded, Mapping):
                self.settings = loaded

    def image_bytes(self, block: Mapping[str, Any]) -> tuple[bytes, str] | None:
        """The bytes and media type of an image block (by path or inline), or None."""
        source = block.get("source")
        if not isinstance(source, Mapping):
            return None
        media_type = str(source.get("media_type", "image/png"))
        if source.get("type") == "path":
            path = (self.directory / str(source.get("path", ""))).resolve()
            if self.directory.resolve() not in path.parents or not path.is_file():
                return None
            return path.read_bytes(), media_type
        if source.get("type") == "base64":
            try:
                return base64.b64decode(str(source.get("data", ""))), media_type
            except (binascii.Error, ValueError):
                return None
        return None


def _read_jsonl(path: Path) -> Iterator[Any]:
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name} line {number}: {exc}") from exc
        if not isinstance(value, Mapping):
            raise ValueError(f"{path.name} line {number}: expected a JSON object")
        yield value


def load_session(directory: str | Path) -> Session:
    return Session(directory)


def run_batch_timed(
    toolset: BetaAbstractBrowserToolset20260801, message: Any, *, contain_usage_errors: bool = False
) -> tuple[dict[str, Any], list[float]]:
    """`run_batch`, and the seconds each browser call of the turn took (0 for one that did not run), in order: what
    `Recorder.record_exchange` takes."""
    from ..executor.batch import browser_calls, run_batch

    capturing = _CapturingToolset(toolset)
    answer = run_batch(
        cast(BetaAbstractBrowserToolset20260801, capturing), message, contain_usage_errors=contain_usage_errors
    )
    timings = []
    for call in browser_calls(message):
        found = capturing.captured.get(call.id)
        timings.append(found.seconds if found is not None else 0.0)
    return answer, timings
