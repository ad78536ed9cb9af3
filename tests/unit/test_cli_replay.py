"""Issue 16, item 7: a replay that works out of the box. The demo's printed replay command exits 0; the mock keeps
input types and submits every field of a form, as a browser does; `replay` reuses the recorded settings (URL
policy, enabled members, viewport, driver options), takes `--config` and flags over them, compares pixels only on
the browser the session was recorded on, and compares downloads over the session (when each is reported depends
on how fast the file arrives). The real-browser half is tests/browser/test_cli_replay_browser.py."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from browser_toolset.cli import main
from browser_toolset.cli.demo import site_directory
from browser_toolset.drivers.mock import MockDriver, Site
from browser_toolset.sessions.replay import download_lines, recorded_settings, result_text

ROOT = Path(__file__).resolve().parent.parent.parent
SHOP = ROOT / "examples" / "shop.json"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No BROWSER_TOOLSET_* variables or ./browser-toolset.toml of the machine leak in."""
    for name in list(__import__("os").environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """`browser-toolset ARGV...` with `stdin`: its status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def turn(*calls: tuple[str, dict[str, Any]]) -> str:
    blocks = [
        {"type": "tool_use", "id": f"t{index}", "name": name, "input": data, "toolset_name": "browser"}
        for index, (name, data) in enumerate(calls)
    ]
    return json.dumps({"role": "assistant", "content": blocks})


# --- the mock submits a form as a browser does ------------------------------------------------------------------------

FORM_SITE = {
    "base_url": "https://forms.test/",
    "pages": {
        "/": {
            "title": "Contact",
            "elements": [
                {
                    "role": "form",
                    "id": "contact",
                    "on_submit": [{"navigate": "/sent?{form}"}],
                    "children": [
                        {"role": "textbox", "name": "Name", "id": "name", "value": "Ada Lovelace"},
                        {"role": "textbox", "name": "Email", "id": "email", "input_type": "email", "value": "a@x.org"},
                        {"role": "radio", "name": "Free", "group": "plan", "value": "free"},
                        {"role": "radio", "name": "Pro", "group": "plan", "value": "pro", "checked": True},
                        {"role": "checkbox", "name": "Newsletter", "id": "news", "checked": True},
                        {"role": "checkbox", "name": "Terms", "id": "terms"},
                        {
                            "role": "combobox",
                            "name": "Size",
                            "id": "size",
                            "children": [
                                {"role": "option", "name": "S", "value": "s"},
                                {"role": "option", "name": "M", "value": "m", "states": ["selected"]},
                            ],
                        },
                        {"role": "textbox", "name": "Locked", "id": "locked", "value": "x", "states": ["disabled"]},
                        {"role": "textbox", "name": "Note", "id": "message", "multiline": True, "value": "Hi & bye?"},
                        {"role": "button", "name": "Send", "id": "send", "on_click": ["submit"]},
                    ],
                },
            ],
        },
        "/sent": {"title": "Sent", "elements": [{"role": "paragraph", "text": "Thanks"}]},
    },
}


def test_16_7_the_mock_submits_every_field_of_a_form_and_keeps_input_types() -> None:
    with MockDriver(Site.from_dict(FORM_SITE)) as driver:
        handle = driver.list_tabs()[0].handle
        driver.navigate(handle, "https://forms.test/")
        tree = driver.snapshot(handle)
        (email,) = [node for node in tree.root.walk() if node.name == "Email"]
        assert email.input_type == "email"
        driver.click(handle, driver.page(handle).center("send"))
        url = driver.list_tabs()[0].url
    assert urlsplit(url).path == "/sent"
    # every enabled named field, in document order; checkboxes and radios only when checked
    assert urlsplit(url).query == "name=Ada+Lovelace&email=a%40x.org&plan=pro&news=on&size=m&message=Hi+%26+bye%3F"


class _FormFields(HTMLParser):
    """The named fields of the demo's contact form, as a browser would submit them: (name, type, value)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag in ("input", "textarea") and found.get("name"):
            kind = found.get("type", "text") if tag == "input" else "textarea"
            self.fields.append((found["name"], kind, found.get("value", "")))


def test_16_7_the_demos_mock_twin_has_the_fields_of_the_real_contact_form() -> None:
    parser = _FormFields()
    parser.feed((site_directory() / "contact.html").read_text(encoding="utf-8"))
    twin = json.loads((site_directory() / "mock_site.json").read_text(encoding="utf-8"))

    def walk(elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [found for element in elements for found in [element, *walk(element.get("children", []))]]

    (form,) = [e for e in walk(twin["pages"]["/contact.html"]["elements"]) if e.get("role") == "form"]
    fields = [e for e in walk(form["children"]) if e.get("id") or e.get("group")]
    twin_fields = [
        (e.get("group") or e["id"], "radio" if e["role"] == "radio" else e.get("input_type") or
         ("textarea" if e.get("multiline") else "text"), e.get("value", "") if e["role"] == "radio" else "")
        for e in fields
    ]  # fmt: skip
    assert twin_fields == parser.fields
    assert [b.get("navigate") for b in form["on_submit"] if "navigate" in b] == ["/thanks.html?{form}"]


# --- replay with the recorded settings --------------------------------------------------------------------------------


def record_shop_session(directory: Path, *extra: str) -> None:
    """An `exec` session on the shop, recorded with a URL policy, an optional member and a viewport of its own."""
    lines = [
        turn(("navigate", {"url": "https://shop.test/"}), ("screenshot", {})),
        turn(("navigate", {"url": "https://elsewhere.test/"})),
        turn(("javascript_exec", {"text": "document.title"})),
    ]
    argv = ["exec", "--driver", "mock", "--site", str(SHOP), "--allow-host", "shop.test", "--enable",
            "javascript_exec", "--viewport", "800x600", "--record", str(directory), *extra]  # fmt: skip
    status, out, err = cli(argv, "\n".join(lines) + "\n")
    assert status == 0, err
    answers = [json.loads(line) for line in out.splitlines()]
    assert "not on this session's list of allowed hosts" in json.dumps(answers[1])
    assert not answers[2]["content"][0].get("is_error")


def test_16_7_replay_reuses_the_recorded_settings_and_takes_config_and_flags_over_them(tmp_path: Path) -> None:
    session = tmp_path / "session"
    record_shop_session(session)
    status, out, err = cli(["replay", str(session)])
    assert (status, out.splitlines()[-1], err) == (0, "0 of 4 calls differ", "")
    assert "Pixels not compared" not in out  # the same driver: the screenshot is compared pixel for pixel
    # a flag over the recording: the host it refused is allowed now, so that call differs
    status, out, _ = cli(["replay", str(session), "--allow-host", "shop.test", "--allow-host", "elsewhere.test"])
    assert status == 1 and "[  3] turn 2 navigate: DIFFERS (ok, was error)" in out
    assert out.splitlines()[-1] == "2 of 4 calls differ"  # and the title the script reads there
    # a settings file over the recording: another viewport makes another screenshot
    config = tmp_path / "wide.toml"
    config.write_text('viewport = "1280x800"\n', encoding="utf-8")
    status, out, _ = cli(["replay", str(session), "--config", str(config)])
    assert status == 1 and "image 1: 800x600 -> 1280x800" in out
    # what the settings file under it would say is not read: the recording is the base
    (tmp_path / "browser-toolset.toml").write_text('driver = "selenium"\n', encoding="utf-8")
    assert cli(["replay", str(session)])[0] == 0


def test_16_7_replay_on_another_driver_drops_its_options_and_compares_no_pixels(tmp_path: Path) -> None:
    session = tmp_path / "session"
    record_shop_session(session)
    # as if recorded on Chromium: the settings say so (the results are the mock's)
    settings = json.loads((session / "settings.json").read_text(encoding="utf-8"))
    settings.update({"driver": "selenium", "browser": "chromium", "driver_options.browser": "chromium",
                     "driver_options.egress": "true", "headless": True})  # fmt: skip
    del settings["driver_options.site"]
    (session / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    # a site whose home page looks different and reads the same: only the screenshot's pixels change
    changed = json.loads(SHOP.read_text(encoding="utf-8"))
    changed["pages"]["/"]["elements"][1]["children"][0]["name"] = "Welcome to our new shop"
    other = tmp_path / "changed.json"
    other.write_text(json.dumps(changed), encoding="utf-8")
    status, out, err = cli(["replay", str(session), "--driver", "mock", "--site", str(other)])
    assert (status, err) == (0, ""), out
    assert out.splitlines()[0] == (
        "Pixels not compared: recorded on selenium (chromium), replayed on mock (--pixel-threshold compares them "
        "anyway)"
    )
    status, out, _ = cli(["replay", str(session), "--driver", "mock", "--site", str(other), "--pixel-threshold=0"])
    assert status == 1 and "[  2] turn 1 screenshot: DIFFERS (ok)" in out and "pixel difference" in out


def test_16_7_the_recorded_settings_of_every_format_are_read() -> None:
    assert recorded_settings(
        {
            "task": "t", "driver": "mock", "driver_options": {"site": "a.json", "token": "***"},
            "allowed_hosts": ["a.test"], "allow_private": True, "option": ["viewport=800x600", "bad"],
            "image_format": "jpeg", "loop.api_key": "********", "confirm.purchase": "ask", "enable": ["read_console"],
            "urls.allow_private": None,
        }
    ) == {
        "driver": "mock", "driver_options.site": "a.json", "urls.allow_hosts": ["a.test"], "urls.allow_private": True,
        "driver_options.viewport": "800x600", "images.format": "jpeg", "enable": ["read_console"],
    }  # fmt: skip


def state(*changes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "browser_state", "tabs": [], "state_changes": list(changes)}]


def test_16_7_downloads_are_compared_over_the_session_not_per_call() -> None:
    started = {"type": "download_started", "download_id": "dl-1", "url": "http://a.test/p.csv"}
    done = {"type": "download_completed", "download_id": "dl-1", "url": "http://a.test/p.csv", "size_bytes": 72,
            "path": "/tmp/one/p.csv"}  # fmt: skip
    fast = [state(done), state()]  # finished while the click ran
    slow = [state(started), state({**done, "path": "/tmp/two/p.csv"})]  # finished during the next call
    assert [result_text(content) for content in fast] == [result_text(content) for content in slow]
    line = '[download] {"download_id": "dl-1", "path": "p.csv", "size_bytes": 72, "type": "download_completed", '
    assert download_lines(fast) == download_lines(slow) == [line + '"url": "http://a.test/p.csv"}']
    failed = {"type": "download_failed", "download_id": "dl-1", "url": "http://a.test/p.csv"}
    assert download_lines([state(started), state(failed)]) != download_lines(slow)
    assert download_lines([state(started), state()]) == []


def test_16_7_the_demos_replay_line_exits_0_on_the_mock(tmp_path: Path) -> None:
    status, out, err = cli(["demo", "--driver", "mock", "--output", str(tmp_path / "demo"), "-q"])
    assert status == 0, err
    (line,) = [line for line in out.splitlines() if line.startswith("Replay it: browser-toolset ")]
    status, out, err = cli(line.removeprefix("Replay it: browser-toolset ").split())
    assert (status, out.splitlines()[-1], err) == (0, "0 of 19 calls differ", "")
    # the form went as a browser sends it, the chosen plan with it
    recorded = (tmp_path / "demo" / "session" / "calls.jsonl").read_text(encoding="utf-8")
    assert "thanks.html?name=Ada+Lovelace&email=ada%40example.com&plan=pro&message=Hello" in recorded


def test_16_7_a_tab_the_call_opened_is_compared_by_its_id_not_by_how_far_it_had_loaded() -> None:
    home = {"tab_id": "tab-1", "title": "Acme", "url": "http://a.test/", "active": True}
    opened = {"type": "tab_opened", "tab_id": "tab-2"}

    def with_tabs(second: dict[str, Any], *changes: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "browser_state", "tabs": [home, {**second, "active": False}], "state_changes": list(changes)}]

    loading = {"tab_id": "tab-2", "title": "", "url": "about:blank"}
    loaded = {"tab_id": "tab-2", "title": "Status", "url": "http://a.test/status"}
    assert result_text(with_tabs(loading, opened)) == result_text(with_tabs(loaded, opened))
    assert "[tab]  tab-2 (opened by this call)" in result_text(with_tabs(loaded, opened))
    # a tab opened earlier is compared whole
    assert result_text(with_tabs(loading)) != result_text(with_tabs(loaded))
