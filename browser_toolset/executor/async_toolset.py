"""`AsyncBrowserToolset`: the executor for `AsyncAnthropic`, without a second copy of it.

Design: the SDK's async base (`BetaAsyncAbstractBrowserToolset20260801`) runs its pipeline on the event loop (input
parsing, the URL and file policies, `confirm`, which may be async here, rendering, `browser_state` bookkeeping),
and only the two hooks that touch the browser, `execute` and the state report, are handed to a `BrowserToolset`,
whose methods are the one implementation of every member. Those hooks block on the browser (Selenium's HTTP and
BiDi round trips, `wait`'s sleep), so they run on one dedicated worker thread, a single-thread executor, and the
event loop only awaits them.

One thread rather than a pool guarded by a lock, because the executor keeps the order even when a caller gives up:
a call whose awaiting task is cancelled cannot be stopped half-way through a browser action, so it finishes on the
worker, and the next call waits behind it instead of running beside it (a lock released on cancellation would let
the two overlap on the same driver). A call still queued when its task is cancelled never runs. The SDK's async
base already lets one member call through at a time; the worker thread is what keeps the driver single-threaded.

Both toolsets take the same keywords and keep them in one `ToolsetOptions`, which this one hands on to its
`BrowserToolset` without the SDK's hooks (`ToolsetOptions.for_executor`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any, TypeVar, cast

import anyio.to_thread
from anthropic import NOT_GIVEN
from anthropic.tools.browser import (
    BetaAsyncConfirmCallable,
    BetaAsyncURLPolicy,
    BetaBrowserMemberResult,
    BetaBrowserState,
    BetaFilePolicy,
    BetaToolConfigs,
    BetaToolsetCallContext,
)
from anthropic.types.beta import BetaBrowserMemberInput, BetaBrowserMemberName, BetaBrowserToolsetConfigsParam

from ..driver import Driver
from ..safety.urls import URLPolicy
from .images import ImageLimits
from .options import DocumentResolver, ToolsetOptions
from .sdk_surface import AsyncToolsetBase
from .toolset import BrowserToolset, failing_on_unread_state

__all__ = ["AsyncBrowserToolset"]

_T = TypeVar("_T")
_Toolset = TypeVar("_Toolset", bound="AsyncBrowserToolset")


class AsyncBrowserToolset(AsyncToolsetBase):
    """Executes Claude's `browser_toolset_20260801` calls on `driver` for `AsyncAnthropic`, e.g. in
    `AsyncAnthropic().beta.messages.tool_runner(tools=[toolset], ...)`.

    Takes the options of `BrowserToolset`, the same keywords in the same order (`options` holds them). `confirm` and
    `url_policy` may be plain or async callables here, as the SDK's async base allows. `sync` is the `BrowserToolset`
    doing the work; use it only through this object while the toolset is open, since its methods run on the worker
    thread. `close()` (or `async with`) waits for calls in flight, closes the browser on the worker thread and stops
    the thread."""

    def __init__(
        self,
        driver: Driver,
        *,
        navigation: URLPolicy | None = None,
        image_limits: ImageLimits | None = None,
        documents: DocumentResolver | None = None,
        sleep: Callable[[float], None] = time.sleep,
        configs: BetaBrowserToolsetConfigsParam | Mapping[str, Mapping[str, bool]] | None = None,
        confirm: BetaAsyncConfirmCallable | None = None,
        url_policy: BetaAsyncURLPolicy | None = None,
        file_policy: BetaFilePolicy | None = None,
        tool_configs: BetaToolConfigs | None = None,
        annotate_screenshots: bool = False,
    ) -> None:
        self._open(
            driver,
            ToolsetOptions(
                navigation=navigation,
                image_limits=image_limits,
                documents=documents,
                sleep=sleep,
                configs=configs,
                confirm=confirm,
                url_policy=url_policy,
                file_policy=file_policy,
                tool_configs=tool_configs,
                annotate_screenshots=annotate_screenshots,
            ),
        )

    @classmethod
    def from_options(cls: type[_Toolset], driver: Driver, options: ToolsetOptions) -> _Toolset:
        """A toolset on `driver` with `options`, as the constructor builds it from its keywords (a subclass's own
        `__init__` does not run)."""
        toolset = cls.__new__(cls)
        toolset._open(driver, options)
        return toolset

    def _open(self, driver: Driver, options: ToolsetOptions) -> None:
        super().__init__(
            configs=options.wire_configs,
            confirm=options.confirm,
            url_policy=NOT_GIVEN if options.url_policy is None else options.url_policy,
            file_policy=options.file_policy,
            tool_configs=options.tool_configs,
        )
        self.options = options
        # The SDK options above gate every call before it reaches `sync`, whose own pipeline is never entered.
        self.sync = BrowserToolset.from_options(driver, options.for_executor())
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser-toolset")
        self._worker_stopped = False

    @property
    def driver(self) -> Driver:
        return self.sync.driver

    async def _on_worker(self, function: Callable[..., _T], *args: Any) -> _T:
        """Run `function(*args)` on the worker thread and wait for it without blocking the event loop."""
        future: Future[_T] = self._worker.submit(function, *args)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # Another anyio backend (trio): wait on a helper thread, which gives up waiting on cancellation.
            try:
                return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
            except BaseException:
                future.cancel()
                raise
        # Cancelling the wrapper cancels a call still queued; a running one finishes on the worker.
        return await asyncio.wrap_future(future)

    async def execute(
        self, context: BetaToolsetCallContext, name: BetaBrowserMemberName, input: BetaBrowserMemberInput
    ) -> BetaBrowserMemberResult:
        return cast("BetaBrowserMemberResult", await self._on_worker(self.sync.execute, context, name, input))

    async def _report_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        return await self._on_worker(self.sync._report_state, context)

    def _around_call(self) -> AbstractContextManager[None]:
        # as in the sync toolset: a browser that cannot be read after the call fails the call
        return failing_on_unread_state(self.sync, self)

    async def close(self) -> None:
        await super().close()
        if self._worker_stopped:
            return
        self._worker_stopped = True
        try:
            await self._on_worker(self.sync.close)
        finally:
            self._worker.shutdown(wait=False)
