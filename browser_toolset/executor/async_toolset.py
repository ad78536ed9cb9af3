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

Starting and closing a browser block for a second or more, so neither happens on the event loop: `open` starts the
driver (and reads its first tabs) on the worker thread, and `close` closes it there. A start whose awaiting task is
cancelled finishes on the worker, which then closes what it started.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any, TypeAlias, TypeVar, cast

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
from ..safety.secrets import Secrets
from ..safety.urls import URLPolicy
from .availability import member_configs, refuse_unavailable, unavailable_members
from .images import ImageLimits
from .limits import check_input
from .options import DocumentResolver, ToolsetOptions
from .sdk_surface import AsyncToolsetBase
from .toolset import BrowserToolset, failing_on_unread_state

__all__ = ["AsyncBrowserToolset"]

_T = TypeVar("_T")
_Toolset = TypeVar("_Toolset", bound="AsyncBrowserToolset")

OptionsFor: TypeAlias = ToolsetOptions | Callable[[Driver], ToolsetOptions] | None
"""What `AsyncBrowserToolset.open` takes as options: a value, a function of the started driver, or the defaults."""


def _new_worker() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser-toolset")


async def _wait_for(future: Future[_T]) -> _T:
    """Wait for `future` without blocking the event loop. Cancelling the wait cancels a job still queued; a running
    one finishes on its thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        # Another anyio backend (trio): wait on a helper thread, which gives up waiting on cancellation.
        try:
            return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except BaseException:
            future.cancel()
            raise
    return await asyncio.wrap_future(future)


def _start(start: Callable[[], Driver], options: OptionsFor) -> tuple[BrowserToolset, ToolsetOptions]:
    """On the worker: the driver `start` returns, the options for it, and the executor over it (which reads its
    tabs). The driver is closed if anything after its start fails."""
    driver = start()
    try:
        chosen = options(driver) if callable(options) else options or ToolsetOptions()
        return BrowserToolset.from_options(driver, chosen.for_executor()), chosen
    except BaseException:
        driver.close()
        raise


def _close_started(started: Future[tuple[BrowserToolset, ToolsetOptions]]) -> None:
    """On the worker, after a start nobody waited for: close the browser it started, if it did."""
    if started.cancelled() or started.exception() is not None:
        return
    started.result()[0].driver.close()


class AsyncBrowserToolset(AsyncToolsetBase):
    """Executes Claude's `browser_toolset_20260801` calls on `driver` for `AsyncAnthropic`, e.g. in
    `AsyncAnthropic().beta.messages.tool_runner(tools=[toolset], ...)`.

    Takes the options of `BrowserToolset`, the same keywords in the same order (`options` holds them). `confirm` and
    `url_policy` may be plain or async callables here, as the SDK's async base allows. `sync` is the `BrowserToolset`
    doing the work; use it only through this object while the toolset is open, since its methods run on the worker
    thread. `close()` (or `async with`) waits for calls in flight, closes the browser on the worker thread and stops
    the thread.

    The constructor takes a started driver and reads its tabs on the calling thread; in a running event loop,
    `await AsyncBrowserToolset.open(start)` starts the driver and reads them on the worker thread instead."""

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
        secrets: Secrets | None = None,
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
                secrets=secrets,
            ),
        )

    @classmethod
    def from_options(cls: type[_Toolset], driver: Driver, options: ToolsetOptions) -> _Toolset:
        """A toolset on `driver` with `options`, as the constructor builds it from its keywords (a subclass's own
        `__init__` does not run)."""
        toolset = cls.__new__(cls)
        toolset._open(driver, options)
        return toolset

    @classmethod
    async def open(cls: type[_Toolset], start: Callable[[], Driver], options: OptionsFor = None) -> _Toolset:
        """A toolset on the driver `start()` returns (such as `lambda: SeleniumDriver.from_options({...})`), with
        `options`, or the options a function of the started driver returns (for settings that depend on it, such
        as its download folder). The driver starts, and the executor reads its tabs, on the worker thread, so the
        event loop goes on meanwhile. A start that fails or whose awaiting task is cancelled leaves no browser
        behind."""
        worker = _new_worker()
        started = worker.submit(_start, start, options)
        try:
            sync, chosen = await _wait_for(started)
        except BaseException:
            worker.submit(_close_started, started)
            worker.shutdown(wait=False)
            raise
        toolset = cls.__new__(cls)
        try:
            toolset._adopt(sync, chosen, worker)
        except BaseException:
            worker.submit(sync.driver.close)
            worker.shutdown(wait=False)
            raise
        return toolset

    def _open(self, driver: Driver, options: ToolsetOptions) -> None:
        self._adopt(BrowserToolset.from_options(driver, options.for_executor()), options, _new_worker())

    def _adopt(self, sync: BrowserToolset, options: ToolsetOptions, worker: ThreadPoolExecutor) -> None:
        """Become the toolset over `sync`, whose browser work runs on `worker`."""
        configs, self._unavailable = member_configs(options.wire_configs, unavailable_members(sync.driver), sync.driver)
        super().__init__(
            configs=configs,
            confirm=options.confirm,
            url_policy=NOT_GIVEN if options.url_policy is None else options.url_policy,
            file_policy=options.file_policy,
            tool_configs=options.tool_configs,
        )
        self.options = options
        # The SDK options above gate every call before it reaches `sync`, whose own pipeline is never entered.
        self.sync = sync
        self._worker = worker
        self._worker_stopped = False

    @property
    def driver(self) -> Driver:
        return self.sync.driver

    async def _on_worker(self, function: Callable[..., _T], *args: Any) -> _T:
        """Run `function(*args)` on the worker thread and wait for it without blocking the event loop."""
        return await _wait_for(self._worker.submit(function, *args))

    async def execute(
        self, context: BetaToolsetCallContext, name: BetaBrowserMemberName, input: BetaBrowserMemberInput
    ) -> BetaBrowserMemberResult:
        return cast("BetaBrowserMemberResult", await self._on_worker(self.sync.execute, context, name, input))

    async def _report_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        return await self._on_worker(self.sync._report_state, context)

    def _screen_call(self, name: str, input: Mapping[str, object]) -> None:
        # as in the sync toolset, on the loop: it reads the input, never the browser
        refuse_unavailable(name, self._unavailable)
        check_input(name, input)

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
