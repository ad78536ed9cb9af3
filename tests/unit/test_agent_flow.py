"""The loop's I/O-free core (`agent.flow.task_flow`), driven by hand: each step it yields is checked and answered
with a scripted reply or result, the way `run_task` and `arun_task` answer it with the SDK's message threads and the
toolset. The core says what each turn adds and when it rewrites the history; how that goes out on a thread is the
SDK's (tests/unit/test_agent_run.py)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.types.beta import BetaMessage

from browser_toolset.agent.events import CallEvent, ImagesOmitted, RunResult, Summary, TextEvent
from browser_toolset.agent.flow import Close, Emit, RunCall, SendTurn, Step, TaskFlow, task_flow
from browser_toolset.agent.options import DEFAULT_MAX_TOKENS, DEFAULT_MODEL, LoopOptions

TOOLS: Mapping[str, Any] = {"type": "browser_toolset_20260801", "name": "browser"}
NOT_EXECUTED = "Not executed: an earlier action in this turn failed."
CACHE = {"type": "ephemeral"}


class Ticks:
    """A clock that moves one second each time it is read, so every timed call takes exactly one second."""

    def __init__(self) -> None:
        self._count = itertools.count()

    def __call__(self) -> float:
        return float(next(self._count))


def flow_for(task: str = "Look.", **options: Any) -> TaskFlow:
    return task_flow(task, LoopOptions(**options), clock=Ticks())


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(call_id: str, name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input, "toolset_name": "browser"}


def reply(number: int, *content: Mapping[str, Any], stop: str = "tool_use") -> BetaMessage:
    return BetaMessage.model_validate(
        {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": DEFAULT_MODEL,
            "content": list(content),
            "stop_reason": stop,
            "usage": {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 40},
        }
    )


def ok(call_id: str, *content: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "toolset_name": "browser", "content": list(content)}


def failed(call_id: str, message: str) -> dict[str, Any]:
    return {**ok(call_id, text(message)), "is_error": True}


def image(number: int) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": f"image-{number}"}}


def api_error(status: int, error_code: str | None = None) -> anthropic.APIStatusError:
    response = httpx2.Response(status, request=httpx2.Request("POST", "https://api.anthropic.test/v1/messages"))
    details = {"error_code": error_code} if error_code else {}
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "no", "details": details}}
    return anthropic.APIStatusError(f"Error code: {status}", response=response, body=body)


Answer = Callable[[Step], object]


def play(flow: TaskFlow, answer: Answer) -> tuple[list[Step], RunResult]:
    """Drive `flow` to its end: `answer` gives each step's answer (an exception is thrown in); every step is kept."""
    steps: list[Step] = []
    step = next(flow)
    while True:
        steps.append(step)
        outcome = answer(step)
        try:
            step = flow.throw(outcome) if isinstance(outcome, BaseException) else flow.send(outcome)
        except StopIteration as stop:
            assert isinstance(stop.value, RunResult)
            return steps, stop.value


def scripted(replies: Sequence[BetaMessage | BaseException], results: Mapping[str, object] = {}) -> Answer:
    """Answers: the replies (or errors) in order for requests, results by call id, `None` for the rest."""
    queue = list(replies)

    def answer(step: Step) -> object:
        if isinstance(step, SendTurn):
            return queue.pop(0)
        if isinstance(step, RunCall):
            return results[step.call.id]
        return None

    return answer


def turns_sent(steps: list[Step]) -> list[SendTurn]:
    return [step for step in steps if isinstance(step, SendTurn)]


def calls(steps: list[Step]) -> list[tuple[int, str, str, str]]:
    return [
        (s.event.turn, s.event.member, s.event.target, s.event.outcome)
        for s in steps
        if isinstance(s, Emit) and isinstance(s.event, CallEvent)
    ]


# --- One turn, step by step ----------------------------------------------------------------------------------------


