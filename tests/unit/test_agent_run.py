"""`run_task` and `arun_task` are thin drivers of one core: they keep the keywords they always had, do only the I/O
its steps ask for, and close the toolset however the run ends."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

import anthropic
import pytest

from browser_toolset import BrowserToolset
from browser_toolset.agent import run as run_module
from browser_toolset.agent.events import CallEvent, Event, ImagesOmitted, Summary
from browser_toolset.agent.flow import Close, Emit, RunCall, SendRequest, Step, task_flow
from browser_toolset.agent.options import LoopOptions
from browser_toolset.agent.run import arun_task, run_task
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.testing.fake_api import FakeMessagesAPI

SCRIPTS = Path(__file__).parent.parent / "scripts"

# The public keywords as they were before the loop was split (name and default, in order).
KEYWORDS = [
    ("client", None),
    ("model", "claude-opus-5-5"),
    ("max_tokens", 4096),
    ("max_turns", 50),
    ("start_url", None),
    ("system", None),
    ("on_event", None),
    ("quiet", False),
    ("max_images", 20),
    ("keep_images", 10),
    ("threads", True),
    ("cache", True),
    ("extra_params", None),
]


def shop_driver() -> MockDriver:
    return MockDriver.from_json(SCRIPTS / "shop_site.json", sleep=lambda seconds: None)


def test_both_drivers_keep_their_keywords_and_every_setting_reaches_the_options() -> None:
    for function in (run_task, arun_task):
        parameters = list(inspect.signature(function).parameters.values())
        assert [p.name for p in parameters[:2]] == ["toolset", "task"]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[2:])
        assert [(p.name, p.default) for p in parameters[2:]] == KEYWORDS
    settings = [(name, default) for name, default in KEYWORDS if name not in ("client", "on_event", "quiet")]
    assert [name for name, _ in settings] == [field.name for field in LoopOptions.__attrs_attrs__]
    defaults = LoopOptions()
    assert [getattr(defaults, name) for name, _ in settings[:-1]] == [default for _, default in settings[:-1]]
    assert defaults.extra_params == {}


# --- One core under both drivers -----------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A step or answer as comparable plain values, without the times that differ from run to run."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, SendRequest):
        return ("send", plain(value.params))
    if isinstance(value, RunCall):
        return ("run", plain(value.call))
    if isinstance(value, Emit):
        event = value.event
        if isinstance(event, CallEvent):
            return ("emit", event.turn, event.member, event.target, event.outcome, event.detail)
        if isinstance(event, Summary):
            return ("emit", "summary", event.stop_reason, event.turns, event.calls, event.input_tokens)
        return ("emit", event)
    if isinstance(value, Close):
        return ("close",)
    return value


Exchange = tuple[Step, object]


def spy_on_the_core(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Exchange], list[Mapping[str, Any]]]:
    """Put a recorder between the driver and `task_flow`: every step with its answer, and the tools it was given."""
    exchanges: list[Exchange] = []
    tools: list[Mapping[str, Any]] = []

    def spied(task: str, given: Mapping[str, Any], options: LoopOptions) -> Generator[Step, object, Any]:
        tools.append(given)
        inner = task_flow(task, given, options)
        step = next(inner)
        while True:
            try:
                answer = yield step
            except BaseException as exc:
                exchanges.append((step, exc))
                try:
                    step = inner.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                exchanges.append((step, answer))
                try:
                    step = inner.send(answer)
                except StopIteration as stop:
                    return stop.value

    monkeypatch.setattr(run_module, "task_flow", spied)
    return exchanges, tools


def test_run_task_and_arun_task_drive_the_same_core_through_the_same_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    sync_steps, tools = spy_on_the_core(monkeypatch)
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
        sync_result = run_task(
            BrowserToolset(shop_driver()), "Go.", client=client, quiet=True, max_images=1, keep_images=0
        )

    async_steps, _ = spy_on_the_core(monkeypatch)

    async def run_async(api: FakeMessagesAPI) -> Any:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=api.base_url, max_retries=0)
        return await arun_task(
            AsyncBrowserToolset(shop_driver()), "Go.", client=client, quiet=True, max_images=1, keep_images=0
        )

    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        async_result = asyncio.run(run_async(api))

    kinds = [type(step) for step, _ in sync_steps]
    assert kinds.count(SendRequest) == 7 and kinds.count(RunCall) == 16 and kinds.count(Close) == 1
    assert any(isinstance(step, Emit) and isinstance(step.event, ImagesOmitted) for step, _ in sync_steps)
    assert [plain(pair) for pair in async_steps] == [plain(pair) for pair in sync_steps]
    assert async_result.messages == sync_result.messages
    assert sync_result.summary.not_executed == 1

    # Handing the core the same answers without any driver gives the same steps: the drivers add nothing.
    flow = task_flow("Go.", tools[0], LoopOptions(max_images=1, keep_images=0))
    replayed = [next(flow)]
    for _, answer in sync_steps[:-1]:
        replayed.append(flow.send(answer))
    assert [plain(step) for step in replayed] == [plain(step) for step, _ in sync_steps]


# --- Closing -------------------------------------------------------------------------------------------------------


def test_the_toolset_is_closed_once_at_the_end() -> None:
    driver = shop_driver()
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
        run_task(BrowserToolset(driver), "Go.", client=client, quiet=True)
    assert len(driver.calls_to("close")) == 1


@pytest.mark.parametrize("driver_kind", ["sync", "async"])
def test_an_error_the_core_does_not_handle_is_raised_and_the_toolset_is_still_closed(driver_kind: str) -> None:
    driver = shop_driver()

    def broken_printer(event: Event) -> None:
        if isinstance(event, CallEvent):
            raise RuntimeError("the printer broke")

    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api, pytest.raises(RuntimeError, match="printer broke"):
        if driver_kind == "sync":
            client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
            run_task(BrowserToolset(driver), "Go.", client=client, on_event=broken_printer)
        else:
            async_client = anthropic.AsyncAnthropic(api_key="k", base_url=api.base_url, max_retries=0)
            asyncio.run(arun_task(AsyncBrowserToolset(driver), "Go.", client=async_client, on_event=broken_printer))
    assert len(driver.calls_to("close")) == 1


class NoThreads(anthropic.Anthropic):
    """A client like those of the cloud platforms, which have no message threads."""

    _supports_message_threads = False


def test_a_client_without_message_threads_is_refused_unless_threads_are_off() -> None:
    driver = shop_driver()
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = NoThreads(api_key="k", base_url=api.base_url, max_retries=0)
        with pytest.raises(anthropic.AnthropicError, match="pass threads=False"):
            run_task(BrowserToolset(driver), "Go.", client=client, quiet=True)
        assert api.requests == [] and driver.calls_to("close")
        result = run_task(BrowserToolset(shop_driver()), "Go.", client=client, quiet=True, threads=False)
    assert result.stop_reason == "end_turn"
