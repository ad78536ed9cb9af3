"""The Selenium driver's Grid keepalive: a small command on a steady beat while the connection is open, none after
`stop()` or once the connection has closed, and a failed command does not end the beat. (That a Grid keeps a quiet
session alive because of it is shown by the Grid tests: the test Grid ends sessions after 90 quiet seconds.)"""

from __future__ import annotations

import threading
import time
from typing import Any

from browser_toolset.drivers.selenium.connection import BidiError
from browser_toolset.drivers.selenium.keepalive import KeepAlive
from tests.support.polling import wait_until


class FakeConnection:
    def __init__(self, fail_first: int = 0) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail_first = fail_first
        self.closed = False
        self.lock = threading.Lock()

    def command(self, method: str, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        with self.lock:
            self.calls.append((method, params))
            if len(self.calls) <= self.fail_first:
                raise BidiError(method, "unknown error", "the Grid is busy")
        return {"contexts": []}


def test_it_beats_until_stopped() -> None:
    conn = FakeConnection()
    keepalive = KeepAlive(conn, 0.05)  # type: ignore[arg-type]
    wait_until(lambda: keepalive.sent >= 3, timeout=10)
    keepalive.stop()
    time.sleep(0.2)
    stopped_at = len(conn.calls)
    time.sleep(0.3)
    assert len(conn.calls) == stopped_at
    assert all(call == ("browsingContext.getTree", {"maxDepth": 0}) for call in conn.calls)


def test_a_failed_beat_is_followed_by_the_next() -> None:
    conn = FakeConnection(fail_first=2)
    keepalive = KeepAlive(conn, 0.05)  # type: ignore[arg-type]
    wait_until(lambda: keepalive.sent >= 1, timeout=10)
    keepalive.stop()
    assert len(conn.calls) >= 3


def test_a_closed_connection_ends_the_beat() -> None:
    conn = FakeConnection()
    keepalive = KeepAlive(conn, 0.05)  # type: ignore[arg-type]
    wait_until(lambda: keepalive.sent >= 1, timeout=10)
    conn.closed = True
    time.sleep(0.2)
    after = len(conn.calls)
    time.sleep(0.3)
    assert len(conn.calls) == after
    keepalive.stop()
