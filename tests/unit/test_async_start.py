"""Issue 16, item 9: async that never blocks. `AsyncBrowserToolset.open` and `open_async_toolset` start the driver on
the toolset's worker thread and `close` closes it there, so the event loop keeps its pace while a browser starts
and stops (it once stalled for 0.7-1.3 s).

`LoopStallMeter` measures the loop's longest stall with a ticker task recording the gaps between its ticks. A gap
also holds time the loop spent idle in its selector, including the wait for a CPU on a busy machine; that time
is subtracted, so that what remains is time the loop spent running code: what a blocking call on it costs.

One thing the meter cannot leave out: the loop's thread waiting for the GIL while the worker thread holds it and
the machine has no processor free for the worker (three test workers on two cores). That noise can pass 50 ms
now and then; a blocking start or close stalls the loop every time, for the whole start. So a scenario counts as
stalling when it stalls in each of `ATTEMPTS` runs, and its fastest run is the one checked."""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import pytest
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset.config import toolsets
from browser_toolset.config.settings import Settings
from browser_toolset.driver import Driver
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.drivers.mock.elements import button
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.executor.options import ToolsetOptions

STALL_MAX = 0.050
"""The longest the event loop may go without running its other tasks: the bound the issue sets."""
TICK = 0.005
SLOW = 0.6
"""Seconds the slow mock takes to start and to close: what a blocking call would stall the loop for."""
ATTEMPTS = 3
T = TypeVar("T")

SITE = Site("https://slow.test/", start="/").page("/", "Slow", button("Go"))


