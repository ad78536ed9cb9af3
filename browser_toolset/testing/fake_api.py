"""A fake Messages API that plays a scripted Claude, for testing agent loops end to end without the network.

An executor's mistakes only show up when the API rejects a request, and a real run costs money and is not
repeatable. This server answers `POST /v1/messages` with assistant turns read from a script, and holds every
incoming request to the rules the API enforces on browser tool results, answering `400 invalid_request_error` with
a specific message when one is broken, as the API does. Every request is recorded, so a test can assert on what
an agent sent (how many images, which thread, which turn).

It speaks message threads the way the SDK's threads and tool runner use them: a `thread: {"type": "create"}`
request carries the whole history, `system` and `tools`; the reply's `id` names the thread's state; a
`thread: {"type": "continue", "previous_message_id": ID}` request carries only the new messages and neither
`system` nor `tools`. An unknown id is answered `404` with `error_code: thread_not_found` and a second continue from
the same reply `409` with `thread_already_continued`, which the SDK recovers from by replaying the whole history.

What is checked on every request, over the whole conversation the model would see (the thread's history plus the
new messages):

- every `tool_use` is answered by a `tool_result` in the next message, and no `tool_result` answers nothing;
- each answer to a turn, with the independent checker `browser_toolset.testing.contract` (it shares no code with
  the executor): ids and order, `toolset_name`, one `browser_state` at most and none on an error, tab-management
  shapes, the batch rule, image types and sizes;
- image limits: at most `max_images` images, and once there are more than 20, every image (earlier ones included)
  at most 2000x2000 px;
- the `tools` entry of the browser toolset, and the `message-threads` beta on threaded requests.

The script is a JSON list of turns; a turn is a list of content blocks, or an object with `content` and an optional
`stop_reason`:

```json
[
  [{"type": "text", "text": "Opening the shop."},
   {"type": "tool_use", "toolset_name": "browser", "name": "navigate", "input": {"url": "https://shop.test/"}}],
  [{"type": "text", "text": "Done."}]
]
```

`tool_use` ids may be left out (they are generated); `stop_reason` defaults to `tool_use` when the turn calls a
tool and `end_turn` otherwise. The answer to a request is the script turn whose index is the number of assistant
messages in its conversation, so a replayed or rewritten history gets the turn that follows it; past the end of
the script every answer is a final `end_turn`.

Run it from a shell with `browser-toolset fake-api --script FILE [--port N]` (it prints its base URL), then point
the SDK at it with `ANTHROPIC_BASE_URL`.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import copy
import hashlib
import io
import json
import math
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TextIO, get_args
from urllib.parse import urlsplit

import attrs
from anthropic.types.beta import BetaBrowserMemberName
from PIL import Image

from .contract import validate_user_message

__all__ = [
    "FakeMessagesAPI",
    "RecordedRequest",
    "ScriptError",
    "ScriptTurn",
    "add_arguments",
    "load_script",
    "main",
    "run",
]

THREADS_BETA: Final = "message-threads-2026-08-12"
"""The beta a request must name to carry a `thread` field (the SDK adds it to every threaded request)."""

TOOLSET_TYPE: Final = "browser_toolset_20260801"
MEMBERS: Final = frozenset(get_args(BetaBrowserMemberName))
OPTIONAL_MEMBERS: Final = frozenset({"javascript_exec", "file_upload", "read_console", "read_network"})

STRICT_IMAGE_COUNT: Final = 20
"""Above this many images in a request, every image must fit `STRICT_IMAGE_LIMIT`."""
STRICT_IMAGE_LIMIT: Final = (2000, 2000)
IMAGE_LIMIT: Final = (8000, 8000)
MAX_IMAGES: Final = 100
"""The API's ceiling on images in one request."""

TOOLSET_TOKENS: Final = 6600
OPTIONAL_MEMBER_TOKENS: Final = 220
UNMEASURED_IMAGE_TOKENS: Final = 1600
MAX_REPORTED_PROBLEMS: Final = 12

END_OF_SCRIPT: Final = "(The fake API's script has no more turns.)"


class ScriptError(ValueError):
    """A script that is not a list of turns the fake API can play; the message says where."""


