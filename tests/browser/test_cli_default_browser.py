"""Issue 16, item 1 on real browsers: `browser-toolset run` as the README shows it, against the fake Messages API,
drives a real browser with no `--driver` (Chromium; Firefox when no Chromium is installed), and says nothing about
the mock. The page server's log is the oracle: a real browser asked it for the page."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from browser_toolset import registry
from browser_toolset.cli import main
from browser_toolset.drivers import selenium
from browser_toolset.drivers.selenium import Browser
from browser_toolset.testing.fake_api import FakeMessagesAPI
from tests.support.browsers import require_browser
from tests.support.server import PageServer

pytestmark = pytest.mark.browser


def script() -> list[object]:
    return [
        [{"type": "tool_use", "toolset_name": "browser", "name": "get_page_text", "input": {}}],
        [{"type": "text", "text": "The form asks for a name."}],
    ]


@pytest.mark.parametrize("browser", ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)])
def test_16_1_run_drives_a_real_browser_with_no_driver_named(
    browser: Browser, server: PageServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    require_browser(browser)
    monkeypatch.chdir(tmp_path)
    for name in [name for name in __import__("os").environ if name.startswith("BROWSER_TOOLSET_")]:
        monkeypatch.delenv(name)
    if browser == "firefox":  # as on a machine without Chromium
        real = selenium.find_browser_binary
        monkeypatch.setattr(
            selenium, "find_browser_binary", lambda config, *rest: None if config.family == "chromium" else real(config)
        )
    started: list[str] = []
    real_load = registry.load_driver

    def load(name: str, options: Mapping[str, str]) -> Any:
        started.append(f"{name}:{options.get('browser')}")
        return real_load(name, options)

    monkeypatch.setattr("browser_toolset.cli.browser.load_driver", load)
    url = server.url("form.html")
    mark = server.mark()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI(script()) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["run", "What does the form ask for?", "--start-url", url, "--allow-private", "-q"])
        rejected = [request.error for request in api.requests if request.status != 200]
    assert (status, rejected) == (0, []), err.getvalue()
    assert out.getvalue() == "The form asks for a name.\n"
    assert "NOTICE" not in err.getvalue() and "mock" not in err.getvalue()
    assert ("GET", "/form.html") in server.requests_since(mark)
    # the page text Claude got is the real page's
    answer = api.requests[1].body["messages"][-1]["content"][0]
    assert "Name" in str(answer["content"])
    assert started == [f"selenium:{browser}"]
