"""`run_task`: give Claude a task and a browser, and run the conversation until it is done.

The SDK's tool runner is the simplest loop, but a long browser session needs three things it leaves to the caller,
so this is our own loop on the SDK's message threads (each turn sends only the new messages; the SDK handles the
thread protocol and its recovery):

- **Image limits.** The API counts every image in the conversation the model sees, earlier screenshots included,
  and rejects a request with more than 20 of them unless each is at most 2000x2000 px; images are also what makes a
  long run expensive. When the conversation would hold more than `max_images`, the oldest screenshots and zoom images
  are replaced by a short text (`[screenshot omitted: 7 turns old]`) until `keep_images` remain. That rewrites the
  history, which starts a new thread and invalidates the prompt cache from the first changed message on, so it is
  done in batches (with the defaults, once every ten screenshots) and never to the latest images.
- **Progress.** One event per browser call (member, target, outcome, time), Claude's text, and a final summary go to
  `on_event`; the default prints them to the terminal, or nothing with `quiet=True`.
- **Stopping.** At `max_turns`, on Ctrl-C and on an API error the run stops without raising, the browser is closed in
  every case, and the result says why it stopped.

Calls run in order with the batch rule: after the first failed browser call of a turn, the turn's later browser
calls are answered `Not executed: an earlier action in this turn failed.` A call to any other tool (Claude has none
here) is answered with an error. A `confirm` hook (such as `browser_toolset.safety.confirm.ActionGate`) is given to the
toolset when it is built, where the SDK checks it (it is required for `javascript_exec` and `file_upload`); the loop
runs every call through the toolset, so the hook sees each one before it runs, and a declined call is an ordinary
error result that Claude reads.

`arun_task` is the same loop for `AsyncAnthropic` and an async toolset (`AsyncBrowserToolset`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Generic, Literal, TextIO, TypeVar

import anthropic
import attrs
from anthropic.lib.threads import BetaAsyncMessageThread, BetaMessageThread
from anthropic.tools.browser import BetaAbstractBrowserToolset20260801, BetaAsyncAbstractBrowserToolset20260801
from anthropic.types.beta import BetaMessage, BetaToolUseBlock

from ..executor.batch import NOT_EXECUTED

__all__ = [
    "DEFAULT_MODEL",
    "CallEvent",
    "Event",
    "ImagesOmitted",
    "RunResult",
    "Summary",
    "TerminalPrinter",
    "TextEvent",
    "add_arguments",
    "arun_task",
    "describe_target",
    "omit_old_images",
    "run_from_args",
    "run_task",
]

DEFAULT_MODEL: Final = "claude-opus-5-5"
DEFAULT_MAX_TOKENS: Final = 4096
DEFAULT_MAX_TURNS: Final = 50
MAX_IMAGES: Final = 20
"""The API's threshold: above 20 images in a request, each must be at most 2000x2000 px."""
KEEP_IMAGES: Final = 10
DETAIL_MAX: Final = 200

Outcome = Literal["ok", "error", "not_executed"]


# --- Events and the result -----------------------------------------------------------------------------------------


@attrs.frozen
class CallEvent:
    """One browser call: `turn` is the assistant turn that asked for it (0 for the start page), `target` a short
    description of what it acted on, `detail` the first line of what Claude reads back."""

    turn: int
    member: str
    target: str
    outcome: Outcome
    seconds: float
    detail: str


@attrs.frozen
class TextEvent:
    """Text Claude wrote in a turn."""

    turn: int
    text: str


@attrs.frozen
class ImagesOmitted:
    """Older images were replaced by placeholders before `turn`'s results went out."""

    turn: int
    omitted: int
    kept: int


@attrs.frozen
class Summary:
    """How the run ended. `calls`, `errors` and `not_executed` count Claude's calls (not the loop's own opening of
    the start page); `input_tokens` counts every input token the API reported, `cached_input_tokens` the part of
    them read from the prompt cache."""

    stop_reason: str
    turns: int
    calls: int
    errors: int
    not_executed: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    elapsed: float
    error: str | None = None


Event = CallEvent | TextEvent | ImagesOmitted | Summary


