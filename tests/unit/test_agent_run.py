"""`run_task` and `arun_task` are thin drivers of one core: they keep the keywords they always had, do only the I/O
its steps ask for (a turn goes out on the SDK's message threads, which recover from the server's refusals), and close
the toolset however the run ends."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Generator, Mapping
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from browser_toolset import BrowserToolset
from browser_toolset.agent import run as run_module
from browser_toolset.agent.events import CallEvent, Event, ImagesOmitted, Summary
from browser_toolset.agent.flow import Close, Emit, RunCall, SendTurn, Step, task_flow
from browser_toolset.agent.options import LoopOptions
from browser_toolset.agent.run import arun_task, run_task
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.testing.fake_api import FakeMessagesAPI, RecordedRequest

SCRIPTS = Path(__file__).parent.parent / "scripts"
THREADS_BETA = "message-threads-2026-08-12"
TOOLS = {"type": "browser_toolset_20260801"}

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
    if isinstance(value, SendTurn):
        return ("send", plain(value.messages), plain(value.rewrite))
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


def spy_on_the_core(monkeypatch: pytest.MonkeyPatch) -> list[Exchange]:
    """Put a recorder between the driver and `task_flow`: every step with its answer."""
    exchanges: list[Exchange] = []

    def spied(task: str, options: LoopOptions) -> Generator[Step, object, Any]:
        inner = task_flow(task, options)
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
    return exchanges


def test_run_task_and_arun_task_drive_the_same_core_through_the_same_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    sync_steps = spy_on_the_core(monkeypatch)
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
        sync_result = run_task(
            BrowserToolset(shop_driver()), "Go.", client=client, quiet=True, max_images=1, keep_images=0
        )

    async_steps = spy_on_the_core(monkeypatch)

    async def run_async(api: FakeMessagesAPI) -> Any:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=api.base_url, max_retries=0)
        return await arun_task(
            AsyncBrowserToolset(shop_driver()), "Go.", client=client, quiet=True, max_images=1, keep_images=0
        )

    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        async_result = asyncio.run(run_async(api))

    kinds = [type(step) for step, _ in sync_steps]
    assert kinds.count(SendTurn) == 7 and kinds.count(RunCall) == 16 and kinds.count(Close) == 1
    assert any(isinstance(step, Emit) and isinstance(step.event, ImagesOmitted) for step, _ in sync_steps)
    assert [plain(pair) for pair in async_steps] == [plain(pair) for pair in sync_steps]
    assert async_result.messages == sync_result.messages
    assert sync_result.summary.not_executed == 1

    # Handing the core the same answers without any driver gives the same steps: the drivers add nothing.
    flow = task_flow("Go.", LoopOptions(max_images=1, keep_images=0))
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


# --- The conversation on the SDK's message threads -----------------------------------------------------------------


def run_on(
    api: FakeMessagesAPI, driver_kind: str, on_event: Callable[[Event], None] | None = None, **options: Any
) -> Any:
    """`run_task` or `arun_task` on the shop session against `api`."""
    if driver_kind == "sync":
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
        return run_task(BrowserToolset(shop_driver()), "Go.", client=client, quiet=True, on_event=on_event, **options)

    async def main() -> Any:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=api.base_url, max_retries=0)
        toolset = AsyncBrowserToolset(shop_driver())
        return await arun_task(toolset, "Go.", client=client, quiet=True, on_event=on_event, **options)

    return asyncio.run(main())


def sent(requests: list[RecordedRequest]) -> list[tuple[str | None, int, int]]:
    """Each request as its thread, status and how many messages it carried."""
    return [(r.thread, r.status, len(r.body["messages"])) for r in requests]


@pytest.mark.parametrize("driver_kind", ["sync", "async"])
def test_turns_go_out_on_an_sdk_thread_and_a_rewrite_starts_a_new_one_from_its_params(driver_kind: str) -> None:
    extra = {"metadata": {"user_id": "u-1"}}
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        result = run_on(api, driver_kind, max_images=1, keep_images=0, system="Be brief.", extra_params=extra)
        requests = api.requests

    assert result.stop_reason == "end_turn"
    # Once results bring a second image, the older one goes: the rewritten history goes out whole, on a new thread.
    assert sent(requests) == [
        ("create", 200, 1),
        ("continue", 200, 1),
        ("continue", 200, 1),
        ("continue", 200, 1),
        ("continue", 200, 1),
        ("create", 200, 11),
        ("continue", 200, 1),
    ]
    # The SDK's threads send their own helper header and the threads beta with every request.
    assert all(r.headers["x-stainless-helper"] == "message-thread" for r in requests)
    assert all(THREADS_BETA in r.headers["anthropic-beta"] for r in requests)
    for request in (requests[0], requests[5]):
        assert request.body["system"] == "Be brief." and request.body["metadata"] == {"user_id": "u-1"}
        assert request.body["tools"] == [TOOLS]
    assert "system" not in requests[6].body and "tools" not in requests[6].body
    assert requests[6].body["metadata"] == {"user_id": "u-1"}
    assert requests[6].body["thread"]["previous_message_id"] == requests[5].response["id"]
    # The new thread holds the history as the core rewrote it, which is the transcript.
    rewritten = json.dumps(requests[5].body["messages"])
    assert "[screenshot omitted: " in rewritten and '"type": "image"' not in rewritten
    assert requests[5].body["messages"] == list(result.messages[:11])


@pytest.mark.parametrize("driver_kind", ["sync", "async"])
def test_without_threads_each_request_carries_the_whole_history_as_rewritten(driver_kind: str) -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        result = run_on(api, driver_kind, threads=False, max_images=1, keep_images=0)
        requests = api.requests

    assert sent(requests) == [(None, 200, n) for n in (1, 3, 5, 7, 9, 11, 13)]
    assert not any("x-stainless-helper" in r.headers or "betas" in r.body for r in requests)
    assert all(r.body["tools"] == [TOOLS] for r in requests)
    assert requests[-1].body["messages"] == list(result.messages[:-1])
    assert "[screenshot omitted: " in json.dumps(requests[-1].body["messages"])


@pytest.mark.parametrize("driver_kind", ["sync", "async"])
def test_a_thread_the_server_lost_is_replayed_by_the_sdk(driver_kind: str) -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        undisturbed = run_on(api, driver_kind)
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        ran: list[CallEvent] = []

        def forget_after_the_fifth_call(event: Event) -> None:
            if isinstance(event, CallEvent):
                ran.append(event)
                if len(ran) == 5:
                    api.forget_threads()

        result = run_on(api, driver_kind, on_event=forget_after_the_fifth_call)
        requests = api.requests

    assert sent(requests) == [
        ("create", 200, 1),
        ("continue", 200, 1),
        ("continue", 200, 1),
        ("continue", 404, 1),
        ("create", 200, 7),
        ("continue", 200, 1),
        ("continue", 200, 1),
        ("continue", 200, 1),
    ]
    assert (result.stop_reason, result.turns, result.calls) == ("end_turn", 7, 16)
    assert result.messages == undisturbed.messages


def message_json(number: int, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-5-5",
        "content": content,
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


@pytest.mark.parametrize("driver_kind", ["sync", "async"])
def test_a_request_the_server_cannot_thread_goes_on_without_one(driver_kind: str) -> None:
    """`continue_unthreaded`: the SDK's thread re-sends the turn, and every later one, whole and without a thread."""
    bodies: list[dict[str, Any]] = []
    betas: list[str | None] = []
    unsupported = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "this request cannot be threaded",
            "details": {"error_code": "thread_unsupported_request", "unsupported": ["mcp_servers"]},
        },
    }
    screenshot = {"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}, "toolset_name": "browser"}
    answers = [
        (400, unsupported),
        (200, message_json(1, [screenshot], "tool_use")),
        (200, message_json(2, [{"type": "text", "text": "Done."}], "end_turn")),
    ]

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        betas.append(request.headers.get("anthropic-beta"))
        status, body = answers.pop(0)
        return httpx2.Response(status, json=body)

    transport = httpx2.MockTransport(handler)
    if driver_kind == "sync":
        client = anthropic.Anthropic(
            api_key="k", base_url="https://api.test", max_retries=0, http_client=httpx2.Client(transport=transport)
        )
        result = run_task(BrowserToolset(shop_driver()), "Go.", client=client, quiet=True)
    else:
        async_client = anthropic.AsyncAnthropic(
            api_key="k", base_url="https://api.test", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
        )
        result = asyncio.run(arun_task(AsyncBrowserToolset(shop_driver()), "Go.", client=async_client, quiet=True))

    assert result.stop_reason == "end_turn" and answers == []
    assert [body.get("thread") for body in bodies] == [{"type": "create"}, None, None]
    assert [len(body["messages"]) for body in bodies] == [1, 1, 3]
    assert betas == [THREADS_BETA, None, None]
