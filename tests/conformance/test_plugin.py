"""The pytest plugin, used the way a user's tests use it: its fixtures arrive through the `pytest11` entry point,
with no import of the plugin in this file or any conftest."""

from __future__ import annotations

import json
import os
from typing import Any, cast

import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, heading, link
from browser_toolset.testing.contract import SessionValidator
from browser_toolset.testing.plugin import checked_batch, start_browser
from browser_toolset.testing.site_server import SiteServer
from tests.conformance import sites
from tests.conformance.conftest import entry_point_drivers
from tests.support.session import text, tool_use


def turn(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(calls)}


def test_the_default_site_is_empty(mock_site: Site, mock_driver: MockDriver) -> None:
    assert mock_site.pages == {}
    assert [tab.url for tab in mock_driver.list_tabs()] == ["about:blank"]


SHOP = sites.shop()


@pytest.mark.mock_site(SHOP)
def test_a_marked_site_is_loaded_by_the_mock(mock_site: Site, mock_toolset: BrowserToolset) -> None:
    mock_site.page("/extra", "Extra")
    assert mock_site is not SHOP and "https://shop.test/extra" not in SHOP.pages
    answer = checked_batch(
        mock_toolset,
        turn(tool_use("navigate", {"url": mock_site.url("/about")}), tool_use("read_page", {"filter": "all"})),
    )
    assert text(answer["content"][1]).startswith('heading "About us" level=1 [ref_1]')


def site_with_start() -> Site:
    return Site("https://shop.test", start="/").page("/", "Home", heading("Hello"))


@pytest.mark.mock_site.with_args(site_with_start)
def test_the_mock_starts_at_the_site_s_start_page(mock_toolset: BrowserToolset) -> None:
    answer = checked_batch(mock_toolset, turn(tool_use("list_tabs")))
    (tab,) = answer["content"][0]["content"][0]["tabs"]
    assert (tab["title"], tab["url"]) == ("Home", "https://shop.test/")


def test_checked_batch_applies_the_batch_rule_and_the_contract(
    mock_toolset: BrowserToolset, browser_contract: SessionValidator
) -> None:
    answer = checked_batch(
        mock_toolset,
        turn(
            tool_use("new_tab"),
            tool_use("switch_tab", {"tab_id": "tab-9"}),
            tool_use("list_tabs"),
        ),
        browser_contract,
    )
    errors = [result.get("is_error", False) for result in answer["content"]]
    assert errors == [False, True, True]
    assert answer["content"][2]["content"] == "Not executed: an earlier action in this turn failed."
    assert browser_contract.listed == {"tab-1", "tab-2"}


class Forger:
    """A toolset stand-in whose results break the contract: a tab title with a newline."""

    def tool_result(self, call: Any) -> dict[str, Any]:
        state = {"type": "browser_state", "tabs": [{"tab_id": "tab-1", "title": "a\nb", "url": "", "active": True}]}
        return {"type": "tool_result", "tool_use_id": call.id, "toolset_name": "browser", "content": [state]}


def test_checked_batch_fails_on_a_contract_violation() -> None:
    validator = SessionValidator()
    with pytest.raises(AssertionError, match="contract violation"):
        checked_batch(cast(BrowserToolset, Forger()), turn(tool_use("list_tabs")), validator)
    assert validator.violations


def test_browser_contract_checks_what_it_is_fed(
    mock_toolset: BrowserToolset, browser_contract: SessionValidator
) -> None:
    from anthropic.types.beta import BetaToolUseBlock

    call = tool_use("list_tabs")
    result = dict(mock_toolset.tool_result(BetaToolUseBlock.model_validate(call)))
    assert browser_contract.feed(call, result) == []
    forged = json.loads(json.dumps(result))
    forged["content"][0]["tabs"][0]["tab_id"] = ""
    assert browser_contract.feed(call, forged)
    browser_contract.violations.clear()  # the teardown check would fail the test otherwise


@pytest.mark.browser
@pytest.mark.mock_site.with_args(sites.shop)
def test_chromium_toolset_serves_the_site(site_server: SiteServer, chromium_toolset: BrowserToolset) -> None:
    answer = checked_batch(
        chromium_toolset, turn(tool_use("navigate", {"url": site_server.url("/about")}), tool_use("get_page_text"))
    )
    assert text(answer["content"][1]) == "About us\nWe make hats.\nHome"


@pytest.mark.browser
@pytest.mark.firefox
@pytest.mark.mock_site(site_with_start())
def test_firefox_toolset_starts_at_the_site_s_start_page(firefox_toolset: BrowserToolset) -> None:
    answer = checked_batch(firefox_toolset, turn(tool_use("list_tabs")))
    (tab,) = answer["content"][0]["content"][0]["tabs"]
    assert tab["title"] == "Home" and tab["url"].startswith("http://127.0.0.1:")


def test_a_missing_browser_skips_or_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CHROMIUM_BINARY", "/nonexistent/chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        start_browser("chromium")
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        start_browser("chromium")
    assert os.environ["CI"] == "1"


def test_conformance_drivers_from_the_environment() -> None:
    assert entry_point_drivers("") == []
    assert entry_point_drivers("mine; other headless=false, viewport=800x600 ;") == [
        ("mine", {}),
        ("other", {"headless": "false", "viewport": "800x600"}),
    ]
    with pytest.raises(pytest.UsageError, match="not key=value"):
        entry_point_drivers("mine headless")


def call(name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": input, "toolset_name": "browser"}


DOC_SHOP = Site("https://shop.test", start="/").page("/", "Shop", heading("Welcome"), link("About", "/about"))


@pytest.mark.browser
@pytest.mark.mock_site(DOC_SHOP)
def test_the_example_of_the_docs(
    mock_toolset: BrowserToolset, mock_site: Site, chromium_toolset: BrowserToolset, site_server: SiteServer
) -> None:
    """The example in docs/mock-driver.md, "Serving a site to a real browser", as it is written there."""
    trees = []
    for toolset, url in ((mock_toolset, mock_site.url), (chromium_toolset, site_server.url)):
        turn = {"role": "assistant", "content": [call("navigate", url=url("/")), call("read_page")]}
        trees.append(checked_batch(toolset, turn)["content"][1]["content"][0]["text"])
    assert trees[0] == trees[1] == 'heading "Welcome" level=1 [ref_1]\nlink "About" [ref_2]'