@attrs.frozen
class RunResult:
    """A finished run.

    `stop_reason` is the model's last `stop_reason` (`end_turn`, `max_tokens`, `refusal`, ...) or one of the loop's
    own: `max_turns`, `interrupted`, `api_error`. `messages` is the conversation as it was last sent, as plain JSON
    values (older images already replaced by their placeholders), ending with Claude's last reply. `final_text` is the
    text of that reply."""

    summary: Summary
    messages: tuple[Mapping[str, Any], ...]
    final_text: str
    events: tuple[Event, ...]

    @property
    def stop_reason(self) -> str:
        return self.summary.stop_reason

    @property
    def turns(self) -> int:
        return self.summary.turns

    @property
    def calls(self) -> int:
        return self.summary.calls

    @property
    def errors(self) -> int:
        return self.summary.errors

    @property
    def error(self) -> str | None:
        return self.summary.error


# --- Describing calls ----------------------------------------------------------------------------------------------


def _field(value: object, name: str) -> Any:
    """A field of a content block or input, whether it is a dict or an SDK model."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _short(text: object, limit: int = 40) -> str:
    folded = " ".join(str(text).split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def _point(target: object) -> str:
    if _field(target, "type") == "ref":
        return str(_field(target, "ref"))
    return f"({_field(target, 'x')}, {_field(target, 'y')})"


def describe_target(member: str, input: object) -> str:
    """What a call acts on, in a few words: the URL, the ref or coordinate, the text typed, the query, the tab."""
    target = _field(input, "target")
    if member == "navigate":
        return _short(_field(input, "url"), 80)
    if member == "left_click_drag":
        return f"{_point(_field(input, 'from'))} → {_point(target)}"
    if member == "scroll" and target is not None:
        return f"{_point(target)} {_field(input, 'scroll_direction')}"
    if member == "form_input" and target is not None:
        return f"{_point(target)} = {_short(json.dumps(_field(input, 'value')))}"
    if target is not None:
        return _point(target)
    for name in ("text", "query", "region", "duration", "ref", "filter"):
        value = _field(input, name)
        if value is not None:
            return _short(json.dumps(value) if name in ("text", "query") else value)
    tab_id = _field(input, "tab_id")
    return str(tab_id) if tab_id is not None else ""


def _result_text(result: Mapping[str, Any]) -> str:
    """The first line of the first text Claude reads in a result."""
    content = result.get("content")
    texts = [content] if isinstance(content, str) else [_field(b, "text") for b in content or ()]
    for text in texts:
        if isinstance(text, str) and text.strip():
            return _short(text.strip().splitlines()[0], DETAIL_MAX)
    return ""


# --- Keeping images within the limits ------------------------------------------------------------------------------


@attrs.frozen
class _Image:
    message: int
    result: int
    block: int
    turn: int
    member: str


def _replaceable_images(messages: Sequence[Mapping[str, Any]]) -> tuple[int, list[_Image]]:
    """How many images the conversation holds, and those inside browser results, oldest first, with the turn that
    produced each."""
    total = 0
    found: list[_Image] = []
    turn = 0
    members: dict[str, str] = {}
    for number, message in enumerate(messages):
        if message.get("role") == "assistant":
            turn += 1
        content = message.get("content")
        for index, block in enumerate(content if isinstance(content, list) else ()):
            kind = _field(block, "type")
            if kind == "tool_use":
                members[str(_field(block, "id"))] = str(_field(block, "name"))
            elif kind == "image":
                total += 1
            elif kind == "tool_result":
                inner = _field(block, "content")
                for position, nested in enumerate(inner if isinstance(inner, list) else ()):
                    if _field(nested, "type") != "image":
                        continue
                    total += 1
                    if _field(block, "toolset_name") == "browser" and message.get("role") == "user":
                        member = members.get(str(_field(block, "tool_use_id")), "screenshot")
                        found.append(_Image(number, index, position, turn, member))
    return total, found


def _placeholder(image: _Image, turn: int) -> dict[str, str]:
    age = turn - image.turn
    what = "zoom image" if image.member == "zoom" else "screenshot"
    return {"type": "text", "text": f"[{what} omitted: {age} turn{'' if age == 1 else 's'} old]"}


def omit_old_images(
    messages: Sequence[Mapping[str, Any]], *, turn: int, max_images: int = MAX_IMAGES, keep: int = KEEP_IMAGES
) -> tuple[list[Mapping[str, Any]], int]:
    """`messages` with images of browser results replaced, oldest first, by a placeholder saying how many turns old
    they are (`turn` is the current turn), and how many were replaced.

    Nothing changes while the conversation holds at most `max_images` images; past that, images are replaced until
    `keep` remain, so that the next rewrite of the history (which costs the prompt cache from that point on) is
    `max_images - keep` screenshots away. Messages that change are copied; the others are returned as they are."""
    if not 0 <= keep <= max_images:
        raise ValueError(f"keep_images must be between 0 and max_images ({max_images}), not {keep}")
    total, replaceable = _replaceable_images(messages)
    if total <= max_images:
        return list(messages), 0
    chosen = replaceable[: max(0, total - keep)]
    if not chosen:
        return list(messages), 0
    by_message: dict[int, list[_Image]] = {}
    for image in chosen:
        by_message.setdefault(image.message, []).append(image)
    rewritten = list(messages)
    for number, images in by_message.items():
        message = dict(messages[number])
        content = list(message["content"])
        for image in images:
            result = dict(content[image.result])
            inner = list(result["content"])
            inner[image.block] = _placeholder(image, turn)
            result["content"] = inner
            content[image.result] = result
        message["content"] = content
        rewritten[number] = message
    return rewritten, len(chosen)


# --- Printing and confirming on a terminal -------------------------------------------------------------------------


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@attrs.define
class TerminalPrinter:
    """The default `on_event`: one line per call, Claude's text, and the summary, on `stream` (standard error by
    default, so that standard output stays free for the answer). `quiet` prints nothing."""

    stream: TextIO | None = None
    quiet: bool = False

    def __call__(self, event: Event) -> None:
        if self.quiet:
            return
        line = self.format(event)
        stream = self.stream if self.stream is not None else sys.stderr
        print(line, file=stream, flush=True)

    @staticmethod
    def format(event: Event) -> str:
        if isinstance(event, CallEvent):
            head = f"  [{event.turn:>3}] {event.member} {event.target}".rstrip()
            if event.outcome == "not_executed":
                return f"{head}  not executed"
            tail = f": {event.detail}" if event.outcome == "error" and event.detail else ""
            return f"{head}  {event.outcome} {event.seconds:.2f}s{tail}"
        if isinstance(event, TextEvent):
            return "Claude: " + event.text.strip().replace("\n", "\n        ")
        if isinstance(event, ImagesOmitted):
            return f"  [{event.turn:>3}] omitted {event.omitted} older images ({event.kept} kept)"
        cached = f" ({event.cached_input_tokens:,} cached)" if event.cached_input_tokens else ""
        failure = f": {event.error}" if event.error else ""
        verb = "Finished" if event.stop_reason == "end_turn" else "Stopped"
        return (
            f"{verb} ({event.stop_reason}{failure}) after {_count(event.turns, 'turn')}: "
            f"{_count(event.calls, 'call')}, {_count(event.errors, 'error')}, {event.not_executed} not executed; "
            f"tokens in {event.input_tokens:,}{cached} / out {event.output_tokens:,}; {event.elapsed:.1f}s"
        )


# --- The run's bookkeeping, shared by the sync and async loops -----------------------------------------------------


def _is_browser_call(call: BetaToolUseBlock) -> bool:
    return call.toolset_name == "browser"


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


class _Run:
    """Counts, events and the per-turn batch rule of one run; the loops do the I/O."""

    def __init__(
        self,
        *,
        on_event: Callable[[Event], None],
        max_turns: int,
        max_images: int,
        keep_images: int,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, not {max_turns}")
        if not 0 <= keep_images <= max_images:
            raise ValueError(f"keep_images must be between 0 and max_images ({max_images}), not {keep_images}")
        self.on_event = on_event
        self.max_turns = max_turns
        self.max_images = max_images
        self.keep_images = keep_images
        self.started = time.monotonic()
        self.events: list[Event] = []
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
        self._failed = False

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.on_event(event)

    def opened(self, task: str, url: str, result: Mapping[str, Any], started: float) -> str:
        """Report the loop's own opening of the start page, and return the prompt that tells Claude about it."""
        failed = bool(result.get("is_error"))
        detail = _result_text(result)
        seconds = time.monotonic() - started
        self.emit(CallEvent(0, "navigate", _short(url, 80), "error" if failed else "ok", seconds, detail))
        if failed:
            return f"{task}\n\n(The browser could not open {url}: {detail})"
        return f"{task}\n\n(The browser is open at {url}.)"

    def out_of_turns(self) -> bool:
        if self.turns < self.max_turns:
            return False
        self.stop_reason = "max_turns"
        return True

    def reply(self, message: BetaMessage) -> list[BetaToolUseBlock] | None:
        """Account for one reply; returns the calls to answer, `[]` to resume a paused turn, or `None` to stop."""
        self.turns += 1
        usage = message.usage
        cached = usage.cache_read_input_tokens or 0
        self.input_tokens += usage.input_tokens + cached + (usage.cache_creation_input_tokens or 0)
        self.cached_input_tokens += cached
        self.output_tokens += usage.output_tokens
        texts = [block.text for block in message.content if block.type == "text" and block.text.strip()]
        for text in texts:
            self.emit(TextEvent(self.turns, text))
        self.final_text = "\n\n".join(texts)
        self.stop_reason = message.stop_reason or "end_turn"
        if message.stop_reason == "pause_turn":
            return []
        calls = [block for block in message.content if block.type == "tool_use"]
        if message.stop_reason != "tool_use" or not calls:
            return None
        self._failed = False
        return calls

    def answer_without_running(self, call: BetaToolUseBlock) -> dict[str, Any] | None:
        """The answer to a call that is not to run (a call to another tool, or a browser call after a failure in the
        same turn), or `None` for one to run."""
        if not _is_browser_call(call):
            self.calls += 1
            self.errors += 1
            self.emit(CallEvent(self.turns, call.name, "", "error", 0.0, "not a browser call"))
            return {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": f"Error: there is no tool named {call.name!r} in this session.",
                "is_error": True,
            }
        if not self._failed:
            return None
        self.not_executed += 1
        self.emit(CallEvent(self.turns, call.name, describe_target(call.name, call.input), "not_executed", 0.0, ""))
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "toolset_name": call.toolset_name,
            "content": NOT_EXECUTED,
            "is_error": True,
        }

    def ran(self, call: BetaToolUseBlock, result: Mapping[str, Any], started: float) -> dict[str, Any]:
        """Account for a call that ran, and return its result."""
        failed = bool(result.get("is_error"))
        self.calls += 1
        self.errors += failed
        self._failed = self._failed or failed
        target = describe_target(call.name, call.input)
        seconds = time.monotonic() - started
        self.emit(CallEvent(self.turns, call.name, target, "error" if failed else "ok", seconds, _result_text(result)))
        return dict(result)

    def history_after(
        self, messages: Sequence[Mapping[str, Any]], results: list[dict[str, Any]]
    ) -> tuple[list[Mapping[str, Any]], bool]:
        """The history to send next, and whether it rewrites what was sent before."""
        history = [*messages, {"role": "user", "content": results}]
        trimmed, omitted = omit_old_images(history, turn=self.turns, max_images=self.max_images, keep=self.keep_images)
        if omitted:
            self.emit(ImagesOmitted(self.turns, omitted, _replaceable_images(trimmed)[0]))
        return trimmed, bool(omitted)

    def stopped(self, reason: str, error: str | None = None) -> None:
        self.stop_reason = reason
        self.error = error

    def finish(self, messages: Sequence[Any]) -> RunResult:
        summary = Summary(
            stop_reason=self.stop_reason,
            turns=self.turns,
            calls=self.calls,
            errors=self.errors,
            not_executed=self.not_executed,
            input_tokens=self.input_tokens,
            cached_input_tokens=self.cached_input_tokens,
            output_tokens=self.output_tokens,
            elapsed=time.monotonic() - self.started,
            error=self.error,
        )
        self.emit(summary)
        return RunResult(
            summary=summary,
            messages=tuple(_plain(list(messages))),
            final_text=self.final_text,
            events=tuple(self.events),
        )


