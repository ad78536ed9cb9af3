"""A WebDriver BiDi connection: commands with their own deadlines, events delivered in arrival order.

Selenium's own `WebSocketConnection` polls for each reply (100 ms by default), gives every command the same
30-second deadline, and starts a fresh thread per event, so events reach handlers out of order. The driver needs
the opposite on all three counts: a navigation has its own timeout, a hung command (Firefox on a `javascript:` URL)
must not stall for half a minute, and `contextCreated` must be seen before the `navigationStarted` of that context.
So this module owns the socket: one reader thread resolves replies the moment they arrive, and one dispatcher
thread runs event handlers in the order the browser sent the events. Handlers may send commands (their replies
are resolved by the reader, not the dispatcher) but should not wait on anything slow: every later event queues
behind them.

Whoever knows more than the browser says about a failure can add it: an `Explainer` sees each command as it is
sent and may return a function that rewrites the `BidiError` its error reply becomes. The egress proxy uses this
to say why a navigation it carried failed (Chromium reports every refused proxy tunnel the same way).
"""

from __future__ import annotations

import itertools
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import websocket

from .interrupts import interrupts_deferred

__all__ = ["JSON", "BidiClosed", "BidiConnection", "BidiError", "BidiTimeout", "Explainer", "Handler", "Listener"]

log = logging.getLogger(__name__)

JSON = dict[str, Any]
Handler = Callable[[JSON], None]


class Listener(Protocol):
    """An object fed by BiDi events: the driver registers its handlers and subscribes the session to their events."""

    def handlers(self) -> Mapping[str, Handler]:
        """Event method -> handler, run on the dispatcher thread in the order the browser sent the events."""
        ...


class BidiError(Exception):
    """The browser answered a command with an error (`error` is the BiDi error code, e.g. `no such frame`)."""

    def __init__(self, method: str, error: str, message: str) -> None:
        self.method = method
        self.error = error
        self.message = message
        super().__init__(f"{method}: {error}: {message}")


