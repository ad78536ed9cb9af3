"""The parts of the `anthropic` SDK (its browser toolset, and one flag of its clients) that are not its public API and
that browser-toolset relies on.

Every use of them in the package is in this module, so that an SDK release that changes them fails here, at import,
with a message naming what differs, instead of silently bypassing the executor's handling of a browser that cannot
be read. What we rely on, and why:

- `_toolset_run(self, context, name, input)` on `BetaAbstractBrowserToolset20260801` (a plain method) and on
  `BetaAsyncAbstractBrowserToolset20260801` (a coroutine function), run by the SDK's public `call` for each member
  call: the SDK's whole pipeline for one call (parsing, the URL and file policies, `confirm`, `execute`, then
  `_browser_state`, then rendering). The toolsets wrap it because no public hook spans a whole call: `execute`
  returns before `_browser_state` reads the browser, and a call after which the browser could not be read must fail
  with the browser's error rather than report a state nobody read.
- `_browser_state(self, context)`: the abstract hook the SDK calls after every call for the tabs and state changes.
  The SDK documents it for drivers, but its name is private.
- `_toolset_pipeline.pending_changes`, set on each instance by the SDK's constructor: the list of wire state changes
  (`BetaBrowserStateChangeParam` dicts) held for the next `browser_state` block. A call that fails because the
  browser could not be read drained changes into a report that was never sent; putting back the list held before
  the call sends them with the next report. The async toolset replaces `_toolset_pipeline` with a copy after every
  call, so it is looked up afresh on every read and write here.
- `_supports_message_threads` on the SDK's client classes (a `bool`): whether the client has the API's message
  threads, which the SDK's own threads check before anything is sent. The agent loop reads it to refuse a client
  without them (Bedrock, Vertex, ...) with a message that says to run without threads.

The toolsets subclass `SyncToolsetBase` / `AsyncToolsetBase` and implement `_screen_call`, `_around_call` and
`_report_state`, names of our own, instead of overriding the SDK's. tests/unit/test_sdk_surface.py pins all of this.
"""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager

import anthropic
from anthropic.tools.browser import (
    BetaAbstractBrowserToolset20260801,
    BetaAsyncAbstractBrowserToolset20260801,
    BetaBrowserState,
    BetaToolsetCallContext,
    BetaToolsetContent,
)
from anthropic.types.beta import BetaBrowserStateChangeParam

__all__ = [
    "AnySDKToolset",
    "AsyncToolsetBase",
    "SDKSurfaceError",
    "SyncToolsetBase",
    "check_sdk_surface",
    "held_changes",
    "pipeline_problems",
    "put_back_changes",
    "supports_message_threads",
    "surface_problems",
    "threads_flag_problems",
]

RUN = ("_toolset_run", ("self", "context", "name", "input"))
STATE = ("_browser_state", ("self", "context"))
THREADS_FLAG = "_supports_message_threads"
OUR_HOOKS = ("_around_call", "_report_state", "_screen_call")
"""The names our base classes add: an SDK that defined them itself would call ours, or we its."""

AnySDKToolset = BetaAbstractBrowserToolset20260801 | BetaAsyncAbstractBrowserToolset20260801


class SDKSurfaceError(RuntimeError):
    """The installed `anthropic` SDK differs from what browser-toolset relies on."""

    def __init__(self, problems: Sequence[str]) -> None:
        listed = "\n".join(f"- {problem}" for problem in problems)
        super().__init__(
            f"browser-toolset relies on private parts of the anthropic SDK that differ in the installed anthropic "
            f"{anthropic.__version__}:\n{listed}\nInstall the anthropic release browser-toolset supports."
        )
        self.problems = list(problems)


