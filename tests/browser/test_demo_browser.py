"""The demo's whole task on headless Chromium and Firefox through the real loop (the demo starts its own browser)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import pytest

from browser_toolset.cli import demo
from browser_toolset.cli.demo import run_demo
from browser_toolset.testing.plugin import require_browser
from tests.unit.test_demo import check_session


@pytest.mark.long
@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_the_demo_on_a_headless_browser(
    tmp_path: Path, browser: Literal["chromium", "firefox"], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole task through the real loop: batches, a new tab, a download, a dialog, a form."""
    require_browser(browser)  # the demo starts a browser of its own, as a user's demo does
    # What reached the demo site, seen by its own request handler: the driver's word is not the oracle.
    served: list[str] = []
    monkeypatch.setattr(
        demo._QuietHandler, "log_request", lambda handler, code="-", size="-": served.append(handler.path)
    )
    out = io.StringIO()
    result = run_demo(tmp_path, driver=browser, out=out)
    paths = {urlsplit(path).path for path in served}
    assert {"/index.html", "/pricing.html", "/prices.csv", "/contact.html", "/status.html"} <= paths, served
    (sent,) = [parse_qs(urlsplit(path).query) for path in served if urlsplit(path).path == "/thanks.html"]
    assert sent == {
        "name": ["Ada Lovelace"],
        "email": ["ada@example.com"],
        "plan": ["pro"],
        "message": ["Hello, could you send us a quote for the Pro plan for 3 people?"],
    }
    assert (result.driver, result.stop_reason, result.rejected_requests, result.errors) == (
        "selenium",
        "end_turn",
        0,
        0,
    )
    assert f"headless {browser.capitalize()}" in out.getvalue()
    loaded = check_session(result.session, late_download=True)
    assert loaded.settings["driver"] == "selenium"
    assert result.report.read_text(encoding="utf-8").count('<section class="step ') == len(loaded.calls) == 19
    # The coordinate clicks are drawn on the screenshot before them.
    assert result.report.read_text(encoding="utf-8").count('class="shot marked"') == 2
    assert result.final_text.startswith("Done:\n- The Pro plan costs $29 per month (10 databases).\n")
