"""browser-toolset: executes Claude's client-side browser tool (`browser_toolset_20260801`) on real browsers.

The flow: Claude's `tool_use` -> the SDK's pipeline (parse, url/file policy, confirm) -> `BrowserToolset`
(tab ids, refs, coordinate scaling, validation, text bounds) -> the `Driver` protocol -> one driver
(`browser_toolset.drivers.selenium`, `browser_toolset.drivers.mock`) -> typed results -> the SDK renders the
`tool_result`.
"""

from .batch import NOT_EXECUTED, browser_calls, run_batch
from .driver import Driver
from .errors import ActionError, DriverError, ElementGone, InvalidValue, NavigationFailed, NotSupported, TabGone
from .images import ImageLimits
from .registry import driver_names, load_driver
from .toolset import BrowserToolset
from .urls import URLPolicy

__all__ = [
    "NOT_EXECUTED",
    "ActionError",
    "BrowserToolset",
    "Driver",
    "DriverError",
    "ElementGone",
    "ImageLimits",
    "InvalidValue",
    "NavigationFailed",
    "NotSupported",
    "TabGone",
    "URLPolicy",
    "browser_calls",
    "driver_names",
    "load_driver",
    "run_batch",
]

__version__ = "0.1.0"