def _request(
    *,
    model: str,
    max_tokens: int,
    tools: Mapping[str, Any],
    prompt: str,
    system: str | None,
    cache: bool,
    extra_params: Mapping[str, Any] | None,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        **(extra_params or {}),
        "model": model,
        "max_tokens": max_tokens,
        "tools": [dict(tools)],
        "messages": [{"role": "user", "content": prompt}],
    }
    if system is not None:
        params["system"] = system
    if cache:
        params.setdefault("cache_control", {"type": "ephemeral"})
    return params


# --- The conversation: a message thread, or the whole history sent each time ---------------------------------------


ThreadT = TypeVar("ThreadT", BetaMessageThread[None], BetaAsyncMessageThread[None])


class _History(Generic[ThreadT]):
    """The history of a run. With `threads`, an SDK message thread holds it (the server keeps it, so each request
    carries only the new messages); without, it is kept here and sent whole with every request, for clients that
    have no message threads."""

    def __init__(self, params: Mapping[str, Any], threads: bool) -> None:
        self._params = {key: value for key, value in params.items() if key != "messages"}
        self._messages: list[Any] = list(params["messages"])
        self._thread: ThreadT | None = None
        if threads:
            self._thread = self._new_thread({**params, "unsupported_request_behavior": "continue_unthreaded"})

    def _new_thread(self, params: dict[str, Any]) -> ThreadT:
        raise NotImplementedError

    @property
    def messages(self) -> list[Any]:
        return list(self._thread.messages) if self._thread is not None else list(self._messages)

    def append(self, message: Mapping[str, Any]) -> None:
        if self._thread is not None:
            self._thread.append(dict(message))  # type: ignore[arg-type]
        else:
            self._messages.append(message)

    def replace(self, messages: list[Mapping[str, Any]]) -> None:
        """Rewrite the history; a thread cannot be rewritten, so a new one starts from it."""
        if self._thread is not None:
            self._thread = self._new_thread({**self._thread.params, "messages": messages})
        else:
            self._messages = list(messages)


