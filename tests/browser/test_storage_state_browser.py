"""Storage state on real browsers: a sign-in saved on one browser loads on the other, in Playwright's shape, with
no request reaching the server while it loads and nothing loaded for an origin the URL guard refuses."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_toolset.storage_state import (
    StorageState,
    load_storage_state,
    read_storage_state,
    save_storage_state,
)
from tests.support.browsers import active_tab, js, own_browser
from tests.support.server import PageServer

SIGN_IN = """<!doctype html><title>Sign in</title><script>
document.cookie = "session=s3cr3t-token; path=/; max-age=3600; samesite=lax";
document.cookie = "theme=dark; path=/";
localStorage.setItem("user", "ada");
localStorage.setItem("prefs", JSON.stringify({lang: "en"}));
</script><p>signed in</p>"""

OTHER = {"kind": "other browser"}


@pytest.fixture
def site() -> Iterator[PageServer]:
    server = PageServer(None, {"/signin": SIGN_IN, "/home": "<!doctype html><title>Home</title><p>home</p>"})
    yield server
    server.close()


@pytest.mark.long
@pytest.mark.parametrize("kind", ["chromium", "firefox"])
def test_a_sign_in_saved_on_one_browser_loads_on_the_other(kind: str, site: PageServer, tmp_path: Path) -> None:
    other = "firefox" if kind == "chromium" else "chromium"
    path = tmp_path / "state.json"
    with own_browser(kind) as first:
        tab = active_tab(first)
        assert tab is not None
        first.navigate(tab, site.url("signin"))
        saved = save_storage_state(first, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    data = json.loads(path.read_text())
    assert set(data) == {"cookies", "origins"}
    session = next(c for c in data["cookies"] if c["name"] == "session")
    assert session["value"] == "s3cr3t-token"
    assert session["domain"] == "127.0.0.1"
    assert session["path"] == "/"
    assert session["expires"] > 0 and session["sameSite"] == "Lax"
    assert set(session) == {"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}
    theme = next(c for c in data["cookies"] if c["name"] == "theme")
    assert theme["expires"] == -1
    origin = site.base
    assert {
        "origin": origin,
        "localStorage": [{"name": "user", "value": "ada"}, {"name": "prefs", "value": '{"lang":"en"}'}],
    } in [
        {"origin": o["origin"], "localStorage": sorted(o["localStorage"], key=lambda i: i["name"] != "user")}
        for o in data["origins"]
    ]
    assert saved == read_storage_state(path)

    with own_browser(other) as second:
        mark = site.mark()
        assert load_storage_state(second, path) == []
        assert site.requests_since(mark) == [], "loading the state sent a request to the server"
        assert [info.url for info in second.list_tabs()] == ["about:blank"], "the hidden tab was left open"
        assert second.drain_events() == []
        tab = active_tab(second)
        assert tab is not None
        second.navigate(tab, site.url("home"))
        assert js(second, tab, "localStorage.getItem('user')") == "ada"
        assert "session=s3cr3t-token" in js(second, tab, "document.cookie")
        again = second.storage_state()
    assert {(c.name, c.value) for c in again.cookies} >= {("session", "s3cr3t-token"), ("theme", "dark")}


@pytest.mark.parametrize("kind", ["chromium", "firefox"])
def test_a_playwright_file_loads_and_a_refused_origin_is_left_out(kind: str, site: PageServer, tmp_path: Path) -> None:
    """The file as Playwright writes it (a domain cookie with its leading dot, httpOnly, session expiry)."""
    refused = "http://localhost:1"
    playwright = {
        "cookies": [
            {
                "name": "sid",
                "value": "from-playwright",
                "domain": "127.0.0.1",
                "path": "/",
                "expires": -1,
                "httpOnly": True,
                "secure": False,
                "sameSite": "Lax",
            }
        ],
        "origins": [
            {"origin": site.base, "localStorage": [{"name": "token", "value": "pw"}]},
            {"origin": refused, "localStorage": [{"name": "token", "value": "nope"}]},
        ],
    }
    path = tmp_path / "playwright.json"
    path.write_text(json.dumps(playwright))
    with own_browser(kind) as browser:
        browser.set_url_guard(lambda url: not url.startswith(refused))
        mark = site.mark()
        assert load_storage_state(browser, path) == [refused]
        assert site.requests_since(mark) == []
        tab = active_tab(browser)
        assert tab is not None
        browser.navigate(tab, site.url("home"))
        assert js(browser, tab, "localStorage.getItem('token')") == "pw"
        assert js(browser, tab, "document.cookie") == "", "an httpOnly cookie is not visible to the page"
        echo_mark = site.mark()
        browser.navigate(tab, site.url("home?again"))
        assert site.requests_since(echo_mark)
        state = browser.storage_state()
    sid = next(c for c in state.cookies if c.name == "sid")
    assert sid.http_only and sid.session and sid.value == "from-playwright"
    assert [o.origin for o in state.origins] == [site.base]
    assert StorageState.from_json(state.to_json()) == state
