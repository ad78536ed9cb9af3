"""`browser-toolset exec` on real browsers: a recorded multi-step session (navigate, read_page, click by ref, type,
key, new_tab, screenshot, zoom) answered with contract-true results on Chromium, Firefox, and Chromium through a
Selenium Grid. The page server's log shows the browser really loaded the page, and the Grid's log that the Grid
ran the browser of the Grid case."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from browser_toolset.cli import main
from browser_toolset.drivers.selenium import Browser
from tests.support.browsers import require_browser
from tests.support.grid import GridWatch
from tests.support.server import PageServer
from tests.unit.test_cli import check_session

pytestmark = pytest.mark.browser

RECORDED = Path(__file__).parent.parent / "sessions" / "form_session.jsonl"


@pytest.mark.parametrize(
    "where",
    [
        "chromium",
        pytest.param("firefox", marks=pytest.mark.firefox),
        pytest.param("grid-chromium", marks=pytest.mark.grid),
    ],
)
def test_recorded_session(
    where: str, server: PageServer, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser: Browser = "firefox" if where == "firefox" else "chromium"
    require_browser(browser)
    argv = ["exec", "--driver", "selenium", "--browser", browser, "--allow-private", "--enable", "javascript_exec"]
    watch: GridWatch | None = None
    if where.startswith("grid-"):
        grid = request.getfixturevalue("grid")
        argv += ["--remote", grid]
        watch = GridWatch(grid)
    text = RECORDED.read_text().replace("{BASE}", server.url(""))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    mark = server.mark()
    assert main(argv) == 0, err.getvalue()
    # the browser really loaded the recorded page, and (through the Grid) the Grid held that browser from start to end
    asked = server.requests_since(mark)
    assert ("GET", "/form.html") in asked, f"the page server was not asked for the page: {asked}"
    if watch is not None:
        watch.one_ran(browser)
    inputs = [json.loads(line) for line in text.splitlines()]
    outputs = [json.loads(line) for line in out.getvalue().splitlines()]
    check_session(inputs, outputs)
    results = {r["tool_use_id"]: r for message in outputs for r in message["content"]}
    assert not [r for r in results.values() if r.get("is_error")], results
    assert "Navigated to" in results["s1"]["content"][0]["text"] and "(HTTP 200)" in results["s1"]["content"][0]["text"]
    assert 'textbox "Name"' in results["s2"]["content"][0]["text"]
    # the click by ref landed in the field: the text typed after it is what the page now holds
    assert results["s8"]["content"][0]["text"] in ('"Ada"', "Ada")
    shot = results["s10"]["content"][0]
    assert Image.open(io.BytesIO(base64.b64decode(shot["source"]["data"]))).size == (1280, 800)
    zoom = results["s11"]["content"][0]
    assert Image.open(io.BytesIO(base64.b64decode(zoom["source"]["data"]))).size == (1429, 804)
