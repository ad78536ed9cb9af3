"""Random sequences of calls on the mock driver: after any sequence, every result satisfies the contract's rules
(the validator sees each one), the tab inventory keeps its invariants, and refs stay stable while their document
lives."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import (
    CloseTab,
    Dialog,
    Download,
    MockDriver,
    OpenTab,
    Site,
    button,
    checkbox,
    link,
    textbox,
)
from tests.support.session import Session, state, text

LINE_RE = re.compile(r"^\s*(.*) \[(ref_\d+)\]$")


def site() -> Site:
    site = Site(base_url="https://rand.test/")
    for page in ("a", "b", "c"):
        site.page(
            f"/{page}",
            f"Page {page.upper()}",
            link(f"Go to {'b' if page == 'a' else 'a'}", f"/{'b' if page == 'a' else 'a'}"),
            link(f"Pop {page}", f"/{page}", new_tab=True),
            button(f"Spawn {page}", OpenTab("/c")),
            button(f"Close {page}", CloseTab()),
            button(f"Alert {page}", Dialog(f"hello from {page}")),
            button(f"Fetch {page}", Download(f"/files/{page}.txt", content=page * 10)),
            textbox(f"Field {page}"),
            checkbox(f"Check {page}"),
        )
    site.start = "/a"
    return site


class ToolsetMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.driver = MockDriver(site(), sleep=lambda seconds: None)
        self.session = Session(BrowserToolset(self.driver, sleep=lambda seconds: None))
        self.ever_listed: set[str] = set()
        self.closed: set[str] = set()
        self.tabs: list[dict[str, Any]] = []
        self.reads: dict[str, tuple[str, dict[str, str]]] = {}  # tab_id -> (url, ref -> line)

    def teardown(self) -> None:
        self.driver.close()

    def _record(self, result: dict[str, Any]) -> dict[str, Any]:
        if result.get("is_error"):
            return result
        block = state(result)
        ids = [tab["tab_id"] for tab in block["tabs"]]
        now = set(ids)
        # ids of tabs that closed never come back
        assert not (now & self.closed), (now, self.closed)
        self.closed |= self.ever_listed - now
        self.ever_listed |= now
        self.tabs = block["tabs"]
        for tab_id in list(self.reads):
            url = next((tab["url"] for tab in self.tabs if tab["tab_id"] == tab_id), None)
            if url != self.reads[tab_id][0]:
                del self.reads[tab_id]  # navigated (or closed): its refs may be stale now
        return result

    def _active(self) -> str | None:
        return next((tab["tab_id"] for tab in self.tabs if tab.get("active")), None)

    @invariant()
    def one_active_tab_when_any(self) -> None:
        if self.tabs:
            assert sum(1 for tab in self.tabs if tab.get("active")) == 1

    @rule()
    def new_tab(self) -> None:
        self._record(self.session.call("new_tab"))

    @rule(page=st.sampled_from(["a", "b", "c", "missing"]), background=st.booleans())
    def navigate(self, page: str, background: bool) -> None:
        extra = {"tab_id": self.tabs[0]["tab_id"]} if background and self.tabs else {}
        self.reads.pop(extra.get("tab_id") or self._active() or "", None)  # a new document, even at the same URL
        self._record(self.session.call("navigate", url=f"https://rand.test/{page}", **extra))

    @rule(word=st.sampled_from(["back", "forward", "reload"]))
    def history(self, word: str) -> None:
        self.reads.pop(self._active() or "", None)  # a new document, even at the same URL
        self._record(self.session.call("navigate", url=word))

    @rule(index=st.integers(0, 5), bogus=st.booleans())
    def switch(self, index: int, bogus: bool) -> None:
        tab_id = f"tab-{index + 90}" if bogus or not self.tabs else self.tabs[index % len(self.tabs)]["tab_id"]
        self._record(self.session.call("switch_tab", tab_id=tab_id))

    @rule(index=st.integers(0, 5))
    def close(self, index: int) -> None:
        tab_id = self.tabs[index % len(self.tabs)]["tab_id"] if self.tabs else "tab-1"
        self._record(self.session.call("close_tab", tab_id=tab_id))

    @rule()
    def list_tabs(self) -> None:
        self._record(self.session.call("list_tabs"))

    @precondition(lambda self: self._active() is not None)
    @rule(filter=st.sampled_from([None, "interactive", "all"]))
    def read(self, filter: str | None) -> None:
        tab_id = self._active()
        assert tab_id is not None
        extra = {"filter": filter} if filter else {}
        result = self._record(self.session.call("read_page", **extra))
        if result.get("is_error"):
            return
        refs = {}
        for line in text(result).splitlines():
            match = LINE_RE.match(line)
            if match:
                refs[match.group(2)] = match.group(1)
        url = next(tab["url"] for tab in self.tabs if tab["tab_id"] == tab_id)
        previous = self.reads.get(tab_id)
        if previous is not None and previous[0] == url:
            # the same document: an element shown again under the same line keeps its ref
            by_line = {line: ref for ref, line in previous[1].items()}
            for ref, line in refs.items():
                if line in by_line and "checked" not in line:
                    assert by_line[line] == ref, (line, by_line[line], ref)
        self.reads[tab_id] = (url, refs)

    @precondition(lambda self: self._active() is not None)
    @rule(pick=st.integers(0, 50), member=st.sampled_from(["left_click", "hover", "double_click", "scroll_to"]))
    def act_on_ref(self, pick: int, member: str) -> None:
        tab_id = self._active()
        read = self.reads.get(tab_id or "")
        refs = sorted(read[1]) if read else ["ref_1"]
        ref = refs[pick % len(refs)] if refs else "ref_1"
        self._record(self.session.call(member, target={"type": "ref", "ref": ref}))

    @rule(x=st.integers(-5, 1300), y=st.integers(-5, 820))
    def click_point(self, x: int, y: int) -> None:
        self._record(self.session.call("left_click", target={"type": "coordinate", "x": x, "y": y}))

    @rule()
    def screenshot(self) -> None:
        self._record(self.session.call("screenshot"))


TestToolsetMachine = ToolsetMachine.TestCase
# how many runs is the profile's to say (tests/conftest.py): fast by default, thorough on demand
TestToolsetMachine.settings = settings(
    stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
