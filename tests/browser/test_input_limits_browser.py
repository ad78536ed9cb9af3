"""Issue 16, item 3 on Chromium: a megabyte in every string field of every member (and a hundred thousand entries
in every list field) is refused at once, the executor's memory stays put, and the session goes on; inputs at the
limits work on the browser (the mock's case, and how the fields are found, are in tests/unit/test_input_limits.py)."""

from __future__ import annotations

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.executor.limits import FIELD_LIMITS
from tests.support.browsers import only
from tests.support.server import PageServer
from tests.unit.test_input_limits import ALL_ENABLED, answer_oversized_calls, tool_use


@only("chromium")
def test_16_3_a_megabyte_in_every_string_field_is_refused_on_chromium_and_the_session_goes_on(
    driver: SeleniumDriver, server: PageServer
) -> None:
    toolset = BrowserToolset(
        driver, navigation=URLPolicy(allow_private=True), configs=ALL_ENABLED, confirm=lambda context: True
    )
    assert not toolset.tool_result(tool_use("navigate", {"url": server.url("form.html")})).get("is_error")

    def after() -> None:
        # the longest URL and the longest query are answered by the browser, not refused
        base = server.url("form.html?q=")
        longest = base + "x" * (FIELD_LIMITS["url"].most - len(base))
        loaded = toolset.tool_result(tool_use("navigate", {"url": longest}))
        assert not loaded.get("is_error") and "— Form (HTTP 200)" in str(loaded["content"]), loaded["content"]
        query = ("send button " * FIELD_LIMITS["query"].most)[: FIELD_LIMITS["query"].most]
        found = toolset.tool_result(tool_use("find", {"query": query}))
        assert not found.get("is_error") and 'button "Send"' in str(found["content"]), found["content"]

    answer_oversized_calls(toolset, after)
