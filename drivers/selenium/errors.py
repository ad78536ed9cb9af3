"""From BiDi failures to the `DriverError`s Claude reads, in one place and one wording.

A BiDi error code (`no such frame`, `invalid argument`) means nothing to Claude, and a bare `BidiError` escaping a
driver method is a driver bug by the protocol's rules. So every driver call that talks to the browser runs its
commands inside `bidi_errors(what)`, which says what could not be done in the same words everywhere:
`the browser could not <what>: <reason>`, or `the browser did not <what> within <n> seconds` when the browser never
answered. Code that must react to a particular failure (retry after a concurrent navigation, fall back from a stale
realm) catches `BidiError` for that decision only and re-raises the rest, leaving the message to this module.

A failed load names its network error in each browser's own code (`net::ERR_NAME_NOT_RESOLVED`,
`NS_ERROR_UNKNOWN_HOST`): those that tell a typo from a refusal from a network that is down are said in words,
the code kept in brackets.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from browser_toolset.driver_errors import DriverError, ElementGone, InvalidValue, TabGone

from .connection import BidiError, BidiTimeout

__all__ = ["GONE_ERRORS", "ContextGone", "bidi_errors", "context_lost", "reason"]

GONE_ERRORS: frozenset[str] = frozenset({"no such frame", "no such window"})
"""Error codes that may mean the tab a command was about has closed."""

_CONTEXT_LOST: tuple[str, ...] = (
    "no such realm",
    "cannot find context",
    "execution context was destroyed",
    "inspected target navigated",
)
"""Message fragments browsers use when the document a script ran in was replaced under the call."""

_EXPLAINED: dict[str, str] = {
    "move target out of bounds": "the point is outside the page's viewport",
    "unable to set file input": "the element does not take files",
    "closed": "the browser session has ended",
}
"""Error codes whose own message would not help Claude decide what to do next."""

_UNRESOLVED = "its host name does not resolve: no such host is known here (check the address for a typo)"
_REFUSED = "the server refused the connection: nothing listens at that address and port"
_TIMED_OUT = "the server did not answer in time"
_UNREACHABLE = "the address cannot be reached from this machine"
_NET_ERRORS: dict[str, str] = {
    "net::ERR_NAME_NOT_RESOLVED": _UNRESOLVED,
    "net::ERR_NAME_RESOLUTION_FAILED": _UNRESOLVED,
    "NS_ERROR_UNKNOWN_HOST": _UNRESOLVED,
    "net::ERR_CONNECTION_REFUSED": _REFUSED,
    "NS_ERROR_CONNECTION_REFUSED": _REFUSED,
    "net::ERR_CONNECTION_TIMED_OUT": _TIMED_OUT,
    "net::ERR_TIMED_OUT": _TIMED_OUT,
    "NS_ERROR_NET_TIMEOUT": _TIMED_OUT,
    "NS_ERROR_PROXY_GATEWAY_TIMEOUT": _TIMED_OUT,
    "net::ERR_ADDRESS_UNREACHABLE": _UNREACHABLE,
    "net::ERR_INTERNET_DISCONNECTED": "this machine is offline",
    "NS_ERROR_OFFLINE": "this machine is offline",
    "NS_ERROR_PROXY_FORBIDDEN": "the egress proxy refused the connection: the session's URL policy does not allow it",
    "net::ERR_TUNNEL_CONNECTION_FAILED": "the egress proxy could not open a connection to the site",
}
"""Network error codes of Chromium (`net::`) and Firefox (`NS_`), in words."""

_NET_CODE = re.compile(r"\b(net::ERR_[A-Z_]+|NS_ERROR_[A-Z_]+)\b")


class ContextGone(BidiError):
    """A command about a tab failed because the tab closed: the error code said so and the browser's events confirmed
    it (a `no such frame` alone can be about a frame, or arrive before the tab's `contextDestroyed`)."""

    def __init__(self, method: str, handle: str) -> None:
        self.handle = handle
        super().__init__(method, "no such frame", f"the tab {handle} has closed")


def reason(exc: BidiError) -> str:
    """What went wrong, in the browser's words unless ours say it better."""
    explained = _EXPLAINED.get(exc.error)
    if explained:
        return explained
    code = _NET_CODE.search(exc.message or "")
    if code is not None and code.group(1) in _NET_ERRORS:
        return f"{_NET_ERRORS[code.group(1)]} [{code.group(1)}]"
    return exc.message or exc.error


def context_lost(exc: BidiError) -> bool:
    """Whether a script command failed because a navigation replaced the document it ran in."""
    message = exc.message.lower()
    return any(marker in message for marker in _CONTEXT_LOST)


@contextmanager
def bidi_errors(
    what: str,
    *,
    key: str | None = None,
    invalid: Collection[str] = (),
    failure: type[DriverError] = DriverError,
) -> Iterator[None]:
    """Run the block's BiDi commands and turn a `BidiError` that leaves it into the `DriverError` Claude reads.

    `what` completes "the browser could not ..." (`capture the page`). A closed tab becomes `TabGone`; with `key`, a
    `no such element` becomes `ElementGone(key)`; the error codes in `invalid` become `InvalidValue`; anything else
    becomes `failure` (`NavigationFailed` for a navigation). `DriverError`s raised in the block pass unchanged."""
    try:
        yield
    except ContextGone as exc:
        raise TabGone(exc.handle) from exc
    except BidiTimeout as exc:
        raise failure(f"the browser did not {what} within {exc.seconds:g} seconds") from exc
    except BidiError as exc:
        if key is not None and exc.error == "no such element":
            raise ElementGone(key) from exc
        message = f"the browser could not {what}: {reason(exc)}"
        if exc.error in invalid:
            raise InvalidValue(message) from exc
        raise failure(message) from exc