class _Conversation(_History[BetaMessageThread[None]]):
    def __init__(self, client: anthropic.Anthropic, params: Mapping[str, Any], threads: bool) -> None:
        self._client = client
        super().__init__(params, threads)

    def _new_thread(self, params: dict[str, Any]) -> BetaMessageThread[None]:
        return self._client.beta.messages.thread(**params)

    def send(self) -> BetaMessage:
        if self._thread is not None:
            return self._thread.send()
        reply: BetaMessage = self._client.beta.messages.create(**self._params, messages=self._messages)
        self._messages.append({"role": "assistant", "content": reply.content})
        return reply


class _AsyncConversation(_History[BetaAsyncMessageThread[None]]):
    def __init__(self, client: anthropic.AsyncAnthropic, params: Mapping[str, Any], threads: bool) -> None:
        self._client = client
        super().__init__(params, threads)

    def _new_thread(self, params: dict[str, Any]) -> BetaAsyncMessageThread[None]:
        return self._client.beta.messages.thread(**params)

    async def send(self) -> BetaMessage:
        if self._thread is not None:
            return await self._thread.send()
        reply: BetaMessage = await self._client.beta.messages.create(**self._params, messages=self._messages)
        self._messages.append({"role": "assistant", "content": reply.content})
        return reply