@attrs.frozen
class ScriptTurn:
    """One scripted assistant turn: its content blocks (as the API sends them, ids filled in when served) and
    its `stop_reason`."""

    content: tuple[Mapping[str, Any], ...]
    stop_reason: str

    @property
    def calls_browser(self) -> bool:
        return any(block.get("type") == "tool_use" and block.get("toolset_name") == "browser" for block in self.content)


@attrs.frozen
class RecordedRequest:
    """One request as the fake API saw and answered it (header names in lower case).

    `images_sent` counts the image blocks in the request's own `messages`; `images_in_context` those in the whole
    conversation the model would see, which is what the API's image limits apply to (with a thread, the history the
    server holds counts too)."""

    number: int
    path: str
    headers: Mapping[str, str]
    body: Any
    thread: str | None
    status: int
    error: str | None
    turn: int | None
    images_sent: int
    images_in_context: int
    response: Mapping[str, Any]


def _turn_from(raw: object, where: str) -> ScriptTurn:
    stop_reason: object = None
    if isinstance(raw, Mapping):
        unknown = sorted(set(raw) - {"content", "stop_reason"})
        if unknown:
            raise ScriptError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
        stop_reason = raw.get("stop_reason")
        raw = raw.get("content")
    if not isinstance(raw, list) or not raw:
        raise ScriptError(f"{where}: a turn is a non-empty list of content blocks, or an object with 'content'")
    blocks: list[Mapping[str, Any]] = []
    for index, block in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(block, Mapping):
            raise ScriptError(f"{at}: a content block must be an object")
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise ScriptError(f"{at}: a text block needs a string 'text'")
        elif kind == "tool_use":
            if not isinstance(block.get("name"), str) or not block["name"]:
                raise ScriptError(f"{at}: a tool_use block needs a 'name'")
            if not isinstance(block.get("input", {}), Mapping):
                raise ScriptError(f"{at}: 'input' must be an object")
            family = block.get("toolset_name")
            if family is not None and family != "browser":
                raise ScriptError(f"{at}: toolset_name must be 'browser' (or absent for a custom tool)")
            if family == "browser" and block["name"] not in MEMBERS:
                raise ScriptError(f"{at}: {block['name']!r} is not a browser member")
        else:
            raise ScriptError(f"{at}: type must be 'text' or 'tool_use', not {kind!r}")
        blocks.append(copy.deepcopy(dict(block)))
    if stop_reason is None:
        stop_reason = "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"
    if not isinstance(stop_reason, str):
        raise ScriptError(f"{where}: stop_reason must be a string")
    return ScriptTurn(content=tuple(blocks), stop_reason=stop_reason)


def load_script(source: str | Path | Sequence[object]) -> tuple[ScriptTurn, ...]:
    """A script from a JSON file, or from the already-parsed list of turns."""
    where = "script"
    if isinstance(source, str | Path):
        where = str(source)
        try:
            raw: object = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ScriptError(f"{where}: {exc}") from exc
    else:
        raw = source
    if not isinstance(raw, list):
        raise ScriptError(f"{where}: a script is a JSON list of turns")
    return tuple(_turn_from(turn, f"{where}[{number}]") for number, turn in enumerate(raw))


# --- What one request asks for -------------------------------------------------------------------------------------


class _Rejected(Exception):
    """A request the API would refuse: the status, error type, message and any `details` of its answer."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 400,
        kind: str = "invalid_request_error",
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind
        self.details = details


@attrs.frozen
class _Tally:
    """Images in part of a conversation: how many, and the widest and tallest among those that could be measured."""

    count: int = 0
    width: int = 0
    height: int = 0

    def __add__(self, other: _Tally) -> _Tally:
        return _Tally(self.count + other.count, max(self.width, other.width), max(self.height, other.height))


@attrs.define
class _Facts:
    """What is known about a request so far, for its record, rejected or not."""

    thread: str | None = None
    turn: int | None = None
    images_sent: int = 0
    images_in_context: int = 0


@attrs.frozen
class _Held:
    """What the server keeps under a reply's id for a thread to continue from."""

    messages: tuple[Mapping[str, Any], ...]
    system: Any
    tools: Any
    listed: frozenset[str]
    images: _Tally
    tokens: tuple[int, ...]
    fingerprints: tuple[str, ...]


def _blocks(content: object) -> list[Any]:
    return list(content) if isinstance(content, list) else []


