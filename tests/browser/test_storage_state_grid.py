"""Storage state through a Selenium Grid: a state file in Playwright's shape loads into a browser the Grid runs
(through BiDi, with no file on the node), the page sees its cookie and `localStorage`, and what the page adds is in
the file saved afterwards, written readable by its owner only.

The Grid's own record proves the browser ran there (`GridWatch`, `held_sessions`); the page's text proves what the
page itself read from its storage, not what the driver reports."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from browser_toolset.drivers.selenium import Browser, SeleniumConfig, SeleniumDriver
from browser_toolset.storage_state import load_storage_state, save_storage_state
from tests.support.browsers import active_tab, guard_allows, require_browser
from tests.support.grid import GridWatch, held_sessions
from tests.support.server import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.grid]

BROWSERS = ["chromium", pytest.param("firefox", marks=pytest.mark.firefox)]


def _playwright_state(server: PageServer) -> dict[str, object]:
    """A state as Playwright's `storageState` writes it: a host-only session cookie and the origin's storage."""
    cookie = {"domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": False, "secure": False}
    return {
        "cookies": [{"name": "sid", "value": "from-the-file", **cookie, "sameSite": "Lax"}],
        "origins": [{"origin": server.base, "localStorage": [{"name": "user", "value": "ada"}]}],
    }


@pytest.mark.long
@pytest.mark.parametrize("browser", BROWSERS)
def test_a_grid_session_loads_and_saves_storage_state(
    browser: Browser, grid: str, server: PageServer, tmp_path: Path
) -> None:
    require_browser(browser)
    loaded, saved = tmp_path / "playwright.json", tmp_path / "saved.json"
    loaded.write_text(json.dumps(_playwright_state(server)))
    watch = GridWatch(grid)
    with SeleniumDriver(SeleniumConfig(browser=browser, remote_url=grid)) as remote:
        created = watch.one_started(browser)
        assert created.id == remote._session.webdriver.session_id
        remote.set_url_guard(guard_allows)
        mark = server.mark()
        assert load_storage_state(remote, loaded) == []
        assert server.requests_since(mark) == [], "loading the state sent a request to the page server"
        tab = active_tab(remote)
        assert tab is not None
        remote.navigate(tab, server.url("storage_report.html"))
        text = remote.page_text(tab)
        assert created.id in held_sessions(grid), "the page ran in a browser the Grid does not hold"
        save_storage_state(remote, saved)
    assert watch.one_ran(browser) == created
    print(f"\n[storage grid {browser}] the page saw: {text!r}")
    assert "cookies: sid=from-the-file" in text
    assert "localStorage: user=ada" in text
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
    data = json.loads(saved.read_text())
    cookies = {cookie["name"]: cookie for cookie in data["cookies"]}
    assert cookies["sid"]["value"] == "from-the-file" and cookies["sid"]["expires"] == -1
    assert cookies["visited"]["value"] == "by-the-page" and cookies["visited"]["domain"] == "127.0.0.1"
    assert cookies["visited"]["expires"] > 0
    (origin,) = [entry for entry in data["origins"] if entry["origin"] == server.base]
    assert sorted((item["name"], item["value"]) for item in origin["localStorage"]) == [
        ("note", "set-by-the-page"),
        ("user", "ada"),
    ]
