"""A local Grid whose ports were picked free can lose one to another process before its Java binds it (the test
suite's workers start Grids, browsers and servers side by side): `LocalGrid.start` then starts it again on fresh
ports, and only then; a port the user named is never changed."""

from __future__ import annotations

import pytest

from browser_toolset.cli.grid import START_ATTEMPTS, GridError, LocalGrid

TAKEN = "Selenium Grid exited:\n--- hub.log\njava.net.BindException: Address already in use"


class Scripted(LocalGrid):
    """A `LocalGrid` whose launches fail with the given errors, in order, then succeed; it records the ports."""

    def __init__(self, failures: list[str], **options: object) -> None:
        super().__init__(jar="selenium-server.jar", java="java", **options)  # type: ignore[arg-type]
        self.failures = list(failures)
        self.tried: list[int] = []

    def _launch(self, jar: str, java: str) -> LocalGrid:
        self.tried.append(self.port)
        if self.failures:
            raise GridError(self.failures.pop(0))
        return self


def test_a_taken_port_starts_the_grid_again_on_fresh_ports() -> None:
    grid = Scripted([TAKEN])
    assert grid.start() is grid
    assert len(grid.tried) == 2 and grid.port == grid.tried[-1]


def test_it_gives_up_after_its_attempts() -> None:
    grid = Scripted([TAKEN] * START_ATTEMPTS)
    with pytest.raises(GridError, match="Address already in use"):
        grid.start()
    assert len(grid.tried) == START_ATTEMPTS


def test_other_failures_and_named_ports_are_not_retried() -> None:
    other = Scripted(["Selenium Grid was not ready after 90 s:\n--- hub.log\n"])
    with pytest.raises(GridError, match="not ready"):
        other.start()
    assert len(other.tried) == 1
    named = Scripted([TAKEN], port=45999)
    with pytest.raises(GridError, match="Address already in use"):
        named.start()
    assert named.tried == [45999]
