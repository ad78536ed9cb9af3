"""`executor/sdk_surface.py`: exactly the private parts of the `anthropic` SDK the toolsets and the agent loop rely
on, checked on the installed SDK, with a message naming what differs on one that differs; and no other module of the
package uses any private part of the SDK."""

from __future__ import annotations

import ast
import asyncio
import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import anthropic
import pytest
from anthropic.tools.browser import (
    BetaAbstractBrowserToolset20260801,
    BetaAsyncAbstractBrowserToolset20260801,
    BetaBrowserState,
    BetaToolsetCallContext,
)
from anthropic.types.beta import BetaBrowserStateChangeParam, BetaToolUseBlock

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, button
from browser_toolset.executor import sdk_surface
from browser_toolset.executor.async_toolset import AsyncBrowserToolset
from browser_toolset.executor.sdk_surface import (
    SDKSurfaceError,
    check_sdk_surface,
    held_changes,
    pipeline_problems,
    put_back_changes,
    supports_message_threads,
    surface_problems,
    threads_flag_problems,
)

ROOT = Path(__file__).resolve().parents[2]
SDK_CLASSES = [(BetaAbstractBrowserToolset20260801, False), (BetaAsyncAbstractBrowserToolset20260801, True)]
CLIENT_FLAGS = ("_supports_message_threads",)
"""The private names of the SDK's clients that the adapter reads."""
HELD: BetaBrowserStateChangeParam = {
    "type": "download_started",
    "download_id": "dl-9",
    "url": "https://surface.test/files/held.csv",
}


def driver() -> MockDriver:
    shop = Site("https://surface.test")
    shop.page("/", "Surface", button("Save"))
    return MockDriver(shop, start_url="/", sleep=lambda seconds: None)


