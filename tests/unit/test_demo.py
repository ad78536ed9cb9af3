"""`browser-toolset demo`: the bundled site, a scripted multi-step task through `run_task` and the fake Messages
API, recorded and reported, on headless Chromium and on the mock fallback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from browser_toolset.cli import main
from browser_toolset.cli.demo import demo_command, run_demo, serve_site, site_directory
from browser_toolset.sessions.recording import Session


def check_session(session: Path, *, late_download: bool = False) -> Session:
    """The recorded demo session holds what the task did. `late_download`: on a browser, the download's completion
    may come after the last call (a loaded machine), so a result reporting its start is enough there; the mock
    completes it on the next call."""
    loaded = Session(session)
    members = [call.member for call in loaded.calls]
    assert members[0] == "navigate" and "form_input" in members and "switch_tab" in members
    assert all(call.outcome == "ok" for call in loaded.calls), [(c.member, c.result) for c in loaded.calls]
    texts = json.dumps([call.result for call in loaded.calls])
    assert "Pro | $29 per month" in texts
    reported = ("download_started", "download_completed") if late_download else ("download_completed",)
    assert any(kind in texts for kind in reported) and "prices.csv" in texts
    assert 'An alert dialog \\"Thank you! We will reply within one business day.\\" was dismissed.' in texts
    assert "tab_opened" in texts and "All systems operational." in texts
    assert sorted(p.suffix for p in (session / "images").iterdir()) == [".png", ".png"]
    return loaded


def test_the_site_is_package_data_and_is_served_on_loopback() -> None:
    import urllib.request

    names = {p.name for p in site_directory().iterdir()}
    assert {"index.html", "pricing.html", "contact.html", "docs.html", "prices.csv", "mock_site.json"} <= names
    with serve_site() as origin:
        assert origin.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{origin}/prices.csv", timeout=5) as response:
            assert response.read().decode().startswith("plan,price_usd_per_month")


def test_the_demo_on_the_mock_driver(tmp_path: Path) -> None:
    out = io.StringIO()
    status = demo_command(tmp_path / "d", driver="mock", out=out, err=io.StringIO())
    text = out.getvalue()
    assert status == 0, text
    assert "(driver: mock)" in text and "Finished (end_turn) after 8 turns: 18 calls, 0 errors" in text
    assert "The Pro plan costs $29 per month" in text
    assert f"Report: {(tmp_path / 'd' / 'report.html').resolve()}" in text
    loaded = check_session(tmp_path / "d" / "session")
    report = (tmp_path / "d" / "report.html").read_text(encoding="utf-8")
    assert report.count('<section class="step ') == len(loaded.calls) == 19
    # The replay command it prints runs the session again with its recorded settings, and finds nothing changed.
    (line,) = [line for line in text.splitlines() if line.startswith("Replay it: ")]
    assert line == f"Replay it: browser-toolset replay {tmp_path / 'd' / 'session'}"
    assert main(line.split()[3:]) == 0
    # A second run into the same folder starts afresh.
    assert demo_command(tmp_path / "d", driver="mock", quiet=True, out=io.StringIO()) == 0
    assert len(Session(tmp_path / "d" / "session").calls) == 19


def test_without_a_browser_the_demo_falls_back_to_the_mock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from browser_toolset.drivers.selenium import SeleniumDriver

    def no_browser(options: object) -> SeleniumDriver:
        raise OSError("chromium: not found")

    monkeypatch.setattr(SeleniumDriver, "from_options", staticmethod(no_browser))
    out = io.StringIO()
    result = run_demo(tmp_path, out=out, quiet=True)
    assert "NOTICE: headless Chromium could not start (OSError: chromium: not found)" in out.getvalue()
    assert "running the demo on the mock driver instead" in out.getvalue()
    assert (result.driver, result.ok, result.errors) == ("mock", True, 0)
    assert json.loads((tmp_path / "session" / "settings.json").read_text())["driver"] == "mock"
    with pytest.raises(RuntimeError, match="Chromium could not start"):
        run_demo(tmp_path / "x", driver="chromium", out=io.StringIO(), quiet=True)


def test_live_needs_an_api_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    err = io.StringIO()
    assert demo_command(tmp_path, live=True, out=io.StringIO(), err=err) == 2
    assert "ANTHROPIC_API_KEY" in err.getvalue()
