"""Issue 16, item 5: drivers that cannot fake success. The protocol names its required and optional methods as data
(`browser_toolset.driver.REQUIRED_FEATURES` / `OPTIONAL_FEATURES`); a method a driver leaves out raises
`NotImplementedError` naming it instead of returning None; a toolset over a driver without a required method fails
at construction listing them; the members whose optional method is missing are unavailable, as the SDK treats the
members a toolset does not implement; and the conformance suite skips those members, saying why."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from anthropic.tools import ToolsetConfigError
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import AsyncBrowserToolset, BrowserToolset
from browser_toolset.driver import (
    OPTIONAL_FEATURES,
    OPTIONAL_METHODS,
    REQUIRED_FEATURES,
    REQUIRED_METHODS,
    ConsoleEntry,
    Driver,
    NotSupported,
    implements,
    missing_methods,
)
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.drivers.mock.elements import button, textbox
from browser_toolset.executor.availability import OPTIONAL_MEMBERS
from tests.conformance import sites, test_events
from tests.conformance.harness import Target

SHOP = Site("https://shop.test/", start="/").page("/", "Shop", button("Buy"), textbox("Email"))


def shop() -> MockDriver:
    return MockDriver(copy.deepcopy(SHOP))


class Without:
    """A driver that does not subclass `Driver` (the protocol is structural): a `MockDriver` with `methods` gone."""

    def __init__(self, inner: MockDriver, methods: Iterable[str]) -> None:
        self._inner = inner
        self._gone = frozenset(methods)

    def __getattr__(self, name: str) -> Any:
        if name in self._gone:
            raise AttributeError(name)
        return getattr(self._inner, name)


def tool_use(name: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock.model_validate(
        {"type": "tool_use", "id": "toolu_drivers", "name": name, "input": input, "toolset_name": "browser"}
    )


def test_16_5_the_protocol_names_its_required_and_optional_methods_as_data() -> None:
    assert [feature.name for feature in REQUIRED_FEATURES] == [
        "tabs",
        "navigation",
        "capture",
        "pointer input",
        "keyboard input",
        "reads",
    ]
    assert [feature.name for feature in OPTIONAL_FEATURES] == [
        "console",
        "network",
        "downloads",
        "dialogs",
        "script evaluation",
        "file setting",
        "region capture",
        "storage state",
        "secrets",
        "key targets",
    ]
    public = {name for name, value in vars(Driver).items() if callable(value) and not name.startswith("_")}
    assert set(REQUIRED_METHODS) | set(OPTIONAL_METHODS) == public
    assert not set(REQUIRED_METHODS) & set(OPTIONAL_METHODS)
    assert set(REQUIRED_METHODS) == set(Driver.__abstractmethods__)
    without_member = {
        "capture_region",
        "storage_state",
        "load_storage_state",
        "document_url",
        "secret_boxes",
        "key_target",
    }
    assert set(OPTIONAL_MEMBERS.values()) == set(OPTIONAL_METHODS) - without_member


def test_16_5_a_driver_without_click_and_type_text_is_refused_when_the_toolset_is_built() -> None:
    """Before: `exec` answered `Clicked.` and `Typed.` for calls that did nothing."""
    driver = Without(shop(), ["click", "type_text"])
    with pytest.raises(TypeError) as raised:
        BrowserToolset(driver)
    assert str(raised.value) == (
        "The mock driver cannot run the browser toolset: it does not implement pointer input (click); keyboard "
        "input (type_text). Every driver implements the required methods of browser_toolset.driver.Driver (see "
        "docs/writing-a-driver.md)."
    )
    with pytest.raises(TypeError, match=r"pointer input \(click\); keyboard input \(type_text\)"):
        AsyncBrowserToolset(driver)


def test_16_5_a_driver_missing_hold_keys_is_refused_naming_it() -> None:
    """Before: `hold_key` failed with `AttributeError: 'NoneType' object has no attribute 'repeated'`."""
    with pytest.raises(TypeError, match=r"it does not implement keyboard input \(hold_keys\)\. "):
        BrowserToolset(Without(shop(), ["hold_keys"]))
    assert missing_methods(Without(shop(), ["hold_keys"])) == ["hold_keys"]


def test_16_5_a_driver_subclass_implementing_nothing_cannot_be_made_and_says_what_it_lacks() -> None:
    """Before: `TypeError: 'NoneType' object is not iterable` from deep inside the toolset's constructor."""

    class Nothing(Driver):
        name = "nothing"

    with pytest.raises(TypeError) as raised:
        Nothing()  # type: ignore[abstract]
    message = str(raised.value)
    assert message.startswith("Can't instantiate abstract class Nothing with abstract methods ")
    assert message.removeprefix("Can't instantiate abstract class Nothing with abstract methods ").split(
        ", "
    ) == sorted(REQUIRED_METHODS)