def tool_use(name: str, **input: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(id=f"toolu_{name}", type="tool_use", name=name, input=input, toolset_name="browser")


def changes_in(result: Mapping[str, Any]) -> list[Any]:
    assert not result.get("is_error"), result
    (block,) = [block for block in result["content"] if block["type"] == "browser_state"]
    return list(block.get("state_changes") or [])


# --- what the installed SDK has --------------------------------------------------------------------------------------


def test_the_installed_sdk_has_everything_the_adapter_relies_on() -> None:
    assert surface_problems(BetaAbstractBrowserToolset20260801, BetaAsyncAbstractBrowserToolset20260801) == []
    check_sdk_surface()


@pytest.mark.parametrize(("sdk_class", "coroutine"), SDK_CLASSES)
def test_toolset_run_is_one_call_through_the_pipeline_run_by_call(sdk_class: type, coroutine: bool) -> None:
    run = sdk_class._toolset_run  # type: ignore[attr-defined]
    assert list(inspect.signature(run).parameters) == ["self", "context", "name", "input"]
    assert inspect.iscoroutinefunction(run) is coroutine
    assert "_toolset_run" in sdk_class.call.__code__.co_names  # type: ignore[attr-defined]


@pytest.mark.parametrize(("sdk_class", "coroutine"), SDK_CLASSES)
def test_browser_state_is_the_abstract_hook_for_the_state_after_a_call(sdk_class: type, coroutine: bool) -> None:
    hook = sdk_class._browser_state  # type: ignore[attr-defined]
    assert list(inspect.signature(hook).parameters) == ["self", "context"]
    assert inspect.iscoroutinefunction(hook) is coroutine
    assert "_browser_state" in getattr(sdk_class, "__abstractmethods__", ())
    assert not {"_around_call", "_report_state"} & set(dir(sdk_class))


def test_the_pipeline_holds_a_list_of_wire_changes_for_the_next_report() -> None:
    with BrowserToolset(driver()) as toolset:
        pending = toolset._toolset_pipeline.pending_changes
        assert type(pending) is list and pending == []
        assert pipeline_problems(toolset) == []
        put_back_changes(toolset, [HELD])
        assert held_changes(toolset) == [HELD]
        assert changes_in(toolset.tool_result(tool_use("get_page_text"))) == [HELD]
        assert held_changes(toolset) == []


def test_the_async_pipeline_is_looked_up_afresh_after_each_call() -> None:
    async def main() -> list[list[Any]]:
        async with AsyncBrowserToolset(driver()) as toolset:
            first = changes_in(await toolset.tool_result(tool_use("get_page_text")))
            put_back_changes(toolset, [HELD])
            second = changes_in(await toolset.tool_result(tool_use("get_page_text")))
            return [first, second, held_changes(toolset)]

    assert asyncio.run(main()) == [[], [HELD], []]


def test_changes_held_before_a_call_whose_state_was_unread_go_out_with_the_next_report() -> None:
    """The report the SDK rendered for that call carried the held changes; the call failed instead, so they are put
    back, and lost if putting back did not reach the pipeline."""
    mock = driver()
    real = mock.list_tabs
    failing = {"now": False}

    def flaky() -> Any:
        if failing["now"]:
            failing["now"] = False
            raise BrokenPipeError("the browser's socket closed")
        return real()

    with BrowserToolset(mock) as toolset:
        put_back_changes(toolset, [HELD])
        mock.list_tabs = flaky  # type: ignore[method-assign]
        failing["now"] = True
        broken = toolset.tool_result(tool_use("get_page_text"))
        assert broken.get("is_error") is True
        assert held_changes(toolset) == [HELD]
        assert changes_in(toolset.tool_result(tool_use("get_page_text"))) == [HELD]


def test_the_clients_flag_is_what_the_sdks_own_threads_check() -> None:
    """The flag says whether a client has message threads, and the SDK's threads refuse a client where it is false,
    so reading it refuses such a client before anything runs, as the SDK would after."""
    assert anthropic.Anthropic._supports_message_threads is True
    assert anthropic.AsyncAnthropic._supports_message_threads is True
    assert anthropic.AnthropicBedrock._supports_message_threads is False
    assert anthropic.AnthropicVertex._supports_message_threads is False

    class NoThreads(anthropic.Anthropic):
        _supports_message_threads = False

    assert supports_message_threads(anthropic.Anthropic(api_key="k")) is True
    assert supports_message_threads(anthropic.AsyncAnthropic(api_key="k")) is True
    client = NoThreads(api_key="k")
    assert supports_message_threads(client) is False
    with pytest.raises(anthropic.AnthropicError, match="Message threads are not available on this client"):
        client.beta.messages.thread(model="claude-opus-5-5", max_tokens=16)


# --- what a differing SDK is told ------------------------------------------------------------------------------------


class RenamedSync:
    """A sync toolset class as an SDK release that moved things might have it."""

    def call(self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]) -> object:
        return self._run_member(context, name, input)

    def _run_member(self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]) -> object:
        return None

    def _toolset_run(self, context: BetaToolsetCallContext, member: str, raw: Mapping[str, object]) -> object:
        return None


class SyncedAsync(ABC):
    """An async toolset class whose run became a plain method and which took one of our hook names."""

    async def call(self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]) -> object:
        return self._toolset_run(context, name, input)

    def _toolset_run(self, context: BetaToolsetCallContext, name: str, input: Mapping[str, object]) -> object:
        return None

    @abstractmethod
    async def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState: ...

    def _around_call(self) -> None:
        return None


EXPECTED_PROBLEMS = [
    "RenamedSync._toolset_run takes (self, context, member, raw), not (self, context, name, input)",
    "RenamedSync has no method _browser_state",
    "RenamedSync._browser_state is no longer the abstract hook a toolset implements",
    "RenamedSync.call no longer runs _toolset_run",
    "SyncedAsync._toolset_run is no longer a coroutine function",
    "SyncedAsync now defines _around_call, a hook of browser-toolset's own",
]


def test_a_differing_sdk_is_told_exactly_what_differs() -> None:
    assert surface_problems(RenamedSync, SyncedAsync) == EXPECTED_PROBLEMS


def test_the_check_fails_naming_the_sdk_version_and_every_difference() -> None:
    with pytest.raises(SDKSurfaceError) as raised:
        check_sdk_surface(RenamedSync, SyncedAsync)
    assert raised.value.problems == EXPECTED_PROBLEMS
    message = str(raised.value)
    assert f"anthropic {anthropic.__version__}" in message
    assert all(f"- {problem}" in message for problem in EXPECTED_PROBLEMS)


