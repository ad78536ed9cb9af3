"""The exceptions a driver raises: the protocol side of the `Driver` seam.

They carry a message Claude can act on but no contract wording: the executor turns each into an error result (a
missing element into the contract's stale-ref text), so a driver never has to know how results are phrased. This
module imports nothing, so a third-party driver can raise these without importing the executor or the anthropic
SDK.
"""

from __future__ import annotations

__all__ = ["DriverError", "ElementGone", "InvalidValue", "NavigationFailed", "NotSupported", "TabGone"]


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
