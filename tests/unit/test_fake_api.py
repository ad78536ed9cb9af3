"""The fake Messages API: it speaks message threads as the SDK uses them, and rejects what the API would reject.

Every rejection test first sends the unbroken request and sees it accepted, so the one change it then makes is what
the fake API objects to.
"""

from __future__ import annotations

import base64
import copy
import io
import itertools
import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from PIL import Image

from browser_toolset import BrowserToolset, run_batch
from browser_toolset.cli import main as cli_main
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.testing.fake_api import END_OF_SCRIPT, FakeMessagesAPI, RecordedRequest, ScriptError, load_script

SCRIPTS = Path(__file__).parent.parent / "scripts"
MODEL = "claude-opus-5-5"
TOOLS: list[Any] = [{"type": "browser_toolset_20260801"}]
NOT_EXECUTED = "Not executed: an earlier action in this turn failed."


def main(argv: list[str]) -> int:
    """`python -m browser_toolset.testing.fake_api ARGV`, which is `browser-toolset fake-api ARGV`."""
    return cli_main(["fake-api", *argv])


def shop_driver() -> MockDriver:
    return MockDriver.from_json(SCRIPTS / "shop_site.json", sleep=lambda seconds: None)


def client_for(api: FakeMessagesAPI) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)


def png(width: int, height: int) -> dict[str, Any]:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, "PNG")
    data = base64.b64encode(buffer.getvalue()).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def call(name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "toolset_name": "browser", "name": name, "input": input}


BETA = {"anthropic-beta": "message-threads-2026-08-12"}


def creating(messages: list[Any], **fields: Any) -> dict[str, Any]:
    """The body of a request that creates a thread."""
    return {"model": MODEL, "max_tokens": 10, "thread": {"type": "create"}, "messages": messages, **fields}


def continuing(previous: RecordedRequest, messages: list[Any]) -> dict[str, Any]:
    """The body of a request that continues the thread from `previous`'s reply."""
    thread = {"type": "continue", "previous_message_id": previous.response["id"]}
    return {"model": MODEL, "max_tokens": 10, "thread": thread, "messages": messages}


# --- Threads, as the SDK's tool runner uses them -------------------------------------------------------------------


def test_the_sdk_tool_runner_runs_a_whole_session_against_it() -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api, BrowserToolset(shop_driver()) as toolset:
        runner = client_for(api).beta.messages.tool_runner(
            model=MODEL,
            max_tokens=1024,
            tools=[toolset],
            system="You use a browser.",
            messages=[{"role": "user", "content": "What do hats cost?"}],
        )
        replies = list(runner)
        requests = api.requests

    assert replies[-1].stop_reason == "end_turn"
    assert replies[-1].content[0].type == "text"
    assert [r.status for r in requests] == [200] * 7, [r.error for r in requests]
    assert [r.turn for r in requests] == list(range(7))

    first, *later = requests
    assert first.thread == "create"
    assert first.body["tools"] == [{"type": "browser_toolset_20260801"}]
    assert first.body["system"] == "You use a browser."
    assert "message-threads-2026-08-12" in first.headers["anthropic-beta"]
    for request in later:
        assert request.thread == "continue"
        assert "tools" not in request.body and "system" not in request.body
        assert request.body["thread"]["previous_message_id"] == requests[request.number - 2].response["id"]
        # Only the new message goes out: the tool results answering the previous reply.
        (message,) = request.body["messages"]
        assert message["role"] == "user"
        assert {block["type"] for block in message["content"]} == {"tool_result"}


def test_usage_is_plausible_and_a_continued_thread_reads_from_the_cache() -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api, BrowserToolset(shop_driver()) as toolset:
        runner = client_for(api).beta.messages.tool_runner(
            model=MODEL, max_tokens=1024, tools=[toolset], messages=[{"role": "user", "content": "Go."}]
        )
        usages = [reply.usage for reply in runner]

    # The toolset declaration alone is about 6,600 input tokens.
    assert 6600 <= usages[0].input_tokens < 7000
    assert usages[0].cache_read_input_tokens == 0
    for before, after in itertools.pairwise(usages):
        assert after.cache_read_input_tokens is not None
        assert after.cache_read_input_tokens > (before.cache_read_input_tokens or 0)
        assert after.input_tokens < 2000
    assert all(usage.output_tokens > 0 for usage in usages)


