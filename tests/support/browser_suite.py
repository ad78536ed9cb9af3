"""All 31 members through `BrowserToolset` on a real browser, against pages served on 127.0.0.1.

The suites are classes so that `test_members_local.py` (Chromium and Firefox) and `test_members_grid.py` run the
same tests on their own `driver` fixture. Every result goes through `tests.support.session.Session`,
so the contract validator checks each one. Page state is read back with the driver's `evaluate` (not through
`javascript_exec`), so a check never depends on the member it checks.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from anthropic.tools.browser import BetaLocalFilePolicy

from browser_toolset import BrowserToolset, URLPolicy
from tests.support.browsers import fresh_tab
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import Session, error, images, ok, state, text, texts

OPTIONAL = ("javascript_exec", "file_upload", "read_console", "read_network")
REF_LINE = re.compile(r"^\s*(.*) \[(ref_\d+)\]$")


def refs(output: str) -> dict[str, str]:
    """read_page / find output as {line without its ref: ref}."""
    found: dict[str, str] = {}
    for line in output.splitlines():
        match = REF_LINE.match(line)
        if match:
            found.setdefault(match.group(1).strip(), match.group(2))
    return found


def ref_starting(output: str, start: str) -> str:
    for line, ref in refs(output).items():
        if line.startswith(start):
            return ref
    raise AssertionError(f"no element line starts with {start!r} in:\n{output}")


class BrowserSession(Session):
    def __init__(self, toolset: BrowserToolset, server: PageServer) -> None:
        super().__init__(toolset)
        self.server = server
        self.driver: Any = toolset.driver

    def go(self, page: str) -> dict[str, Any]:
        """Navigate to `page` of the test server, and check the server itself was asked for it: a driver that only
        claims to have loaded the page (or a browser somewhere else) fails here."""
        mark = self.server.mark()
        result = dict(ok(self.call("navigate", url=self.server.url(page))))
        asked = self.server.requests_since(mark)
        assert ("GET", "/" + page.lstrip("/")) in asked, f"the page server was not asked for {page}: {asked}"
        return result

    def js(self, expression: str) -> Any:
        """Page state, read with the driver directly (the active tab)."""
        handle = self.active_handle()
        return json.loads(self.driver.evaluate(handle, f"JSON.stringify({expression})"))

    def active_handle(self) -> str:
        """The driver's handle of the active tab."""
        return str(next(info.handle for info in self.driver.list_tabs() if info.active))

    def ref(self, start: str, **read: Any) -> str:
        return ref_starting(text(ok(self.call("read_page", filter="all", **read))), start)

    def until(self, probe: Any, timeout: float = 10.0) -> Any:
        return wait_until(probe, timeout=timeout, interval=0.1)


def member_session(driver: Any, server: PageServer, uploads: Path) -> BrowserSession:
    """A session on `driver`'s fresh tab with every optional member on and uploads from `uploads` (the `session`
    fixture of tests/conftest.py, for the member suites)."""
    fresh_tab(driver)
    toolset = BrowserToolset(
        driver,
        navigation=URLPolicy(allow_private=True),
        configs={name: {"enabled": True} for name in OPTIONAL},
        confirm=lambda context: True,
        file_policy=BetaLocalFilePolicy(upload_roots=[str(uploads)]),
        sleep=lambda seconds: time.sleep(min(seconds, 0.2)),
    )
    return BrowserSession(toolset, server)  # not closed: the driver is shared by the module