def test_a_tool_use_turn_step_by_step() -> None:
    flow = flow_for(system="Be brief.")

    first = next(flow)
    assert first == SendTurn([{"role": "user", "content": "Look."}])
    assert first.rewrite is None
    assert flow.send(reply(1, text("I'll look."), use("t1", "screenshot"))) == Emit(TextEvent(1, "I'll look."))
    step = flow.send(None)
    assert isinstance(step, RunCall)
    assert (step.call.id, step.call.name, step.call.toolset_name) == ("t1", "screenshot", "browser")

    result = ok("t1", text("Took it.\nThe page shows a shop."), image(1))
    assert flow.send(result) == Emit(CallEvent(1, "screenshot", "", "ok", 1.0, "Took it."))
    # The next turn adds only the results: what came before is the history the driver's thread holds.
    assert flow.send(None) == SendTurn([{"role": "user", "content": [result]}])
    assert flow.send(reply(2, text("A shop."), stop="end_turn")) == Emit(TextEvent(2, "A shop."))
    assert flow.send(None) == Close()
    last = flow.send(None)
    assert isinstance(last, Emit) and isinstance(last.event, Summary)
    with pytest.raises(StopIteration) as stop:
        flow.send(None)

    run = stop.value.value
    assert isinstance(run, RunResult)
    assert run.summary == last.event
    assert run.summary == Summary(
        stop_reason="end_turn",
        turns=2,
        calls=1,
        errors=0,
        not_executed=0,
        input_tokens=280,
        cached_input_tokens=80,
        output_tokens=20,
        elapsed=run.summary.elapsed,
        error=None,
    )
    assert run.final_text == "A shop."
    assert run.messages == (
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": [text("I'll look."), use("t1", "screenshot")]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": [text("A shop.")]},
    )
    assert [type(event) for event in run.events] == [TextEvent, CallEvent, TextEvent, Summary]


def test_the_start_page_is_the_loops_own_call_and_the_prompt_says_how_it_went() -> None:
    flow = flow_for("Read it.", start_url="https://shop.test/", cache=False)
    step = next(flow)
    assert isinstance(step, RunCall)
    assert (step.call.name, step.call.input) == ("navigate", {"url": "https://shop.test/"})
    event = flow.send(failed("toolu_start_url", "Error: the host refused the connection."))
    assert event == Emit(
        CallEvent(0, "navigate", "https://shop.test/", "error", 1.0, "Error: the host refused the connection.")
    )
    turn = flow.send(None)
    assert isinstance(turn, SendTurn)
    assert turn.messages == (
        {
            "role": "user",
            "content": "Read it.\n\n(The browser could not open https://shop.test/: "
            "Error: the host refused the connection.)",
        },
    )


# --- The batch rule ------------------------------------------------------------------------------------------------


def test_after_a_failed_call_the_turns_later_browser_calls_are_not_run() -> None:
    calculator = {"type": "tool_use", "id": "t4", "name": "calculator", "input": {"expression": "1+1"}}
    batch = reply(
        1,
        use("t1", "navigate", url="https://shop.test/"),
        use("t2", "left_click", target={"type": "ref", "ref": "ref_9"}),
        use("t3", "screenshot"),
        calculator,
        use("t5", "find", query="cart"),
    )
    results = {"t1": ok("t1", text("Navigated.")), "t2": failed("t2", "Error: ref_9 is stale.")}
    steps, run = play(flow_for(), scripted([batch, reply(2, text("Stuck."), stop="end_turn")], results))

    # Only the first two calls ran; the others were answered without the toolset.
    assert [step.call.id for step in steps if isinstance(step, RunCall)] == ["t1", "t2"]
    assert calls(steps) == [
        (1, "navigate", "https://shop.test/", "ok"),
        (1, "left_click", "ref_9", "error"),
        (1, "screenshot", "", "not_executed"),
        (1, "calculator", "", "error"),
        (1, "find", '"cart"', "not_executed"),
    ]
    sent = turns_sent(steps)[1].messages[0]["content"]
    assert sent[:2] == [results["t1"], results["t2"]]
    assert sent[2] == sent[4] | {"tool_use_id": "t3"}
    assert sent[4] == {
        "type": "tool_result",
        "tool_use_id": "t5",
        "toolset_name": "browser",
        "content": NOT_EXECUTED,
        "is_error": True,
    }
    assert sent[3] == {
        "type": "tool_result",
        "tool_use_id": "t4",
        "content": "Error: there is no tool named 'calculator' in this session.",
        "is_error": True,
    }
    assert (run.calls, run.errors, run.summary.not_executed) == (3, 2, 2)


