"""`AsyncBrowserToolset`: the same executor under `AsyncAnthropic`, with the browser work on one worker thread."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest
import trio
from anthropic.tools.browser import BetaConfirmContext
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset
from browser_toolset.agent.events import CallEvent, Event
from browser_toolset.agent.run import arun_task, run_task
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.testing.fake_api import FakeMessagesAPI, RecordedRequest
from browser_toolset.values import Capture, TabInfo

SCRIPTS = Path(__file__).parent.parent / "scripts"
MODEL = "claude-opus-5-5"


class ThreadRecordingDriver(MockDriver):
    """The mock driver, noting which thread each call ran on and when each capture started."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.threads: list[int] = []
        self.captured_at: list[float] = []

    def list_tabs(self) -> list[TabInfo]:
        self.threads.append(threading.get_ident())
        return super().list_tabs()

    def capture(self, handle: str) -> Capture:
        self.captured_at.append(time.monotonic())
        self.threads.append(threading.get_ident())
        return super().capture(handle)


def shop_driver() -> ThreadRecordingDriver:
    return ThreadRecordingDriver(Site.from_json(SCRIPTS / "shop_site.json"), sleep=lambda seconds: None)


def tool_use(name: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(id=f"toolu_{name}", type="tool_use", name=name, input=input, toolset_name="browser")


def sent(requests: list[RecordedRequest]) -> list[Any]:
    return [request.body["messages"] for request in requests]


# --- In the SDK's async tool runner --------------------------------------------------------------------------------


def test_the_async_tool_runner_sends_what_the_sync_one_sends() -> None:
    async def run_async() -> tuple[list[Any], list[RecordedRequest]]:
        with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
            client = anthropic.AsyncAnthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
            async with AsyncBrowserToolset(shop_driver()) as toolset:
                runner = client.beta.messages.tool_runner(
                    model=MODEL, max_tokens=1024, tools=[toolset], messages=[{"role": "user", "content": "Go."}]
                )
                stops = [reply.stop_reason async for reply in runner]
            return stops, api.requests

    stops, async_requests = asyncio.run(run_async())

    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api, BrowserToolset(shop_driver()) as toolset:
        client = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
        runner = client.beta.messages.tool_runner(
            model=MODEL, max_tokens=1024, tools=[toolset], messages=[{"role": "user", "content": "Go."}]
        )
        assert [reply.stop_reason for reply in runner] == stops
        sync_requests = api.requests

    assert stops[-1] == "end_turn"
    assert [(r.status, r.thread) for r in async_requests] == [(200, "create")] + [(200, "continue")] * 6
    assert sent(async_requests) == sent(sync_requests)


def test_arun_task_runs_the_same_session_as_run_task() -> None:
    def session(events: list[Event]) -> Callable[[FakeMessagesAPI], Any]:
        async def run(api: FakeMessagesAPI) -> Any:
            client = anthropic.AsyncAnthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
            return await arun_task(AsyncBrowserToolset(driver), "Go.", client=client, on_event=events.append)

        return run

    driver = shop_driver()
    async_events: list[Event] = []
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        async_result = asyncio.run(session(async_events)(api))
        async_requests = api.requests
    assert driver.calls_to("close")

    sync_events: list[Event] = []
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
        sync_result = run_task(BrowserToolset(shop_driver()), "Go.", client=client, on_event=sync_events.append)
        sync_requests = api.requests

    def outline(events: list[Event]) -> list[tuple[int, str, str, str]]:
        return [(e.turn, e.member, e.target, e.outcome) for e in events if isinstance(e, CallEvent)]

    assert async_result.stop_reason == "end_turn"
    assert outline(async_events) == outline(sync_events)
    assert (async_result.turns, async_result.calls, async_result.errors) == (7, 16, 1)
    assert async_result.messages == sync_result.messages
    assert sent(async_requests) == sent(sync_requests)


# --- The worker thread ---------------------------------------------------------------------------------------------


def test_browser_work_runs_on_one_worker_thread_while_the_event_loop_keeps_running() -> None:
    driver = shop_driver()
    slept_on: list[int] = []

    ticked = threading.Event()
    waited: list[bool] = []

    def slow_sleep(seconds: float) -> None:
        # The browser work holds the worker until the event loop has ticked ten times: a loop blocked by it
        # would never tick, and the wait would give up.
        slept_on.append(threading.get_ident())
        waited.append(ticked.wait(60))

    async def main() -> tuple[int, list[dict[str, Any]]]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1
                if ticks == 10:
                    ticked.set()

        async with AsyncBrowserToolset(driver, sleep=slow_sleep) as toolset:
            driver.threads.clear()
            ticker = asyncio.create_task(tick())
            results = [
                dict(await toolset.tool_result(tool_use("navigate", url="https://shop.test/"))),
                dict(await toolset.tool_result(tool_use("wait", duration=0.4))),
                dict(await toolset.tool_result(tool_use("screenshot"))),
            ]
            ticker.cancel()
        return ticks, results

    ticks, results = asyncio.run(main())

    assert not any(result.get("is_error") for result in results)
    assert waited == [True]  # the loop ticked while the wait held the worker
    assert ticks >= 10
    workers = {*driver.threads, *slept_on}
    assert len(workers) == 1
    assert threading.get_ident() not in workers


def test_a_cancelled_call_finishes_before_the_next_call_starts() -> None:
    driver = shop_driver()
    slept: list[tuple[float, float]] = []
    # The wait's sleep starts, then holds until the test lets it go: the cancel surely lands on a running call,
    # and the next call is surely asked for while that call still runs.
    started, release = threading.Event(), threading.Event()

    def held_sleep(seconds: float) -> None:
        began = time.monotonic()
        started.set()
        assert release.wait(60), "the test never let the sleep go"
        slept.append((began, time.monotonic()))

    async def main() -> dict[str, Any]:
        async with AsyncBrowserToolset(driver, sleep=held_sleep) as toolset:
            waiting = asyncio.create_task(toolset.tool_result(tool_use("wait", duration=0.3)))
            assert await asyncio.to_thread(started.wait, 60), "the wait never started"
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            after = asyncio.create_task(toolset.tool_result(tool_use("screenshot")))
            await asyncio.sleep(0)  # the screenshot is now asked for, behind the wait still running
            assert not after.done()
            release.set()
            return dict(await after)

    result = asyncio.run(main())

    assert "is_error" not in result
    ((_, wait_ended),) = slept
    assert driver.captured_at[-1] >= wait_ended


def test_closing_closes_the_browser_and_stops_the_worker() -> None:
    driver = shop_driver()

    async def main() -> AsyncBrowserToolset:
        async with AsyncBrowserToolset(driver) as toolset:
            await toolset.tool_result(tool_use("screenshot"))
        await toolset.close()  # a second close does nothing
        return toolset

    toolset = asyncio.run(main())
    assert len(driver.calls_to("close")) == 1
    assert driver.threads[-1] != threading.get_ident()
    deadline = time.monotonic() + 30
    while any(thread.name.startswith("browser-toolset") for thread in threading.enumerate()):
        assert time.monotonic() < deadline, "the worker thread is still running"
        time.sleep(0.01)
    assert toolset.driver is driver


def test_a_browser_that_cannot_be_read_after_a_call_fails_the_call() -> None:
    """As in the sync toolset: no success is reported for a state nobody read, and the next call recovers."""
    driver = shop_driver()
    real = driver.list_tabs
    failing = {"now": False}

    def flaky() -> Any:
        if failing["now"]:
            failing["now"] = False
            raise BrokenPipeError("the browser's socket closed")
        return real()

    async def main() -> list[dict[str, Any]]:
        async with AsyncBrowserToolset(driver) as toolset:
            failing["now"] = True
            broken = dict(await toolset.tool_result(tool_use("get_page_text")))
            again = dict(await toolset.tool_result(tool_use("get_page_text")))
            return [broken, again]

    driver.list_tabs = flaky  # type: ignore[method-assign]
    broken, again = asyncio.run(main())
    assert broken["is_error"] is True
    assert "The browser is not responding or has closed: BrokenPipeError" in str(broken["content"])
    assert not again.get("is_error")


# --- The SDK's options on the async side ---------------------------------------------------------------------------


def test_an_async_confirm_hook_is_awaited_and_can_decline() -> None:
    asked: list[str] = []

    async def confirm(context: BetaConfirmContext) -> bool:
        asked.append(context.member)
        await asyncio.sleep(0)
        return context.member != "navigate"

    async def main() -> list[dict[str, Any]]:
        async with AsyncBrowserToolset(shop_driver(), confirm=confirm) as toolset:
            return [
                dict(await toolset.tool_result(tool_use("navigate", url="https://shop.test/pricing"))),
                dict(await toolset.tool_result(tool_use("get_page_text"))),
            ]

    refused, page_text = asyncio.run(main())
    assert asked == ["navigate", "get_page_text"]
    assert refused["is_error"] is True
    assert "Hats cost 12." not in str(page_text["content"])
    assert "Welcome to the shop" in str(page_text["content"])


def test_optional_members_stay_off_unless_enabled() -> None:
    async def main(toolset: AsyncBrowserToolset) -> dict[str, Any]:
        async with toolset:
            return dict(await toolset.tool_result(tool_use("javascript_exec", text="1 + 1")))

    toolset = AsyncBrowserToolset(shop_driver())
    assert toolset.to_dict() == {"type": "browser_toolset_20260801"}
    off = asyncio.run(main(toolset))
    assert off["is_error"] is True
    assert "javascript_exec" in str(off["content"])

    enabled = AsyncBrowserToolset(
        shop_driver(), configs={"javascript_exec": {"enabled": True}}, confirm=lambda context: True
    )
    assert enabled.to_dict() == {"type": "browser_toolset_20260801", "configs": {"javascript_exec": {"enabled": True}}}
    on = asyncio.run(main(enabled))
    assert "not permitted" not in str(on["content"])


def test_it_runs_under_trio_too() -> None:
    driver = shop_driver()
    toolset = AsyncBrowserToolset(driver)
    driver.threads.clear()

    async def main() -> dict[str, Any]:
        async with toolset:
            return dict(await toolset.tool_result(tool_use("navigate", url="https://shop.test/pricing")))

    result = trio.run(main)
    assert "is_error" not in result
    assert threading.get_ident() not in driver.threads
    assert driver.calls_to("close")