def test_16_5_a_protocol_method_a_driver_reaches_without_implementing_it_raises_naming_it() -> None:
    class NoConsole(MockDriver):
        drain_console = Driver.drain_console  # the protocol's own body, as a subclass leaving it out inherits it

    driver = NoConsole(copy.deepcopy(SHOP))
    (tab,) = driver.handles
    assert not implements(driver, "drain_console") and implements(driver, "drain_network")
    with pytest.raises(NotImplementedError) as raised:
        driver.drain_console(tab)
    assert str(raised.value) == (
        "NoConsole does not implement drain_console, an optional method of the Driver protocol."
    )
    with pytest.raises(NotImplementedError, match=r"^MockDriver does not implement click, a method every driver"):
        Driver.click(shop(), tab, (1, 1))  # type: ignore[arg-type]


def test_16_5_members_of_a_missing_optional_method_are_unavailable_as_the_sdk_reports_unimplemented_ones() -> None:
    driver = Without(shop(), ["drain_console", "evaluate"])
    toolset = BrowserToolset(driver, confirm=lambda context: True)
    # left out of what Claude is offered, as the SDK leaves out the members a toolset does not implement
    assert toolset.configs == {"read_console": {"enabled": False}, "javascript_exec": {"enabled": False}}
    result = toolset.tool_result(tool_use("read_console"))
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_drivers",
        "toolset_name": "browser",
        "content": "The browser toolset member 'read_console' is not available in this environment.",
        "is_error": True,
    }
    assert toolset.tool_result(tool_use("javascript_exec", text="1")).get("is_error")
    read = toolset.tool_result(tool_use("read_network"))  # default-disabled, not unavailable: the SDK's own answer
    assert "not permitted by this application's permissions" in str(read["content"])
    assert not toolset.tool_result(tool_use("find", query="buy button")).get("is_error")


def test_16_5_a_member_the_application_disabled_itself_keeps_the_sdk_word_for_it() -> None:
    driver = Without(shop(), ["drain_console"])
    toolset = BrowserToolset(driver, configs={"read_console": {"enabled": False}})
    assert "not permitted by this application's permissions" in str(
        toolset.tool_result(tool_use("read_console"))["content"]
    )


def test_16_5_enabling_a_member_the_driver_cannot_serve_is_a_configuration_error() -> None:
    driver = Without(shop(), ["drain_console"])
    with pytest.raises(ToolsetConfigError) as raised:
        BrowserToolset(driver, configs={"read_console": {"enabled": True}})
    assert str(raised.value) == (
        "configs enables member(s) the mock driver cannot serve: ['read_console'] (read_console needs drain_console, "
        "an optional method of the Driver protocol it does not implement). Disable them, or use a driver that "
        "implements those methods."
    )


def test_16_5_the_async_toolset_reports_unavailable_members_the_same_way() -> None:
    driver = Without(shop(), ["set_files"])

    async def main() -> tuple[Mapping[str, Any] | None, Mapping[str, Any]]:
        async with AsyncBrowserToolset(driver) as toolset:
            return toolset.configs, await toolset.tool_result(
                tool_use("file_upload", target={"type": "ref", "ref": "ref_1"})
            )

    configs, result = asyncio.run(main())
    assert configs == {"file_upload": {"enabled": False}}
    assert result["content"] == "The browser toolset member 'file_upload' is not available in this environment."


class RefusingConsole(MockDriver):
    """A driver whose backend has no console log: it says so with `NotSupported`, as the protocol allows."""

    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        raise NotSupported("this backend keeps no console log")


def test_16_5_a_driver_refusing_an_optional_diagnostic_answers_that_member_with_why() -> None:
    toolset = BrowserToolset(RefusingConsole(copy.deepcopy(SHOP)), configs={"read_console": {"enabled": True}})
    result = toolset.tool_result(tool_use("read_console"))
    assert result["content"] == [
        {
            "type": "text",
            "text": "Error: read_console is not available with the mock driver: this backend keeps no console log",
        }
    ]
    assert not toolset.tool_result(tool_use("find", query="buy button")).get("is_error")


def test_16_5_the_conformance_suite_skips_what_a_driver_refuses_instead_of_failing_every_test() -> None:
    """Before: the reset between conformance tests always drained the console, so a driver refusing it failed all
    of them. Now the reset does without it and the console test is skipped, saying why; the rest run."""
    target = Target("entry:refusing", RefusingConsole(Site()))
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            test_events.test_console_lines(target)
        assert str(skipped.value) == "the mock driver does not support read_console: this backend keeps no console log"
        visit = target.visit(sites.events())
        assert visit.skipped == {
            "read_console": "the mock driver does not support read_console: this backend keeps no console log"
        }
        assert (visit.toolset.configs or {}).get("read_network") == {"enabled": True}
    finally:
        target.close()


def test_16_5_the_conformance_suite_skips_the_members_of_a_missing_optional_method() -> None:
    target = Target("entry:without", Without(MockDriver(Site()), ["drain_network"]))
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            test_events.test_requests_in_the_network_log(target)
        assert str(skipped.value) == "the mock driver does not implement drain_network, so read_network is unavailable"
    finally:
        target.close()
