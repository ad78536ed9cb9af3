"""Browser sessions by client: each client key (the stdio process, an MCP session, a per-request client) gets its
own `BrowserToolset`, opened on its first call and closed when its client ends, when it has gone without a call for
the idle time, or when the server stops. At most `max_sessions` are open at once; the next client is refused with
a message saying so, and its call does not start a browser.

A session's calls run one at a time on a worker thread (the toolset blocks on the browser), in the order they
came; one still running when its client gives up finishes before the next starts, and closing a session waits for
it.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread
import attrs
from anthropic.types.beta import BetaToolUseBlock

from ..executor.toolset import BrowserToolset

__all__ = ["BrowserSession", "SessionPool", "SessionUnavailable"]

log = logging.getLogger("browser_toolset")

EXPIRED_KEPT = 1000
"""How many idle-closed client keys are remembered, to tell each its browser was closed (oldest forgotten)."""

_call_ids = itertools.count(1)


class SessionUnavailable(Exception):
    """A call that gets no browser session: the limit is reached, the session was closed for idleness, or the
    browser could not be started. The message is for the model (and the person reading along)."""


@attrs.define(eq=False)
class BrowserSession:
    """One client's browser: its toolset, the one-at-a-time gate of its calls, and when it was last used."""

    key: str
    toolset: BrowserToolset
    last_used: float
    limiter: anyio.CapacityLimiter = attrs.field(factory=lambda: anyio.CapacityLimiter(1))
    busy: int = 0

    async def call(self, member: str, arguments: Mapping[str, Any], clock: Callable[[], float]) -> dict[str, Any]:
        """Run one member call; its `tool_result` block."""
        block = BetaToolUseBlock.model_validate(
            {"type": "tool_use", "id": f"toolu_mcp_{next(_call_ids)}", "name": member, "input": dict(arguments),
             "toolset_name": "browser"}
        )  # fmt: skip
        self.busy += 1
        try:
            return dict(await anyio.to_thread.run_sync(self.toolset.tool_result, block, limiter=self.limiter))
        finally:
            self.busy -= 1
            self.last_used = clock()


class SessionPool:
    """The open browser sessions by client key. `opener` starts a browser and returns its toolset (blocking)."""

    def __init__(
        self,
        opener: Callable[[], BrowserToolset],
        *,
        max_sessions: int,
        idle_timeout: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.opener = opener
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.clock = clock
        self.sessions: dict[str, BrowserSession] = {}
        self._opening: dict[str, anyio.Event] = {}
        self._expired: OrderedDict[str, float] = OrderedDict()
        self.opened = 0
        self.refused = 0
        self.expired = 0

    def __len__(self) -> int:
        return len(self.sessions)

    async def get(self, key: str) -> BrowserSession:
        """`key`'s session, opened now if it has none. Raises `SessionUnavailable`."""
        while True:
            found = self.sessions.get(key)
            if found is not None:
                return found
            opening = self._opening.get(key)
            if opening is None:
                break
            await opening.wait()  # a concurrent first call is starting it; use it (or try again if that failed)
        idle = self._expired.pop(key, None)
        if idle is not None:
            raise SessionUnavailable(
                f"This client's browser was closed after {idle:g} s without a call (the server's idle timeout), and "
                "its tabs with it. Call again to start a new browser."
            )
        if len(self.sessions) + len(self._opening) >= self.max_sessions:
            self.refused += 1
            log.warning("refused a browser session: %d are open (the limit)", self.max_sessions)
            raise SessionUnavailable(
                f"No browser is available: this server already runs {self.max_sessions} browser sessions, its limit "
                "(--max-sessions). Try again when another client has finished or its session has timed out."
            )
        done = self._opening[key] = anyio.Event()
        try:
            toolset = await anyio.to_thread.run_sync(self.opener)
        except Exception as exc:
            log.warning("could not start a browser", exc_info=True)
            raise SessionUnavailable(f"The browser could not be started: {type(exc).__name__}: {exc}") from exc
        finally:
            del self._opening[key]
            done.set()
        session = self.sessions[key] = BrowserSession(key, toolset, self.clock())
        self.opened += 1
        log.info("browser session opened (%d open)", len(self.sessions))
        return session

    async def close(self, key: str) -> bool:
        """Close `key`'s session, after the call it may be running; whether it had one."""
        session = self.sessions.pop(key, None)
        if session is None:
            return False
        with anyio.CancelScope(shield=True):
            try:
                await anyio.to_thread.run_sync(session.toolset.close, limiter=session.limiter)
            except Exception:
                log.warning("closing a browser session failed", exc_info=True)
        log.info("browser session closed (%d open)", len(self.sessions))
        return True

    async def close_idle(self) -> int:
        """Close every session that has gone `idle_timeout` seconds without a call; how many."""
        if self.idle_timeout is None:
            return 0
        now = self.clock()
        idle = [key for key, s in self.sessions.items() if not s.busy and now - s.last_used >= self.idle_timeout]
        for key in idle:
            self._expired[key] = self.idle_timeout
            while len(self._expired) > EXPIRED_KEPT:
                self._expired.popitem(last=False)
            self.expired += 1
            await self.close(key)
        return len(idle)

    async def watch_idle(self) -> None:
        """Close idle sessions until cancelled, checking a few times per idle period."""
        if self.idle_timeout is None:
            await anyio.sleep_forever()
            return
        interval = min(max(self.idle_timeout / 4, 0.05), 5.0)
        while True:
            await anyio.sleep(interval)
            await self.close_idle()

    async def close_all(self) -> None:
        for key in list(self.sessions):
            await self.close(key)

    def forget(self, key: str) -> None:
        """Drop a client's idle-closed mark (its client ended, so nobody is left to tell)."""
        self._expired.pop(key, None)


def finite_seconds(value: float | None) -> float | None:
    """An idle timeout: None or 0 means never."""
    if value is None or value <= 0 or not math.isfinite(value):
        return None
    return value
