"""browser-toolset: executes Claude's client-side browser tool (`browser_toolset_20260801`) on real browsers.

The flow: Claude's `tool_use` -> the SDK's pipeline (parse, url/file policy, confirm) -> `BrowserToolset`
(tab ids, refs, coordinate scaling, validation, text bounds) -> the `Driver` protocol -> one driver
(`browser_toolset.drivers.selenium`, `browser_toolset.drivers.mock`) -> typed results -> the SDK renders the
`tool_result`.

The names below are imported on first use, not with the package: a third-party driver imports
`browser_toolset.driver` (the protocol, its value types, errors and key names) without loading the executor or
the anthropic SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent.events import RunResult
    from .agent.run import arun_task, run_task
    from .control import BrowserControl, BrowserControlError, TabIndexError, TabSummary
    from .driver import Driver
    from .driver_errors import DriverError, ElementGone, InvalidValue, NavigationFailed, NotSupported, TabGone
    from .executor.annotate import AnnotationStyle
    from .executor.async_toolset import AsyncBrowserToolset
    from .executor.batch import NOT_EXECUTED, browser_calls, run_batch
    from .executor.document_store import Document, DocumentResolver, FolderDocuments
    from .executor.errors import ActionError, StaleRefError
    from .executor.images import ImageLimits
    from .executor.options import ToolsetOptions
    from .executor.toolset import BrowserToolset
    from .registry import driver_names, load_driver
    from .safety.secrets import Secret, Secrets
    from .safety.urls import URLPolicy
    from .testing.fake_api import FakeMessagesAPI

_HOMES: dict[str, str] = {
    "AnnotationStyle": "executor.annotate",
    "AsyncBrowserToolset": "executor.async_toolset",
    "FakeMessagesAPI": "testing.fake_api",
    "RunResult": "agent.events",
    "run_task": "agent.run",
    "arun_task": "agent.run",
    "BrowserControl": "control",
    "BrowserControlError": "control",
    "TabIndexError": "control",
    "TabSummary": "control",
    "NOT_EXECUTED": "executor.batch",
    "browser_calls": "executor.batch",
    "run_batch": "executor.batch",
    "Driver": "driver",
    "DriverError": "driver_errors",
    "ElementGone": "driver_errors",
    "InvalidValue": "driver_errors",
    "NavigationFailed": "driver_errors",
    "NotSupported": "driver_errors",
    "TabGone": "driver_errors",
    "ActionError": "executor.errors",
    "Document": "executor.document_store",
    "DocumentResolver": "executor.document_store",
    "FolderDocuments": "executor.document_store",
    "StaleRefError": "executor.errors",
    "ImageLimits": "executor.images",
    "ToolsetOptions": "executor.options",
    "driver_names": "registry",
    "load_driver": "registry",
    "BrowserToolset": "executor.toolset",
    "URLPolicy": "safety.urls",
    "Secret": "safety.secrets",
    "Secrets": "safety.secrets",
}

__all__ = [
    "NOT_EXECUTED",
    "ActionError",
    "AnnotationStyle",
    "AsyncBrowserToolset",
    "BrowserControl",
    "BrowserControlError",
    "BrowserToolset",
    "Document",
    "DocumentResolver",
    "Driver",
    "DriverError",
    "ElementGone",
    "FakeMessagesAPI",
    "FolderDocuments",
    "ImageLimits",
    "InvalidValue",
    "NavigationFailed",
    "NotSupported",
    "RunResult",
    "Secret",
    "Secrets",
    "StaleRefError",
    "TabGone",
    "TabIndexError",
    "TabSummary",
    "ToolsetOptions",
    "URLPolicy",
    "arun_task",
    "browser_calls",
    "driver_names",
    "load_driver",
    "run_batch",
    "run_task",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'browser_toolset' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
