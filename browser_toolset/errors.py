"""Exceptions, on both sides of the `Driver` seam.

`ActionError` is what the executor raises for a call Claude got wrong or that could not be done: it is a
`ToolError`, so the SDK sends its text to Claude verbatim as an `is_error` result. Its message always starts with
`Error: ` and says what to do instead.

`DriverError` and its subclasses are what drivers raise. They carry a message Claude can act on but no
contract wording: the executor turns each into an `ActionError` (a missing element into the contract's stale-ref
text), so a driver never has to know how results are phrased.
"""

from __future__ import annotations

from anthropic.lib.tools import ToolError

__all__ = [
    "ActionError",
    "DriverError",
    "ElementGone",
    "InvalidValue",
    "NavigationFailed",
    "NotSupported",
    "StaleRefError",
    "TabGone",
]


class ActionError(ToolError):
    """An error result Claude reads. The message is prefixed with `Error: ` unless it already is."""

    def __init__(self, message: str) -> None:
        self.message = message if message.startswith("Error:") else f"Error: {message}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class StaleRefError(ActionError):
    """The contract's text for a ref that no longer names an element of the tab's current document."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(f"{ref} is stale or not found on the current page. Re-read the page to get fresh references.")


class DriverError(Exception):
    """A driver could not do what it was asked. The message is read by Claude (after `Error: `), so say what
    happened and, where there is one, what would work."""


class ElementGone(DriverError):
    """The element `key` names is no longer in the tab's document (removed, or the document was replaced)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"element {key} is no longer in the document")


class TabGone(DriverError):
    """The tab `handle` names has closed."""

    def __init__(self, handle: str) -> None:
        self.handle = handle
        super().__init__(f"tab {handle} is no longer open")


class NotSupported(DriverError):
    """This driver cannot do this at all (not: failed this time)."""


class InvalidValue(DriverError):
    """`set_value` was given a value the element cannot take (an option that does not exist, text for a checkbox)."""


class NavigationFailed(DriverError):
    """A navigation did not complete: a DNS failure, a refused connection, a timeout."""