def test_each_turn_starts_with_no_failure() -> None:
    turns = [
        reply(1, use("t1", "left_click", target={"type": "ref", "ref": "ref_1"}), use("t2", "screenshot")),
        reply(2, use("t3", "screenshot")),
        reply(3, stop="end_turn"),
    ]
    results = {"t1": failed("t1", "Error: stale."), "t3": ok("t3", image(3))}
    steps, _ = play(flow_for(), scripted(turns, results))
    assert [outcome for *_, outcome in calls(steps)] == ["error", "not_executed", "ok"]


# --- Stopping ------------------------------------------------------------------------------------------------------


def test_the_turn_limit_stops_before_the_last_replys_calls_run() -> None:
    turns = [reply(1, use("t1", "screenshot")), reply(2, use("t2", "screenshot"))]
    steps, run = play(flow_for(max_turns=2), scripted(turns, {"t1": ok("t1", image(1))}))

    assert [type(step) for step in steps] == [SendTurn, RunCall, Emit, SendTurn, Close, Emit]
    assert (run.stop_reason, run.turns, run.calls) == ("max_turns", 2, 1)
    assert run.messages[-1]["role"] == "assistant"


def test_ctrl_c_during_a_call_stops_the_run_and_still_closes() -> None:
    def answer(step: Step) -> object:
        return KeyboardInterrupt() if isinstance(step, RunCall) else scripted([reply(1, use("t1", "wait"))])(step)

    steps, run = play(flow_for(), answer)
    assert [type(step) for step in steps] == [SendTurn, RunCall, Close, Emit]
    assert (run.stop_reason, run.turns, run.calls) == ("interrupted", 1, 0)


def test_an_api_error_stops_the_run_with_its_message() -> None:
    steps, run = play(flow_for(), scripted([reply(1, use("t1", "screenshot")), api_error(400)], {"t1": ok("t1")}))
    assert isinstance(steps[-2], Close)
    assert (run.stop_reason, run.error, run.turns) == ("api_error", "Error code: 400", 1)
    # The results that were refused are in the transcript, after the reply that asked for them.
    assert run.messages[-1] == {"role": "user", "content": [ok("t1")]}


def test_any_other_exception_comes_back_out_without_a_close() -> None:
    flow = flow_for()
    next(flow)
    assert isinstance(flow.send(reply(1, use("t1", "screenshot"))), RunCall)
    with pytest.raises(RuntimeError, match="the browser crashed"):
        flow.throw(RuntimeError("the browser crashed"))


def test_a_wrong_answer_is_a_type_error_that_names_the_step() -> None:
    flow = flow_for()
    next(flow)
    with pytest.raises(TypeError, match="a SendTurn is answered with the reply, a BetaMessage, not dict"):
        flow.send({"content": []})


def test_a_paused_turn_goes_on_from_a_turn_that_adds_nothing() -> None:
    turns = [reply(1, text("Thinking."), stop="pause_turn"), reply(2, text("Done."), stop="end_turn")]
    steps, run = play(flow_for(), scripted(turns))
    assert turns_sent(steps)[1] == SendTurn(())
    assert (run.stop_reason, run.turns, run.final_text) == ("end_turn", 2, "Done.")
    assert [message["role"] for message in run.messages] == ["user", "assistant", "assistant"]


# --- Images --------------------------------------------------------------------------------------------------------


def looks(turns: int) -> tuple[list[BetaMessage], dict[str, object]]:
    replies = [reply(n, use(f"t{n}", "screenshot")) for n in range(1, turns + 1)]
    return [*replies, reply(turns + 1, stop="end_turn")], {f"t{n}": ok(f"t{n}", image(n)) for n in range(1, turns + 1)}


def test_older_images_are_replaced_in_a_batch_by_a_turn_that_rewrites_the_history() -> None:
    steps, run = play(flow_for(max_images=3, keep_images=1), scripted(*looks(5)))

    omitted = [s.event for s in steps if isinstance(s, Emit) and isinstance(s.event, ImagesOmitted)]
    assert omitted == [ImagesOmitted(turn=4, omitted=3, kept=1)]
    sent = turns_sent(steps)
    assert [turn.rewrite is not None for turn in sent] == [False, False, False, False, True, False]
    rewrite = sent[4]
    # The rewritten history is everything before this turn's results, which are added as on any other turn.
    assert len(rewrite.rewrite or ()) == 8
    assert rewrite.messages == ({"role": "user", "content": [ok("t4", image(4))]},)
    shown = [m["content"][0]["content"][0] for m in [*(rewrite.rewrite or ())[2::2], *rewrite.messages]]
    assert shown == [
        text("[screenshot omitted: 3 turns old]"),
        text("[screenshot omitted: 2 turns old]"),
        text("[screenshot omitted: 1 turn old]"),
        image(4),
    ]
    assert (rewrite.rewrite or ())[0] == {"role": "user", "content": "Look."}
    assert [m["role"] for m in rewrite.rewrite or ()] == ["user", "assistant"] * 4
    assert sent[5] == SendTurn([{"role": "user", "content": [ok("t5", image(5))]}])
    assert run.messages[2]["content"][0]["content"] == [text("[screenshot omitted: 3 turns old]")]
    assert run.messages[-2] == sent[5].messages[0]