# --- The loops -----------------------------------------------------------------------------------------------------


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
    the module docstring). `threads=False` sends the whole history each turn, for clients without message threads.
    `cache` asks for prompt caching of the conversation; `extra_params` are passed to every request (`thinking`,
    `betas`, `metadata`, ...)."""
    run = _Run(
        on_event=on_event if on_event is not None else TerminalPrinter(quiet=quiet),
        max_turns=max_turns,
        max_images=max_images,
        keep_images=keep_images,
    )
    conversation: _Conversation | None = None
    try:
        try:
            prompt = task
            if start_url is not None:
                started = time.monotonic()
                prompt = run.opened(task, start_url, toolset.tool_result(_start_call(start_url)), started)
            params = _request(
                model=model,
                max_tokens=max_tokens,
                tools=toolset.to_dict(),
                prompt=prompt,
                system=system,
                cache=cache,
                extra_params=extra_params,
            )
            conversation = _Conversation(client if client is not None else anthropic.Anthropic(), params, threads)
            while not run.out_of_turns():
                calls = run.reply(conversation.send())
                if calls is None:
                    break
                if not calls:
                    continue
                if run.out_of_turns():
                    break
                results: list[dict[str, Any]] = []
                for call in calls:
                    answer = run.answer_without_running(call)
                    if answer is None:
                        started = time.monotonic()
                        answer = run.ran(call, toolset.tool_result(call), started)
                    results.append(answer)
                history, rewritten = run.history_after(conversation.messages, results)
                if rewritten:
                    conversation.replace(history)
                else:
                    conversation.append(history[-1])
        except KeyboardInterrupt:
            run.stopped("interrupted")
        except anthropic.APIError as exc:
            run.stopped("api_error", str(exc))
    finally:
        toolset.close()
    return run.finish(conversation.messages if conversation is not None else [])


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
    run = _Run(
        on_event=on_event if on_event is not None else TerminalPrinter(quiet=quiet),
        max_turns=max_turns,
        max_images=max_images,
        keep_images=keep_images,
    )
    conversation: _AsyncConversation | None = None
    try:
        try:
            prompt = task
            if start_url is not None:
                started = time.monotonic()
                prompt = run.opened(task, start_url, await toolset.tool_result(_start_call(start_url)), started)
            params = _request(
                model=model,
                max_tokens=max_tokens,
                tools=toolset.to_dict(),
                prompt=prompt,
                system=system,
                cache=cache,
                extra_params=extra_params,
            )
            client = client if client is not None else anthropic.AsyncAnthropic()
            conversation = _AsyncConversation(client, params, threads)
            while not run.out_of_turns():
                calls = run.reply(await conversation.send())
                if calls is None:
                    break
                if not calls:
                    continue
                if run.out_of_turns():
                    break
                results: list[dict[str, Any]] = []
                for call in calls:
                    answer = run.answer_without_running(call)
                    if answer is None:
                        started = time.monotonic()
                        answer = run.ran(call, await toolset.tool_result(call), started)
                    results.append(answer)
                history, rewritten = run.history_after(conversation.messages, results)
                if rewritten:
                    conversation.replace(history)
                else:
                    conversation.append(history[-1])
        except KeyboardInterrupt:
            run.stopped("interrupted")
        except anthropic.APIError as exc:
            run.stopped("api_error", str(exc))
    finally:
        await toolset.close()
    return run.finish(conversation.messages if conversation is not None else [])


# --- Command line --------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The loop's options of `browser-toolset run`; the CLI adds the driver's options and builds the toolset."""
    parser.add_argument("task", help="what Claude should do in the browser")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="default: %(default)s")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="per reply (default %(default)s)")
    parser.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="default: %(default)s")
    parser.add_argument("--start-url", help="open this page before the first request")
    parser.add_argument("--system", help="a system prompt")
    parser.add_argument("--max-images", type=int, default=MAX_IMAGES, help="images kept before older ones go")
    parser.add_argument("--keep-images", type=int, default=KEEP_IMAGES, help="images left after older ones go")
    parser.add_argument("--no-threads", action="store_true", help="send the whole history with every request")
    parser.add_argument("--transcript", help="write the conversation to this file as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only Claude's final answer")


EXIT_CODES: Final[Mapping[str, int]] = {"end_turn": 0, "stop_sequence": 0, "interrupted": 130}


def run_from_args(
    args: argparse.Namespace,
    toolset: BetaAbstractBrowserToolset20260801,
    *,
    client: anthropic.Anthropic | None = None,
    out: TextIO | None = None,
) -> int:
    """Run `browser-toolset run` on a toolset the CLI built: progress on standard error, Claude's final answer on
    standard output. Exits 0 when Claude finished, 130 when interrupted, 1 otherwise."""
    result = run_task(
        toolset,
        args.task,
        client=client,
        model=args.model,
        max_tokens=args.max_tokens,
        max_turns=args.max_turns,
        start_url=args.start_url,
        system=args.system,
        quiet=args.quiet,
        max_images=args.max_images,
        keep_images=args.keep_images,
        threads=not args.no_threads,
    )
    if args.transcript:
        Path(args.transcript).write_text(json.dumps(list(result.messages), ensure_ascii=False, indent=1), "utf-8")
    if result.final_text:
        print(result.final_text, file=out if out is not None else sys.stdout)
    return EXIT_CODES.get(result.stop_reason, 1)
