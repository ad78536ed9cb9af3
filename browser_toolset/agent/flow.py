"""The agent loop with no I/O in it: a generator that says what it needs next and is sent what came of it.

`task_flow(task, tools, options)` yields steps and receives each step's answer through `send()`, the way httpx's
clients drive an `auth_flow`; `run_task` and `arun_task` (`agent.run`) are the two drivers, one calling the client
and the toolset directly and one with `await`. The steps and their answers:

- `SendTurn(messages, rewrite)`: send one turn of the conversation (`agent.conversation`, on the SDK's message
  threads): first make the history `rewrite` if it is given, then add `messages` and send; the answer is the reply
  (a `BetaMessage`). The fields of every request but `messages` are `options.request_fields(tools)`.
- `RunCall(call)`: `toolset.tool_result(call)`; the answer is the result.
- `Emit(event)`: hand the event to `on_event`; the answer is `None`.
- `Close()`: close the toolset and its browser; the answer is `None`. Asked for once at the end of every run that
  ends with a result; a driver closes the toolset itself only when the flow raises instead.

An exception raised while doing a step goes back in with `flow.throw(exc)`: Ctrl-C (`KeyboardInterrupt`) and API
errors end the run with a result (after `Close`), and anything else comes back out of `throw`. The flow returns the
`RunResult` (as `StopIteration.value`).

What the loop does, once, here:

- **The conversation** is kept here as data: what each turn adds, and when the history is rewritten. How it goes
  out (a message thread that carries only the new messages, its recovery when the server loses it, or the whole
  history without threads) is the SDK's, in the drivers.
- **Image limits.** Before results go out, older images are replaced by placeholders when the conversation would
  hold more than `max_images` (`agent.trimming`); that rewrites the history, which starts a new thread.
- **Progress.** One event per browser call (member, target, outcome, time), Claude's text, and a final summary.
- **Stopping.** At `max_turns` (the calls of a reply that would need one more turn are not run), on Ctrl-C and on an
  API error the run stops without raising, and the result says why it stopped.
- **The batch rule.** Calls run in order; after the first failed browser call of a turn, the turn's later browser
  calls are answered `Not executed: an earlier action in this turn failed.` A call to any other tool (Claude has
  none here) is answered with an error. A `confirm` hook (such as `browser_toolset.safety.confirm.ActionGate`) lives
  in the toolset, where the SDK checks it before each call runs; a declined call is an ordinary error result that
  Claude reads, so the loop has nothing to ask."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

import anthropic
import attrs
from anthropic.types.beta import BetaMessage, BetaToolUseBlock

from ..executor.batch import NOT_EXECUTED
from .describe import describe_target, result_detail, shorten
from .events import CallEvent, Event, ImagesOmitted, Outcome, RunResult, Summary, TextEvent
from .options import LoopOptions
from .trimming import count_images, omit_old_images

__all__ = ["Close", "Emit", "Message", "RunCall", "SendTurn", "Step", "TaskFlow", "task_flow"]


Message = Mapping[str, Any]


def _messages(messages: Sequence[Message]) -> tuple[Message, ...]:
    return tuple(messages)


def _rewrite(messages: Sequence[Message] | None) -> tuple[Message, ...] | None:
    return None if messages is None else tuple(messages)


@attrs.frozen
class SendTurn:
    """Send one turn: make the history `rewrite` first if it is given (a message thread cannot be rewritten, so that
    starts a new one), then add `messages` (none to resume a paused turn) and send; answer with the reply."""

    messages: tuple[Message, ...] = attrs.field(converter=_messages)
    rewrite: tuple[Message, ...] | None = attrs.field(default=None, converter=_rewrite)


@attrs.frozen
class RunCall:
    """Run this browser call: `toolset.tool_result(call)`; answer with its result."""

    call: BetaToolUseBlock


@attrs.frozen
class Emit:
    """Hand this event to `on_event`; answer `None`."""

    event: Event


@attrs.frozen
class Close:
    """Close the toolset and its browser; answer `None`."""


Step = SendTurn | RunCall | Emit | Close
TaskFlow = Generator[Step, object, RunResult]
_Part = Generator[Step, object, Any]


def task_flow(task: str, options: LoopOptions, *, clock: Callable[[], float] = time.monotonic) -> TaskFlow:
    """The loop for `task`; `clock` times calls and the run."""
    return _Flow(options, clock).run(task)


def _plain(value: Any) -> Any:
    """A message or block as plain JSON values (the SDK keeps Claude's replies as models)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _start_call(url: str) -> BetaToolUseBlock:
    return BetaToolUseBlock(
        id="toolu_start_url", type="tool_use", name="navigate", input={"url": url}, toolset_name="browser"
    )


def _as_result(answer: object) -> Mapping[str, Any]:
    if not isinstance(answer, Mapping):
        raise TypeError(f"a RunCall is answered with the call's tool_result, a mapping, not {type(answer).__name__}")
    return answer


def _as_reply(answer: object) -> BetaMessage:
    if not isinstance(answer, BetaMessage):
        raise TypeError(f"a SendTurn is answered with the reply, a BetaMessage, not {type(answer).__name__}")
    return answer


class _Flow:
    """One run: its counts and events, and the generator that runs it."""

    def __init__(self, options: LoopOptions, clock: Callable[[], float]) -> None:
        self.options = options
        self.clock = clock
        self.started = clock()
        self.events: list[Event] = []
        self.messages: list[Message] = []
        self.turns = 0
        self.calls = 0
        self.errors = 0
        self.not_executed = 0
        self.input_tokens = 0
        self.cached_input_tokens = 0
        self.output_tokens = 0
        self.final_text = ""
        self.stop_reason = "end_turn"
        self.error: str | None = None

    def run(self, task: str) -> TaskFlow:
        try:
            prompt = task
            if self.options.start_url is not None:
                prompt = yield from self._open(task, self.options.start_url)
            yield from self._converse({"role": "user", "content": prompt})
        except KeyboardInterrupt:
            self.stop_reason = "interrupted"
        except anthropic.APIError as exc:
            self.stop_reason, self.error = "api_error", str(exc)
        yield Close()
        summary = Summary(
            stop_reason=self.stop_reason,
            turns=self.turns,
            calls=self.calls,
            errors=self.errors,
            not_executed=self.not_executed,
            input_tokens=self.input_tokens,
            cached_input_tokens=self.cached_input_tokens,
            output_tokens=self.output_tokens,
            elapsed=self.clock() - self.started,
            error=self.error,
        )
        yield from self._emit(summary)
        return RunResult(summary, tuple(_plain(self.messages)), self.final_text, tuple(self.events))

    def _emit(self, event: Event) -> _Part:
        self.events.append(event)
        yield Emit(event)

    def _open(self, task: str, url: str) -> _Part:
        """Open the start page (the loop's own call, turn 0), and return the prompt that tells Claude about it."""
        started = self.clock()
        result = _as_result((yield RunCall(_start_call(url))))
        failed = bool(result.get("is_error"))
        detail = result_detail(result)
        outcome: Outcome = "error" if failed else "ok"
        yield from self._emit(CallEvent(0, "navigate", shorten(url, 80), outcome, self.clock() - started, detail))
        if failed:
            return f"{task}\n\n(The browser could not open {url}: {detail})"
        return f"{task}\n\n(The browser is open at {url}.)"

    def _out_of_turns(self) -> bool:
        if self.turns < self.options.max_turns:
            return False
        self.stop_reason = "max_turns"
        return True

    def _converse(self, prompt: Message) -> _Part:
        turn = self._add([prompt])
        while not self._out_of_turns():
            calls = yield from self._reply(turn)
            if calls is None:
                return
            if not calls:
                # After a `pause_turn` reply nothing is new: the server resumes the turn it holds.
                turn = SendTurn(())
                continue
            if self._out_of_turns():
                return
            results: list[dict[str, Any]] = []
            failed = False
            for call in calls:
                if call.toolset_name != "browser":
                    results.append((yield from self._refuse(call)))
                elif failed:
                    results.append((yield from self._skip(call)))
                else:
                    result = yield from self._run(call)
                    failed = bool(result.get("is_error"))
                    results.append(result)
            answer: Message = {"role": "user", "content": results}
            trimmed, omitted = omit_old_images(
                [*self.messages, answer],
                turn=self.turns,
                max_images=self.options.max_images,
                keep=self.options.keep_images,
            )
            if omitted:
                yield from self._emit(ImagesOmitted(self.turns, omitted, count_images(trimmed)))
                turn = self._rewrite(trimmed[:-1], trimmed[-1:])
            else:
                turn = self._add([answer])

    def _add(self, messages: Sequence[Message]) -> SendTurn:
        """The turn that adds `messages` to the history; they are in the transcript even if it is never answered."""
        self.messages += messages
        return SendTurn(messages)

    def _rewrite(self, history: Sequence[Message], messages: Sequence[Message]) -> SendTurn:
        """The turn that replaces the history with `history` and adds `messages` to it."""
        self.messages = [*history, *messages]
        return SendTurn(messages, rewrite=history)

    def _reply(self, turn: SendTurn) -> _Part:
        """Send `turn` and account for the reply; returns the calls to answer, `[]` to resume a paused turn, or
        `None` to stop."""
        reply = _as_reply((yield turn))
        self.messages.append({"role": reply.role, "content": reply.content})
        self.turns += 1
        usage = reply.usage
        cached = usage.cache_read_input_tokens or 0
        self.input_tokens += usage.input_tokens + cached + (usage.cache_creation_input_tokens or 0)
        self.cached_input_tokens += cached
        self.output_tokens += usage.output_tokens
        texts = [block.text for block in reply.content if block.type == "text" and block.text.strip()]
        for text in texts:
            yield from self._emit(TextEvent(self.turns, text))
        self.final_text = "\n\n".join(texts)
        self.stop_reason = reply.stop_reason or "end_turn"
        if reply.stop_reason == "pause_turn":
            return []
        calls = [block for block in reply.content if block.type == "tool_use"]
        if reply.stop_reason != "tool_use" or not calls:
            return None
        return calls

    def _run(self, call: BetaToolUseBlock) -> _Part:
        started = self.clock()
        result = _as_result((yield RunCall(call)))
        failed = bool(result.get("is_error"))
        self.calls += 1
        self.errors += failed
        target = describe_target(call.name, call.input)
        seconds = self.clock() - started
        yield from self._emit(
            CallEvent(self.turns, call.name, target, "error" if failed else "ok", seconds, result_detail(result))
        )
        return dict(result)

    def _refuse(self, call: BetaToolUseBlock) -> _Part:
        """The answer to a call to a tool other than the browser."""
        self.calls += 1
        self.errors += 1
        yield from self._emit(CallEvent(self.turns, call.name, "", "error", 0.0, "not a browser call"))
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": f"Error: there is no tool named {call.name!r} in this session.",
            "is_error": True,
        }

    def _skip(self, call: BetaToolUseBlock) -> _Part:
        """The answer to a browser call after a failed one in the same turn."""
        self.not_executed += 1
        target = describe_target(call.name, call.input)
        yield from self._emit(CallEvent(self.turns, call.name, target, "not_executed", 0.0, ""))
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "toolset_name": call.toolset_name,
            "content": NOT_EXECUTED,
            "is_error": True,
        }