class BidiTimeout(BidiError):
    """No reply within the command's deadline. The command may still complete in the browser later."""

    def __init__(self, method: str, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(method, "timeout", f"no reply within {seconds:g} s")


class BidiClosed(BidiError):
    """The socket closed (the browser or the session ended) before the reply came."""

    def __init__(self, method: str) -> None:
        super().__init__(method, "closed", "the BiDi connection is closed")


Explainer = Callable[[str, Mapping[str, Any]], Callable[[BidiError], BidiError] | None]
"""Called with each command's method and params as it is sent; may return what rewrites the command's error."""


class _Pending:
    """One command awaiting its reply; `reply` is set by the reader thread just before `done`."""

    __slots__ = ("done", "method", "reply")

    def __init__(self, method: str) -> None:
        self.method = method
        self.done = threading.Event()
        self.reply: JSON | None = None


class BidiConnection:
    """A BiDi session's websocket. Thread-safe: any thread may send commands."""

    def __init__(
        self, url: str, *, timeout: float = 30.0, connect_timeout: float = 10.0, explain: Explainer | None = None
    ) -> None:
        self.url = url
        self.timeout = timeout
        self._explain = explain
        # ChromeDriver refuses websocket upgrades that carry an Origin header (DNS-rebinding protection).
        # websocket-client checks the UTF-8 of every text frame in pure Python, one function call per byte: ~0.7 s
        # for a 1.5 MB message, most of what a big snapshot cost. Decoding the message (strict UTF-8) checks it
        # anyway, in C.
        self._ws = websocket.create_connection(
            url, timeout=connect_timeout, suppress_origin=True, enable_multithread=True, skip_utf8_validation=True
        )
        self._ws.settimeout(None)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._handlers: dict[str, list[Handler]] = {}
        self._events: queue.SimpleQueue[JSON | threading.Event | None] = queue.SimpleQueue()
        self._unhandled = 0
        """Events put on `_events` and not yet handled (guarded by `_lock`): none means `settle` has nothing to wait
        for, which is the common case after a call and spares it a hand-off to the dispatcher thread."""
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="bidi-reader", daemon=True)
        self._dispatcher = threading.Thread(target=self._dispatch_loop, name="bidi-events", daemon=True)
        self._reader.start()
        self._dispatcher.start()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # --- commands -------------------------------------------------------------------------------------------------

    def command(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        abandon: Callable[[], str | None] | None = None,
    ) -> JSON:
        """Send `method` and wait for its result. Raises `BidiError` (or `BidiTimeout`, `BidiClosed`).

        `abandon` is polled while waiting: when it returns an error code, the wait ends with that `BidiError`.
        Browsers may never answer a command about a context that goes away under it (a script that closes its
        own tab), and waiting out the whole timeout for that helps nobody."""
        explained = self._explainer(method, params)
        pending = self._send(method, params, track=True)
        assert pending is not None
        deadline = self.timeout if timeout is None else timeout
        end = time.monotonic() + deadline
        while not pending.done.wait(min(0.1, max(0.0, end - time.monotonic())) if abandon else deadline):
            reason = abandon() if abandon else None
            if reason is None and time.monotonic() < end:
                continue
            with self._lock:
                self._pending = {k: v for k, v in self._pending.items() if v is not pending}
            if self.closed:
                raise BidiClosed(method)
            if reason is not None:
                raise BidiError(method, reason, "abandoned while waiting for the reply")
            raise BidiTimeout(method, deadline)
        reply = pending.reply
        if reply is None:
            raise BidiClosed(method)
        if reply.get("type") == "error" or "error" in reply:
            error = BidiError(method, str(reply.get("error", "error")), str(reply.get("message", "")))
            raise explained(error) if explained is not None else error
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def _explainer(self, method: str, params: Mapping[str, Any] | None) -> Callable[[BidiError], BidiError] | None:
        if self._explain is None:
            return None
        try:
            rewrite = self._explain(method, params or {})
        except Exception:  # an explanation is a nicety: the command goes on without one
            log.exception("explaining %s failed", method)
            return None
        if rewrite is None:
            return None

        def explained(error: BidiError) -> BidiError:
            try:
                return rewrite(error)
            except Exception:
                log.exception("explaining the failure of %s failed", method)
                return error

        return explained

    def send(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send `method` without waiting for the reply (an error reply is only logged). For event handlers that
        must answer the browser quickly, such as continuing an intercepted request."""
        self._send(method, params, track=False)

    def _send(self, method: str, params: Mapping[str, Any] | None, *, track: bool) -> _Pending | None:
        if self.closed:
            raise BidiClosed(method)
        command_id = next(self._ids)
        pending = _Pending(method)
        with self._lock:
            self._pending[command_id] = pending
        pending_out = pending if track else None
        if not track:
            pending.done.set()  # marks it fire-and-forget for the reader
        payload = json.dumps({"id": command_id, "method": method, "params": dict(params or {})})
        log.debug("-> %.500s", payload)
        try:
            self._ws.send(payload)
        except (OSError, websocket.WebSocketException) as exc:
            self._shutdown()
            raise BidiClosed(method) from exc
        return pending_out

    # --- events ---------------------------------------------------------------------------------------------------

    def on(self, method: str, handler: Handler) -> None:
        """Call `handler(params)` on the dispatcher thread for every `method` event (after `session.subscribe`)."""
        with self._lock:
            self._handlers.setdefault(method, []).append(handler)

    def settle(self, timeout: float = 2.0) -> bool:
        """Wait until every event received so far has been handled. A command's reply can overtake the handling
        of events the browser sent before it (they are queued for the dispatcher), so a caller that reads state
        the handlers keep calls this after the reply. False on timeout or when called from a handler."""
        if self.closed or threading.current_thread() is self._dispatcher:
            return False
        with self._lock:
            if not self._unhandled:
                return True
        marker = threading.Event()
        self._events.put(marker)
        return marker.wait(timeout)

    # --- lifecycle ------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the socket and stop both threads. Safe to call twice. Ctrl-C meanwhile is raised once both
        threads are stopped, never between the two."""
        with interrupts_deferred():
            self._shutdown()
            try:
                self._ws.close(timeout=1)
            except Exception:  # the socket may already be gone; closing is best effort
                log.debug("closing the BiDi socket failed", exc_info=True)
            if threading.current_thread() not in (self._reader, self._dispatcher):
                self._reader.join(timeout=2)
                self._dispatcher.join(timeout=2)

    def _shutdown(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        with self._lock:
            waiting = list(self._pending.values())
            self._pending.clear()
        for pending in waiting:
            pending.done.set()
        self._events.put(None)

    def _read_loop(self) -> None:
        while not self._closed.is_set():
            try:
                raw = self._ws.recv()
            except Exception:  # any failure of the socket ends the session's BiDi
                break
            if not raw:
                break
            log.debug("<- %.500s", raw)
            try:
                message = json.loads(raw)
            except ValueError:
                log.debug("unparsable BiDi message: %.200r", raw)
                continue
            if not isinstance(message, dict):
                continue
            if "id" in message and message.get("type") != "event":
                with self._lock:
                    pending = self._pending.pop(message["id"], None)
                if pending is None:
                    continue
                if pending.done.is_set():  # fire-and-forget
                    if "error" in message:
                        log.debug("BiDi %s failed: %s %s", pending.method, message.get("error"), message.get("message"))
                    continue
                pending.reply = message
                pending.done.set()
            elif "method" in message:
                with self._lock:
                    self._unhandled += 1
                self._events.put(message)
        self._shutdown()

    def _dispatch_loop(self) -> None:
        while True:
            message = self._events.get()
            if message is None:
                return
            if isinstance(message, threading.Event):
                message.set()
                continue
            method = str(message["method"])
            params = message.get("params")
            with self._lock:
                handlers = list(self._handlers.get(method, ()))
            try:
                for handler in handlers:
                    try:
                        handler(params if isinstance(params, dict) else {})
                    except Exception:  # one faulty handler must not stop event delivery
                        log.exception("BiDi event handler for %s failed", method)
            finally:
                with self._lock:
                    self._unhandled -= 1