class SmokeSuite:
    """What every browser, local or through a Grid, must do: the recorded multi-step session of the issue."""

    def test_navigate_read_click_type_key_tabs_screenshot_zoom(self, session: BrowserSession) -> None:
        result = session.go("form.html")
        assert texts(result)[0] == f"Navigated to {session.server.url('form.html')} — Form (HTTP 200)"
        tree = text(ok(session.call("read_page", filter="interactive")))
        name = ref_starting(tree, 'textbox "Name"')
        ok(session.call("left_click", target={"type": "ref", "ref": name}))
        ok(session.call("type", text="Ada Lovelace"))
        ok(session.call("key", text="ctrl+a"))
        ok(session.call("key", text="BackSpace"))
        ok(session.call("type", text="Grace"))
        assert session.js("document.getElementById('name').value") == "Grace"
        opened = ok(session.call("new_tab"))
        (tab,) = [t for t in state(opened)["tabs"] if t.get("active")]
        assert tab["url"] == "about:blank"
        shot = ok(session.call("screenshot"))
        (image,) = images(shot)
        assert image["source"]["media_type"] == "image/png"
        zoomed = ok(session.call("zoom", region=[0, 0, 320, 200]))
        assert images(zoomed)
        ok(session.call("switch_tab", tab_id="tab-1"))
        ok(session.call("close_tab", tab_id=tab["tab_id"]))
        assert [t["tab_id"] for t in state(ok(session.call("list_tabs")))["tabs"]] == ["tab-1"]

    def test_clicks_land_where_the_screenshot_shows_them(self, session: BrowserSession) -> None:
        session.go("canvas.html")
        ok(session.call("left_click", target={"type": "coordinate", "x": 321, "y": 123}))
        clicks = [e for e in session.js("window.events") if e["type"] == "click"]
        assert (clicks[-1]["x"], clicks[-1]["y"]) == (321, 123)
        # and the screenshot shows the red marker the page drew at exactly that pixel
        import base64

        from tests.support.browsers import pixel

        png = base64.b64decode(images(ok(session.call("screenshot")))[0]["source"]["data"])
        assert pixel(png, 321, 123)[:3] == (255, 0, 0)
        assert pixel(png, 322, 124)[:3] == (255, 255, 255)


