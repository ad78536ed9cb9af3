"""`browser-toolset exec` end to end on the mock driver: every member answered, the contract validator applied to
every line it writes, malformed lines reported without ending the session."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser_toolset.cli import main
from tests.contract import SessionValidator, assert_valid_user_message

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "examples" / "shop.json"
SESSION = ROOT / "examples" / "session.jsonl"
ALL_MEMBERS = {
    "navigate", "screenshot", "zoom", "left_click", "right_click", "middle_click", "double_click", "triple_click",
    "hover", "left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move", "scroll", "scroll_to", "type",
    "key", "hold_key", "wait", "read_page", "find", "get_page_text", "form_input", "file_upload", "read_console",
    "read_network", "javascript_exec", "new_tab", "list_tabs", "switch_tab", "close_tab",
}  # fmt: skip


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    status = main(argv)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def check_session(inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> None:
    validator = SessionValidator()
    assert len(inputs) == len(outputs)
    for assistant, user in zip(inputs, outputs):
        assert_valid_user_message(assistant["content"], user)
        validator.feed_turn(assistant["content"], user)
    validator.assert_valid()


def test_the_recorded_example_session(monkeypatch: pytest.MonkeyPatch) -> None:
    text = SESSION.read_text()
    status, outputs, err = run(["exec", "--driver", "mock", "--site", str(SITE)], text, monkeypatch)
    assert status == 0, err
    inputs = [json.loads(line) for line in text.splitlines()]
    check_session(inputs, outputs)
    results = [result for message in outputs for result in message["content"]]
    failed = [r for r in results if r.get("is_error")]
    # the session's last turn deliberately asks for a javascript: URL, and the rest of that turn is skipped
    assert [r["content"] for r in failed][-2:] == [
        [{"type": "text", "text": "Error: Navigation refused. Only http and https URLs are allowed."}],
        "Not executed: an earlier action in this turn failed.",
    ]
    assert len(failed) == 2, failed


def test_every_member_including_the_optional_ones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    upload = tmp_path / "proof.txt"
    upload.write_text("proof")
    turns = [line for line in SESSION.read_text().splitlines()][:-1]
    extra = [
        ("new_tab", {}),  # a fresh tab has a fresh ref table, so the refs below are known
        ("navigate", {"url": "https://shop.test/"}),
        ("find", {"query": "refresh stock button"}),
        ("left_click", {"target": {"type": "ref", "ref": "ref_1"}}),
        ("read_console", {}),
        ("read_network", {}),
        ("javascript_exec", {"text": "window.cartCount"}),
        ("navigate", {"url": "https://shop.test/checkout"}),
        ("find", {"query": "proof of address"}),
        ("file_upload", {"target": {"type": "ref", "ref": "ref_2"}, "paths": [str(upload)]}),
    ]
    content = [
        {"type": "tool_use", "id": f"toolu_x{i}", "name": name, "input": data, "toolset_name": "browser"}
        for i, (name, data) in enumerate(extra)
    ]
    turns.append(json.dumps({"role": "assistant", "content": content}))
    argv = ["exec", "--site", str(SITE), "--upload-dir", str(tmp_path)]
    for member in ("javascript_exec", "file_upload", "read_console", "read_network"):
        argv += ["--enable", member]
    status, outputs, err = run(argv, "\n".join(turns) + "\n", monkeypatch)
    assert status == 0, err
    inputs = [json.loads(line) for line in turns]
    check_session(inputs, outputs)
    answered = {
        block["name"]
        for message, output in zip(inputs, outputs)
        for block, result in zip(
            message["content"][1:] if message["content"][0]["type"] == "text" else message["content"], output["content"]
        )
        if not result.get("is_error")
    }
    assert answered == ALL_MEMBERS
    last = outputs[-1]["content"]
    console, network, script = (last[i]["content"][0]["text"] for i in (4, 5, 6))
    assert "refreshing stock" in console
    assert "POST https://shop.test/api/stock 200" in network
    assert script == "2"
    assert "proof.txt" in " ".join(block["text"] for block in last[9]["content"] if block["type"] == "text")
    assert "approved javascript_exec unattended" in err


def test_malformed_lines_are_reported_and_the_session_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    good = json.dumps(
        {"content": [{"type": "tool_use", "id": "t1", "name": "list_tabs", "input": {}, "toolset_name": "browser"}]}
    )
    status, outputs, err = run(["exec"], f'{{not json\n\n[1, 2\n{good}\n"a string"\n', monkeypatch)
    assert status == 1
    assert "line 1" in err and "line 3" in err and "line 5" in err
    assert len(outputs) == 1 and outputs[0]["content"][0]["content"][0]["type"] == "browser_state"


def test_a_whole_messages_api_response_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t1", "name": "navigate", "input": {"url": "x"}},  # a custom tool
            {"type": "tool_use", "id": "t2", "name": "screenshot", "input": {}, "toolset_name": "browser"},
        ],
    }
    status, outputs, _ = run(["exec"], json.dumps(response) + "\n", monkeypatch)
    assert status == 0
    (result,) = outputs[0]["content"]
    assert result["tool_use_id"] == "t2" and result["content"][0]["type"] == "image"


def test_the_console_script_is_installed() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "browser_toolset.cli", "exec", "--list"], capture_output=True, text=True, check=True
    )
    assert {"mock", "selenium"} <= set(completed.stdout.split())
