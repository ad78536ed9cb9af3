"""Property tests: whatever Claude (or a corrupted transcript) sends, every browser call gets exactly one
well-formed answer, through `run_batch` and through the `exec` CLI, and the session survives to answer the next.

The inputs mix the members' real parameter names with junk, every JSON type, unpaired surrogates, control and
bidi characters and deep nesting; the answers are checked with the contract validator."""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from browser_toolset import BrowserToolset, run_batch
from browser_toolset.cli.exec_lines import serve
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.safety.uploads import UploadPolicy
from browser_toolset.testing.contract import assert_valid_user_message

ROOT = Path(__file__).resolve().parent.parent.parent
SITE = ROOT / "examples" / "shop.json"
MEMBERS = [
    "navigate", "screenshot", "zoom", "left_click", "right_click", "middle_click", "double_click", "triple_click",
    "hover", "left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move", "scroll", "scroll_to", "type",
    "key", "hold_key", "wait", "read_page", "find", "get_page_text", "form_input", "file_upload", "read_console",
    "read_network", "javascript_exec", "new_tab", "list_tabs", "switch_tab", "close_tab",
]  # fmt: skip
PARAMETERS = [
    "url", "tab_id", "region", "target", "modifiers", "from", "scroll_direction", "scroll_amount", "text", "repeat",
    "duration", "filter", "depth", "ref", "query", "value", "paths", "document_ids", "type", "x", "y",
]  # fmt: skip
OPTIONAL = ("file_upload", "javascript_exec", "read_console", "read_network")

odd_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["", " ", "tab-1", "tab-2", "ref_1", "ref_99", "back", "https://shop.test/", "http://127.0.0.1/",
         "javascript:1", "\ud800", "a\udfffb", "\u202e", "\x00", "\n\n", "Enter", "ctrl+a", "shift", "coordinate",
         "ref", "down", "all", "interactive", "1e309", "x" * 5000]
    ),
)  # fmt: skip
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=True, allow_infinity=True), odd_text
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(PARAMETERS) | odd_text, inner, max_size=4)
    ),
    max_leaves=12,
)
coordinate = st.fixed_dictionaries(
    {"type": st.just("coordinate"), "x": st.integers(-5, 2000), "y": st.integers(-5, 2000)}
)
ref_target = st.fixed_dictionaries({"type": st.just("ref"), "ref": st.sampled_from(["ref_1", "ref_2", "ref_5", "x"])})
inputs = st.one_of(
    st.dictionaries(st.sampled_from(PARAMETERS), json_values | coordinate | ref_target, max_size=5),
    st.fixed_dictionaries({"target": coordinate | ref_target}, optional={"tab_id": odd_text, "text": odd_text}),
    json_values,
)
calls = st.lists(st.tuples(st.sampled_from(MEMBERS) | odd_text, inputs), min_size=1, max_size=4)


@pytest.fixture(scope="module")
def toolset() -> Iterator[BrowserToolset]:
    with tempfile.TemporaryDirectory() as uploads:
        Path(uploads, "a.txt").write_text("a")
        driver = MockDriver.from_options({"site": str(SITE)})
        tools = BrowserToolset(
            driver,
            sleep=lambda seconds: None,
            configs={name: {"enabled": True} for name in OPTIONAL},
            confirm=lambda context: True,
            file_policy=UploadPolicy(uploads),
        )
        with tools:
            yield tools


def blocks(turn: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": data, "toolset_name": "browser"}
        for index, (name, data) in enumerate(turn)
    ]


def check_answer(content: list[dict[str, Any]], message: dict[str, Any]) -> None:
    assert message["role"] == "user"
    results = message["content"]
    assert [result["tool_use_id"] for result in results] == [block["id"] for block in content]
    json.dumps(message, ensure_ascii=False).encode("utf-8")  # sendable: no unpaired surrogate anywhere
    failed = False
    for result in results:
        assert result["type"] == "tool_result" and result["toolset_name"] == "browser"
        if failed:
            assert result["content"] == "Not executed: an earlier action in this turn failed."
        failed = failed or bool(result.get("is_error"))
    if all(isinstance(block["input"], dict) for block in content):
        assert_valid_user_message(content, message)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(turn=calls)
def test_every_call_gets_one_well_formed_answer(toolset: BrowserToolset, turn: list[tuple[str, Any]]) -> None:
    content = blocks(turn)
    message = run_batch(toolset, {"role": "assistant", "content": content})
    check_answer(content, message)
    after = run_batch(toolset, {"role": "assistant", "content": blocks([("list_tabs", {})])})
    assert not after["content"][0].get("is_error"), after  # the session goes on


line_junk = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=60).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.sampled_from(
        [b"[" * 3000 + b"]" * 3000, b"{}", b"[]", b"null", b'"x"', b'{"content": 5}', b'{"content": [{"type": 7}]}',
         b'{"content": [{"type": "tool_use", "toolset_name": "browser"}]}', b"\xef\xbb\xbf{}", b"\xed\xa0\x80"]
    ),
)  # fmt: skip


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    lines=st.lists(
        st.one_of(line_junk, calls.map(lambda turn: json.dumps({"content": blocks(turn)}).encode())), max_size=5
    )
)
def test_exec_answers_every_line_once(toolset: BrowserToolset, lines: list[bytes]) -> None:
    lines = [line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines]
    stdin = io.TextIOWrapper(io.BytesIO(b"\n".join(lines) + b"\n"), encoding="utf-8")
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    err = io.StringIO()
    status = serve(toolset, stdin, out, err)
    answers = [json.loads(line) for line in raw.getvalue().decode("utf-8").splitlines()]
    expected = [line for line in lines if line.decode("utf-8", "replace").strip()]
    assert len(answers) == len(expected)
    assert status == (1 if any(answer.get("type") == "error" for answer in answers) else 0)
    assert "Traceback" not in err.getvalue()
    for answer in answers:
        assert answer.get("type") == "error" or answer.get("role") == "user"
