"""`run_task` end to end: the official SDK against the fake Messages API (which holds every request to the contract
and rejects what the API would reject), on the mock driver, and once on a real headless Chromium."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.tools.browser import BetaConfirmContext

from browser_toolset import BrowserToolset
from browser_toolset.agent.command import run_command
from browser_toolset.agent.describe import describe_target
from browser_toolset.agent.events import CallEvent, Event, ImagesOmitted, Summary, TextEvent
from browser_toolset.agent.printing import TerminalPrinter
from browser_toolset.agent.run import run_task
from browser_toolset.agent.trimming import omit_old_images
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.testing.fake_api import FakeMessagesAPI, RecordedRequest, ScriptTurn, load_script

SCRIPTS = Path(__file__).parent.parent / "scripts"
NOT_EXECUTED = "Not executed: an earlier action in this turn failed."


def shop_driver() -> MockDriver:
    return MockDriver.from_json(SCRIPTS / "shop_site.json", sleep=lambda seconds: None)


def client_for(api: FakeMessagesAPI) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)


def call(name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "toolset_name": "browser", "name": name, "input": input}


def done(text: str = "Done.") -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def results_of(request: RecordedRequest) -> list[dict[str, Any]]:
    """The tool results a request sent: the content of its last message."""
    content = request.body["messages"][-1]["content"]
    assert isinstance(content, list)
    return [block for block in content if block["type"] == "tool_result"]


def texts(result: Mapping[str, Any]) -> list[str]:
    content = result["content"]
    return [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]


def state(result: Mapping[str, Any]) -> dict[str, Any]:
    (block,) = [b for b in result["content"] if b["type"] == "browser_state"]
    return dict(block)


def calls(events: Sequence[Event]) -> list[tuple[int, str, str]]:
    return [(e.turn, e.member, e.outcome) for e in events if isinstance(e, CallEvent)]


@pytest.fixture
def events() -> list[Event]:
    return []


# --- A whole session on the mock driver ----------------------------------------------------------------------------


def test_a_session_with_batches_a_failure_tabs_a_download_and_a_dialog(events: list[Event]) -> None:
    driver = shop_driver()
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        result = run_task(BrowserToolset(driver), "What do hats cost?", client=client_for(api), on_event=events.append)
        requests = api.requests

    # The fake API accepted every request, the first creating a thread and each later one continuing it.
    assert [(r.status, r.error) for r in requests] == [(200, None)] * 7
    assert [r.thread for r in requests] == ["create"] + ["continue"] * 6
    assert result.stop_reason == "end_turn"
    assert result.final_text == "Hats cost 12, and the price list is downloaded."
    assert (result.turns, result.calls, result.errors, result.summary.not_executed) == (7, 16, 1, 1)

    # Turn 3: the link opens Pricing in a new tab, reported on the click's result.
    click, switch, page_text = results_of(requests[3])
    assert state(click)["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
    assert [tab["tab_id"] for tab in state(switch)["tabs"] if tab.get("active")] == ["tab-2"]
    assert "Hats cost 12." in texts(page_text)[0]

    # Turn 4: a download starts; the click on a missing ref fails and the batch rule skips the screenshot.
    _, download, missing, skipped = results_of(requests[4])
    assert state(download)["state_changes"] == [
        {"type": "download_started", "download_id": "dl-1", "url": "https://shop.test/files/price-list.csv"}
    ]
    assert missing["is_error"] is True
    assert texts(missing) == [
        "Error: ref_9 is stale or not found on the current page. Re-read the page to get fresh references."
    ]
    assert not any(block["type"] == "browser_state" for block in missing["content"])
    assert skipped == {
        "type": "tool_result",
        "tool_use_id": "toolu_fake_003_03",
        "toolset_name": "browser",
        "content": NOT_EXECUTED,
        "is_error": True,
    }

    # Turn 5: the download completes on a later result; the dialog the page opened is dismissed and reported.
    screenshot, dialog = results_of(requests[5])
    assert [c["type"] for c in state(screenshot)["state_changes"]] == ["download_completed"]
    assert 'A confirm dialog "Delete everything?" was dismissed.' in texts(dialog)

    # Turn 6: the search navigates the first tab; a new tab opens and closes again.
    _, search, new_tab, close_tab, list_tabs = results_of(requests[6])
    assert state(search)["tabs"][0]["url"] == "https://shop.test/search?q=hats"
    assert state(new_tab)["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-3"}]
    assert [tab["tab_id"] for tab in state(close_tab)["tabs"]] == ["tab-1", "tab-2"]
    assert len(list_tabs["content"]) == 1

    # The browser ran each call once, and never the skipped screenshot; then it was closed.
    assert len(driver.calls_to("capture")) == 2
    assert driver.calls_to("close")

    # One event per call, in order, with what it acted on; Claude's text; a summary last.
    assert calls(events)[7:10] == [
        (4, "left_click", "ok"),
        (4, "left_click", "error"),
        (4, "screenshot", "not_executed"),
    ]
    assert len(calls(events)) == 17
    assert [e.target for e in events if isinstance(e, CallEvent)][:3] == ["https://shop.test/", "", "interactive"]
    assert next(e.text for e in events if isinstance(e, TextEvent)) == "I'll open the shop first."
    assert events[-1] == result.summary
    assert isinstance(events[-1], Summary)
    assert result.summary.input_tokens == sum(
        r.response["usage"]["input_tokens"] + r.response["usage"]["cache_read_input_tokens"] for r in requests
    )
    assert result.summary.cached_input_tokens > 0

    # The transcript is what was sent, as plain JSON, ending with the final reply.
    assert json.loads(json.dumps(result.messages)) == list(result.messages)
    assert result.messages[-1] == {
        "role": "assistant",
        "content": done("Hats cost 12, and the price list is downloaded."),
    }
    assert len(result.messages) == 14


def test_without_threads_the_whole_history_goes_out_each_time() -> None:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        result = run_task(BrowserToolset(shop_driver()), "Go.", client=client_for(api), quiet=True, threads=False)
        requests = api.requests

    assert result.stop_reason == "end_turn"
    assert [r.status for r in requests] == [200] * 7
    assert all(r.thread is None for r in requests)
    assert [len(r.body["messages"]) for r in requests] == [1, 3, 5, 7, 9, 11, 13]
    assert all("tools" in r.body for r in requests)


def test_the_client_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeMessagesAPI(load_script([[call("screenshot")], done()])) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "key-from-the-environment")
        result = run_task(BrowserToolset(shop_driver()), "Look.", quiet=True)
        requests = api.requests

    assert result.stop_reason == "end_turn"
    assert len(requests) == 2
    for request in requests:
        credentials = request.headers.get("x-api-key") or request.headers.get("authorization", "")
        assert credentials.endswith("key-from-the-environment")


def test_the_start_url_is_opened_first_and_claude_is_told() -> None:
    events: list[Event] = []
    with FakeMessagesAPI(load_script([[call("get_page_text")], done()])) as api:
        result = run_task(
            BrowserToolset(shop_driver()),
            "Read the page.",
            client=client_for(api),
            start_url="https://shop.test/pricing",
            on_event=events.append,
        )
        first = api.requests[0]

    assert first.body["messages"] == [
        {"role": "user", "content": "Read the page.\n\n(The browser is open at https://shop.test/pricing.)"}
    ]
    assert calls(events) == [(0, "navigate", "ok"), (1, "get_page_text", "ok")]
    assert result.calls == 1
    assert "Hats cost 12." in texts(results_of(api.requests[1])[0])[0]


# --- Stopping --------------------------------------------------------------------------------------------------------


def looking(turns: int) -> tuple[ScriptTurn, ...]:
    return load_script([[call("screenshot")] for _ in range(turns)] + [done()])


def test_the_turn_limit_stops_the_run_without_running_the_last_turns_calls() -> None:
    driver = shop_driver()
    with FakeMessagesAPI(looking(10)) as api:
        result = run_task(BrowserToolset(driver), "Look.", client=client_for(api), quiet=True, max_turns=3)
        requests = api.requests

    assert result.stop_reason == "max_turns"
    assert (result.turns, result.calls) == (3, 2)
    assert len(requests) == 3
    assert len(driver.calls_to("capture")) == 2
    assert driver.calls_to("close")
    assert result.messages[-1]["role"] == "assistant"


def test_ctrl_c_stops_the_run_and_closes_the_browser() -> None:
    driver = shop_driver()
    asked: list[str] = []

    def interrupt_on_the_third_call(context: BetaConfirmContext) -> bool:
        asked.append(context.member)
        if len(asked) == 3:
            raise KeyboardInterrupt
        return True

    with FakeMessagesAPI(looking(10)) as api:
        result = run_task(
            BrowserToolset(driver, confirm=interrupt_on_the_third_call), "Look.", client=client_for(api), quiet=True
        )
        requests = api.requests

    assert result.stop_reason == "interrupted"
    assert (result.turns, result.calls) == (3, 2)
    assert len(requests) == 3
    assert driver.calls_to("close")
    # The interrupted turn's results never went out: the transcript ends with the reply that asked for them.
    assert result.messages[-1]["role"] == "assistant"


def test_an_api_error_stops_the_run_and_closes_the_browser() -> None:
    driver = shop_driver()
    with FakeMessagesAPI(looking(10), max_images=2) as api:
        result = run_task(BrowserToolset(driver), "Look.", client=client_for(api), quiet=True)

    assert result.stop_reason == "api_error"
    assert "too many images in the request (3); the maximum is 2" in str(result.error)
    assert result.turns == 3
    assert driver.calls_to("close")


def test_a_paused_turn_is_resumed_and_a_call_to_another_tool_gets_an_error() -> None:
    paused = {"content": done("Still thinking."), "stop_reason": "pause_turn"}
    calculator = {"type": "tool_use", "name": "calculator", "input": {"expression": "1+1"}}
    with FakeMessagesAPI(load_script([paused, [calculator, call("screenshot")], done()])) as api:
        result = run_task(BrowserToolset(shop_driver()), "Go.", client=client_for(api), quiet=True)
        requests = api.requests

    assert [(r.status, r.error) for r in requests] == [(200, None)] * 3
    assert requests[1].body["messages"] == []  # the paused turn goes on from what the thread holds
    other, screenshot = results_of(requests[2])
    assert other == {
        "type": "tool_result",
        "tool_use_id": "toolu_fake_001_00",
        "content": "Error: there is no tool named 'calculator' in this session.",
        "is_error": True,
    }
    assert screenshot["content"][0]["type"] == "image"
    assert (result.stop_reason, result.turns, result.calls, result.errors) == ("end_turn", 3, 2, 1)


def test_bad_limits_are_refused_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="keep_images must be between 0 and max_images"):
        run_task(BrowserToolset(shop_driver()), "Look.", client=anthropic.Anthropic(api_key="x"), keep_images=30)
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        run_task(BrowserToolset(shop_driver()), "Look.", client=anthropic.Anthropic(api_key="x"), max_turns=0)


# --- Images ----------------------------------------------------------------------------------------------------------


def forty_looks() -> tuple[ScriptTurn, ...]:
    """Forty turns, each with one image: a screenshot, and every seventh a zoom."""
    turns: list[list[dict[str, Any]]] = [[call("navigate", url="https://shop.test/")]]
    for number in range(40):
        turns.append([call("zoom", region=[0, 0, 200, 100]) if number % 7 == 3 else call("screenshot")])
    return load_script([*turns, done()])


def test_forty_turns_never_send_more_than_twenty_images(events: list[Event]) -> None:
    with FakeMessagesAPI(forty_looks()) as api:
        result = run_task(BrowserToolset(shop_driver()), "Look often.", client=client_for(api), on_event=events.append)
        requests = api.requests

    assert result.stop_reason == "end_turn"
    assert result.calls == 41
    assert all(r.status == 200 for r in requests), [r.error for r in requests if r.error]
    assert max(r.images_in_context for r in requests) == 20
    assert requests[-1].images_in_context > 10

    # Old images go in batches, so most turns still only continue the thread (and keep the prompt cache).
    rewrites = [r for r in requests[1:] if r.thread == "create"]
    omitted = [e for e in events if isinstance(e, ImagesOmitted)]
    assert len(rewrites) == len(omitted) == 2
    assert [e.omitted for e in omitted] == [11, 11]
    assert all(e.kept == 10 for e in omitted)

    # Placeholders replace the oldest images, and say how old they were.
    shown: list[str] = []
    for message in result.messages:
        for block in message["content"] if message["role"] == "user" and isinstance(message["content"], list) else ():
            shown += [
                b["text"] if b["type"] == "text" else b["type"]
                for b in block["content"]
                if b["type"] != "browser_state"
            ]
    placeholders = [text for text in shown if text.startswith("[")]
    assert len(placeholders) == 22
    assert placeholders[0] == "[screenshot omitted: 20 turns old]"
    assert "[zoom image omitted: 17 turns old]" in placeholders
    assert shown[-10:] == ["image"] * 10


def test_without_trimming_the_same_run_would_break_the_limit() -> None:
    with FakeMessagesAPI(forty_looks(), max_images=20) as api:
        result = run_task(
            BrowserToolset(shop_driver()),
            "Look often.",
            client=client_for(api),
            quiet=True,
            max_images=100,
            keep_images=100,
        )
    assert result.stop_reason == "api_error"
    assert "too many images in the request (21); the maximum is 20" in str(result.error)


def image(number: int) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": f"image-{number}"}}


def looked(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Look."}]
    for turn in range(1, turns + 1):
        use = {"type": "tool_use", "id": f"t{turn}", "name": "screenshot", "input": {}, "toolset_name": "browser"}
        result = {"type": "tool_result", "tool_use_id": f"t{turn}", "toolset_name": "browser", "content": [image(turn)]}
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    return messages


def test_omit_old_images_leaves_a_conversation_within_the_budget_alone() -> None:
    messages = looked(5)
    kept, omitted = omit_old_images(messages, turn=5, max_images=5, keep=2)
    assert omitted == 0
    assert all(a is b for a, b in zip(kept, messages))


def test_omit_old_images_replaces_the_oldest_down_to_keep_without_touching_the_original() -> None:
    messages = looked(6)
    before = json.dumps(messages)
    trimmed, omitted = omit_old_images(messages, turn=6, max_images=5, keep=2)

    assert json.dumps(messages) == before
    assert omitted == 4
    contents = [m["content"][0]["content"] for m in trimmed[2::2]]
    assert contents[:4] == [
        [{"type": "text", "text": f"[screenshot omitted: {age} turns old]"}] for age in (5, 4, 3, 2)
    ]
    assert contents[4:] == [[image(5)], [image(6)]]
    assert trimmed[0] is messages[0] and trimmed[11] is messages[11]


def test_omit_old_images_leaves_images_it_does_not_own() -> None:
    messages = looked(2)
    messages[0] = {"role": "user", "content": [image(0), {"type": "text", "text": "Look."}]}
    trimmed, omitted = omit_old_images(messages, turn=2, max_images=2, keep=1)
    assert omitted == 2
    assert trimmed[0] is messages[0]
    assert trimmed[4]["content"][0]["content"] == [{"type": "text", "text": "[screenshot omitted: 0 turns old]"}]


# --- Printing, confirming, the command line ------------------------------------------------------------------------


def test_the_printer_prints_a_line_per_event_and_nothing_when_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    stream = io.StringIO()
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        run_task(BrowserToolset(shop_driver()), "Go.", client=client_for(api), on_event=TerminalPrinter(stream))
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        run_task(BrowserToolset(shop_driver()), "Go.", client=client_for(api), quiet=True)

    lines = stream.getvalue().splitlines()
    assert lines[0] == "Claude: I'll open the shop first."
    assert lines[1].startswith("  [  1] navigate https://shop.test/  ok ")
    assert any(
        line.startswith("  [  4] left_click ref_9  error ")
        and line.endswith(
            ": Error: ref_9 is stale or not found on the current page. Re-read the page to get fresh references."
        )
        for line in lines
    )
    assert "  [  4] screenshot  not executed" in lines
    assert lines[-1].startswith("Finished (end_turn) after 7 turns: 16 calls, 1 error, 1 not executed; tokens in ")
    assert capsys.readouterr() == ("", "")


def test_describe_target_names_what_a_call_acts_on() -> None:
    assert describe_target("left_click", {"target": {"type": "coordinate", "x": 3, "y": 4}}) == "(3, 4)"
    drag = {"from": {"type": "coordinate", "x": 1, "y": 2}, "target": {"type": "coordinate", "x": 5, "y": 6}}
    assert describe_target("left_click_drag", drag) == "(1, 2) → (5, 6)"
    assert (
        describe_target("scroll", {"target": {"type": "coordinate", "x": 1, "y": 2}, "scroll_direction": "down"})
        == "(1, 2) down"
    )
    assert describe_target("type", {"text": "hello\nworld"}) == '"hello\\nworld"'
    assert describe_target("find", {"query": "search box"}) == '"search box"'
    assert describe_target("switch_tab", {"tab_id": "tab-2"}) == "tab-2"
    assert describe_target("type", {"text": "x" * 100}).endswith("…")


def test_the_toolsets_confirm_hook_sees_every_call_and_a_declined_one_is_an_error_claude_reads() -> None:
    asked: list[tuple[str, str | None]] = []

    def no_screenshots(context: BetaConfirmContext) -> bool:
        asked.append((context.member, context.tab_url))
        return context.member != "screenshot"

    script = load_script(
        [[call("navigate", url="https://shop.test/"), call("screenshot")], [call("get_page_text")], done()]
    )
    with FakeMessagesAPI(script) as api:
        result = run_task(
            BrowserToolset(shop_driver(), confirm=no_screenshots), "Look.", client=client_for(api), quiet=True
        )
        navigate, screenshot = results_of(api.requests[1])

    assert asked == [
        ("navigate", None),
        ("screenshot", "https://shop.test/"),
        ("get_page_text", "https://shop.test/"),
    ]
    assert "is_error" not in navigate
    assert screenshot["is_error"] is True
    assert "screenshot" in texts(screenshot)[0]
    assert (result.stop_reason, result.calls, result.errors) == ("end_turn", 3, 1)


def test_the_run_command_prints_the_answer_and_exits_zero(tmp_path: Path) -> None:
    transcript = tmp_path / "transcript.json"
    out = io.StringIO()
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        status = run_command(
            BrowserToolset(shop_driver()),
            "What do hats cost?",
            client=client_for(api),
            quiet=True,
            max_turns=9,
            transcript=transcript,
            out=out,
        )

    assert status == 0
    assert out.getvalue() == "Hats cost 12, and the price list is downloaded.\n"
    assert json.loads(transcript.read_text())[0] == {"role": "user", "content": "What do hats cost?"}