def test_a_lost_thread_is_answered_thread_not_found_and_the_sdk_replays_the_history() -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api, BrowserToolset(shop_driver()) as toolset:
        runner = client_for(api).beta.messages.tool_runner(
            model=MODEL, max_tokens=1024, tools=[toolset], messages=[{"role": "user", "content": "Go."}]
        )
        replies = []
        for reply in runner:
            replies.append(reply)
            if len(replies) == 3:
                api.forget_threads()
        requests = api.requests

    assert replies[-1].stop_reason == "end_turn"
    lost = next(r for r in requests if r.status != 200)
    assert lost.status == 404
    assert lost.response["error"]["details"] == {"error_code": "thread_not_found"}
    replay = requests[lost.number]  # the request right after it
    assert replay.status == 200 and replay.thread == "create"
    assert replay.turn == 3
    assert len(replay.body["messages"]) == 7  # the task, then three replies and their results
    assert [r.status for r in requests].count(200) == 7


def test_a_reply_can_be_continued_only_once() -> None:
    api = FakeMessagesAPI(load_script([[call("screenshot")], [call("screenshot")], [{"type": "text", "text": "ok"}]]))
    first = api.answer(BETA, creating([{"role": "user", "content": "Look."}], tools=TOOLS))
    assert first.status == 200
    tool_use = first.response["content"][0]
    with BrowserToolset(shop_driver()) as toolset:
        answer = run_batch(toolset, first.response)
    body = continuing(first, [answer])

    assert api.answer(BETA, body).status == 200
    again = api.answer(BETA, body)
    assert again.status == 409
    assert again.response["error"]["details"] == {"error_code": "thread_already_continued"}
    assert tool_use["id"] == "toolu_fake_000_00"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda body: body.update(tools=TOOLS), "tools: cannot be set when continuing a thread"),
        (lambda body: body.update(system="Hi"), "system: cannot be set when continuing a thread"),
        (lambda body: body["thread"].update(previous_message_id="msg_nope"), "no thread holds a message 'msg_nope'"),
        (lambda body: body.update(stream=True), "only non-streaming requests"),
        (lambda body: body.pop("max_tokens"), "max_tokens: Field required"),
    ],
)
def test_continue_requests_are_checked(change: Callable[[dict[str, Any]], object], message: str) -> None:
    api = FakeMessagesAPI(load_script([[{"type": "text", "text": "Hello."}], [{"type": "text", "text": "Again."}]]))
    first = api.answer(BETA, creating([{"role": "user", "content": "Hi."}]))
    body = continuing(first, [{"role": "user", "content": "And?"}])
    broken = copy.deepcopy(body)
    change(broken)

    rejected = api.answer(BETA, broken)
    assert rejected.status in (400, 404)
    assert message in rejected.response["error"]["message"]
    assert api.answer(BETA, body).status == 200


def test_a_thread_needs_the_threads_beta() -> None:
    api = FakeMessagesAPI(load_script([[{"type": "text", "text": "Hello."}]]))
    body = {
        "model": MODEL,
        "max_tokens": 10,
        "thread": {"type": "create"},
        "messages": [{"role": "user", "content": "Hi"}],
    }
    rejected = api.answer({}, body)
    assert rejected.status == 400
    assert "message-threads-2026-08-12" in str(rejected.error)
    assert api.answer({"anthropic-beta": "other-beta,message-threads-2026-08-12"}, body).status == 200


def test_past_the_end_of_the_script_every_answer_ends_the_turn() -> None:
    api = FakeMessagesAPI(load_script([]))
    record = api.answer({}, {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "Hi"}]})
    assert record.status == 200
    assert record.response["stop_reason"] == "end_turn"
    assert record.response["content"] == [{"type": "text", "text": END_OF_SCRIPT}]