def _image_size(block: Mapping[str, Any]) -> tuple[int, int] | None:
    source = block.get("source")
    if not isinstance(source, Mapping) or source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    try:
        with Image.open(io.BytesIO(base64.b64decode(source["data"], validate=True))) as image:
            width, height = image.size
    except (binascii.Error, ValueError, OSError, Image.DecompressionBombError):
        return None
    return int(width), int(height)


def _images(message: Mapping[str, Any]) -> Iterator[tuple[str, bool, Mapping[str, Any]]]:
    """Every image block of a message, top-level or inside a `tool_result`: where it is, whether it is inside a
    result, and the block."""
    for index, block in enumerate(_blocks(message.get("content"))):
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "image":
            yield f"content.{index}", False, block
        elif block.get("type") == "tool_result":
            for inner, nested in enumerate(_blocks(block.get("content"))):
                if isinstance(nested, Mapping) and nested.get("type") == "image":
                    yield f"content.{index}.content.{inner}", True, nested


def _count_images(messages: object) -> int:
    if not isinstance(messages, list):
        return 0
    return sum(1 for message in messages if isinstance(message, Mapping) for _ in _images(message))


@attrs.frozen
class _Measured:
    """One measured image: the index of its message, where in the message, whether it is inside a `tool_result`,
    and its size."""

    message: int
    where: str
    in_result: bool
    width: int
    height: int


def _tally(messages: Sequence[Mapping[str, Any]]) -> tuple[_Tally, list[_Measured]]:
    """The images of `messages`, and the ones that could be measured."""
    total = _Tally()
    sizes: list[_Measured] = []
    for number, message in enumerate(messages):
        for where, in_result, block in _images(message):
            size = _image_size(block)
            if size is None:
                total += _Tally(1)
                continue
            total += _Tally(1, *size)
            sizes.append(_Measured(number, where, in_result, *size))
    return total, sizes


def _text_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _block_tokens(block: object) -> int:
    if isinstance(block, str):
        return _text_tokens(block)
    if not isinstance(block, Mapping):
        return 0
    kind = block.get("type")
    if kind == "text":
        return _text_tokens(str(block.get("text", "")))
    if kind == "image":
        size = _image_size(block)
        return UNMEASURED_IMAGE_TOKENS if size is None else max(1, math.ceil(size[0] * size[1] / 750))
    if kind == "tool_result":
        content = block.get("content")
        inner = [content] if isinstance(content, str) else _blocks(content)
        return 5 + sum(_block_tokens(item) for item in inner)
    return _text_tokens(json.dumps(block, default=str))


def _message_tokens(message: Mapping[str, Any]) -> int:
    content = message.get("content")
    blocks = [content] if isinstance(content, str) else _blocks(content)
    return 4 + sum(_block_tokens(block) for block in blocks)


def _tools_tokens(system: Any, tools: Any) -> int:
    tokens = _text_tokens(json.dumps(system, default=str)) if system else 0
    for tool in _blocks(tools):
        if isinstance(tool, Mapping) and tool.get("type") == TOOLSET_TYPE:
            configs = tool.get("configs")
            configs = configs if isinstance(configs, Mapping) else {}
            enabled = [
                name
                for name in OPTIONAL_MEMBERS
                if isinstance(configs.get(name), Mapping) and configs[name].get("enabled") is True
            ]
            tokens += TOOLSET_TOKENS + OPTIONAL_MEMBER_TOKENS * len(enabled)
        else:
            tokens += _text_tokens(json.dumps(tool, default=str))
    return tokens


def _normalized(value: object) -> object:
    """A message as its content matters to a cache: without `cache_control` and without null fields, which the SDK
    drops or adds when it replays a history."""
    if isinstance(value, Mapping):
        return {k: _normalized(v) for k, v in value.items() if k != "cache_control" and v is not None}
    if isinstance(value, list | tuple):
        return [_normalized(item) for item in value]
    return value


