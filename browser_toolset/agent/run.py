"""`run_task`: give Claude a task and a browser, and run the conversation until it is done; `arun_task`, the same
for `AsyncAnthropic` and an async toolset (`AsyncBrowserToolset`).

The SDK's tool runner is the simplest loop, but a long browser session needs what it leaves to the caller (image
limits, progress, stopping cleanly), so this is our own loop. All of it is the I/O-free core in `agent.flow`; the two
functions here only do what its steps ask, one directly and one with `await`, and send the conversation on the SDK's
message threads (`agent.conversation`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import anthropic
from anthropic.tools.browser import BetaAbstractBrowserToolset20260801, BetaAsyncAbstractBrowserToolset20260801

from .conversation import AsyncConversation, Conversation
from .events import Event, RunResult
from .flow import Emit, RunCall, SendTurn, task_flow
from .options import DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, DEFAULT_MODEL, LoopOptions
from .printing import TerminalPrinter
from .trimming import KEEP_IMAGES, MAX_IMAGES

__all__ = ["arun_task", "run_task"]


def _finished(stop: StopIteration) -> RunResult:
    return cast(RunResult, stop.value)


def run_task(
    toolset: BetaAbstractBrowserToolset20260801,
    task: str,
    *,
    client: anthropic.Anthropic | None = None,
    model: str = DEFAULT_MODEL,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_turns: int = DEFAULT_MAX_TURNS,
    start_url: str | None = None,
    system: str | None = None,
    on_event: Callable[[Event], None] | None = None,
    quiet: bool = False,
    max_images: int = MAX_IMAGES,
    keep_images: int = KEEP_IMAGES,
    threads: bool = True,
    cache: bool = True,
    extra_params: Mapping[str, Any] | None = None,
) -> RunResult:
    """Have Claude carry out `task` with the browser behind `toolset`, and close the toolset (and its browser) at
    the end, however the run ends.

    `client` defaults to `anthropic.Anthropic()`, which reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
    `start_url` is opened before the first request, and Claude is told so. `max_turns` bounds Claude's replies;
    the calls of a reply that would need one more are not run. `on_event` receives every `Event`; by default a
    `TerminalPrinter(quiet=quiet)` prints them. `max_images` / `keep_images` set when older images are replaced (see
    `agent.trimming`). `threads=False` sends the whole history each turn, for clients without message threads.
    `cache` asks for prompt caching of the conversation; `extra_params` are passed to every request (`thinking`,
    `betas`, `metadata`, ...). Bad limits raise `ValueError` before anything runs."""
    options = LoopOptions(
        model=model,
        max_tokens=max_tokens,
        max_turns=max_turns,
        start_url=start_url,
        system=system,
        max_images=max_images,
        keep_images=keep_images,
        threads=threads,
        cache=cache,
        extra_params=extra_params,
    )
    report = on_event if on_event is not None else TerminalPrinter(quiet=quiet)
    closed = False
    try:
        api = client if client is not None else anthropic.Anthropic()
        conversation = Conversation(api, options.request_fields(toolset.to_dict()), threads=options.threads)
        flow = task_flow(task, options)
        step = next(flow)
        while True:
            try:
                if isinstance(step, SendTurn):
                    answer: object = conversation.send(step)
                elif isinstance(step, RunCall):
                    answer = toolset.tool_result(step.call)
                elif isinstance(step, Emit):
                    answer = report(step.event)
                else:
                    closed = True
                    toolset.close()
                    answer = None
            except BaseException as exc:  # the flow decides which ones end the run
                step = flow.throw(exc)
            else:
                step = flow.send(answer)
    except StopIteration as stop:
        return _finished(stop)
    finally:
        if not closed:
            toolset.close()


async def arun_task(
    toolset: BetaAsyncAbstractBrowserToolset20260801,
    task: str,
    *,
    client: anthropic.AsyncAnthropic | None = None,
    model: str = DEFAULT_MODEL,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_turns: int = DEFAULT_MAX_TURNS,
    start_url: str | None = None,
    system: str | None = None,
    on_event: Callable[[Event], None] | None = None,
    quiet: bool = False,
    max_images: int = MAX_IMAGES,
    keep_images: int = KEEP_IMAGES,
    threads: bool = True,
    cache: bool = True,
    extra_params: Mapping[str, Any] | None = None,
) -> RunResult:
    """`run_task` for `AsyncAnthropic` (the default client here) and an async toolset such as
    `AsyncBrowserToolset`. A cancelled task closes the toolset too, and stays cancelled."""
    options = LoopOptions(
        model=model,
        max_tokens=max_tokens,
        max_turns=max_turns,
        start_url=start_url,
        system=system,
        max_images=max_images,
        keep_images=keep_images,
        threads=threads,
        cache=cache,
        extra_params=extra_params,
    )
    report = on_event if on_event is not None else TerminalPrinter(quiet=quiet)
    closed = False
    try:
        api = client if client is not None else anthropic.AsyncAnthropic()
        conversation = AsyncConversation(api, options.request_fields(toolset.to_dict()), threads=options.threads)
        flow = task_flow(task, options)
        step = next(flow)
        while True:
            try:
                if isinstance(step, SendTurn):
                    answer: object = await conversation.send(step)
                elif isinstance(step, RunCall):
                    answer = await toolset.tool_result(step.call)
                elif isinstance(step, Emit):
                    answer = report(step.event)
                else:
                    closed = True
                    await toolset.close()
                    answer = None
            except BaseException as exc:  # the flow decides which ones end the run
                step = flow.throw(exc)
            else:
                step = flow.send(answer)
    except StopIteration as stop:
        return _finished(stop)
    finally:
        if not closed:
            await toolset.close()