# --- Broken tool results are rejected with the specific message ----------------------------------------------------


def drop_toolset_name(results: list[dict[str, Any]]) -> None:
    del results[0]["toolset_name"]


def state_on_error(results: list[dict[str, Any]]) -> None:
    state = next(block for block in results[1]["content"] if block["type"] == "browser_state")
    results[2]["content"] = [{"type": "text", "text": "Error: it failed."}, state]


def unanswered(results: list[dict[str, Any]]) -> None:
    del results[3]


def batch_rule(results: list[dict[str, Any]]) -> None:
    results[3] = {**results[3], "content": [{"type": "text", "text": "Took a screenshot."}], "is_error": False}


def out_of_order(results: list[dict[str, Any]]) -> None:
    results[0], results[1] = results[1], results[0]


def text_on_new_tab(results: list[dict[str, Any]]) -> None:
    results[1]["content"] = [{"type": "text", "text": "Opened."}, *results[1]["content"]]


def huge_image(results: list[dict[str, Any]]) -> None:
    results[0]["content"] = [png(8001, 8), *results[0]["content"]]


def foreign_result(results: list[dict[str, Any]]) -> None:
    results.append({"type": "tool_result", "tool_use_id": "toolu_other", "content": "hi"})


BREAKAGES: list[tuple[Callable[[list[dict[str, Any]]], None], str]] = [
    (drop_toolset_name, "messages.2: tool_result['toolu_fake_000_00'].toolset_name: must echo 'browser', got None"),
    (state_on_error, "tool_result['toolu_fake_000_02'].content[1]: browser_state on an is_error result"),
    (
        unanswered,
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_fake_000_03",
    ),
    (batch_rule, "every later browser call must be answered with is_error: true and exactly 'Not executed"),
    (out_of_order, "browser tool_results are out of order"),
    (text_on_new_tab, "a successful new_tab result must be exactly one browser_state block, got 2 block(s)"),
    (huge_image, "image is 8001x8 px; the limit is 8000x8000"),
    (foreign_result, "unexpected `tool_use_id` found in `tool_result` blocks: toolu_other"),
]


@pytest.mark.parametrize(("breakage", "message"), BREAKAGES, ids=[b.__name__ for b, _ in BREAKAGES])
def test_a_broken_tool_result_is_rejected_with_the_specific_message(
    breakage: Callable[[list[dict[str, Any]]], None], message: str
) -> None:
    # One turn: a navigation, a new tab, a click on a ref that does not exist (it fails), and a screenshot that the
    # batch rule leaves unexecuted.
    turn = [
        call("navigate", url="https://shop.test/"),
        call("new_tab"),
        call("left_click", target={"type": "ref", "ref": "ref_9"}),
        call("screenshot"),
    ]
    with FakeMessagesAPI(load_script([turn, [{"type": "text", "text": "Done."}]])) as api:
        thread = client_for(api).beta.messages.thread(
            model=MODEL, max_tokens=1024, tools=TOOLS, messages=[{"role": "user", "content": "Go."}]
        )
        reply = thread.send()
        with BrowserToolset(shop_driver()) as toolset:
            answer = run_batch(toolset, reply)
        assert answer["content"][3]["content"] == NOT_EXECUTED

        broken = copy.deepcopy(answer["content"])
        breakage(broken)
        with pytest.raises(anthropic.BadRequestError) as raised:
            thread.send({"role": "user", "content": broken})
        assert thread.send(answer).stop_reason == "end_turn"  # type: ignore[arg-type]

    body = raised.value.body
    assert isinstance(body, dict)
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert message in body["error"]["message"]
    assert [r.status for r in api.requests] == [200, 400, 200]


# --- Image limits over the whole conversation ----------------------------------------------------------------------


