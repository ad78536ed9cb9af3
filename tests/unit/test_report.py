"""`browser-toolset report`: one self-contained HTML file per session, with every call as a step, click points
marked, errors highlighted and page text escaped (rendered in headless Chromium in
`tests/browser/test_report_browser.py`)."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

import anthropic
import pytest
from PIL import Image

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.sessions.recording import Recorder, Session, record_run
from browser_toolset.sessions.report import call_points, marked_image, render_report, report_command, write_report
from browser_toolset.testing.fake_api import FakeMessagesAPI, load_script

SCRIPTS = Path(__file__).parent.parent / "scripts"
ARTEFACTS = Path("/tmp/browser-toolset-test-artefacts")


def call(name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "toolset_name": "browser", "name": name, "input": input}


# A session with a screenshot, a coordinate click after it, a failure, a skipped call and hostile page text.
SCRIPT = [
    [{"type": "text", "text": "Looking <b>first</b>."}, call("screenshot")],
    [call("left_click", target={"type": "coordinate", "x": 600, "y": 500}), call("get_page_text")],
    [call("left_click", target={"type": "ref", "ref": "ref_99"}), call("screenshot")],
    [{"type": "text", "text": "Done & dusted."}],
]
SITE = {
    "base_url": "https://shop.test",
    "start": "/",
    "pages": {
        "/": {
            "title": "<script>alert('title')</script>",
            "elements": [
                {"role": "link", "name": "Pricing", "href": "/p"},
                {"role": "paragraph", "text": "<img src=x onerror=alert(1)> & <script>alert(2)</script>"},
            ],
        },
        "/p": {"title": "Pricing", "elements": [{"role": "paragraph", "text": "Hats cost 12."}]},
    },
}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_session(tmp_path_factory.mktemp("report"))


def record_session(root: Path) -> Path:
    """SCRIPT recorded on the mock into `root`, which the report is drawn from."""
    import json

    site = root / "site.json"
    site.write_text(json.dumps(SITE), encoding="utf-8")
    with FakeMessagesAPI(load_script(SCRIPT)) as api:
        client = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
        record_run(
            BrowserToolset(MockDriver.from_json(site, sleep=lambda s: None)),
            "Find <the> price & report it",
            root / "session",
            settings={"driver": "mock", "api_key": "sk-ant-secret"},
            client=client,
            start_url="https://shop.test/",
            quiet=True,
        )
    return root / "session"


def test_every_call_is_a_step_with_its_details(session: Path) -> None:
    calls = Session(session).calls
    page = render_report(Session(session))
    assert page.count('<section class="step ') == len(calls) == 6
    assert page.count('class="step error"') == 1
    assert page.count('class="step not_executed"') == 1
    for recorded in calls:
        assert f'id="call-{recorded.index}"' in page
    assert page.count('<span class="time">') == len(calls)
    assert "Tabs after this call" in page
    assert "Done &amp; dusted." in page and "Looking &lt;b&gt;first&lt;/b&gt;." in page
    assert "Find &lt;the&gt; price &amp; report it" in page
    assert "sk-ant-secret" not in page


def test_page_text_is_escaped_and_nothing_is_fetched(session: Path) -> None:
    page = render_report(Session(session))
    assert "<script>" not in page and "onerror=alert" not in page.replace("onerror=alert(1)&gt;", "")
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in page
    # Self-contained: every src is a data URI, no stylesheet or script is linked.
    assert re.findall(r'src="(?!data:image/)', page) == []
    assert "<link" not in page and 'http-equiv="Content-Security-Policy"' in page


def test_a_coordinate_click_is_drawn_on_the_screenshot_before_it(session: Path) -> None:
    page = render_report(Session(session))
    marked = re.findall(r'<img class="shot marked" alt="click point" src="data:image/png;base64,([^"]+)"', page)
    assert len(marked) == 1
    image = Image.open(io.BytesIO(base64.b64decode(marked[0]))).convert("RGB")
    assert image.getpixel((600, 500 - 12)) == (220, 20, 60)
    drag = {"from": {"type": "coordinate", "x": 1, "y": 2}, "target": {"type": "coordinate", "x": 3, "y": 4}}
    assert call_points("left_click_drag", drag) == [(1, 2), (3, 4)]
    assert call_points("left_click", {"target": {"type": "ref", "ref": "ref_1"}}) == []
    assert marked_image(b"not an image", [(1, 1)]) is None


def test_the_command_writes_the_file(session: Path, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "r.html"
    assert report_command(session, target, out=out, err=err) == 0
    assert out.getvalue().strip() == str(target) and target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert report_command(tmp_path / "none", out=out, err=err) == 2
    assert write_report(session).name == "report.html"


def test_the_command_line_writes_to_output_not_o(session: Path, tmp_path: Path) -> None:
    from browser_toolset.cli import main

    target = tmp_path / "cli.html"
    assert main(["report", str(session), "--output", str(target), "--title", "Hats"]) == 0
    assert "<title>Hats</title>" in target.read_text(encoding="utf-8")
    with pytest.raises(SystemExit):  # -o is a driver option wherever it exists, and report starts no driver
        main(["report", str(session), "-o", str(tmp_path / "other.html")])
    assert not (tmp_path / "other.html").exists()


def test_an_exec_session_without_a_task_renders_too(tmp_path: Path) -> None:
    with Recorder(tmp_path, {}) as recorder:
        recorder.record_exchange(
            {"role": "assistant", "content": [dict(call("list_tabs"), id="toolu_1")]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "toolset_name": "browser",
                        "content": [{"type": "text", "text": "tab-1"}],
                    }
                ],
            },
            [0.01],
        )
    assert render_report(Session(tmp_path)).count('<section class="step ') == 1