class MemberSuite(SmokeSuite):
    """Every member, success and error paths."""

    # --- navigation ---------------------------------------------------------------------------------------

    def test_history_status_and_redirects(self, session: BrowserSession) -> None:
        session.go("index.html")
        session.go("form.html")
        assert "index.html" in texts(ok(session.call("navigate", url="back")))[0]
        assert "form.html" in texts(ok(session.call("navigate", url="forward")))[0]
        assert "(HTTP 200)" in texts(ok(session.call("navigate", url="reload")))[0]
        assert texts(ok(session.call("navigate", url=session.server.url("status/404"))))[0].endswith("(HTTP 404)")
        target = session.server.url("form.html")
        moved = ok(session.call("navigate", url=session.server.url(f"redirect?to={target}&code=301")))
        assert texts(moved)[0].startswith(f"Navigated to {target}")

    def test_redirect_to_a_refused_scheme_is_stopped(self, session: BrowserSession) -> None:
        # The browsers refuse a redirect from http to file: themselves, each with its own error code, before the
        # driver's guard could. (Not /etc/passwd: "passwd: <value>" reads as a credential and would be redacted.)
        session.go("index.html")
        url = session.server.url("redirect?to=file:///etc/hosts")
        result = session.call("navigate", url=url)
        why = {"chromium": "net::ERR_UNSAFE_REDIRECT", "firefox": "Error: NS_ERROR_CORRUPTED_CONTENT"}
        assert result.get("is_error") is True
        expected = f"Error: the browser could not load {url}: {why[session.driver.config.browser]}"
        assert texts(result) == [expected], texts(result)
        tabs = state(ok(session.call("list_tabs")))["tabs"]
        assert not tabs[0]["url"].startswith("file:")

    def test_page_started_navigation_to_data_is_undone(self, session: BrowserSession) -> None:
        session.go("links.html")
        ref = session.ref('button "Go to data:"')
        ok(session.call("left_click", target={"type": "ref", "ref": ref}))
        time.sleep(0.5)
        # (Chromium itself blocks renderer-initiated top-level data: navigations; Firefox needs the driver to)
        later = ok(session.call("list_tabs"))
        assert all(not tab["url"].startswith("data:") for tab in state(later)["tabs"])
        assert not session.js("location.href").startswith("data:")
        assert session.js("document.title") != "data"

    def test_private_addresses_need_permission(self, driver: Any, server: PageServer) -> None:
        fresh_tab(driver)
        strict = Session(BrowserToolset(driver))
        assert "private-network" in error(strict.call("navigate", url=server.url("index.html")))

    # --- pointer ----------------------------------------------------------------------------------------------

    def test_buttons_counts_and_modifiers(self, session: BrowserSession) -> None:
        session.go("canvas.html")
        point = {"type": "coordinate", "x": 200, "y": 150}
        # each at its own point, so that no browser counts one click on from the one before
        ok(session.call("right_click", target={"type": "coordinate", "x": 50, "y": 50}))
        ok(session.call("middle_click", target={"type": "coordinate", "x": 400, "y": 50}))
        ok(session.call("double_click", target=point, modifiers="shift"))
        # elsewhere, so that the browser does not count it on from the double click
        ok(session.call("triple_click", target={"type": "coordinate", "x": 600, "y": 400}))
        ok(session.call("left_click", target={"type": "coordinate", "x": 700, "y": 500}, modifiers="ctrl+alt"))
        events = session.js("window.events.filter(e => e.type !== 'mousemove')")
        downs = [e for e in events if e["type"] == "mousedown"]
        assert [d["button"] for d in downs[:2]] == [2, 1]
        assert [d["detail"] for d in downs[2:]] == [1, 2, 1, 2, 3, 1]
        assert all(d["shift"] for d in downs[2:4]) and not any(d["shift"] or d["ctrl"] for d in downs[4:7])
        assert downs[7]["ctrl"] and downs[7]["alt"]
        assert any(e["type"] == "dblclick" for e in events)
        assert any(e["type"] == "contextmenu" for e in events)

    def test_hover_move_press_release_drag(self, session: BrowserSession) -> None:
        session.go("canvas.html")
        ok(session.call("hover", target={"type": "coordinate", "x": 10, "y": 11}))
        ok(session.call("mouse_move", target={"type": "coordinate", "x": 20, "y": 21}))
        ok(session.call("left_mouse_down", target={"type": "coordinate", "x": 30, "y": 31}))
        ok(session.call("left_mouse_up", target={"type": "coordinate", "x": 40, "y": 41}))
        ok(
            session.call(
                "left_click_drag",
                from_={"type": "coordinate", "x": 50, "y": 51},
                target={"type": "coordinate", "x": 150, "y": 151},
            )
        )
        events = session.js("window.events")
        moves = [(e["x"], e["y"]) for e in events if e["type"] == "mousemove"]
        assert (10, 11) in moves and (20, 21) in moves
        pressed = [(e["type"], e["x"], e["y"]) for e in events if e["type"] in ("mousedown", "mouseup")]
        assert pressed == [("mousedown", 30, 31), ("mouseup", 40, 41), ("mousedown", 50, 51), ("mouseup", 150, 151)]
        assert any(e["type"] == "mousemove" and e["buttons"] == 1 for e in events)

    def test_scroll_and_scroll_to(self, session: BrowserSession) -> None:
        session.go("long.html")
        ok(session.call("scroll", target={"type": "coordinate", "x": 400, "y": 400}, scroll_direction="down"))
        session.until(lambda: session.js("scrollY") >= 300)
        ok(session.call("scroll", target={"type": "coordinate", "x": 400, "y": 400}, scroll_direction="up"))
        session.until(lambda: session.js("scrollY") == 0 or None)
        far = session.ref('button "Far button"')
        ok(session.call("scroll_to", target={"type": "ref", "ref": far}))
        assert session.js("scrollY") > 1000
        ok(session.call("left_click", target={"type": "ref", "ref": far}))
        assert session.js("document.getElementById('far').textContent") == "far clicked"
        assert "scroll_amount" in error(
            session.call(
                "scroll", target={"type": "coordinate", "x": 1, "y": 1}, scroll_direction="up", scroll_amount=11
            )
        )

    # --- keyboard and timing ----------------------------------------------------------------------------------

    def test_keys_chords_and_hold(self, session: BrowserSession) -> None:
        session.go("form.html")
        ok(session.call("left_click", target={"type": "ref", "ref": session.ref('textbox "Name"')}))
        ok(session.call("type", text="abc"))
        ok(session.call("key", text="Left Left BackSpace", repeat=1))
        assert session.js("document.getElementById('name').value") == "bc"
        ok(session.call("key", text="End shift+Home"))
        ok(session.call("type", text="Zed"))
        assert session.js("document.getElementById('name').value") == "Zed"
        held = ok(session.call("hold_key", text="a", duration=1))
        log = session.js("window.keyLog.filter(e => e.key === 'a' && e.type === 'keydown')")
        repeats = [e for e in log if e["repeat"]]
        if len(texts(held)) > 1:
            assert "without auto-repeat" in texts(held)[1] and not repeats
        else:
            assert repeats, "claimed auto-repeat that did not happen"
        assert "Unknown key" in error(session.call("key", text="ctrl+Nope"))

    def test_wait(self, session: BrowserSession) -> None:
        assert texts(ok(session.call("wait", duration=0.1)))[0] == "Waited 0.1s."
        assert "duration" in error(session.call("wait", duration=60))

    # --- page reading -----------------------------------------------------------------------------------------

    def test_read_page_find_and_page_text(self, session: BrowserSession) -> None:
        session.go("form.html")
        tree = text(ok(session.call("read_page")))
        assert 'heading "Sign up"' in tree and 'checkbox "I agree" unchecked' in tree
        interactive = text(ok(session.call("read_page", filter="interactive")))
        assert "heading" not in interactive
        found = text(ok(session.call("find", query="colour dropdown")))
        assert found.splitlines()[0].startswith('combobox "Colour"')
        page_text = text(ok(session.call("get_page_text")))
        assert page_text.startswith("Sign up")
        assert 'No elements match "zebra"' in text(ok(session.call("find", query="zebra")))

    def test_refs_are_stable_change_with_the_element_and_go_stale(self, session: BrowserSession) -> None:
        session.go("form.html")
        first = refs(text(ok(session.call("read_page", filter="all"))))
        second = refs(text(ok(session.call("read_page", filter="all"))))
        assert first == second
        session.driver.evaluate(session.active_handle(), "document.body.style.paddingTop = '40px'")
        assert refs(text(ok(session.call("read_page", filter="all")))) == first  # layout change: same refs
        send = first['button "Send"']
        session.driver.evaluate(session.active_handle(), "document.getElementById('submit').textContent = 'Go'")
        changed = refs(text(ok(session.call("read_page", filter="all"))))
        assert changed['button "Go"'] != send
        assert "stale" in error(session.call("left_click", target={"type": "ref", "ref": send}))
        go = changed['button "Go"']
        session.go("index.html")
        assert "stale" in error(session.call("left_click", target={"type": "ref", "ref": go}))

    def test_shadow_dom_and_iframes(self, session: BrowserSession) -> None:
        session.go("shadow.html")
        ok(session.call("left_click", target={"type": "ref", "ref": session.ref('button "Shadow button"')}))
        assert session.js("document.getElementById('out').textContent") == "shadow clicked"
        session.go("iframe.html")
        inner = session.ref('button "Inner button"')
        ok(session.call("left_click", target={"type": "ref", "ref": inner}))
        assert session.js("document.getElementById('frame').contentDocument.getElementById('inner').textContent") == (
            "clicked"
        )
        # the same button by coordinates: frame offset (100, 200) + button centre (80, 50)
        session.go("iframe.html")
        ok(session.call("left_click", target={"type": "coordinate", "x": 180, "y": 250}))
        assert session.js("document.getElementById('frame').contentDocument.getElementById('inner').textContent") == (
            "clicked"
        )

    def test_month_and_week_fields_say_their_format_where_the_browser_has_a_picker(
        self, session: BrowserSession
    ) -> None:
        # (the other field kinds are in tests/conformance/test_node_rules.py, on every driver.) Firefox has no month
        # or week picker: its month and week inputs are plain text fields, and say nothing more.
        session.go("node_rules.html")
        shown = list(refs(text(ok(session.call("read_page", filter="all")))))
        for name, kind, form in (("Month", "month", "yyyy-mm"), ("Week", "week", "yyyy-Www")):
            supported = session.js(f"document.getElementById({kind!r}).type") == kind
            assert (f'textbox "{name}" type={kind} format={form}' if supported else f'textbox "{name}"') in shown

    # --- forms and files --------------------------------------------------------------------------------------

    def test_form_input(self, session: BrowserSession) -> None:
        session.go("form.html")
        tree = text(ok(session.call("read_page", filter="all")))
        ok(
            session.call(
                "form_input", target={"type": "ref", "ref": ref_starting(tree, 'checkbox "I agree"')}, value=True
            )
        )
        colour = ref_starting(tree, 'combobox "Colour"')
        assert "'Green'" in text(ok(session.call("form_input", target={"type": "ref", "ref": colour}, value="Green")))
        ok(session.call("form_input", target={"type": "ref", "ref": colour}, value="b"))
        ok(session.call("form_input", target={"type": "ref", "ref": ref_starting(tree, 'textbox "Notes"')}, value=42))
        assert session.js("[agree.checked, colour.value, notes.value]") == [True, "b", "42"]
        assert set(session.js("window.changes")) >= {"agree", "colour", "notes"}
        message = error(session.call("form_input", target={"type": "ref", "ref": colour}, value="Purple"))
        assert "Purple" in message and "Red" in message

    def test_file_upload(self, session: BrowserSession, uploads: Path) -> None:
        session.go("form.html")
        attachment = session.ref('button "Attachment"')
        ok(session.call("file_upload", target={"type": "ref", "ref": attachment}, paths=[str(uploads / "a.txt")]))
        session.until(lambda: session.js("document.getElementById('status').textContent") == "files: a.txt:5")
        assert "outside" in error(
            session.call("file_upload", target={"type": "ref", "ref": attachment}, paths=["/etc/hostname"])
        )

    # --- diagnostics and scripting ----------------------------------------------------------------------------

    def test_console_network_and_javascript(self, session: BrowserSession) -> None:
        session.call("read_console")
        session.call("read_network")
        session.go("console.html")
        # read_console drains: gather its reads until the fetch's line is in (it can come a read after the others).
        reads: list[str] = []

        def gathered() -> str:
            reads.append(text(ok(session.call("read_console"))))
            return "\n".join(reads) if "fetched" in reads[-1] else ""

        console = session.until(gathered)
        assert "hello 42" in console and "[warn" in console and "broken" in console
        network = text(ok(session.call("read_network")))
        assert "GET " + session.server.url("console.html") in network
        assert re.search(r"/status/404 404", network)
        assert text(ok(session.call("read_console"))).startswith("No console entries")
        assert text(ok(session.call("javascript_exec", text="document.title"))) == "Console"
        assert text(ok(session.call("javascript_exec", text="[1, 2].map(x => x * 2)"))) in ("[2,4]", "[2, 4]")
        assert "boom" in error(session.call("javascript_exec", text="throw new Error('boom')"))

    # --- tabs, popups, downloads, dialogs ---------------------------------------------------------------------

    def test_popups_are_reported_on_the_call_that_opened_them(self, session: BrowserSession) -> None:
        session.go("links.html")
        result = ok(session.call("left_click", target={"type": "ref", "ref": session.ref('link "Open index')}))
        block = state(result)
        if "state_changes" not in block:  # the popup may finish opening just after the click returns
            block = state(ok(session.call("wait", duration=0.5)))
        assert block["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
        assert [t.get("active") for t in block["tabs"]] == [True, None]
        ok(session.call("switch_tab", tab_id="tab-2"))
        shot = images(ok(session.call("screenshot")))[0]
        assert shot["source"]["media_type"] == "image/png"
        ok(session.call("close_tab", tab_id="tab-2"))
        assert "No open tab" in error(session.call("switch_tab", tab_id="tab-2"))

    def test_downloads_start_and_complete(self, session: BrowserSession) -> None:
        session.go("links.html")
        result = ok(
            session.call("left_click", target={"type": "ref", "ref": session.ref('link "Download the report"')})
        )
        seen = list(state(result).get("state_changes", []))

        def completed() -> bool:
            seen.extend(state(ok(session.call("wait", duration=0.2))).get("state_changes", []))
            return any(change["type"] == "download_completed" for change in seen)

        session.until(completed)
        kinds = [change["type"] for change in seen]
        assert kinds[-1] == "download_completed" and set(kinds) <= {"download_started", "download_completed"}
        done = seen[-1]
        assert done["download_id"] == "dl-1" and done["url"].endswith("/download/report.csv")
        assert done.get("size_bytes") == 2048

    def test_dialogs_are_dismissed_and_reported(self, session: BrowserSession) -> None:
        session.go("dialogs.html")
        result = ok(session.call("left_click", target={"type": "ref", "ref": session.ref('button "Confirm"')}))
        lines = texts(result) + texts(ok(session.call("wait", duration=0.3)))
        assert 'A confirm dialog "Are you sure?" was dismissed.' in lines
        assert session.js("document.getElementById('result').textContent") == "confirm false"