@pytest.mark.parametrize(
    ("toolset", "problem"),
    [
        (object(), "object instances have no _toolset_pipeline"),
        (
            SimpleNamespace(_toolset_pipeline=SimpleNamespace(pending_changes=())),
            "_toolset_pipeline.pending_changes is tuple, not a list of state changes",
        ),
        (
            SimpleNamespace(_toolset_pipeline=SimpleNamespace()),
            "_toolset_pipeline.pending_changes is NoneType, not a list of state changes",
        ),
    ],
)
def test_a_pipeline_that_differs_is_refused_by_name(toolset: object, problem: str) -> None:
    assert pipeline_problems(toolset) == [problem]
    with pytest.raises(SDKSurfaceError, match=problem):
        held_changes(cast(Any, toolset))
    with pytest.raises(SDKSurfaceError, match=problem):
        put_back_changes(cast(Any, toolset), [])


class RenamedFlag(anthropic.Anthropic):
    """A client class whose message-threads flag is no longer a bool, as a renamed one would be."""

    _supports_message_threads = None  # type: ignore[assignment]


def test_a_client_whose_flag_differs_is_refused_by_name() -> None:
    problem = "RenamedFlag._supports_message_threads is NoneType, not a bool"
    assert threads_flag_problems(anthropic.Anthropic) == threads_flag_problems(anthropic.AsyncAnthropic) == []
    assert threads_flag_problems(RenamedFlag) == [problem]
    with pytest.raises(SDKSurfaceError, match=problem):
        supports_message_threads(RenamedFlag(api_key="k"))
    with pytest.raises(SDKSurfaceError) as raised:
        check_sdk_surface(clients=(anthropic.Anthropic, RenamedFlag))
    assert raised.value.problems == [problem]


# --- no other module reaches into the SDK ----------------------------------------------------------------------------


def sdk_private_names() -> set[str]:
    """The SDK toolsets' private names (their classes' and what their constructor sets on an instance), and those of
    its clients that the adapter reads."""

    class Bare(BetaAbstractBrowserToolset20260801):
        def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
            return BetaBrowserState(tabs=[], state_changes=[])

    names = {name for sdk_class, _ in SDK_CLASSES for name in dir(sdk_class)} | set(vars(Bare()))
    names |= {name for name in CLIENT_FLAGS if hasattr(anthropic.Anthropic, name)}
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def private_uses(tree: ast.AST, private: set[str]) -> list[str]:
    """Each place in `tree` that imports a private module or name of the SDK, or names one of `private`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "anthropic":
            imported = [alias.name for alias in node.names]
            if any(part.startswith("_") for part in [*(node.module or "").split("."), *imported]):
                found.append(f"line {node.lineno}: from {node.module} import {', '.join(imported)}")
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "anthropic" and any(part.startswith("_") for part in parts):
                    found.append(f"line {node.lineno}: import {alias.name}")
        names: list[object] = []
        if isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.ClassDef):  # a method overriding the SDK's (a module's own functions are its own)
            names = [item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)]
        elif isinstance(node, ast.Constant):
            names = [node.value]  # getattr(toolset, "_toolset_pipeline") and the like
        line = getattr(node, "lineno", "?")
        found += [f"line {line}: {name}" for name in names if isinstance(name, str) and name in private]
    return found


def test_only_the_adapter_uses_private_parts_of_the_sdk() -> None:
    private = sdk_private_names()
    assert {"_toolset_run", "_browser_state", "_toolset_pipeline", "_supports_message_threads"} <= private
    adapter = Path(sdk_surface.__file__).resolve()
    sources = {path.resolve() for root in ("browser_toolset", "drivers") for path in (ROOT / root).rglob("*.py")}
    offenders = {
        str(path.relative_to(ROOT)): uses
        for path in sorted(sources - {adapter})
        if (uses := private_uses(ast.parse(path.read_text(encoding="utf-8")), private))
    }
    assert offenders == {}
    assert private_uses(ast.parse(adapter.read_text(encoding="utf-8")), private)  # the scan sees the adapter's uses