def test_with_keep_images_zero_the_new_results_lose_their_image_too() -> None:
    steps, _ = play(flow_for(max_images=1, keep_images=0), scripted(*looks(2)))
    rewrite = turns_sent(steps)[2]
    assert rewrite.rewrite is not None
    assert rewrite.messages[0]["content"][0]["content"] == [text("[screenshot omitted: 0 turns old]")]


def test_within_the_limit_no_image_is_touched() -> None:
    steps, run = play(flow_for(max_images=5, keep_images=1), scripted(*looks(5)))
    assert not any(isinstance(s, Emit) and isinstance(s.event, ImagesOmitted) for s in steps)
    assert all(turn.rewrite is None for turn in turns_sent(steps))
    assert run.messages[2]["content"][0]["content"] == [image(1)]


# --- Message threads are the drivers' -----------------------------------------------------------------------------


def test_the_core_takes_the_same_steps_with_or_without_threads() -> None:
    """Threads only change how the drivers send a turn, so the core has no branch for them."""
    with_threads, _ = play(flow_for(max_images=1, keep_images=0), scripted(*looks(3)))
    without, _ = play(flow_for(max_images=1, keep_images=0, threads=False), scripted(*looks(3)))
    assert without == with_threads


@pytest.mark.parametrize(
    "error", [api_error(404, "thread_not_found"), api_error(400, "thread_unsupported_request")], ids=str
)
def test_a_thread_refusal_that_reaches_the_core_ends_the_run(error: anthropic.APIStatusError) -> None:
    """The SDK's thread recovers from what it can; a refusal it raised anyway is an API error like any other."""
    turns, results = looks(2)
    steps, run = play(flow_for(), scripted([turns[0], error, *turns[1:]], results))
    assert len(turns_sent(steps)) == 2
    assert (run.stop_reason, run.error, run.turns) == ("api_error", str(error), 1)


def test_a_refused_turn_ends_the_run_with_the_refusal_in_the_transcript() -> None:
    turns, results = looks(1)
    refused = reply(2, text("I can't help with that."), stop="refusal")
    steps, run = play(flow_for(), scripted([turns[0], refused], results))
    assert run.stop_reason == "refusal" and run.messages[-1]["content"] == [text("I can't help with that.")]
    assert len(turns_sent(steps)) == 2


# --- The options ---------------------------------------------------------------------------------------------------


def test_bad_limits_are_refused_when_the_options_are_built() -> None:
    with pytest.raises(ValueError, match=r"max_turns must be at least 1, not 0"):
        LoopOptions(max_turns=0)
    with pytest.raises(ValueError, match=r"keep_images must be between 0 and max_images \(5\), not 6"):
        LoopOptions(max_images=5, keep_images=6)


def test_the_request_fields_are_the_options_with_the_toolset() -> None:
    assert LoopOptions(system="Be brief.").request_fields(TOOLS) == {
        "model": DEFAULT_MODEL,
        "max_tokens": DEFAULT_MAX_TOKENS,
        "tools": [dict(TOOLS)],
        "system": "Be brief.",
        "cache_control": CACHE,
    }
    assert "cache_control" not in LoopOptions(cache=False).request_fields(TOOLS)


def test_the_extra_params_are_copied_and_the_loops_own_fields_win() -> None:
    extra = {"model": "other", "metadata": {"user_id": "u"}, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    options = LoopOptions(extra_params=extra)
    extra["metadata"] = {}
    with pytest.raises(TypeError):
        options.extra_params["model"] = "x"  # type: ignore[index]
    fields = options.request_fields(TOOLS)
    assert fields["model"] == DEFAULT_MODEL
    assert fields["metadata"] == {"user_id": "u"}
    assert fields["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
