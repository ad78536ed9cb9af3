"""`ToolsetOptions`: `BrowserToolset` and `AsyncBrowserToolset` take the same keywords and keep them in one value, so
a setting of one cannot go missing from the other."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import attrs
import pytest
from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaConfirmContext, BetaURLContext
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset, ImageLimits, URLPolicy
from browser_toolset.drivers.mock import MockDriver, Site, button, link, textbox
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.executor.options import ToolsetOptions
from browser_toolset.safety.uploads import UploadPolicy

SDK_SETTINGS = ("configs", "confirm", "url_policy", "file_policy", "tool_configs")
"""The SDK's own options, which the async toolset's pipeline applies and its inner `BrowserToolset` never sees."""

ASYNC_WIDENED = {
    "confirm": ("BetaConfirmCallable | None", "BetaAsyncConfirmCallable | None"),
    "url_policy": ("BetaURLPolicy | None", "BetaAsyncURLPolicy | None"),
}
"""The keywords the async toolset types wider, as the SDK's async base does: a plain or an async callable."""


def keywords(function: Any) -> list[inspect.Parameter]:
    """The parameters after `self` and `driver`."""
    parameters = list(inspect.signature(function).parameters.values())
    assert [parameter.name for parameter in parameters[:2]] == ["self", "driver"]
    return parameters[2:]


def site() -> Site:
    marks = Site("https://options.test")
    marks.page(
        "/",
        "Options",
        button("Save", bounds=(100, 120, 160, 40)),
        link("Docs", "/docs", bounds=(420, 120, 120, 24)),
        textbox("Search", bounds=(100, 300, 300, 32)),
    )
    marks.page("/docs", "Docs")
    return marks


def driver() -> MockDriver:
    return MockDriver(site(), start_url="/", sleep=lambda seconds: None)


def tool_use(name: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(id=f"toolu_{name}", type="tool_use", name=name, input=input, toolset_name="browser")


def every_setting(tmp_path: Path) -> dict[str, Any]:
    """A value other than the default for every keyword."""

    def confirm(context: BetaConfirmContext) -> bool:
        return True

    def url_policy(context: BetaURLContext, url: str) -> None:
        return None

    return {
        "navigation": URLPolicy(allow_hosts=["options.test"]),
        "image_limits": ImageLimits(format="jpeg"),
        "documents": lambda document_id: str(tmp_path / document_id),
        "sleep": lambda seconds: None,
        "configs": {"javascript_exec": {"enabled": True}},
        "confirm": confirm,
        "url_policy": url_policy,
        "file_policy": UploadPolicy(str(tmp_path)),
        "tool_configs": {"cache_control": {"type": "ephemeral"}},
        "annotate_screenshots": True,
    }


# --- one signature ---------------------------------------------------------------------------------------------------


def test_both_constructors_take_the_same_keywords_in_the_same_order_with_the_same_defaults() -> None:
    sync, async_ = keywords(BrowserToolset.__init__), keywords(AsyncBrowserToolset.__init__)
    assert [p.name for p in async_] == [p.name for p in sync]
    for ours, theirs in zip(sync, async_):
        assert (theirs.kind, theirs.default) == (ours.kind, ours.default), ours.name
        assert ours.kind is inspect.Parameter.KEYWORD_ONLY, ours.name
        expected = ASYNC_WIDENED.get(ours.name, (ours.annotation, ours.annotation))
        assert (ours.annotation, theirs.annotation) == expected, ours.name


def test_the_options_value_holds_every_keyword_with_the_constructors_default() -> None:
    fields = attrs.fields(ToolsetOptions)
    assert [field.name for field in fields] == [p.name for p in keywords(BrowserToolset.__init__)]
    assert [field.default for field in fields] == [p.default for p in keywords(BrowserToolset.__init__)]
    assert ToolsetOptions().navigation == URLPolicy()  # None means the default policy, never no policy
    assert ToolsetOptions().image_limits == ImageLimits()


def test_both_alternate_constructors_take_the_same_parameters() -> None:
    sync = inspect.signature(BrowserToolset.from_options)
    async_ = inspect.signature(AsyncBrowserToolset.from_options)
    assert list(sync.parameters) == list(async_.parameters) == ["driver", "options"]


# --- the same options reach both toolsets ----------------------------------------------------------------------------


def test_each_toolset_keeps_every_setting_it_was_given(tmp_path: Path) -> None:
    given = every_setting(tmp_path)
    with BrowserToolset(driver(), **given) as sync:
        assert sync.options == ToolsetOptions(**given)
        sync_entry = sync.to_dict()
    toolset = AsyncBrowserToolset(driver(), **given)
    try:
        assert toolset.options == ToolsetOptions(**given)
        assert toolset.to_dict() == sync_entry  # configs and tool_configs reached the SDK alike
        # the executor's own settings reach the BrowserToolset doing the work, the SDK's do not
        cleared: dict[str, Any] = dict.fromkeys(SDK_SETTINGS)
        assert toolset.sync.options == attrs.evolve(toolset.options, **cleared)
        assert toolset.sync.annotate_screenshots is True
    finally:
        asyncio.run(toolset.close())


def test_for_executor_clears_the_sdk_settings_and_keeps_every_other(tmp_path: Path) -> None:
    options = ToolsetOptions(**every_setting(tmp_path))
    kept = options.for_executor()
    for field in attrs.fields(ToolsetOptions):
        expected = None if field.name in SDK_SETTINGS else getattr(options, field.name)
        assert getattr(kept, field.name) == expected, field.name


def test_from_options_builds_what_the_keywords_build(tmp_path: Path) -> None:
    given = every_setting(tmp_path)
    options = ToolsetOptions(**given)
    with BrowserToolset(driver(), **given) as by_keywords, BrowserToolset.from_options(driver(), options) as by_options:
        assert by_options.options == by_keywords.options
        assert by_options.to_dict() == by_keywords.to_dict()


@pytest.mark.parametrize("build", [BrowserToolset, AsyncBrowserToolset])
def test_an_optional_member_without_confirm_is_refused_by_either_constructor(build: Any) -> None:
    with pytest.raises(ToolsetConfigError, match="requires a confirm callable"):
        build(driver(), configs={"javascript_exec": {"enabled": True}})


# --- annotate_screenshots on the async toolset -----------------------------------------------------------------------


def screenshot_data(result: Any) -> str:
    assert not result.get("is_error"), result
    (image,) = [block for block in result["content"] if block["type"] == "image"]
    return str(image["source"]["data"])


def test_an_async_toolset_annotates_screenshots_as_the_sync_one_does() -> None:
    async def async_screenshot() -> str:
        async with AsyncBrowserToolset(driver(), annotate_screenshots=True) as toolset:
            assert toolset.options.annotate_screenshots is True
            return screenshot_data(dict(await toolset.tool_result(tool_use("screenshot"))))

    annotated = asyncio.run(async_screenshot())
    with BrowserToolset(driver(), annotate_screenshots=True) as marked, BrowserToolset(driver()) as plain:
        assert annotated == screenshot_data(dict(marked.tool_result(tool_use("screenshot"))))
        assert annotated != screenshot_data(dict(plain.tool_result(tool_use("screenshot"))))