def screenshots_turn(count: int) -> list[dict[str, Any]]:
    return [{**call("screenshot"), "id": f"toolu_shot_{n}"} for n in range(count)]


def screenshot_results(count: int, large: int | None = None) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": f"toolu_shot_{n}",
                "toolset_name": "browser",
                "content": [png(2100, 8) if n == large else png(40, 30)],
            }
            for n in range(count)
        ],
    }


@pytest.mark.parametrize(("images", "accepted"), [(20, True), (21, False)])
def test_above_twenty_images_each_must_fit_2000_px(images: int, accepted: bool) -> None:
    api = FakeMessagesAPI(load_script([screenshots_turn(images), [{"type": "text", "text": "Seen."}]]))
    messages = [
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": screenshots_turn(images)},
        screenshot_results(images, large=0),
    ]
    record = api.answer({}, {"model": MODEL, "max_tokens": 10, "tools": TOOLS, "messages": messages})
    assert record.images_in_context == images
    if accepted:
        assert record.status == 200, record.error
    else:
        assert record.status == 400
        assert "image is 2100x8 px; the limit is 2000x2000" in str(record.error)


def test_images_a_thread_holds_count_and_are_held_to_the_stricter_limit() -> None:
    script = load_script([screenshots_turn(1), screenshots_turn(20), [{"type": "text", "text": "Seen."}]])
    api = FakeMessagesAPI(script)
    first = api.answer(BETA, creating([{"role": "user", "content": "Look."}], tools=TOOLS))
    second = api.answer(BETA, continuing(first, [screenshot_results(1, large=0)]))
    assert second.status == 200
    third = api.answer(BETA, continuing(second, [screenshot_results(20)]))
    assert (third.images_sent, third.images_in_context) == (20, 21)
    assert third.status == 400
    assert "holds 21 images, more than 20, so each must be at most 2000x2000 px" in str(third.error)
    assert "an earlier image is 2100x8 px" in str(third.error)


def test_too_many_images_are_rejected() -> None:
    api = FakeMessagesAPI(load_script([screenshots_turn(5), [{"type": "text", "text": "Seen."}]]), max_images=4)
    messages = [
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": screenshots_turn(5)},
        screenshot_results(5),
    ]
    record = api.answer({}, {"model": MODEL, "max_tokens": 10, "tools": TOOLS, "messages": messages})
    assert record.status == 400
    assert record.error == "messages: too many images in the request (5); the maximum is 4"


# --- The browser toolset entry -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{"type": "browser_toolset_20260801", "name": "browser"}], "does not accept 'name'"),
        ([{"type": "browser_toolset_20260801"}] * 2, "at most one browser toolset entry"),
        (
            [{"type": "browser_toolset_20260801", "configs": {"fly": {"enabled": True}}}],
            "'fly' is not a browser member",
        ),
        ([{"type": "browser_toolset_20260801", "configs": {"navigate": {"strict": True}}}], "only 'enabled' and"),
        ([{"type": "custom", "name": "browser", "input_schema": {"type": "object"}}], "'browser' is reserved"),
        ([], "declares no browser_toolset_20260801 tool"),
    ],
)
def test_the_toolset_entry_is_checked(tools: list[Any], message: str) -> None:
    api = FakeMessagesAPI(load_script([[call("screenshot")]]))
    body = {"model": MODEL, "max_tokens": 10, "tools": tools, "messages": [{"role": "user", "content": "Hi"}]}
    record = api.answer({}, body)
    assert record.status == 400
    assert message in str(record.error)
    assert api.answer({}, {**body, "tools": TOOLS}).status == 200


# --- Scripts -------------------------------------------------------------------------------------------------------


