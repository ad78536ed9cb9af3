"""Closing a tab until it is gone (`close_until_gone`): Chromium can drop a close that races a navigation committing
in the tab (no answer ever comes), or refuse it while the tab stays open; the driver then closes it again. The
browser case itself is `test_a_tab_closes_while_its_refresh_commits` (tests/browser/test_selenium_driver.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from browser_toolset.drivers.selenium.connection import BidiClosed, BidiError, BidiTimeout
from browser_toolset.drivers.selenium.errors import ContextGone
from browser_toolset.drivers.selenium.tabs import CLOSE_ATTEMPTS, CLOSE_RETRY_SECONDS, close_until_gone

NOT_FOUND = BidiError("browsingContext.close", "unknown error", "Session with given id not found.")


def browser(
    *answers: BaseException | None, closed_after: int | None = None
) -> tuple[list[float | None], Callable[[], None]]:
    """A close that answers `answers` in turn (None: a reply; an exception: raised); the tab is gone once
    `closed_after` closes were sent."""
    sent: list[float | None] = []

    def send(timeout: float | None) -> object:
        sent.append(timeout)
        answer = answers[len(sent) - 1]
        if answer is not None:
            raise answer
        return {}

    def gone() -> bool:
        return closed_after is not None and len(sent) >= closed_after

    return sent, lambda: close_until_gone(send, gone)


def test_a_close_answered_at_once_is_sent_once() -> None:
    sent, close = browser(None)
    close()
    assert sent == [CLOSE_RETRY_SECONDS]


def test_a_dropped_close_is_sent_again() -> None:
    sent, close = browser(BidiTimeout("browsingContext.close", CLOSE_RETRY_SECONDS), None)
    close()
    assert sent == [CLOSE_RETRY_SECONDS, CLOSE_RETRY_SECONDS]


def test_the_last_attempt_waits_the_full_timeout_and_its_timeout_is_raised() -> None:
    timeouts = [BidiTimeout("browsingContext.close", 1.0) for _ in range(CLOSE_ATTEMPTS)]
    sent, close = browser(*timeouts)
    with pytest.raises(BidiTimeout) as raised:
        close()
    assert raised.value is timeouts[-1]
    assert sent == [CLOSE_RETRY_SECONDS] * (CLOSE_ATTEMPTS - 1) + [None]


def test_a_refused_close_of_a_tab_that_went_away_counts_as_closed() -> None:
    sent, close = browser(BidiTimeout("browsingContext.close", 1.0), NOT_FOUND, closed_after=2)
    close()
    assert len(sent) == 2


def test_a_refused_close_of_a_tab_still_open_is_sent_again() -> None:
    sent, close = browser(NOT_FOUND, None)
    close()
    assert len(sent) == 2


def test_a_close_refused_every_time_raises_the_last_refusal() -> None:
    refusals = [BidiError("browsingContext.close", "unknown error", f"refusal {n}") for n in range(CLOSE_ATTEMPTS)]
    sent, close = browser(*refusals)
    with pytest.raises(BidiError) as raised:
        close()
    assert raised.value is refusals[-1]
    assert len(sent) == CLOSE_ATTEMPTS


@pytest.mark.parametrize(
    "error",
    [ContextGone("browsingContext.close", "tab-a"), BidiClosed("browsingContext.close")],
    ids=["tab-gone", "session-closed"],
)
def test_a_gone_tab_or_a_closed_session_is_not_retried(error: BidiError) -> None:
    sent, close = browser(error, None)
    with pytest.raises(type(error)):
        close()
    assert len(sent) == 1