def _method_problems(base: type, name: str, parameters: tuple[str, ...], coroutine: bool) -> list[str]:
    method = getattr(base, name, None)
    if not callable(method):
        return [f"{base.__name__} has no method {name}"]
    try:
        found = tuple(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        return [f"{base.__name__}.{name} has no signature to inspect"]
    problems = []
    if found != parameters:
        problems.append(f"{base.__name__}.{name} takes ({', '.join(found)}), not ({', '.join(parameters)})")
    if inspect.iscoroutinefunction(method) != coroutine:
        kind = "a coroutine function" if coroutine else "a plain method"
        problems.append(f"{base.__name__}.{name} is no longer {kind}")
    return problems


def surface_problems(sync_base: type, async_base: type) -> list[str]:
    """What differs between the two SDK classes given and what this module relies on; empty when nothing does."""
    problems = []
    for base, coroutine in ((sync_base, False), (async_base, True)):
        for name, parameters in (RUN, STATE):
            problems += _method_problems(base, name, parameters, coroutine)
        if STATE[0] not in getattr(base, "__abstractmethods__", ()):
            problems.append(f"{base.__name__}.{STATE[0]} is no longer the abstract hook a toolset implements")
        # the SDK's public entry point must still route every call through the method the toolsets wrap
        code = getattr(getattr(base, "call", None), "__code__", None)
        if RUN[0] not in getattr(code, "co_names", ()):
            problems.append(f"{base.__name__}.call no longer runs {RUN[0]}")
        clashes = [name for name in OUR_HOOKS if hasattr(base, name)]
        problems += [f"{base.__name__} now defines {name}, a hook of browser-toolset's own" for name in clashes]
    return problems


def threads_flag_problems(client_class: type) -> list[str]:
    """What differs in `client_class`'s message-threads flag from what `supports_message_threads` reads."""
    flag = getattr(client_class, THREADS_FLAG, None)
    if not isinstance(flag, bool):
        return [f"{client_class.__name__}.{THREADS_FLAG} is {type(flag).__name__}, not a bool"]
    return []


def check_sdk_surface(
    sync_base: type = BetaAbstractBrowserToolset20260801,
    async_base: type = BetaAsyncAbstractBrowserToolset20260801,
    clients: Sequence[type] = (anthropic.Anthropic, anthropic.AsyncAnthropic),
) -> None:
    """Raise `SDKSurfaceError` naming every difference, if any."""
    problems = surface_problems(sync_base, async_base)
    problems += [problem for client_class in clients for problem in threads_flag_problems(client_class)]
    if problems:
        raise SDKSurfaceError(problems)


def supports_message_threads(client: anthropic.Anthropic | anthropic.AsyncAnthropic) -> bool:
    """Whether `client` has the API's message threads (the cloud platforms' clients have none)."""
    problems = threads_flag_problems(type(client))
    if problems:
        raise SDKSurfaceError(problems)
    return client._supports_message_threads


def pipeline_problems(toolset: object) -> list[str]:
    """What differs in `toolset`'s per-instance pipeline state from what `held_changes` reads and writes."""
    if not hasattr(toolset, "_toolset_pipeline"):
        return [f"{type(toolset).__name__} instances have no _toolset_pipeline"]
    pending = getattr(toolset._toolset_pipeline, "pending_changes", None)
    if not isinstance(pending, list):
        return [f"_toolset_pipeline.pending_changes is {type(pending).__name__}, not a list of state changes"]
    return []


def held_changes(toolset: AnySDKToolset) -> list[BetaBrowserStateChangeParam]:
    """A copy of the state changes `toolset`'s pipeline holds for its next `browser_state` block."""
    problems = pipeline_problems(toolset)
    if problems:
        raise SDKSurfaceError(problems)
    return list(toolset._toolset_pipeline.pending_changes)


def put_back_changes(toolset: AnySDKToolset, changes: Sequence[BetaBrowserStateChangeParam]) -> None:
    """Make `changes` what `toolset`'s pipeline holds for its next `browser_state` block."""
    problems = pipeline_problems(toolset)
    if problems:
        raise SDKSurfaceError(problems)
    toolset._toolset_pipeline.pending_changes = list(changes)


class SyncToolsetBase(BetaAbstractBrowserToolset20260801):
    """The SDK's synchronous browser toolset with its private hooks under names of our own."""

    @abstractmethod
    def _screen_call(self, name: str, input: Mapping[str, object]) -> None:
        """Called with each member call's raw input before the SDK's pipeline reads any of it: raise `ToolError` to
        refuse the call there (an input over its limits, a member the driver cannot serve)."""

    @abstractmethod
    def _around_call(self) -> AbstractContextManager[None]:
        """Entered around each member call's whole pipeline, `_report_state` included."""

    @abstractmethod
    def _report_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        """The browser after a call: what the SDK renders as the `browser_state` block."""

    def _toolset_run(
        self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]
    ) -> BetaToolsetContent:
        self._screen_call(name, input)
        with self._around_call():
            return super()._toolset_run(context, name, input)

    def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        return self._report_state(context)


class AsyncToolsetBase(BetaAsyncAbstractBrowserToolset20260801):
    """The SDK's asynchronous browser toolset with its private hooks under names of our own."""

    @abstractmethod
    def _screen_call(self, name: str, input: Mapping[str, object]) -> None:
        """Called with each member call's raw input before the SDK's pipeline reads any of it: raise `ToolError` to
        refuse the call there (an input over its limits, a member the driver cannot serve)."""

    @abstractmethod
    def _around_call(self) -> AbstractContextManager[None]:
        """Entered around each member call's whole pipeline, `_report_state` included."""

    @abstractmethod
    async def _report_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        """The browser after a call: what the SDK renders as the `browser_state` block."""

    async def _toolset_run(
        self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]
    ) -> BetaToolsetContent:
        self._screen_call(name, input)
        with self._around_call():
            return await super()._toolset_run(context, name, input)

    async def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        return await self._report_state(context)


# at import: an SDK that differs fails here, before any call could bypass the wrapping above
check_sdk_surface()