def test_script_turns_fill_in_ids_and_stop_reasons() -> None:
    script = load_script(
        [
            [{"type": "text", "text": "a"}, call("screenshot")],
            {"content": [{"type": "text", "text": "b"}], "stop_reason": "max_tokens"},
        ]
    )
    assert [turn.stop_reason for turn in script] == ["tool_use", "max_tokens"]
    api = FakeMessagesAPI(script)
    reply = api.answer(
        {}, {"model": MODEL, "max_tokens": 5, "tools": TOOLS, "messages": [{"role": "user", "content": "Hi"}]}
    )
    assert reply.response["content"][1] == {**call("screenshot"), "id": "toolu_fake_000_01"}


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ({"turns": []}, "a script is a JSON list of turns"),
        ([[]], "script[0]: a turn is a non-empty list"),
        ([[call("fly")]], "script[0][0]: 'fly' is not a browser member"),
        ([[{"type": "image"}]], "script[0][0]: type must be 'text' or 'tool_use'"),
        ([{"content": [call("screenshot")], "stop": "x"}], "script[0]: unknown key(s) 'stop'"),
    ],
)
def test_a_bad_script_says_where(script: Any, message: str) -> None:
    with pytest.raises(ScriptError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        load_script(script)


def test_a_plain_list_of_turns_plays_as_the_script_holding_them() -> None:
    turns: list[Any] = [
        [call("screenshot")],
        {"content": [{"type": "text", "text": "Seen."}], "stop_reason": "end_turn"},
    ]
    plain, loaded = FakeMessagesAPI(copy.deepcopy(turns)), FakeMessagesAPI(load_script(turns))
    assert plain.script == loaded.script
    body = {"model": MODEL, "max_tokens": 5, "tools": TOOLS, "messages": [{"role": "user", "content": "Look."}]}
    first = plain.answer({}, body)
    assert first.status == 200, first.error
    assert first.response == loaded.answer({}, body).response
    assert first.response["content"] == [{**call("screenshot"), "id": "toolu_fake_000_00"}]


def test_a_plain_list_that_is_no_script_is_refused_when_the_server_is_built() -> None:
    with pytest.raises(ScriptError, match=r"script\[1\]\[0\]: 'fly' is not a browser member"):
        FakeMessagesAPI([[call("screenshot")], [call("fly")]])
    with pytest.raises(ScriptError, match="a script is a JSON list of turns"):
        FakeMessagesAPI({"turns": []})  # type: ignore[arg-type]


def test_the_shipped_scripts_load() -> None:
    for path in SCRIPTS.glob("*session*.json"):
        assert load_script(path)


# --- The command line ----------------------------------------------------------------------------------------------


@pytest.fixture
def fake_api_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    command = [sys.executable, "-m", "browser_toolset.testing.fake_api", "--script", str(SCRIPTS / "shop_session.json")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process, process.stdout.readline().strip()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def test_the_command_prints_its_base_url_and_serves_until_interrupted(
    fake_api_process: tuple[subprocess.Popen[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    process, base_url = fake_api_process
    assert base_url.startswith("http://127.0.0.1:")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    reply = anthropic.Anthropic(max_retries=0).beta.messages.create(
        model=MODEL, max_tokens=10, tools=TOOLS, messages=[{"role": "user", "content": "Hi"}]
    )
    assert reply.content[1].type == "tool_use"

    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=10) == 0


def test_the_command_rejects_a_bad_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([[{"type": "tool_use", "toolset_name": "browser", "name": "fly"}]]))
    assert main(["--script", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "'fly' is not a browser member" in captured.err


@pytest.mark.parametrize("argv", [["fake-api", "--help"], None], ids=["browser-toolset", "python -m"])
def test_the_help_documents_the_script_format(argv: list[str] | None, capsys: pytest.CaptureFixture[str]) -> None:
    from browser_toolset.cli import main as cli_main

    with pytest.raises(SystemExit) as exited:
        if argv is None:
            main(["--help"])
        else:
            cli_main(argv)
    assert exited.value.code == 0
    help_text = capsys.readouterr().out
    assert "script format: a JSON list of assistant turns" in help_text
    # the example is shown as written, and is itself a script that loads
    example = help_text[help_text.index("[[") :].strip()
    assert [turn.stop_reason for turn in load_script(json.loads(example))] == ["tool_use", "end_turn"]