def _fingerprint(message: Mapping[str, Any]) -> str:
    canonical = json.dumps(_normalized(message), sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _listed_after(tool_use: Mapping[str, Any], result: Mapping[str, Any], listed: frozenset[str]) -> frozenset[str]:
    """The tab ids open after `result`: those its `browser_state` lists, or `listed` when it lists none."""
    if tool_use.get("toolset_name") != "browser" or result.get("is_error") is True:
        return listed
    states = [
        block
        for block in _blocks(result.get("content"))
        if isinstance(block, Mapping) and block.get("type") == "browser_state"
    ]
    if len(states) != 1 or not isinstance(states[0].get("tabs"), list):
        return listed
    return frozenset(
        tab["tab_id"] for tab in states[0]["tabs"] if isinstance(tab, Mapping) and isinstance(tab.get("tab_id"), str)
    )


def _tool_uses(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [
        block
        for block in _blocks(message.get("content"))
        if isinstance(block, Mapping) and block.get("type") == "tool_use"
    ]


def _tool_results(message: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    return [
        (index, block)
        for index, block in enumerate(_blocks(message.get("content")))
        if isinstance(block, Mapping) and block.get("type") == "tool_result"
    ]


def _reject_if(problems: Sequence[str]) -> None:
    if not problems:
        return
    shown = list(problems[:MAX_REPORTED_PROBLEMS])
    if len(problems) > MAX_REPORTED_PROBLEMS:
        shown.append(f"and {len(problems) - MAX_REPORTED_PROBLEMS} more")
    raise _Rejected("; ".join(shown))


def _check_tools(tools: object) -> bool:
    """Raises what the API says about a bad `tools` list; returns whether it declares the browser toolset."""
    if tools is None:
        return False
    if not isinstance(tools, list):
        raise _Rejected("tools: must be a list")
    toolsets = 0
    for index, tool in enumerate(tools):
        at = f"tools.{index}"
        if not isinstance(tool, Mapping):
            raise _Rejected(f"{at}: must be an object")
        kind = tool.get("type")
        if isinstance(kind, str) and kind.startswith("browser_toolset"):
            if kind != TOOLSET_TYPE:
                raise _Rejected(f"{at}.type: unknown browser toolset version {kind!r}; expected {TOOLSET_TYPE!r}")
            toolsets += 1
            extra = sorted(set(tool) - {"type", "configs", "cache_control", "allowed_callers"})
            if extra:
                raise _Rejected(f"{at}: a browser toolset entry does not accept {', '.join(map(repr, extra))}")
            _check_configs(tool.get("configs"), f"{at}.configs")
        elif tool.get("name") == "browser":
            raise _Rejected(f"{at}.name: 'browser' is reserved for the browser toolset")
    if toolsets > 1:
        raise _Rejected("tools: at most one browser toolset entry is allowed per request")
    return toolsets == 1


def _check_configs(configs: object, where: str) -> None:
    if configs is None:
        return
    if not isinstance(configs, Mapping):
        raise _Rejected(f"{where}: must be an object")
    deferred: set[object] = set()
    enabled_any = False
    for name, config in configs.items():
        if name not in MEMBERS:
            raise _Rejected(f"{where}: {name!r} is not a browser member")
        if config is None:
            enabled_any = enabled_any or name not in OPTIONAL_MEMBERS
            continue
        if not isinstance(config, Mapping):
            raise _Rejected(f"{where}.{name}: must be an object")
        extra = sorted(set(config) - {"enabled", "defer_loading"})
        if extra:
            raise _Rejected(f"{where}.{name}: only 'enabled' and 'defer_loading' are accepted, not {extra}")
        for flag in ("enabled", "defer_loading"):
            if flag in config and not isinstance(config[flag], bool):
                raise _Rejected(f"{where}.{name}.{flag}: must be true or false")
        enabled = config.get("enabled", name not in OPTIONAL_MEMBERS)
        if enabled:
            enabled_any = True
            deferred.add(config.get("defer_loading", False))
    if len(deferred) > 1:
        raise _Rejected(f"{where}: defer_loading must be the same on every enabled member")
    untouched = MEMBERS - OPTIONAL_MEMBERS - set(configs)
    if not enabled_any and not untouched:
        raise _Rejected(f"{where}: leaves no member enabled")


def _check_messages(messages: object) -> list[Mapping[str, Any]]:
    if not isinstance(messages, list):
        raise _Rejected("messages: must be a list")
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise _Rejected(f"messages.{index}: must be an object")
        if message.get("role") not in ("user", "assistant"):
            raise _Rejected(f"messages.{index}.role: must be 'user' or 'assistant'")
        content = message.get("content")
        if not isinstance(content, str | list):
            raise _Rejected(f"messages.{index}.content: must be a string or a list of blocks")
    return list(messages)


def _turn_problems(
    conversation: Sequence[Mapping[str, Any]], first_new: int, listed: frozenset[str], image_limit: tuple[int, int]
) -> tuple[list[str], frozenset[str]]:
    """The problems of every answer to a tool-calling turn that the new messages (from `first_new` on) hold, and
    the tab ids open after the last of them."""
    problems: list[str] = []
    for index in range(max(first_new, 0), len(conversation)):
        message = conversation[index]
        previous = conversation[index - 1] if index > 0 else None
        asked = _tool_uses(previous) if previous is not None and previous.get("role") == "assistant" else []
        asked_ids = {use.get("id") for use in asked}
        for position, result in _tool_results(message):
            if message.get("role") != "user" or result.get("tool_use_id") not in asked_ids:
                problems.append(
                    f"messages.{index}.content.{position}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{result.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message."
                )
        if not asked:
            continue
        answered = {result.get("tool_use_id") for _, result in _tool_results(message)}
        missing = [str(use.get("id")) for use in asked if use.get("id") not in answered]
        if message.get("role") != "user" or missing:
            problems.append(_unanswered(index - 1, missing or [str(use.get("id")) for use in asked]))
            continue
        found = validate_user_message(asked, message, listed_before=listed, image_limit=image_limit)
        problems += [f"messages.{index}: {problem}" for problem in found]
        by_id = {use.get("id"): use for use in asked}
        for _, result in _tool_results(message):
            use = by_id.get(result.get("tool_use_id"))
            if use is not None:
                listed = _listed_after(use, result, listed)
    last = conversation[-1] if conversation else None
    if last is not None and last.get("role") == "assistant" and _tool_uses(last) and len(conversation) > first_new:
        problems.append(_unanswered(len(conversation) - 1, [str(use.get("id")) for use in _tool_uses(last)]))
    return problems, listed


def _unanswered(index: int, ids: Sequence[str]) -> str:
    """The API's words for tool calls of the assistant message `index` that the next message does not answer."""
    return (
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


# --- The server ----------------------------------------------------------------------------------------------------


class FakeMessagesAPI:
    """A threaded HTTP server on 127.0.0.1 answering `POST /v1/messages` from `script`.

    Use it as a context manager (or `start()` / `close()`); `base_url` is what to give the SDK client. `requests`
    lists every request so far. `answer(headers, body)` is the same logic without HTTP. `on_request` is called
    with each `RecordedRequest` as it is recorded (the CLI uses it to log)."""

    def __init__(
        self,
        script: Sequence[ScriptTurn] | str | Path,
        *,
        port: int = 0,
        max_images: int = MAX_IMAGES,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.script: tuple[ScriptTurn, ...] = load_script(script) if isinstance(script, str | Path) else tuple(script)
        self.max_images = max_images
        self.on_request = on_request
        self._port = port
        self._lock = threading.Lock()
        self._held: dict[str, _Held] = {}
        self._continued: set[str] = set()
        self._last_context: tuple[str, ...] = ()
        self._requests: list[RecordedRequest] = []
        self._replies = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------------------------------

    def start(self) -> str:
        if self._server is not None:
            return self.base_url
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-messages-api", daemon=True)
        self._thread.start()
        return self.base_url

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeMessagesAPI:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake API is not running; call start() or use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def forget_threads(self) -> None:
        """Drop every thread the server holds, as a server that lost them would, so that a test can watch a client
        recover (the SDK replays the whole history under a new thread)."""
        with self._lock:
            self._held.clear()
            self._continued.clear()

    # --- one request ----------------------------------------------------------------------------------------------

    def answer(self, headers: Mapping[str, str], body: Any, *, path: str = "/v1/messages") -> RecordedRequest:
        """Answer one request (its headers and parsed JSON body), record it, and return the record, whose
        `status` and `response` are what goes back to the client."""
        with self._lock:
            number = len(self._requests) + 1
            facts = _Facts()
            try:
                if not isinstance(body, Mapping):
                    raise _Rejected("the request body must be a JSON object")
                thread = body.get("thread")
                facts.thread = thread.get("type") if isinstance(thread, Mapping) else None
                facts.images_sent = _count_images(body.get("messages"))
                reply = self._reply({key.lower(): value for key, value in headers.items()}, body, facts)
                status, response, error = 200, reply, None
            except Exception as exc:
                rejected = (
                    exc
                    if isinstance(exc, _Rejected)
                    else _Rejected(f"the fake API failed: {type(exc).__name__}: {exc}", status=500, kind="api_error")
                )
                status, error = rejected.status, rejected.message
                detail: dict[str, object] = {"type": rejected.kind, "message": rejected.message}
                if rejected.details is not None:
                    detail["details"] = dict(rejected.details)
                response = {"type": "error", "error": detail, "request_id": f"req_fake_{number:04d}"}
            record = RecordedRequest(
                number=number,
                path=path,
                headers={key.lower(): value for key, value in headers.items()},
                body=body,
                thread=facts.thread,
                status=status,
                error=error,
                turn=facts.turn,
                images_sent=facts.images_sent,
                images_in_context=facts.images_in_context,
                response=response,
            )
            self._requests.append(record)
        if self.on_request is not None:
            self.on_request(record)
        return record

    def _reply(self, headers: Mapping[str, str], body: Mapping[str, Any], facts: _Facts) -> dict[str, Any]:
        if body.get("stream"):
            raise _Rejected("stream: the fake API answers only non-streaming requests")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _Rejected("model: Field required")
        max_tokens = body.get("max_tokens")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise _Rejected("max_tokens: Field required (a positive integer)")
        new_messages = _check_messages(body.get("messages"))

        thread = body.get("thread")
        betas = {beta.strip() for beta in headers.get("anthropic-beta", "").split(",")}
        held: _Held | None = None
        previous_id: str | None = None
        if thread is not None:
            if not isinstance(thread, Mapping) or thread.get("type") not in ("create", "continue"):
                raise _Rejected("thread.type: must be 'create' or 'continue'")
            if THREADS_BETA not in betas:
                raise _Rejected(f"thread: requires the anthropic-beta header {THREADS_BETA!r}")
            if thread["type"] == "continue":
                held, previous_id = self._continuing(thread, body)

        if held is None:
            if not new_messages:
                raise _Rejected("messages: at least one message is required")
            system, tools = body.get("system"), body.get("tools")
            conversation: list[Mapping[str, Any]] = new_messages
            first_new, listed, earlier = 0, frozenset[str](), _Tally()
            earlier_tokens: tuple[int, ...] = ()
            earlier_prints: tuple[str, ...] = ()
        else:
            system, tools = held.system, held.tools
            conversation = [*held.messages, *new_messages]
            first_new, listed, earlier = len(held.messages), held.listed, held.images
            earlier_tokens, earlier_prints = held.tokens, held.fingerprints
        if conversation[0].get("role") != "user":
            raise _Rejected("messages.0.role: the first message must use the 'user' role")
        has_browser = _check_tools(tools)

        added, sizes = _tally(conversation[first_new:])
        images = earlier + added
        facts.images_in_context = images.count
        if images.count > self.max_images:
            raise _Rejected(
                f"messages: too many images in the request ({images.count}); the maximum is {self.max_images}"
            )
        strict = images.count > STRICT_IMAGE_COUNT
        limit = STRICT_IMAGE_LIMIT if strict else IMAGE_LIMIT
        if strict and (earlier.width > limit[0] or earlier.height > limit[1]):
            raise _Rejected(
                f"messages: the request holds {images.count} images, more than {STRICT_IMAGE_COUNT}, so each must be "
                f"at most {limit[0]}x{limit[1]} px, but an earlier image is {earlier.width}x{earlier.height} px"
            )
        # Images inside results are the checker's to judge, below; the API holds any other image to the same limit.
        problems = [
            f"messages.{first_new + image.message}.{image.where}: image is {image.width}x{image.height} px; the limit "
            f"is {limit[0]}x{limit[1]}{' once a request holds more than 20 images' if strict else ''}"
            for image in sizes
            if not image.in_result and (image.width > limit[0] or image.height > limit[1])
        ]
        turn_problems, listed = _turn_problems(conversation, first_new, listed, limit)
        _reject_if(problems + turn_problems)

        turn = facts.turn = sum(1 for message in conversation if message.get("role") == "assistant")
        scripted = self.script[turn] if turn < len(self.script) else None
        if scripted is not None and scripted.calls_browser and not has_browser:
            raise _Rejected(
                f"the script's turn {turn} calls browser members, but the request declares no {TOOLSET_TYPE} tool"
            )

        self._replies += 1
        reply_id = f"msg_fake_{self._replies:04d}"
        content = self._content(scripted, turn)
        stop_reason = scripted.stop_reason if scripted is not None else "end_turn"

        tokens = earlier_tokens + tuple(_message_tokens(message) for message in conversation[first_new:])
        prints = earlier_prints + tuple(_fingerprint(message) for message in conversation[first_new:])
        # What a prompt cache would plausibly hold: on a continue, everything the thread held; otherwise the
        # messages this conversation shares, from the start, with the previous one served.
        tools_tokens = _tools_tokens(system, tools)
        if held is None:
            shared = 0
            while shared < min(len(prints), len(self._last_context)) and prints[shared] == self._last_context[shared]:
                shared += 1
            cached = tools_tokens + sum(tokens[:shared]) if shared else 0
        else:
            cached = tools_tokens + sum(earlier_tokens)
        total = tools_tokens + sum(tokens)
        reply_message = {"role": "assistant", "content": content}
        output_tokens = max(1, _text_tokens(json.dumps(content)))
        self._held[reply_id] = _Held(
            messages=(*conversation, reply_message),
            system=system,
            tools=tools,
            listed=listed,
            images=images,
            tokens=(*tokens, output_tokens),
            fingerprints=(*prints, _fingerprint(reply_message)),
        )
        self._last_context = (*prints, _fingerprint(reply_message))
        if previous_id is not None:
            self._continued.add(previous_id)

        reply = {
            "id": reply_id,
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": total - cached,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": cached,
            },
        }
        return reply

    def _continuing(self, thread: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[_Held, str]:
        previous_id = thread.get("previous_message_id")
        if not isinstance(previous_id, str) or not previous_id:
            raise _Rejected("thread.previous_message_id: Field required when continuing a thread")
        for field in ("system", "tools"):
            if body.get(field) is not None:
                raise _Rejected(
                    f"{field}: cannot be set when continuing a thread; the thread keeps the one it was created with"
                )
        held = self._held.get(previous_id)
        if held is None:
            raise _Rejected(
                f"thread.previous_message_id: no thread holds a message {previous_id!r}",
                status=404,
                kind="not_found_error",
                details={"error_code": "thread_not_found"},
            )
        if previous_id in self._continued:
            raise _Rejected(
                f"thread.previous_message_id: {previous_id!r} was already continued; continue from its latest reply",
                status=409,
                kind="invalid_request_error",
                details={"error_code": "thread_already_continued"},
            )
        return held, previous_id

    def _content(self, scripted: ScriptTurn | None, turn: int) -> list[dict[str, Any]]:
        if scripted is None:
            return [{"type": "text", "text": END_OF_SCRIPT}]
        content: list[dict[str, Any]] = []
        for index, block in enumerate(scripted.content):
            served = copy.deepcopy(dict(block))
            if served["type"] == "tool_use":
                served.setdefault("id", f"toolu_fake_{turn:03d}_{index:02d}")
                served.setdefault("input", {})
            content.append(served)
        return content


def _handler_for(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            """Requests are recorded, not logged."""

        def _send(self, status: int, payload: Mapping[str, Any], request_id: str) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", request_id)
            # The SDK retries a 409 unless told not to; a thread conflict is for its thread logic to handle.
            self.send_header("x-should-retry", "false")
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            path = urlsplit(self.path).path
            if path != "/v1/messages":
                not_found = {"type": "error", "error": {"type": "not_found_error", "message": f"{path} not found"}}
                self._send(HTTPStatus.NOT_FOUND, not_found, "req_fake_none")
                return
            try:
                body: Any = json.loads(raw or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = None
            record = api.answer(dict(self.headers.items()), body, path=self.path)
            self._send(record.status, record.response, f"req_fake_{record.number:04d}")

        def do_GET(self) -> None:
            message = f"{urlsplit(self.path).path} not found"
            self._send(
                HTTPStatus.NOT_FOUND,
                {"type": "error", "error": {"type": "not_found_error", "message": message}},
                "req_fake_none",
            )

    return Handler


# --- Command line --------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `browser-toolset fake-api`, for the CLI's subcommand parser."""
    parser.add_argument("--script", required=True, help="a JSON list of scripted assistant turns")
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
    parser = argparse.ArgumentParser(prog="browser-toolset fake-api", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
