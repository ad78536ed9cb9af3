"""Recording sessions: the directory layout (`messages.jsonl` with images as files, `calls.jsonl`, `settings.json`)
for `run_task` runs (`record_run`) and for `exec` (`Recorder.record_exchange`), and secrets kept out of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.sessions.recording import MASK, Recorder, Session, mask_secrets, record_run, run_batch_timed
from browser_toolset.testing.fake_api import FakeMessagesAPI

SCRIPTS = Path(__file__).parent.parent / "scripts"
PNG = b"\x89PNG\r\n\x1a\n"


def shop_driver() -> MockDriver:
    return MockDriver.from_json(SCRIPTS / "shop_site.json", sleep=lambda seconds: None)


def record_shop(directory: Path, **settings: Any) -> Any:
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="sk-ant-test-secret", base_url=api.base_url, max_retries=0)
        return record_run(
            BrowserToolset(shop_driver()),
            "What do hats cost?",
            directory,
            settings={"driver": "mock", "driver_options": {"site": str(SCRIPTS / "shop_site.json")}, **settings},
            client=client,
            start_url="https://shop.test/",
            quiet=True,
        )


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_recorded_run_has_messages_images_calls_and_settings(tmp_path: Path) -> None:
    result = record_shop(tmp_path / "session")
    session = tmp_path / "session"
    assert result.stop_reason == "end_turn"
    assert sorted(p.name for p in session.iterdir()) == [
        "calls.jsonl", "images", "messages.jsonl", "session.json", "settings.json",
    ]  # fmt: skip

    # Messages: the task, then Claude's seven replies and the six answers; no base64 left, images by path.
    messages = lines(session / "messages.jsonl")
    assert [m["role"] for m in messages] == ["user"] + ["assistant", "user"] * 6 + ["assistant"]
    raw = (session / "messages.jsonl").read_text(encoding="utf-8")
    assert '"base64"' not in raw and "iVBORw0KGgo" not in raw
    image_paths = [
        inner["source"]["path"]
        for m in messages
        if isinstance(m["content"], list)
        for block in m["content"]
        if block["type"] == "tool_result"
        for inner in block["content"]
        if isinstance(block["content"], list) and inner["type"] == "image"
    ]
    assert image_paths and all(path.startswith("images/") and path.endswith(".png") for path in image_paths)
    for path in image_paths:
        assert (session / path).read_bytes().startswith(PNG)
    assert sorted(p.name for p in (session / "images").iterdir())[0] == "0001.png"

    # Calls: the start page (turn 0), then every call Claude made, including the failure and the skipped one.
    calls = lines(session / "calls.jsonl")
    assert len(calls) == 1 + result.calls + result.summary.not_executed
    assert {"index", "turn", "tool_use_id", "member", "input", "outcome", "ms", "tabs", "result"} <= set(calls[0])
    assert (calls[0]["turn"], calls[0]["tool_use_id"], calls[0]["member"]) == (0, "toolu_start_url", "navigate")
    assert [c["index"] for c in calls] == list(range(1, len(calls) + 1))
    assert [c["outcome"] for c in calls].count("error") == 1
    assert [c["outcome"] for c in calls].count("not_executed") == 1
    assert all(c["ms"] >= 0 for c in calls)
    screenshot = next(c for c in calls if c["member"] == "screenshot")
    assert screenshot["result"][0]["source"]["path"] == "images/0001.png"
    switched = next(c for c in calls if c["member"] == "switch_tab")
    assert [t["tab_id"] for t in switched["tabs"] if t.get("active")] == ["tab-2"]
    # An error has no browser_state: the inventory is the last one known, and says it was not reported.
    failed = next(c for c in calls if c["outcome"] == "error")
    assert failed["tabs_reported"] is False and failed["tabs"]

    # Reading it back.
    loaded = Session(session)
    assert len(loaded.calls) == len(calls) and loaded.settings["driver"] == "mock"


def test_secrets_are_masked_in_settings(tmp_path: Path) -> None:
    record_shop(
        tmp_path / "s",
        api_key="sk-ant-api03-abcdef",
        options=["token=hunter2", "browser=chromium"],
        nested={"Password": "pw", "authorization": "Bearer xyz", "user": "ada"},
        headers=[{"name": "Cookie", "Cookie": "sid=1"}],
        note="key sk-ant-api03-zzz in text",
    )
    text = (tmp_path / "s" / "settings.json").read_text(encoding="utf-8")
    for secret in ("sk-ant-api03-abcdef", "hunter2", '"pw"', "Bearer xyz", "sid=1", "sk-ant-api03-zzz"):
        assert secret not in text
    settings = json.loads(text)
    assert settings["api_key"] == MASK
    assert settings["options"] == ["token=***", "browser=chromium"]
    assert settings["nested"] == {"Password": MASK, "authorization": MASK, "user": "ada"}
    assert settings["note"] == "key *** in text"
    # Nothing else in the directory holds the client's key either.
    for path in (tmp_path / "s").glob("*.json*"):
        assert "sk-ant-test-secret" not in path.read_text(encoding="utf-8")


def test_mask_secrets_keeps_ordinary_values() -> None:
    assert mask_secrets({"driver": "mock", "max_turns": 5, "allow_private": True, "token": None}) == {
        "driver": "mock", "max_turns": 5, "allow_private": True, "token": None,
    }  # fmt: skip
    assert mask_secrets({"secret_key": "s", "client_secret": "c", "x": [{"api-key": "k"}]}) == {
        "secret_key": MASK, "client_secret": MASK, "x": [{"api-key": MASK}],
    }  # fmt: skip


def test_the_exec_recorder_records_each_exchange(tmp_path: Path) -> None:
    turns = json.loads((SCRIPTS / "shop_session.json").read_text(encoding="utf-8"))
    toolset = BrowserToolset(shop_driver())
    with Recorder(tmp_path / "exec", {"driver": "mock", "token": "abc"}) as recorder:
        for number, turn in enumerate(turns[:5]):
            blocks = [dict(block, id=f"toolu_{number}_{i}") for i, block in enumerate(turn)]
            assistant = {"role": "assistant", "content": blocks}
            answer, timings = run_batch_timed(toolset, assistant)
            assert len(timings) == sum(1 for block in blocks if block["type"] == "tool_use")
            recorder.record_exchange(assistant, answer, timings)
    toolset.close()
    calls = lines(tmp_path / "exec" / "calls.jsonl")
    messages = lines(tmp_path / "exec" / "messages.jsonl")
    assert len(messages) == 10
    assert [c["turn"] for c in calls] == [1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5]
    assert [c["outcome"] for c in calls][6:10] == ["ok", "ok", "error", "not_executed"]
    assert calls[9]["ms"] == 0.0 and calls[1]["ms"] > 0
    assert json.loads((tmp_path / "exec" / "settings.json").read_text())["token"] == MASK


def test_a_session_directory_must_have_calls(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a recorded session"):
        Session(tmp_path)
    (tmp_path / "calls.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"calls\.jsonl line 1"):
        Session(tmp_path)
