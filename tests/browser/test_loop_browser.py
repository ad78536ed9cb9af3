"""The agent loop once on each real browser, against the fake Messages API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.agent.run import run_task
from browser_toolset.testing.fake_api import FakeMessagesAPI, load_script
from tests.support.browsers import own_browser
from tests.support.server import PageServer
from tests.unit.test_loop import NOT_EXECUTED, call, client_for, done, results_of, state, texts


@pytest.fixture
def real_toolset(browser: str) -> Iterator[BrowserToolset]:
    # a browser of its own: run_task closes the toolset, and with it the browser, as it ends
    toolset = BrowserToolset(own_browser(browser), navigation=URLPolicy(allow_private=True))
    try:
        yield toolset
    finally:
        toolset.close()


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_a_session_on_a_headless_browser(server: PageServer, real_toolset: BrowserToolset) -> None:
    toolset = real_toolset
    script = load_script(
        [
            [call("read_page", filter="interactive")],
            [call("left_click", target={"type": "ref", "ref": "ref_1"}), call("screenshot")],
            [call("find", query="name field"), call("get_page_text")],
            [call("left_click", target={"type": "ref", "ref": "ref_99"}), call("screenshot")],
            done("The form asks for a name."),
        ]
    )
    with FakeMessagesAPI(script) as api:
        result = run_task(
            toolset,
            "Find the sign-up form.",
            client=client_for(api),
            quiet=True,
            start_url=server.url("index.html"),
        )
        requests = api.requests

    assert [(r.status, r.error) for r in requests] == [(200, None)] * 5
    assert result.stop_reason == "end_turn"
    assert (result.calls, result.errors, result.summary.not_executed) == (6, 1, 1)
    (tree,) = results_of(requests[1])
    assert 'link "Form" [ref_1]' in texts(tree)[0]
    click, screenshot = results_of(requests[2])
    assert state(click)["tabs"][0]["url"] == server.url("form.html")
    assert screenshot["content"][0]["type"] == "image"
    found, page_text = results_of(requests[3])
    assert 'textbox "Name"' in texts(found)[0]
    assert "Sign up" in texts(page_text)[0]
    missing, skipped = results_of(requests[4])
    assert missing["is_error"] is True and skipped["content"] == NOT_EXECUTED
