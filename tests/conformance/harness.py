"""What a conformance test holds: one driver under test (`Target`) and a session on one site (`Visit`).

A test builds its site, opens it on the target it was given (`target.visit(site)`), and makes tool calls through
`BrowserToolset` with `Visit.call`, which holds every result to the contract (`tests.support.session.Session`).
It writes its expectations as the site's own paths and texts; `Visit.url` maps a path to where this target loads
it (the site's URL on the mock, the `SiteServer`'s on a real browser), so one expectation serves every driver.

A driver may leave out the optional diagnostics (`drain_console`, `drain_network`) or refuse them with
`NotSupported`: the reset between tests then does without them, and a test that calls the member they serve is
skipped, saying why, instead of failing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

import attrs
import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.driver import Driver, NotSupported
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.executor.availability import OPTIONAL_MEMBERS, unavailable_members
from browser_toolset.testing.site_server import SiteServer
from tests.support.polling import wait_until
from tests.support.session import Session, error, ok, state, text, texts

REF = re.compile(r" \[ref_\d+\]$")
REF_LINE = re.compile(r"^(\s*)(.*) \[(ref_\d+)\]$")
DIAGNOSTICS = ("read_console", "read_network")
"""The optional members whose results come from the driver (the other two, javascript_exec and file_upload, would
test the page's JavaScript and the file policy rather than the driver)."""
POLL_INTERVAL = 0.2
POLL_TIMEOUT = 10.0


def _no_sleep(seconds: float) -> None:
    """The mock has nothing to wait for; a real browser gets real waits."""


def without_refs(output: str) -> list[str]:
    """read_page / find output as lines without their `[ref_N]`: refs are numbered in reading order, so they say
    nothing about a driver that `lines` do not already say."""
    return [REF.sub("", line) for line in output.splitlines()]


def lacking(driver: Driver) -> dict[str, str]:
    """The diagnostic members `driver` does not implement the method of, each with why its tests are skipped."""
    return {
        member: f"the {driver.name} driver does not implement {method}, so {member} is unavailable"
        for member, method in unavailable_members(driver).items()
        if member in DIAGNOSTICS
    }


def drain_diagnostics(driver: Driver, handle: str) -> dict[str, str]:
    """Empty the console and network logs `driver` keeps for `handle`; return, for each diagnostic member the driver
    cannot serve (the method missing, or refusing with `NotSupported`), why its tests are skipped."""
    skipped = lacking(driver)
    for member in DIAGNOSTICS:
        if member in skipped:
            continue
        method = OPTIONAL_MEMBERS[member]
        try:
            getattr(driver, method)(handle)
        except NotSupported as exc:
            skipped[member] = f"the {driver.name} driver does not support {member}: {exc}"
    return skipped


def reset(driver: Driver) -> tuple[str, dict[str, str]]:
    """`browser_toolset.testing.plugin.reset_browser` (one blank, active tab, nothing left over), for a driver that
    may lack the optional diagnostics: the handle of the tab, and `drain_diagnostics`'s reasons."""
    fresh = driver.open_tab()
    for info in driver.list_tabs():
        if info.handle != fresh:
            driver.close_tab(info.handle)
    driver.activate_tab(fresh)
    driver.drain_events()
    return fresh, drain_diagnostics(driver, fresh)


class Visit(Session):
    """A `BrowserToolset` session on one site, on one driver. `url` maps a path (or URL) of the site to where this
    target loads it; `site_url` is its reverse, for URLs the browser reports. `skipped` names the members this
    driver cannot serve, with the reason: a test calling one is skipped with it."""

    def __init__(
        self,
        toolset: BrowserToolset,
        driver_name: str,
        url: Callable[[str], str],
        site_url: Callable[[str], str],
        skipped: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(toolset)
        self.driver_name = driver_name
        self.url = url
        self.site_url = site_url
        self.skipped = dict(skipped or {})

    def call(self, name: str, **input: Any) -> dict[str, Any]:
        if name in self.skipped:
            pytest.skip(self.skipped[name])
        return super().call(name, **input)

    def go(self, path: str) -> dict[str, Any]:
        return dict(ok(self.call("navigate", url=self.url(path))))

    def read(self, **options: Any) -> list[str]:
        return without_refs(text(ok(self.call("read_page", **options))))

    def ref(self, line: str, **options: Any) -> str:
        """The ref of the first read_page line (without its ref) that is `line`, or starts with it."""
        options.setdefault("filter", "all")
        output = text(ok(self.call("read_page", **options)))
        for each in output.splitlines():
            match = REF_LINE.match(each)
            if match and (match.group(2) == line or match.group(2).startswith(line)):
                return match.group(3)
        raise AssertionError(f"no line {line!r} in:\n{output}")

    def click(self, line: str, **options: Any) -> dict[str, Any]:
        return dict(ok(self.call("left_click", target={"type": "ref", "ref": self.ref(line)}, **options)))

    def tabs(self) -> list[tuple[str, str, str, bool]]:
        """The open tabs as (tab_id, title, site URL, active), from list_tabs."""
        return [
            (tab["tab_id"], tab["title"], self.site_url(tab["url"]), bool(tab.get("active")))
            for tab in state(ok(self.call("list_tabs")))["tabs"]
        ]

    def state_changes_until(
        self, first: Mapping[str, Any], done: Callable[[list[dict[str, Any]]], bool]
    ) -> list[dict[str, Any]]:
        """The state changes of `first` and of short `wait` calls after it, until `done` holds for them. A real
        browser may report an event a call or two after the one that caused it; the mock reports it at once, so
        on the mock this makes no further call."""
        changes = list(state(first).get("state_changes", [])) if _has_state(first) else []
        deadline = time.monotonic() + POLL_TIMEOUT
        while not done(changes):
            assert time.monotonic() < deadline, f"still waiting after {POLL_TIMEOUT} s; saw {changes}"
            changes += state(ok(self.call("wait", duration=POLL_INTERVAL))).get("state_changes", [])
        return changes

    def notes_until(self, first: Mapping[str, Any], done: Callable[[list[str]], bool]) -> list[str]:
        """The text lines of `first` and of short `wait` calls after it, until `done` holds for them (the SDK
        reports a dismissed dialog as a text line)."""
        lines = texts(first)
        deadline = time.monotonic() + POLL_TIMEOUT
        while not done(lines):
            assert time.monotonic() < deadline, f"still waiting after {POLL_TIMEOUT} s; saw {lines}"
            lines += texts(ok(self.call("wait", duration=POLL_INTERVAL)))
        return lines

    def read_until(self, done: Callable[[list[str]], bool], **options: Any) -> list[str]:
        """read_page until `done` holds: after an action whose effect a real page applies a moment later (a
        navigation the page started, a script's change), the mock has applied it already."""
        deadline = time.monotonic() + POLL_TIMEOUT
        lines = self.read(**options)
        while not done(lines):
            assert time.monotonic() < deadline, "the page did not reach the expected state:\n" + "\n".join(lines)
            time.sleep(POLL_INTERVAL)
            lines = self.read(**options)
        return lines

    def until(self, probe: Callable[[], bool]) -> None:
        """Poll `probe` (which makes its own calls) until it holds."""
        wait_until(probe, timeout=POLL_TIMEOUT, interval=POLL_INTERVAL)

    def error(self, name: str, **input: Any) -> str:
        return error(self.call(name, **input))


def _enabled(skipped: Mapping[str, str]) -> dict[str, dict[str, bool]]:
    """`configs` enabling the diagnostic members a driver serves (enabling one it lacks is a configuration error)."""
    return {member: {"enabled": True} for member in DIAGNOSTICS if member not in skipped}


def _has_state(result: Mapping[str, Any]) -> bool:
    content = result["content"]
    return isinstance(content, list) and any(block.get("type") == "browser_state" for block in content)


@attrs.define
class Target:
    """One driver the suite runs on: `mock` (a fresh `MockDriver` per visit), or a shared real driver that loads
    the site from a `SiteServer`."""

    name: str
    driver: Driver | None
    """The shared driver; None for the mock, which gets a fresh one per visit."""
    _stack: ExitStack = attrs.field(factory=ExitStack)

    @property
    def driver_name(self) -> str:
        """The driver's own name (`mock`, `selenium-firefox`, ...), which known bugs are listed by."""
        return "mock" if self.driver is None else self.driver.name

    def visit(self, site: Site) -> Visit:
        """`site` loaded on this target: a new toolset, on one blank tab (then at the site's start page, when it
        has one), with the diagnostic members the driver serves enabled."""
        if self.driver is None:
            mock = self._stack.enter_context(MockDriver(site, sleep=_no_sleep))
            skipped = lacking(mock)
            toolset = BrowserToolset(
                mock, navigation=URLPolicy(allow_private=True), sleep=_no_sleep, configs=_enabled(skipped)
            )
            return Visit(toolset, self.name, site.url, lambda url: url, skipped)
        server = self._stack.enter_context(SiteServer(site))
        handle, skipped = reset(self.driver)
        if site.start is not None:
            self.driver.navigate(handle, server.url(site.start))
            self.driver.drain_events()
            drain_diagnostics(self.driver, handle)
        toolset = BrowserToolset(
            self.driver, navigation=URLPolicy(allow_private=True), sleep=time.sleep, configs=_enabled(skipped)
        )
        return Visit(toolset, self.name, server.url, server.site_url, skipped)

    def close(self) -> None:
        self._stack.close()
