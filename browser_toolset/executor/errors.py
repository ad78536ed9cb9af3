"""The exceptions the executor raises for Claude.

`ActionError` is what the executor raises for a call Claude got wrong or that could not be done: it is a
`ToolError`, so the SDK sends its text to Claude verbatim as an `is_error` result. Its message always starts with
`Error: ` and says what to do instead. Drivers raise the `DriverError` family of `browser_toolset.driver_errors`
instead, which the executor turns into these.
"""

from __future__ import annotations

from anthropic.lib.tools import ToolError

__all__ = ["ActionError", "StaleRefError"]


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
