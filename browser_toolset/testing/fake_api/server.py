"""The fake API's HTTP server: `FakeMessagesAPI`, which answers `POST /v1/messages` by the rules and the script,
and records every request it saw with its answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import attrs

from .rules import (
    MAX_IMAGES,
    TOOLSET_TYPE,
    Rejected,
    check_body,
    check_tools,
    count_images,
    image_limit,
    measure,
    oversized,
    reject_if,
    text_tokens,
    thread_kind,
    tools_tokens,
    turn_problems,
)
from .script import ScriptTurn, load_script, served_content
from .threads import Held, Threads


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


@attrs.define
class _Facts:
    """What is known about a request so far, for its record, rejected or not."""

    thread: str | None = None
    turn: int | None = None
    images_sent: int = 0
    images_in_context: int = 0


class FakeMessagesAPI:
    """A threaded HTTP server on 127.0.0.1 answering `POST /v1/messages` from `script`: a script file, or its
    turns (parsed JSON turns or `ScriptTurn`s, as `load_script` takes them).

    Use it as a context manager (or `start()` / `close()`); `base_url` is what to give the SDK client. `requests`
    lists every request so far. `answer(headers, body)` is the same logic without HTTP. `on_request` is called
    with each `RecordedRequest` as it is recorded (the CLI uses it to log)."""

    def __init__(
        self,
        script: Sequence[object] | str | Path,
        *,
        port: int = 0,
        max_images: int = MAX_IMAGES,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        # A bad script raises ScriptError here, where the test built the server, not as a 500 on every request.
        self.script: tuple[ScriptTurn, ...] = load_script(script)
        self.max_images = max_images
        self.on_request = on_request
        self._port = port
        self._lock = threading.Lock()
        self._threads = Threads()
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
            self._threads.forget()

    # --- one request ----------------------------------------------------------------------------------------------

    def answer(self, headers: Mapping[str, str], body: Any, *, path: str = "/v1/messages") -> RecordedRequest:
        """Answer one request (its headers and parsed JSON body), record it, and return the record, whose
        `status` and `response` are what goes back to the client."""
        lowered = {key.lower(): value for key, value in headers.items()}
        with self._lock:
            number = len(self._requests) + 1
            facts = _Facts()
            try:
                if not isinstance(body, Mapping):
                    raise Rejected("the request body must be a JSON object")
                thread = body.get("thread")
                facts.thread = thread.get("type") if isinstance(thread, Mapping) else None
                facts.images_sent = count_images(body.get("messages"))
                reply = self._reply(lowered, body, facts)
                status, response, error = 200, reply, None
            except Exception as exc:
                rejected = (
                    exc
                    if isinstance(exc, Rejected)
                    else Rejected(f"the fake API failed: {type(exc).__name__}: {exc}", status=500, kind="api_error")
                )
                status, error = rejected.status, rejected.message
                detail: dict[str, object] = {"type": rejected.kind, "message": rejected.message}
                if rejected.details is not None:
                    detail["details"] = dict(rejected.details)
                response = {"type": "error", "error": detail, "request_id": f"req_fake_{number:04d}"}
            record = RecordedRequest(
                number=number,
                path=path,
                headers=lowered,
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
        new_messages = check_body(body)
        continued: Held | None = None
        previous_id: str | None = None
        if thread_kind(body.get("thread"), headers) == "continue":
            previous_id, continued = self._threads.resume(body["thread"], body)
        if continued is None and not new_messages:
            raise Rejected("messages: at least one message is required")
        held = continued if continued is not None else Held(system=body.get("system"), tools=body.get("tools"))
        conversation = [*held.messages, *new_messages]
        first_new = len(held.messages)
        if conversation[0].get("role") != "user":
            raise Rejected("messages.0.role: the first message must use the 'user' role")
        has_browser = check_tools(held.tools)

        added, sizes = measure(new_messages)
        images = held.images + added
        facts.images_in_context = images.count
        limit = image_limit(images, held.images, self.max_images)
        answered, listed = turn_problems(conversation, first_new, held.listed, limit)
        reject_if(oversized(sizes, first_new, limit) + answered)

        turn = facts.turn = sum(1 for message in conversation if message.get("role") == "assistant")
        scripted = self.script[turn] if turn < len(self.script) else None
        if scripted is not None and scripted.calls_browser and not has_browser:
            raise Rejected(
                f"the script's turn {turn} calls browser members, but the request declares no {TOOLSET_TYPE} tool"
            )

        self._replies += 1
        reply_id = f"msg_fake_{self._replies:04d}"
        content = served_content(scripted, turn)
        asked = held.extended(new_messages, listed=listed, images=images)
        declared = tools_tokens(held.system, held.tools)
        cached = self._threads.cached_tokens(asked, continued, declared)
        output_tokens = max(1, text_tokens(json.dumps(content)))
        reply_message = {"role": "assistant", "content": content}
        self._threads.hold(reply_id, asked.replied(reply_message, output_tokens), continued_from=previous_id)
        return {
            "id": reply_id,
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": scripted.stop_reason if scripted is not None else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": declared + sum(asked.tokens) - cached,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": cached,
            },
        }


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

        def _not_found(self) -> None:
            message = f"{urlsplit(self.path).path} not found"
            error = {"type": "error", "error": {"type": "not_found_error", "message": message}}
            self._send(HTTPStatus.NOT_FOUND, error, "req_fake_none")

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if urlsplit(self.path).path != "/v1/messages":
                self._not_found()
                return
            try:
                body: Any = json.loads(raw or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = None
            record = api.answer(dict(self.headers.items()), body, path=self.path)
            self._send(record.status, record.response, f"req_fake_{record.number:04d}")

        def do_GET(self) -> None:
            self._not_found()

    return Handler
