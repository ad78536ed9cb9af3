"""`browser-toolset exec` end to end on the mock driver: every member answered, the contract validator applied to
every line it writes, malformed lines reported without ending the session, one answer per line whatever it holds,
a dying browser answered rather than a traceback, uploads confined and high-impact clicks held."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser_toolset.cli import browser, main
from browser_toolset.cli import run_command as run_module
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.testing.contract import SessionValidator, assert_valid_user_message

ROOT = Path(__file__).resolve().parent.parent.parent
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
    argv = ["exec", "--driver", "mock", "--site", str(SITE), "--upload-dir", str(tmp_path)]
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
    lines = f'{{not json\n\n[1, 2\n{good}\n"a string"\n'
    status, outputs, err = run(["exec", "--driver", "mock"], lines, monkeypatch)
    assert status == 1
    assert "line 1" in err and "line 3" in err and "line 5" in err
    # one answer per non-blank line, in order: an error object for each line that is no message
    assert [output.get("type") for output in outputs] == ["error", "error", None, "error"]
    assert [output.get("line") for output in outputs] == [1, 3, None, 5]
    assert outputs[2]["content"][0]["content"][0]["type"] == "browser_state"
    assert outputs[0]["error"]["message"].startswith("line 1: not an assistant message")


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
    status, outputs, _ = run(["exec", "--driver", "mock"], json.dumps(response) + "\n", monkeypatch)
    assert status == 0
    (result,) = outputs[0]["content"]
    assert result["tool_use_id"] == "t2" and result["content"][0]["type"] == "image"


def test_the_console_script_is_installed() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "browser_toolset.cli", "exec", "--list"], capture_output=True, text=True, check=True
    )
    assert {"mock", "selenium"} <= set(completed.stdout.split())


# --- every line answered, whatever it holds ---------------------------------------------------------------------


def call(name: str, input: Any, id: str = "t1") -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input, "toolset_name": "browser"}


def line_of(*blocks: dict[str, Any]) -> str:
    return json.dumps({"role": "assistant", "content": list(blocks)})


@pytest.mark.parametrize(
    ("given", "kind"),
    [("go to example.com", "a string"), (None, "null"), ([1, 2], "an array"), (7, "a number"), (True, "a boolean")],
)
def test_a_call_whose_input_is_not_an_object_is_answered_with_an_error(
    monkeypatch: pytest.MonkeyPatch, given: Any, kind: str
) -> None:
    text = line_of(call("navigate", given, "t1"), call("screenshot", {}, "t2"))
    status, outputs, _ = run(["exec", "--driver", "mock"], text + "\n", monkeypatch)
    assert status == 0
    first, second = outputs[0]["content"]
    assert first["is_error"] and first["tool_use_id"] == "t1" and first["toolset_name"] == "browser"
    assert first["content"].startswith(f"Error: the input of this navigate call is {kind}, not a JSON object.")
    assert second == {
        "type": "tool_result",
        "tool_use_id": "t2",
        "toolset_name": "browser",
        "content": "Not executed: an earlier action in this turn failed.",
        "is_error": True,
    }
    assert_valid_user_message(json.loads(text)["content"], outputs[0])


def test_unpaired_surrogates_are_errors_and_the_output_stays_utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        '{"content": [{"type": "tool_use", "id": "t1", "name": "type", "input": {"text": "a\\ud800b"}, '
        '"toolset_name": "browser"}]}',
        '{"content": [{"type": "tool_use", "id": "t\\udc00", "name": "screenshot", "input": {}, '
        '"toolset_name": "browser"}]}',
        '{"content": [{"type": "text", "text": "\\ud83d"}, {"type": "tool_use", "id": "t3", "name": "list_tabs", '
        '"input": {}, "toolset_name": "browser"}]}',
        '{"content": [{"type": "tool_use", "id": "t4", "name": "navigate", '
        '"input": {"url": "https://\\udfff.example/"}, "toolset_name": "browser"}]}',
    ]
    out = io.BytesIO()
    stdin = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True))
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    status = main(["exec", "--driver", "mock", "--site", str(SITE)])
    outputs = [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]
    assert status == 1 and len(outputs) == 4
    assert "unpaired UTF-16 surrogate" in outputs[0]["content"][0]["content"]
    assert outputs[1]["type"] == "error" and "not valid Unicode" in outputs[1]["error"]["message"]
    assert outputs[2]["content"][0]["content"][0]["type"] == "browser_state"
    assert "unpaired UTF-16 surrogate" in outputs[3]["content"][0]["content"]


def test_bytes_that_are_not_utf8_are_one_bad_line(monkeypatch: pytest.MonkeyPatch) -> None:
    good = line_of(call("list_tabs", {})).encode()
    stdin = io.TextIOWrapper(io.BytesIO(b'{"content": "\xff\xfe"}\n' + good + b"\n"), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["exec", "--driver", "mock"]) == 1
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["type"] == "error" and "not valid UTF-8" in first["error"]["message"]
    assert second["role"] == "user"
    assert "line 1: not valid UTF-8" in err.getvalue()


@pytest.mark.parametrize("depth", [100_000, 5_000])
def test_absurd_nesting_is_an_error_line_not_a_crash(monkeypatch: pytest.MonkeyPatch, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    deep_input = '{"content": [{"type": "tool_use", "id": "t1", "name": "type", "input": {"text": ' + nested + "}, "
    deep_input += '"toolset_name": "browser"}]}'
    inside = '{"content": [{"type": "tool_use", "id": "t1", "name": "type", "input": {"text": '
    inside += "[" * 60 + "]" * 60 + '}, "toolset_name": "browser"}]}'
    lines = f"{nested}\n{deep_input}\n{inside}\n"
    status, outputs, err = run(["exec", "--driver", "mock"], lines, monkeypatch)
    assert status == 1
    assert outputs[0]["type"] == "error" and "nested too deeply" in outputs[0]["error"]["message"]
    assert outputs[1]["type"] == "error" or outputs[1]["content"][0]["is_error"]
    assert "nested more than 32 levels" in outputs[2]["content"][0]["content"]
    assert "Traceback" not in err


def test_a_browser_that_dies_mid_session_is_answered_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = MockDriver.from_options({"site": str(SITE)})
    real_capture = broken.capture

    def dead(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionResetError("the BiDi socket was closed")

    monkeypatch.setattr(broken, "capture", dead)
    monkeypatch.setattr(browser, "load_driver", lambda name, options: broken)
    lines = [
        line_of(call("screenshot", {}, "t1"), call("list_tabs", {}, "t2")),
        line_of(call("read_page", {}, "t3")),
    ]
    status, outputs, err = run(["exec", "--driver", "mock"], "\n".join(lines) + "\n", monkeypatch)
    assert status == 0
    failed, skipped = outputs[0]["content"]
    assert failed["is_error"]
    assert failed["content"][0]["text"] == (
        "Error: The browser is not responding or has closed: ConnectionResetError: the BiDi socket was closed"
    )
    assert skipped["content"] == "Not executed: an earlier action in this turn failed."
    assert not outputs[1]["content"][0].get("is_error")
    assert "Traceback" not in err
    monkeypatch.setattr(broken, "capture", real_capture)


def test_a_browser_whose_state_cannot_be_read_fails_the_call_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = MockDriver.from_options({"site": str(SITE)})
    monkeypatch.setattr(browser, "load_driver", lambda name, options: broken)
    original = broken.list_tabs
    calls = {"n": 0}

    def flaky() -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("browser process exited")
        return original()

    monkeypatch.setattr(broken, "list_tabs", flaky)
    lines = [line_of(call("screenshot", {}, "t1")), line_of(call("list_tabs", {}, "t2"))]
    status, outputs, err = run(["exec", "--driver", "mock"], "\n".join(lines) + "\n", monkeypatch)
    assert status == 0
    assert outputs[0]["content"][0]["is_error"]
    assert "The browser is not responding or has closed: OSError: browser process exited" in str(outputs[0])
    assert outputs[1]["content"][0]["content"][0]["type"] == "browser_state"
    assert "Traceback" not in err


def test_a_driver_that_cannot_start_is_a_message_and_status_2(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(name: str, options: Any) -> Any:
        raise OSError("chromedriver not found")

    monkeypatch.setattr(browser, "load_driver", fail)
    status, outputs, err = run(["exec", "--driver", "mock"], "", monkeypatch)
    assert status == 2 and outputs == []
    assert "could not start the mock driver: OSError: chromedriver not found" in err


# --- uploads and confirmation through the CLI --------------------------------------------------------------------


def shop_line(*calls: tuple[str, dict[str, Any]]) -> str:
    return line_of(*(call(name, data, f"c{index}") for index, (name, data) in enumerate(calls)))


def test_uploads_are_confined_to_the_upload_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "proof.txt").write_text("proof")
    (tmp_path / "secret.txt").write_text("secret")
    (uploads / "escape.txt").symlink_to(tmp_path / "secret.txt")
    steps = [("navigate", {"url": "https://shop.test/checkout"}), ("find", {"query": "proof of address"})]
    upload = {"target": {"type": "ref", "ref": "ref_1"}}
    argv = ["exec", "--driver", "mock", "--site", str(SITE), "--upload-dir", str(uploads)]
    argv += ["--enable", "file_upload"]
    lines = [
        shop_line(*steps),
        shop_line(("file_upload", {**upload, "paths": ["proof.txt"]})),
        shop_line(("file_upload", {**upload, "paths": [str(tmp_path / "secret.txt")]})),
        shop_line(("file_upload", {**upload, "paths": ["escape.txt"]})),
        shop_line(("file_upload", {**upload, "paths": ["../secret.txt"]})),
    ]
    status, outputs, err = run(argv, "\n".join(lines) + "\n", monkeypatch)
    assert status == 0, err
    texts = [str(output["content"][0]["content"]) for output in outputs[1:]]
    assert "proof.txt" in texts[0] and not outputs[1]["content"][0].get("is_error")
    assert "outside the upload directory" in texts[1]
    assert "outside the upload directory" in texts[2] and "secret" not in texts[2].replace("escape", "")
    assert "'..' component" in texts[3]


def test_high_impact_clicks_are_refused_by_default_and_can_be_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    steps = shop_line(("navigate", {"url": "https://shop.test/checkout"}), ("find", {"query": "place order button"}))
    click = shop_line(("left_click", {"target": {"type": "ref", "ref": "ref_1"}}))
    argv = ["exec", "--driver", "mock", "--site", str(SITE)]
    status, outputs, _ = run(argv, f"{steps}\n{click}\n", monkeypatch)
    assert status == 0
    assert 'button "Place order"' in outputs[0]["content"][1]["content"][0]["text"]
    refused = outputs[1]["content"][0]
    assert refused["is_error"]
    assert refused["content"][0]["text"].startswith(
        "Error: left_click on button 'Place order' was not run: it looks like a purchase or payment"
    )
    argv = ["exec", "--driver", "mock", "--site", str(SITE), "--confirm", "purchase=allow"]
    status, outputs, _ = run(argv, f"{steps}\n{click}\n", monkeypatch)
    assert status == 0 and not outputs[1]["content"][0].get("is_error")


def test_confirm_flags_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit, match="unknown category 'shopping'"):
        run(["exec", "--driver", "mock", "--confirm", "shopping=allow"], "", monkeypatch)
    with pytest.raises(SystemExit, match=r"expected CATEGORY=ask\|deny\|allow"):
        run(["exec", "--driver", "mock", "--confirm", "purchase=maybe"], "", monkeypatch)


def test_an_ascii_only_stdout_gets_escaped_json(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(line_of(call("get_page_text", {"tab_id": "tab-é"})) + "\n"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii", write_through=True))
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["exec", "--driver", "mock"]) == 0
    (answer,) = (json.loads(line) for line in raw.getvalue().decode("ascii").splitlines())
    assert "tab-é" in answer["content"][0]["content"][0]["text"]


# --- configuration, run, fake-api and the optional subcommands ----------------------------------------------------

SCRIPTS = ROOT / "tests" / "scripts"


@pytest.fixture
def no_settings_from_the_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in [name for name in __import__("os").environ if name.startswith("BROWSER_TOOLSET_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_exec_reads_the_config_file_and_flags_win(
    monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path
) -> None:
    steps = shop_line(("navigate", {"url": "https://shop.test/checkout"}), ("find", {"query": "place order button"}))
    click = shop_line(("left_click", {"target": {"type": "ref", "ref": "ref_1"}}))
    config = no_settings_from_the_machine / "settings.toml"
    config.write_text(
        f"driver = 'mock'\n[driver_options]\nsite = {json.dumps(str(SITE))}\n[confirm]\npurchase = 'allow'\n"
    )
    status, outputs, err = run(["exec", "--config", str(config)], f"{steps}\n{click}\n", monkeypatch)
    assert status == 0, err
    assert not outputs[1]["content"][0].get("is_error")
    status, outputs, _ = run(
        ["exec", "--config", str(config), "--confirm", "purchase=deny"], f"{steps}\n{click}\n", monkeypatch
    )
    assert outputs[1]["content"][0]["is_error"]
    # ./browser-toolset.toml is read without --config, and the environment overrides it
    (no_settings_from_the_machine / "browser-toolset.toml").write_text(config.read_text())
    assert not run(["exec"], f"{steps}\n{click}\n", monkeypatch)[1][1]["content"][0].get("is_error")
    monkeypatch.setenv("BROWSER_TOOLSET_CONFIRM_PURCHASE", "deny")
    assert run(["exec"], f"{steps}\n{click}\n", monkeypatch)[1][1]["content"][0]["is_error"]


def test_exec_refuses_a_bad_config_before_starting(
    monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path
) -> None:
    config = no_settings_from_the_machine / "settings.toml"
    config.write_text("[images]\nquality = 0\n")
    with pytest.raises(SystemExit, match=r"images.quality = 0 \(from .*settings.toml\) is not valid"):
        run(["exec", "--driver", "mock", "--config", str(config)], "", monkeypatch)
    with pytest.raises(SystemExit, match=r"unknown driver option 'driver_options\.colour'"):
        run(["exec", "--driver", "mock", "-o", "colour=red"], "", monkeypatch)
    with pytest.raises(SystemExit, match="--set takes KEY=VALUE"):
        run(["exec", "--driver", "mock", "--set", "images.quality"], "", monkeypatch)


def run_command(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_run_against_the_fake_api_on_the_mock(
    monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path
) -> None:
    from browser_toolset.testing.fake_api import FakeMessagesAPI

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    transcript = no_settings_from_the_machine / "transcript.json"
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        monkeypatch.setenv("BROWSER_TOOLSET_LOOP_BASE_URL", api.base_url)
        argv = ["run", "What do hats cost?", "--driver", "mock", "--site", str(SCRIPTS / "shop_site.json"), "-q",
                "--max-turns", "9", "--transcript", str(transcript)]  # fmt: skip
        status, out, err = run_command(argv, monkeypatch)
    assert status == 0, err
    assert out == "Hats cost 12, and the price list is downloaded.\n"
    assert json.loads(transcript.read_text())[0] == {"role": "user", "content": "What do hats cost?"}
    assert api.requests[0].body["model"] == "claude-opus-5-5"


def test_run_takes_the_loop_settings_from_the_config(
    monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path
) -> None:
    from browser_toolset.testing.fake_api import FakeMessagesAPI

    config = no_settings_from_the_machine / "settings.toml"
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        config.write_text(
            f"driver = 'mock'\n[driver_options]\nsite = {json.dumps(str(SCRIPTS / 'shop_site.json'))}\n"
            "[loop]\nmodel = 'claude-test'\nmax_tokens = 99\nmax_turns = 9\napi_key = 'k'\n"
            f"base_url = '{api.base_url}'\n"
        )
        status, _, err = run_command(["run", "What do hats cost?", "--config", str(config), "-q"], monkeypatch)
        assert status == 0, err
        assert (api.requests[0].body["model"], api.requests[0].body["max_tokens"]) == ("claude-test", 99)
        status, _, err = run_command(["run", "Hats?", "--config", str(config), "--max-turns", "1", "-q"], monkeypatch)
    assert status == 1  # stopped by the flag's turn limit, not the file's


def test_run_without_an_api_key_is_a_message(
    monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    argv = ["run", "anything", "--driver", "mock", "--set", "loop.base_url=http://127.0.0.1:9"]
    status, _, err = run_command(argv, monkeypatch)
    assert status == 2 and "no Messages API client" in err


def test_run_asks_nobody_when_stdin_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bool] = []
    monkeypatch.setattr(run_module, "terminal_asker", lambda: asked.append(True))
    monkeypatch.setattr(run_module, "run_command", lambda toolset, task, **options: toolset.close() or 0)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert run_command(["run", "t", "--driver", "mock", "--confirm", "all=ask"], monkeypatch)[0] == 0
    assert asked == []


def test_fake_api_subcommand_refuses_a_bad_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    status, _, err = run_command(["fake-api", "--script", str(bad)], monkeypatch)
    assert status == 2 and "a script is a JSON list of turns" in err


def test_exec_and_run_record_when_asked(monkeypatch: pytest.MonkeyPatch, no_settings_from_the_machine: Path) -> None:
    pytest.importorskip("browser_toolset.sessions.recording")
    from browser_toolset.testing.fake_api import FakeMessagesAPI

    session = no_settings_from_the_machine / "exec-session"
    argv = ["exec", "--driver", "mock", "--site", str(SITE), "--record", str(session)]
    status, outputs, err = run([*argv, "--set", "loop.api_key=sk-ant-hidden"], SESSION.read_text(), monkeypatch)
    assert status == 0, err
    calls = [json.loads(line) for line in (session / "calls.jsonl").read_text().splitlines()]
    answered = [r for message in outputs for r in message["content"]]
    assert len(calls) == len(answered) and all(call["ms"] >= 0 for call in calls)
    settings = json.loads((session / "settings.json").read_text())
    assert settings["driver_options.site"] == str(SITE) and "sk-ant-hidden" not in json.dumps(settings)

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    recorded = no_settings_from_the_machine / "run-session"
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        monkeypatch.setenv("BROWSER_TOOLSET_LOOP_BASE_URL", api.base_url)
        argv = ["run", "What do hats cost?", "--driver", "mock", "--site", str(SCRIPTS / "shop_site.json"), "-q",
                "--record", str(recorded)]  # fmt: skip
        status, _, err = run_command(argv, monkeypatch)
    assert status == 0, err
    messages = [json.loads(line) for line in (recorded / "messages.jsonl").read_text().splitlines()]
    assert messages[0]["role"] == "user" and any(m["role"] == "assistant" for m in messages)
    assert (recorded / "calls.jsonl").read_text().count("\n") >= 5
