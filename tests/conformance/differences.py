"""Where drivers may legitimately differ, and where one of ours is known to be wrong: the one list of each.

A test writes its expectation once. Where a difference applies, it marks the lines that only some drivers show
(`LABEL_TEXT.line('  text "I agree"')`) and `expect` keeps them for those drivers only; nothing else in the suite
asks which driver it is on. An entry belongs in `DIFFERENCES` only when both sides are right (the protocol allows
both, or the mock models a page more coarsely than a browser renders it), never to make a failing driver pass:
that is what `KNOWN_BUGS` is for, each a strict expected failure, so the test starts failing the day the bug is
fixed and the entry can go.

"Browsers" below means every driver but the mock: they all load the real pages `SiteServer` serves.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import pytest

MOCK = "mock"


@attrs.frozen
class Difference:
    """Lines (or results) that only the mock, or only the browsers, show."""

    name: str
    on_mock: bool
    """True: only the mock shows what `line` marks; False: only the browsers do."""
    why: str

    def applies(self, driver_name: str) -> bool:
        """Whether the driver named `driver_name` (`Driver.name`) shows what this difference marks."""
        return (driver_name == MOCK) == self.on_mock

    def line(self, text: str) -> Only:
        return Only(self, text)


@attrs.frozen
class Only:
    """An expected line that only the drivers `difference` applies to show."""

    difference: Difference
    text: str


LABEL_TEXT = Difference(
    "label text",
    on_mock=False,
    why="A named checkbox or radio is served as `<label><input> Name</label>`, since the mock shows its name as page "
    "text; a browser's tree then holds the label's text run after the control. The mock models the label as the "
    "control's name only.",
)
SELECT_OPTIONS = Difference(
    "options of a closed select",
    on_mock=False,
    why="A browser lists a `<select>`'s options as its children even while it is closed (which is how Claude learns "
    "the choices); the mock has them in its tree as hidden nodes, so read_page leaves them out.",
)
FILE_INPUT_TEXT = Difference(
    "a file input's text",
    on_mock=True,
    why="The mock draws a file input as a labelled button, and its page text has that label; a browser's "
    "`<input type=file>` has no text of its own.",
)
HISTORY_STATUS = Difference(
    "the status of a history step",
    on_mock=True,
    why="A browser may bring a page back from its caches without a response, so a back / forward result may not "
    "know its HTTP status (`NavigationOutcome.status` is 'when the driver knows it'); the mock always does.",
)

DIFFERENCES = (LABEL_TEXT, SELECT_OPTIONS, FILE_INPUT_TEXT, HISTORY_STATUS)


def expect(driver: str, lines: Iterable[str | Only]) -> list[str]:
    """The lines `driver` shows: every plain line, and each marked line whose difference applies to it."""
    return [
        line if isinstance(line, str) else line.text
        for line in lines
        if isinstance(line, str) or line.difference.applies(driver)
    ]


def history_step(driver: str, url: str, title: str, status: int = 200) -> set[str]:
    """The acceptable first lines of a back / forward result: with its status, or without it where
    `HISTORY_STATUS` says the driver may not know it."""
    lines = {f"Navigated to {url} — {title} (HTTP {status})"}
    if not HISTORY_STATUS.applies(driver):
        lines.add(f"Navigated to {url} — {title}")
    return lines


# --- known bugs: a driver disagrees with the protocol, and the test says so ------------------------------------------


@attrs.frozen
class KnownBug:
    """Drivers that fail a conformance test because they are wrong. Tests apply it with `known_bug`."""

    name: str
    drivers: tuple[str, ...]
    """The drivers' own names (`Driver.name`), or their beginnings: `selenium-` is the Selenium driver on every
    browser, however the suite reached it (its fixture, the Grid, or its entry point)."""
    why: str

    def applies(self, driver_name: str) -> bool:
        return driver_name.startswith(self.drivers)


KNOWN_BUGS: tuple[KnownBug, ...] = ()
"""None known today: the last two (the walker counting disabled buttons as interactive, the mock naming list
items from their text) are fixed."""


def known_bug(request: pytest.FixtureRequest, driver_name: str, bug: KnownBug) -> None:
    """Expect the calling test to fail on the drivers `bug` names, and to fail the run if it passes there."""
    if bug.applies(driver_name):
        request.applymarker(pytest.mark.xfail(reason=f"known bug: {bug.name}: {bug.why}", strict=True))
