"""Traffic that keeps a Selenium Grid from ending a quiet session.

A Grid ends a session that has had no traffic for its session timeout (300 seconds unless the Grid was started with
another `--session-timeout`), and the browser is gone without a word: the next call fails as if the page were
unavailable. An agent's session is often quiet that long (a person asked to confirm, an MCP client between tasks),
and the executor, not the Grid, decides when it ends. While a remote driver is open, one cheap BiDi command each
`interval` seconds is that traffic (the Grid counts the BiDi connection's messages as use of the session). Local
browsers have no such timeout and get no keepalive.
"""

from __future__ import annotations

import logging
import threading

from .connection import BidiConnection, BidiError

log = logging.getLogger(__name__)


class KeepAlive:
    """Sends `browsingContext.getTree` (depth 0: a reply of a few hundred bytes) every `interval` seconds on its own
    daemon thread, until `stop()` or the connection closes. A failed command is logged and the next one tried: the
    driver's own calls report a dead session."""

    def __init__(self, connection: BidiConnection, interval: float) -> None:
        self._conn = connection
        self._interval = interval
        self._stopped = threading.Event()
        self.sent = 0
        """How many keepalive commands were answered (for tests and logs)."""
        self._thread = threading.Thread(target=self._run, name="grid-keepalive", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            if self._conn.closed:
                return
            try:
                self._conn.command("browsingContext.getTree", {"maxDepth": 0}, timeout=min(self._interval, 30.0))
            except BidiError as exc:
                log.debug("the Grid keepalive command failed: %s", exc)
            else:
                self.sent += 1

    def stop(self) -> None:
        self._stopped.set()