def _run_delay() -> float:
    """Seconds this thread has spent ready to run but waiting for a processor (Linux's schedstat; 0 elsewhere). On a
    loaded machine that wait is the machine's doing, not the loop's: the meter leaves it out. A call that blocks the
    loop (a sleep, a socket read) is a wait of another kind, and still counts."""
    try:
        with open("/proc/thread-self/schedstat") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class LoopStallMeter:
    """The longest time the running loop spent running code between two ticks of a ticker task (time in `select`,
    and time waiting for a processor, left out)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_gap = 0.0
        self.ticks = 0
        self._idle = 0.0

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[LoopStallMeter]:
        loop = asyncio.get_running_loop()
        selector: Any = loop._selector  # type: ignore[attr-defined]
        select = selector.select

        def timed_select(timeout: float | None = None) -> Any:
            started = time.perf_counter()
            try:
                return select(timeout)
            finally:
                self._idle += time.perf_counter() - started

        selector.select = timed_select
        stop = asyncio.Event()

        async def ticker() -> None:
            last, delayed = time.perf_counter(), _run_delay()
            self._idle = 0.0
            while not stop.is_set():
                await asyncio.sleep(TICK)
                now, delay = time.perf_counter(), _run_delay()
                gap = now - last
                self.longest_gap = max(self.longest_gap, gap)
                self.longest = max(self.longest, gap - self._idle - (delay - delayed))
                self.ticks += 1
                last, delayed, self._idle = now, delay, 0.0

        task = asyncio.create_task(ticker())
        await asyncio.sleep(TICK * 2)
        try:
            yield self
        finally:
            await asyncio.sleep(TICK * 2)
            stop.set()
            await task
            del selector.select


def calmest(scenario: Callable[[], tuple[LoopStallMeter, T]]) -> tuple[LoopStallMeter, T]:
    """The run of `scenario` (which returns its meter first) with the shortest stall: the first under `STALL_MAX`,
    else the shortest of `ATTEMPTS`."""
    runs = []
    for _ in range(ATTEMPTS):
        run = scenario()
        if run[0].longest < STALL_MAX:
            return run
        runs.append(run)
    return min(runs, key=lambda run: run[0].longest)


def test_the_meter_sees_a_blocking_call() -> None:
    """The meter itself: a loop blocked for SLOW seconds reads as a stall of about that."""

    async def main() -> LoopStallMeter:
        async with LoopStallMeter().watching() as meter:
            time.sleep(SLOW)
        return meter

    meter = asyncio.run(main())
    assert meter.longest >= SLOW * 0.9


class SlowMock(MockDriver):
    """A mock that takes `SLOW` seconds to close, noting the thread it closed on."""

    closed_on: int | None = None

    def close(self) -> None:
        time.sleep(SLOW)
        self.closed_on = threading.get_ident()
        super().close()


def _split(run: tuple[LoopStallMeter, SlowMock, Any]) -> tuple[LoopStallMeter, tuple[SlowMock, Any]]:
    return run[0], run[1:]


def slow_start() -> SlowMock:
    time.sleep(SLOW)
    return SlowMock(copy.deepcopy(SITE))


def tool_use(name: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(id=f"toolu_{name}", type="tool_use", name=name, input=input, toolset_name="browser")


def test_16_9_opening_and_closing_a_slow_driver_never_stalls_the_event_loop() -> None:
    async def main() -> tuple[LoopStallMeter, SlowMock, Any]:
        async with LoopStallMeter().watching() as meter:
            toolset = await AsyncBrowserToolset.open(slow_start, ToolsetOptions())
            driver = toolset.driver
            assert isinstance(driver, SlowMock)
            result = await toolset.tool_result(tool_use("find", query="go button"))
            await toolset.close()
        return meter, driver, result

    meter, (driver, result) = calmest(lambda: _split(asyncio.run(main())))
    assert 'button "Go"' in str(result["content"])
    assert driver.closed_on is not None and driver.closed_on != threading.get_ident()
    assert meter.ticks > 2 * SLOW / TICK / 4, "the ticker ran while the driver started and closed"
    assert meter.longest < STALL_MAX, f"the loop stalled for {meter.longest * 1000:.0f} ms"


def test_16_9_open_async_toolset_starts_the_configured_driver_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started_on: list[int] = []

    def start_driver(settings: Settings) -> Driver:
        started_on.append(threading.get_ident())
        return slow_start()

    monkeypatch.setattr(toolsets, "start_driver", start_driver)

    async def main() -> tuple[LoopStallMeter, Any]:
        async with LoopStallMeter().watching() as meter:
            toolset = await toolsets.open_async_toolset(Settings())
            try:
                result = await toolset.tool_result(tool_use("navigate", url="https://slow.test/"))
            finally:
                await toolset.close()
        return meter, result

    meter, result = calmest(lambda: asyncio.run(main()))
    assert started_on and started_on[0] != threading.get_ident()
    assert "Navigated to https://slow.test/" in str(result["content"])
    assert meter.longest < STALL_MAX, f"the loop stalled for {meter.longest * 1000:.0f} ms"


def test_16_9_a_start_whose_waiter_is_cancelled_closes_what_it_started() -> None:
    started: list[SlowMock] = []

    def start() -> SlowMock:
        driver = slow_start()
        started.append(driver)
        return driver

    async def main() -> None:
        opening = asyncio.create_task(AsyncBrowserToolset.open(start))
        await asyncio.sleep(SLOW / 3)
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening

    asyncio.run(main())
    deadline = time.monotonic() + 10 * SLOW
    while not (started and started[0].closed_on is not None) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started and started[0].closed_on is not None, "the driver started after the cancel was not closed"


def test_16_9_a_start_that_fails_after_the_driver_started_closes_it() -> None:
    """Options that cannot be applied (javascript_exec enabled without a confirm hook) close the started driver."""
    started: list[SlowMock] = []

    def start() -> SlowMock:
        driver = SlowMock(copy.deepcopy(SITE))
        started.append(driver)
        return driver

    def options(driver: Driver) -> ToolsetOptions:
        return ToolsetOptions(configs={"javascript_exec": {"enabled": True}})

    async def main() -> None:
        await AsyncBrowserToolset.open(start, options)

    with pytest.raises(Exception, match="requires a confirm callable"):
        asyncio.run(main())
    deadline = time.monotonic() + 10 * SLOW
    while started[0].closed_on is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started[0].closed_on is not None
