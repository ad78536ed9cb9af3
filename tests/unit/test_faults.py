"""Faults never end the session: a browser that stops answering inside a member or while its state is read becomes
an error result (the batch rule then applies); an empty `tab_id` is refused rather than read as the active tab;
page-supplied titles, dialogs, script results and downloads reach Claude redacted. All on the mock driver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import WebDriverException

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import Dialog, Download, MockDriver, Site, button, file_input, textbox
from browser_toolset.safety.uploads import UploadPolicy
from tests.support.session import Session, error, ok, state, text, texts, tool_use

DEAD = "Error: The browser is not responding or has closed: "
SECRET = "sk-live-0123456789abcdefghij"


def site() -> Site:
    shop = Site(base_url="https://faults.test/")
    shop.page(
        "/",
        f"Account {SECRET}",
        button("Warn", Dialog(f"Your session token=abcdef0123456789 expires; key {SECRET}", kind="alert")),
        button(
            "Report",
            Download("/files/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl/report.csv", filename="report.csv"),
        ),
        button("Broken", Download("/files/x.csv", filename="x.csv", error=f"403 for Authorization: Bearer {SECRET}")),
        textbox("Name"),
        file_input("Attachment"),
        scripts={"document.cookie": f"sid=abc123def456; api_key={SECRET}", "window.card": "4111 1111 1111 1111"},
    )
    shop.start = "/"
    return shop


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(site(), sleep=lambda seconds: None) as mock:
        yield mock


def make(driver: MockDriver, **options: Any) -> Session:
    return Session(BrowserToolset(driver, sleep=lambda seconds: None, **options))


def ref(session: Session, query: str) -> dict[str, str]:
    line = text(ok(session.call("find", query=query))).splitlines()[0]
    return {"type": "ref", "ref": line.rsplit("[", 1)[1].rstrip("]")}


# --- a browser that stops answering ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "method", "input"),
    [
        ("get_page_text", "page_text", {}),
        ("screenshot", "capture", {}),
        ("read_page", "snapshot", {}),
        ("navigate", "navigate", {"url": "https://faults.test/"}),
        ("left_click", "click", {"target": {"type": "coordinate", "x": 5, "y": 5}}),
        ("type", "type_text", {"text": "x"}),
        ("new_tab", "open_tab", {}),
        ("list_tabs", "list_tabs", {}),
    ],
)
@pytest.mark.parametrize(
    "failure",
    [
        ConnectionResetError("BiDi socket closed"),
        OSError(32, "Broken pipe"),
        WebDriverException("chrome not reachable"),
        RuntimeError(),
    ],
)
def test_any_driver_failure_is_an_error_result(
    driver: MockDriver,
    monkeypatch: pytest.MonkeyPatch,
    member: str,
    method: str,
    input: dict[str, Any],
    failure: Exception,
) -> None:
    session = make(driver)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise failure

    monkeypatch.setattr(driver, method, broken)
    result = session.call(member, **input)
    message = error(result)
    assert message.startswith(DEAD + type(failure).__name__), message
    assert "browser_state" not in str(result)


def test_the_batch_rule_applies_after_a_dead_browser(driver: MockDriver, monkeypatch: pytest.MonkeyPatch) -> None:
    session = make(driver)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionResetError("gone")

    monkeypatch.setattr(driver, "capture", broken)
    first, second = session.turn(tool_use("screenshot"), tool_use("get_page_text"))["content"]
    assert first["is_error"] and second["content"] == "Not executed: an earlier action in this turn failed."


def test_a_failed_state_read_fails_the_call_and_keeps_its_events(
    driver: MockDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make(driver)
    report = ref(session, "report button")
    real = driver.list_tabs
    failing = {"now": True}

    def flaky() -> Any:
        if failing["now"]:
            failing["now"] = False
            raise WebDriverException("disconnected: not connected to DevTools")
        return real()

    monkeypatch.setattr(driver, "list_tabs", flaky)
    message = error(session.call("left_click", target=report))
    assert message.startswith(DEAD + "WebDriverException")
    later = ok(session.call("get_page_text"))
    changes = state(later).get("state_changes", [])
    assert [change["type"] for change in changes] == ["download_completed"]


def test_a_state_read_that_fails_every_time_never_raises(driver: MockDriver, monkeypatch: pytest.MonkeyPatch) -> None:
    session = make(driver)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise BrokenPipeError("closed")

    monkeypatch.setattr(driver, "list_tabs", broken)
    monkeypatch.setattr(driver, "drain_events", broken)
    for member in ("screenshot", "list_tabs", "get_page_text", "new_tab"):
        assert error(session.call(member)).startswith(DEAD + "BrokenPipeError")


# --- an empty tab_id is a bad tab id, never "the active tab" ---------------------------------------------------------

COORDINATE = {"type": "coordinate", "x": 5, "y": 5}
REF = {"type": "ref", "ref": "ref_1"}
WITH_TAB_ID: dict[str, dict[str, Any]] = {
    "navigate": {"url": "https://faults.test/"},
    "screenshot": {},
    "zoom": {"region": [0, 0, 10, 10]},
    "left_click": {"target": COORDINATE},
    "right_click": {"target": COORDINATE},
    "middle_click": {"target": COORDINATE},
    "double_click": {"target": COORDINATE},
    "triple_click": {"target": COORDINATE},
    "hover": {"target": COORDINATE},
    "left_click_drag": {"from": COORDINATE, "target": COORDINATE},
    "left_mouse_down": {"target": COORDINATE},
    "left_mouse_up": {"target": COORDINATE},
    "mouse_move": {"target": COORDINATE},
    "scroll": {"target": COORDINATE, "scroll_direction": "down"},
    "scroll_to": {"target": REF},
    "type": {"text": "x"},
    "key": {"text": "Enter"},
    "hold_key": {"text": "shift", "duration": 0},
    "wait": {"duration": 0},
    "read_page": {},
    "find": {"query": "name"},
    "get_page_text": {},
    "form_input": {"target": REF, "value": "x"},
    "file_upload": {"target": REF, "paths": ["a.txt"]},
    "read_console": {},
    "read_network": {},
    "javascript_exec": {"text": "1"},
    "switch_tab": {},
    "close_tab": {},
}
ACTIONS = {
    "click", "move", "mouse_down", "mouse_up", "drag", "wheel", "type_text", "press_keys", "hold_keys", "page_text",
    "evaluate", "set_files", "set_value", "navigate", "activate_tab", "close_tab", "capture",
}  # fmt: skip
OPTIONAL = ("file_upload", "read_console", "read_network", "javascript_exec")


@pytest.mark.parametrize("member", sorted(WITH_TAB_ID))
def test_an_empty_tab_id_is_refused_by_every_member(driver: MockDriver, tmp_path: Path, member: str) -> None:
    (tmp_path / "a.txt").write_text("a")
    session = make(
        driver,
        configs={
            name: {"enabled": True} for name in ("file_upload", "read_console", "read_network", "javascript_exec")
        },
        confirm=lambda context: True,
        file_policy=UploadPolicy(tmp_path),
    )
    ok(session.call("read_page"))
    before = len(driver.calls)
    message = error(session.call(member, tab_id="", **WITH_TAB_ID[member]))
    assert message == "Error: tab_id is empty. Call list_tabs to see the open tabs' ids.", message
    assert not [call for call in driver.calls[before:] if call.method in ACTIONS]


def test_a_named_tab_is_still_used_and_a_missing_one_is_none(driver: MockDriver) -> None:
    session = make(driver)
    ok(session.call("get_page_text", tab_id="tab-1"))
    assert error(session.call("get_page_text", tab_id="tab-9")).startswith("Error: No open tab has tab_id 'tab-9'")
    assert error(session.call("wait", duration=0, tab_id="tab-9")).startswith("Error: No open tab")


# --- what the page supplies reaches Claude redacted -----------------------------------------------------------------


def test_titles_dialogs_scripts_and_downloads_are_redacted(driver: MockDriver) -> None:
    session = make(driver, configs={"javascript_exec": {"enabled": True}}, confirm=lambda context: True)
    listed = state(ok(session.call("list_tabs")))
    assert listed["tabs"][0]["title"] == "Account [redacted]"
    warned = ok(session.call("left_click", target=ref(session, "warn button")))
    dialog_line = next(line for line in texts(warned) if "dialog" in line)
    assert "abcdef0123456789" not in dialog_line and SECRET not in dialog_line
    assert "token=[redacted]" in dialog_line
    cookie = text(ok(session.call("javascript_exec", text="document.cookie")))
    assert cookie == "sid=[redacted]; api_key=[redacted]"
    assert text(ok(session.call("javascript_exec", text="window.card"))) == "[redacted]"
    started = ok(session.call("left_click", target=ref(session, "report button")))
    (change,) = state(started)["state_changes"]
    assert change["url"] == "https://faults.test/files/REDACTED/report.csv"
    broken = ok(session.call("left_click", target=ref(session, "broken button")))
    failed = [c for c in state(broken)["state_changes"] if c["type"] == "download_failed"]
    later = [c for c in state(ok(session.call("list_tabs")))["state_changes"] if c["type"] == "download_failed"]
    (failure,) = failed or later
    assert SECRET not in failure["error"] and "Bearer [redacted]" in failure["error"]
