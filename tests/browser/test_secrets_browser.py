"""A secret typed on a local sign-in page (tests/pages/secret_signin.html) on headless Chromium and Firefox: the field
gets the value, and no result, recording file or screenshot shows it, though the page echoes it to its title, text,
URL, console and network in plain and encoded forms; in the advert frame of another origin it is refused and nothing
is typed. Each test runs on the session's shared browsers (`driver`, tests/browser/conftest.py)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from PIL import Image

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.executor.secret_masks import MASK_COLOUR
from browser_toolset.safety.secrets import Secret, Secrets
from browser_toolset.sessions.recording import Recorder
from browser_toolset.values import Rect
from tests.support.browsers import active_tab
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import Session, images, ok, text, tool_use

VALUE = "Tr0ub4dor&3 x/y+z"
PLACEHOLDER = "{{secret:bank}}"


def forms(value: str = VALUE) -> tuple[str, ...]:
    raw = value.encode()
    return (value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1], base64.b64encode(raw).decode())


def leaks(blob: str) -> list[str]:
    return [form for form in forms() if form in blob]


def session_on(driver: SeleniumDriver) -> Session:
    secrets = Secrets((Secret("bank", VALUE, ("127.0.0.1",)),))
    configs = {"read_console": {"enabled": True}, "read_network": {"enabled": True}}
    toolset = BrowserToolset(
        driver, secrets=secrets, navigation=URLPolicy(allow_private=True), configs=configs, confirm=lambda *_: True
    )
    return Session(toolset)


def ref_of(result: dict[str, Any], name: str) -> str:
    for line in text(result).splitlines():
        if f'"{name}"' in line and "[ref_" in line:
            return line.rsplit("[", 1)[1].split("]")[0]
    raise AssertionError(f"no ref for {name!r} in {text(result)}")


def target(ref: str) -> dict[str, Any]:
    return {"type": "ref", "ref": ref}


def page_value(driver: SeleniumDriver, handle: str, script: str) -> str:
    return driver.evaluate(handle, script)  # the test's own look, on the driver without the guard


def crop_colours(png: bytes, box: Rect, scale: float) -> set[Any]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    left, top = int(box.x * scale) + 1, int(box.y * scale) + 1
    right, bottom = int((box.x + box.width) * scale) - 1, int((box.y + box.height) * scale) - 1
    crop = image.crop((left, top, right, bottom))
    return {colour for _, colour in crop.getcolors(maxcolors=1 << 22) or []}


def check_masked(driver: SeleniumDriver, handle: str, shot: Mapping[str, Any]) -> int:
    """Every box that holds the secret is one colour in `shot` and more than one on the unmasked page."""
    boxes = [box for box in driver.secret_boxes(handle, [VALUE]) if box.width > 4 and box.height > 4]
    plain = driver.capture(handle)
    (image,) = images(shot)
    png = base64.b64decode(image["source"]["data"])
    plain_scale = Image.open(io.BytesIO(plain.png)).width / plain.viewport.width
    shot_scale = Image.open(io.BytesIO(png)).width / plain.viewport.width
    for box in boxes:
        assert len(crop_colours(plain.png, box, plain_scale)) > 1, box  # the page draws something there
        assert crop_colours(png, box, shot_scale) == {MASK_COLOUR}, box
    return len(boxes)


def test_a_secret_typed_on_its_host_appears_in_no_result_recording_or_screenshot(
    driver: SeleniumDriver, server: PageServer, tmp_path: Path
) -> None:
    s = session_on(driver)
    turns: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def turn(*calls: dict[str, Any]) -> list[dict[str, Any]]:
        assistant = {"role": "assistant", "content": list(calls)}
        answer = s.turn(*calls)
        turns.append((assistant, answer))
        return [dict(ok(block)) for block in answer["content"]]

    turn(tool_use("navigate", {"url": server.url("secret_signin.html")}))
    handle = active_tab(driver)
    assert handle is not None
    (tree,) = turn(tool_use("read_page", {"filter": "interactive"}))
    username, password = ref_of(tree, "Username"), ref_of(tree, "Password")
    turn(tool_use("form_input", {"target": target(username), "value": "ada"}))
    turn(tool_use("left_click", {"target": target(password)}))
    turn(tool_use("type", {"text": PLACEHOLDER}))
    assert page_value(driver, handle, "document.getElementById('pw').value") == VALUE
    (shot,) = turn(tool_use("screenshot"))
    assert check_masked(driver, handle, shot) >= 1  # the password field
    turn(tool_use("key", {"text": "Return"}))
    wait_until(lambda: page_value(driver, handle, "document.getElementById('said').textContent") != "", timeout=30)
    results = turn(
        tool_use("get_page_text"),
        tool_use("read_page"),
        tool_use("find", {"query": "the text that says what the password is"}),
        tool_use("read_console"),
        tool_use("list_tabs"),
    )
    wait_until(lambda: "signin-echo" in json.dumps(s.call("read_network")), timeout=30)
    (shot,) = turn(tool_use("screenshot"))
    assert check_masked(driver, handle, shot) >= 2  # the field and the paragraph that echoes the value
    (zoomed,) = turn(tool_use("zoom", {"region": [0, 0, 640, 200]}))
    assert images(zoomed)
    dumped = json.dumps([answer for _, answer in turns])
    assert "Welcome {{secret:bank}}" in dumped and "Your password is {{secret:bank}}" in dumped
    assert "signing in with {{secret:bank}}" in json.dumps(results)
    assert not leaks(dumped), leaks(dumped)
    with Recorder(tmp_path / "rec", {}) as recorder:
        for assistant, answer in turns:
            recorder.record_exchange(assistant, answer, [0.0] * len(assistant["content"]))
    files = [path for path in (tmp_path / "rec").rglob("*") if path.is_file()]
    assert sum(path.suffix == ".png" for path in files) >= 3
    for path in files:
        assert not leaks(path.read_bytes().decode("latin-1")), path


def test_a_frame_of_another_host_is_refused_and_nothing_is_typed(driver: SeleniumDriver, server: PageServer) -> None:
    s = session_on(driver)
    ok(s.call("navigate", url=server.url("secret_signin.html")))
    handle = active_tab(driver)
    assert handle is not None

    def prize_ref() -> str | None:
        try:
            return ref_of(s.call("read_page", filter="interactive"), "Win a prize")
        except AssertionError:
            return None

    # a password field in a frame of another origin is painted over too, where the frame lies in the tab
    wait_until(lambda: len(driver.secret_boxes(handle, [VALUE])) >= 2, timeout=30)
    assert check_masked(driver, handle, ok(s.call("screenshot"))) >= 2
    wait_until(lambda: prize_ref() is not None, timeout=30)
    prize = prize_ref()
    assert prize is not None
    ok(s.call("left_click", target=target(prize)))
    typed = s.call("type", text=f"x{PLACEHOLDER}")
    assert typed.get("is_error") and "'bank' may not be typed on localhost" in text(typed), text(typed)
    filled = s.call("form_input", target=target(prize), value=PLACEHOLDER)
    assert filled.get("is_error") and "localhost" in text(filled), text(filled)
    tree = text(s.call("read_page", filter="interactive"))
    prize_line = next(line for line in tree.splitlines() if '"Win a prize"' in line)
    assert "x" not in prize_line.split('"Win a prize"', 1)[1].split("[ref_")[0]  # not even the text around it
    # the sign-in field on the page's own host still takes it
    password = ref_of(s.call("read_page", filter="interactive"), "Password")
    ok(s.call("form_input", target=target(password), value=PLACEHOLDER))
    assert page_value(driver, handle, "document.getElementById('pw').value") == VALUE
