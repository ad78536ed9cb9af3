"""Secrets by placeholder on the mock: declared from the environment or a file (never inline), typed only on their
hosts, and shown nowhere: not in results, errors, recordings, nor screenshots."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from PIL import Image

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import Dialog, Log, MockDriver, Navigate, Request, Site
from browser_toolset.drivers.mock.elements import Element, button, frame, paragraph, textbox
from browser_toolset.drivers.mock.resources import Page
from browser_toolset.executor.secret_masks import MASK_COLOUR, masked
from browser_toolset.safety.secrets import Secret, Secrets, SecretsConfigError, encodings
from browser_toolset.sessions.recording import Recorder
from browser_toolset.values import Capture, Rect, Size
from tests.support.session import Session, images, text

PASSWORD = "Tr0ub4dor&3 x/y+z"
"""A value with a space, `&`, `/` and `+`, so each encoding differs from the plain text."""


def forms_of(value: str) -> tuple[str, ...]:
    raw = value.encode()
    return (
        value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    )


def leaks(blob: str, value: str = PASSWORD) -> list[str]:
    return [form for form in forms_of(value) if form in blob]


def bank_site() -> Site:
    """A sign-in page whose script echoes what it was given everywhere a page can: the console, a request, a
    dialog, the next page's URL, title and text. The mock has no script engine, so the echo is written in."""
    site = Site(base_url="https://bank.test/")
    site.add(
        "/login",
        Page(
            title="Sign in",
            elements=(
                textbox("Username"),
                Element("textbox", "Password", input_type="password"),
                button(
                    "Sign in",
                    Log(f"signing in with {PASSWORD}"),
                    Request(f"https://bank.test/api/login?password={quote_plus(PASSWORD)}"),
                    Dialog(f"Welcome! {json.dumps(PASSWORD)}"),
                    Navigate(f"/home?token={base64.b64encode(PASSWORD.encode()).decode()}"),
                ),
                frame("Advert", "https://ads.test/ad"),
            ),
        ),
    )
    site.add("/home", Page(title=f"Home of {PASSWORD}", elements=(paragraph(f"Your password is {PASSWORD}"),)))
    site.add("https://ads.test/ad", Page(title="Ad", elements=(textbox("Win a prize"),)))
    return site


SECRETS = Secrets((Secret("bank_password", PASSWORD, ("bank.test",)),))


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(bank_site()) as mock:
        yield mock


def session(driver: MockDriver, **options: Any) -> Session:
    return Session(BrowserToolset(driver, secrets=SECRETS, **options))


def ref_of(result: dict[str, Any], name: str) -> str:
    for line in text(result).splitlines():
        if f'"{name}"' in line and "ref_" in line:
            return "ref_" + line.split("ref_", 1)[1].split()[0].strip("[]),")
    raise AssertionError(f"no ref for {name!r} in {text(result)}")


# --- declarations --------------------------------------------------------------------------------------------------


def test_a_secret_comes_from_the_environment_or_a_file(tmp_path: Path) -> None:
    (tmp_path / "pin.txt").write_text("4321-9876\n")
    secrets = Secrets.from_declarations(
        {"bank": {"env": "BANK_PW", "hosts": ["bank.test"]}, "pin": {"file": "pin.txt", "hosts": ["*.bank.test"]}},
        environ={"BANK_PW": PASSWORD},
        base_dir=tmp_path,
    )
    assert secrets.names == ("bank", "pin")
    assert secrets.get("pin") is not None and secrets.get("pin").value == "4321-9876"  # type: ignore[union-attr]
    assert PASSWORD not in repr(secrets)
    assert secrets.get("pin").allowed_on("www.bank.test")  # type: ignore[union-attr]
    assert not secrets.get("pin").allowed_on("bank.test.evil")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"value": "hunter22", "hosts": ["bank.test"]}, "copied, committed and recorded"),
        ({"env": "BANK_PW"}, "needs hosts"),
        ({"env": "BANK_PW", "hosts": []}, "needs hosts"),
        ({"env": "NOT_SET", "hosts": ["bank.test"]}, "NOT_SET is not set"),
        ({"env": "BANK_PW", "file": "x", "hosts": ["bank.test"]}, "exactly one of"),
        ({"file": "missing.txt", "hosts": ["bank.test"]}, "cannot read"),
    ],
)
def test_a_declaration_that_cannot_be_used_is_refused_saying_why(
    table: dict[str, Any], says: str, tmp_path: Path
) -> None:
    with pytest.raises(SecretsConfigError, match=says):
        Secrets.from_declarations({"bank": table}, environ={"BANK_PW": PASSWORD}, base_dir=tmp_path)


def test_a_secret_with_javascript_exec_is_a_configuration_error(driver: MockDriver) -> None:
    with pytest.raises(SecretsConfigError, match="javascript_exec"):
        BrowserToolset(driver, secrets=SECRETS, configs={"javascript_exec": {"enabled": True}})


def test_scrub_replaces_every_encoding() -> None:
    for form in encodings(PASSWORD):
        assert SECRETS.scrub(f"a {form} b") == "a {{secret:bank_password}} b"
    assert not leaks(SECRETS.scrub(" ".join(forms_of(PASSWORD))))
    odd = Secrets((Secret("odd", 'pä"ss\\wörd/1', ("bank.test",)),))
    for form in (json.dumps('pä"ss\\wörd/1'), json.dumps('pä"ss\\wörd/1', ensure_ascii=False)):
        assert odd.scrub(f"<{form}>") == '<"{{secret:odd}}">'
    assert odd.scrub("p%c3%a4%22ss%5cw%c3%b6rd%2f1") == "{{secret:odd}}"


# --- the flow -------------------------------------------------------------------------------------------------------


def sign_in(s: Session) -> list[dict[str, Any]]:
    results = [s.call("navigate", url="https://bank.test/login")]
    tree = s.call("read_page")
    results.append(tree)
    results.append(s.call("form_input", target={"type": "ref", "ref": ref_of(tree, "Username")}, value="ada"))
    results.append(s.call("left_click", target={"type": "ref", "ref": ref_of(tree, "Password")}))
    results.append(s.call("type", text="{{secret:bank_password}}"))
    results.append(s.call("read_page"))
    results.append(s.call("find", query="password field"))
    results.append(s.call("screenshot"))
    results.append(s.call("left_click", target={"type": "ref", "ref": ref_of(tree, "Sign in")}))
    results.append(s.call("get_page_text"))
    results.append(s.call("read_console"))
    results.append(s.call("read_network"))
    results.append(s.call("list_tabs"))
    return results


def test_a_secret_typed_on_its_host_reaches_the_field_and_no_result(driver: MockDriver) -> None:
    s = session(
        driver,
        configs={"read_console": {"enabled": True}, "read_network": {"enabled": True}},
        confirm=lambda *_: True,
    )
    results = sign_in(s)
    for result in results:
        assert not result.get("is_error"), result
    dumped = json.dumps(results)
    assert not leaks(dumped), leaks(dumped)
    assert "{{secret:bank_password}}" in dumped
    typed = driver.calls_to("type_text")
    assert typed and PASSWORD in str(typed[-1])


def test_a_recording_of_the_session_holds_no_form_of_the_value(driver: MockDriver, tmp_path: Path) -> None:
    s = session(driver)
    s.call("navigate", url="https://bank.test/login")
    tree = s.call("read_page")
    password = ref_of(tree, "Password")
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_a1", "name": "left_click", "toolset_name": "browser",
             "input": {"target": {"type": "ref", "ref": password}}},
            {"type": "tool_use", "id": "toolu_a2", "name": "type", "toolset_name": "browser",
             "input": {"text": "{{secret:bank_password}}"}},
            {"type": "tool_use", "id": "toolu_a3", "name": "read_page", "toolset_name": "browser", "input": {}},
            {"type": "tool_use", "id": "toolu_a4", "name": "screenshot", "toolset_name": "browser", "input": {}},
        ],
    }  # fmt: skip
    answer = s.turn(*turn["content"])
    with Recorder(tmp_path / "rec", {"secrets": {"bank_password": {"env": "BANK_PW", "hosts": ["bank.test"]}}}) as rec:
        rec.record_exchange(turn, answer, [0.0] * 4)
    files = [path for path in (tmp_path / "rec").rglob("*") if path.is_file()]
    assert any(path.suffix == ".png" for path in files)
    for path in files:
        assert not leaks(path.read_bytes().decode("latin-1")), path


def test_a_host_outside_the_list_is_refused_with_nothing_typed(driver: MockDriver) -> None:
    s = session(driver)
    s.call("navigate", url="https://bank.test/login")
    tree = s.call("read_page")
    prize = ref_of(tree, "Win a prize")
    s.call("left_click", target={"type": "ref", "ref": prize})
    typed = s.call("type", text="{{secret:bank_password}}")
    assert typed.get("is_error")
    assert "'bank_password' may not be typed on ads.test" in text(typed)
    filled = s.call("form_input", target={"type": "ref", "ref": prize}, value="x {{secret:bank_password}}")
    assert filled.get("is_error") and "ads.test" in text(filled)
    unknown = s.call("type", text="{{secret:nope}}")
    assert unknown.get("is_error") and "no secret named 'nope'" in text(unknown)
    assert not driver.calls_to("type_text") and not driver.calls_to("set_value")
    page = driver.page()
    assert page.element("Win a prize").value in ("", None)


def test_a_driver_that_cannot_tell_the_document_is_refused(driver: MockDriver) -> None:
    class Blind(MockDriver):
        document_url = None  # type: ignore[assignment]

    blind = Blind(bank_site())
    s = session(blind)
    s.call("navigate", url="https://bank.test/login")
    tree = s.call("read_page")
    s.call("left_click", target={"type": "ref", "ref": ref_of(tree, "Password")})
    typed = s.call("type", text="{{secret:bank_password}}")
    assert typed.get("is_error") and "cannot tell which page holds the target" in text(typed)
    assert not blind.calls_to("type_text")
    blind.close()


def test_a_driver_that_cannot_find_what_to_mask_refuses_captures() -> None:
    class Unmasking(MockDriver):
        secret_boxes = None  # type: ignore[assignment]

    with Unmasking(bank_site()) as unmasking:
        s = session(unmasking)
        s.call("navigate", url="https://bank.test/home")
        shot = s.call("screenshot")
        assert shot.get("is_error") and "cannot find the elements that hold them" in text(shot)
        assert not images(shot) and not unmasking.calls_to("capture")


# --- screenshots ----------------------------------------------------------------------------------------------------


def colours(png: bytes, box: Rect, scale: float) -> set[Any]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    crop = image.crop((int(box.x * scale), int(box.y * scale), int((box.x + box.width) * scale),
                       int((box.y + box.height) * scale)))  # fmt: skip
    return {colour for _, colour in crop.getcolors(maxcolors=1 << 20) or []}


def test_screenshots_paint_over_what_holds_the_secret(driver: MockDriver) -> None:
    s = session(driver)
    s.call("navigate", url="https://bank.test/home")
    handle = driver.handles[0]
    boxes = driver.secret_boxes(handle, [PASSWORD])
    assert boxes
    plain = driver.capture(handle)
    shot = s.call("screenshot")
    (image,) = images(shot)
    png = base64.b64decode(image["source"]["data"])
    scale = Image.open(io.BytesIO(png)).width / plain.viewport.width
    for box in boxes:
        assert len(colours(plain.png, box, plain_scale(plain))) > 1  # the page shows text there
        assert colours(png, box, scale) == {MASK_COLOUR}


def plain_scale(capture: Capture) -> float:
    return Image.open(io.BytesIO(capture.png)).width / capture.viewport.width


def test_masking_maps_boxes_into_a_region_at_its_scale() -> None:
    image = Image.new("RGB", (200, 100), (255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    capture = Capture(png=out.getvalue(), viewport=Size(400, 400),
                      clip=Rect(100, 100, 100, 50))  # fmt: skip
    result = masked(capture, [Rect(120, 110, 10, 10), Rect(0, 0, 5, 5)])
    painted = Image.open(io.BytesIO(result.png)).convert("RGB")
    assert painted.getpixel((50, 30)) == MASK_COLOUR  # (125, 115) in CSS pixels, at 2 image pixels per CSS pixel
    assert painted.getpixel((10, 10)) == (255, 255, 255)


# --- configuration --------------------------------------------------------------------------------------------------


def write_site(tmp_path: Path) -> Path:
    path = tmp_path / "site.json"
    path.write_text(json.dumps({"base_url": "https://bank.test/", "pages": {"/": {"title": "Bank"}}}))
    return path


def test_a_configured_secret_reaches_the_toolset_and_is_never_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from browser_toolset.config import load_settings
    from browser_toolset.config.toolsets import as_mapping, open_toolset

    (tmp_path / "pw.txt").write_text(PASSWORD + "\n")
    config = tmp_path / "c.toml"
    config.write_text(
        f"driver = 'mock'\n[driver_options]\nsite = {str(write_site(tmp_path))!r}\n"
        "[secrets.bank_password]\nfile = 'pw.txt'\nhosts = ['bank.test']\n"
    )
    settings = load_settings(str(config), env={})
    assert list(settings.secrets) == ["bank_password"]
    assert not leaks(json.dumps(as_mapping(settings))) and "secrets" not in as_mapping(settings)
    with open_toolset(settings) as toolset:
        assert toolset.options.secrets is not None and toolset.options.secrets.names == ("bank_password",)
        assert not leaks(repr(toolset.options))


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("[secrets.bank]\nvalue = 'hunter22'\nhosts = ['bank.test']\n", "copied, committed and recorded"),
        ("[secrets.bank]\nenv = 'BANK_PW'\n", "needs hosts"),
        ("enable = ['javascript_exec']\n[secrets.bank]\nenv = 'BANK_PW'\nhosts = ['bank.test']\n", "javascript_exec"),
    ],
)
def test_a_configuration_that_declares_a_secret_wrongly_is_refused(tmp_path: Path, body: str, says: str) -> None:
    from browser_toolset.config import ConfigError, load_settings

    config = tmp_path / "c.toml"
    config.write_text(f"driver = 'mock'\n{body}")
    with pytest.raises(ConfigError, match=says):
        load_settings(str(config), env={})


# --- run ------------------------------------------------------------------------------------------------------------

SIGN_IN_SITE = {
    "base_url": "https://bank.test",
    "start": "/login",
    "pages": {
        "/login": {
            "title": "Sign in",
            "elements": [
                {"role": "form", "id": "f", "on_submit": [{"navigate": "/home?pw={pw}"}], "children": [
                    {"role": "textbox", "name": "Username", "id": "u"},
                    {"role": "textbox", "name": "Password", "id": "pw", "input_type": "password"},
                    {"role": "button", "name": "Sign in", "on_click": ["submit"]},
                ]},
            ],
        },
        "/home": {"title": "Home", "elements": [{"role": "paragraph", "text": "Signed in."}]},
    },
}  # fmt: skip
SIGN_IN_SCRIPT = [
    [{"type": "tool_use", "toolset_name": "browser", "name": "navigate", "input": {"url": "https://bank.test/login"}}],
    [{"type": "tool_use", "toolset_name": "browser", "name": "read_page", "input": {}}],
    [
        {"type": "tool_use", "toolset_name": "browser", "name": "form_input",
         "input": {"target": {"type": "ref", "ref": "ref_2"}, "value": "{{secret:bank_password}}"}},
        {"type": "tool_use", "toolset_name": "browser", "name": "screenshot", "input": {}},
        {"type": "tool_use", "toolset_name": "browser", "name": "left_click",
         "input": {"target": {"type": "ref", "ref": "ref_3"}}},
        {"type": "tool_use", "toolset_name": "browser", "name": "get_page_text", "input": {}},
    ],
    [{"type": "text", "text": "Signed in."}],
]  # fmt: skip


def test_run_names_the_secrets_to_claude_and_sends_no_form_of_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import sys

    from browser_toolset.cli.main import main
    from browser_toolset.testing.fake_api import FakeMessagesAPI

    for name in list(os.environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site.json").write_text(json.dumps(SIGN_IN_SITE))
    (tmp_path / "script.json").write_text(json.dumps(SIGN_IN_SCRIPT))
    (tmp_path / "c.toml").write_text("[secrets.bank_password]\nenv = 'BANK_PW'\nhosts = ['bank.test']\n")
    monkeypatch.setenv("BANK_PW", PASSWORD)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with FakeMessagesAPI(tmp_path / "script.json") as api:
        monkeypatch.setenv("BROWSER_TOOLSET_LOOP_BASE_URL", api.base_url)
        argv = ["run", "Sign in to the bank.", "--config", str(tmp_path / "c.toml"), "--driver", "mock",
                "--site", str(tmp_path / "site.json"), "-q", "--record", str(tmp_path / "rec")]  # fmt: skip
        status = main(argv)
        requests = api.requests
    assert status == 0, err.getvalue()
    assert "{{secret:bank_password}}" in json.dumps(requests[0].body.get("system"))
    sent = json.dumps([request.body for request in requests])
    assert "It now holds '{{secret:bank_password}}'" in sent  # the value was set: the page echoed it back
    assert "pw=%7B%7Bsecret:bank_password%7D%7D" in sent  # and sent it in the URL, shown as the placeholder
    assert not leaks(sent)
    assert not leaks(out.getvalue() + err.getvalue())
    files = [path for path in (tmp_path / "rec").rglob("*") if path.is_file()]
    assert any(path.suffix == ".png" for path in files)
    for path in files:
        assert not leaks(path.read_bytes().decode("latin-1")), path

    # replay fills the placeholders from the configuration it is given, or stops naming the missing secret
    out.truncate(0)
    assert main(["replay", str(tmp_path / "rec"), "--config", str(tmp_path / "c.toml")]) == 0, out.getvalue()
    assert not leaks(out.getvalue() + err.getvalue())
    (tmp_path / "none.toml").write_text("")
    err.truncate(0)
    assert main(["replay", str(tmp_path / "rec"), "--config", str(tmp_path / "none.toml")]) == 2
    assert "types the secret(s) bank_password, which the configuration does not declare" in err.getvalue()
    # the replay's toolset holds the secret: declared for another host, the same call is refused and differs
    (tmp_path / "other.toml").write_text("[secrets.bank_password]\nenv = 'BANK_PW'\nhosts = ['other.test']\n")
    out.truncate(0)
    assert main(["replay", str(tmp_path / "rec"), "--config", str(tmp_path / "other.toml")]) == 1
    assert "may not be typed on bank.test" in out.getvalue()


def test_the_async_toolset_fills_and_hides_as_the_sync_one_does(driver: MockDriver) -> None:
    import asyncio

    from anthropic.types.beta import BetaToolUseBlock

    from browser_toolset import AsyncBrowserToolset
    from browser_toolset.safety.urls import URLPolicy
    from tests.support.session import tool_use

    async def go() -> list[Any]:
        async with AsyncBrowserToolset(driver, secrets=SECRETS, navigation=URLPolicy(allow_private=True)) as toolset:
            results = []
            for name, input in (("navigate", {"url": "https://bank.test/home"}), ("get_page_text", {})):
                block = BetaToolUseBlock.model_validate(tool_use(name, input))
                results.append(await toolset.tool_result(block))
            return results

    navigated, page = asyncio.run(go())
    assert "Your password is {{secret:bank_password}}" in json.dumps(page)
    assert not leaks(json.dumps([navigated, page]))


def test_a_guarded_driver_offers_no_script_evaluation(driver: MockDriver) -> None:
    from browser_toolset.driver import implements
    from browser_toolset.executor.secret_driver import guard_secrets

    assert implements(driver, "evaluate")
    guarded = guard_secrets(driver, SECRETS)
    assert not implements(guarded, "evaluate") and implements(guarded, "drain_console")
    assert guard_secrets(driver, Secrets()) is driver


def test_the_executors_own_redaction_leaves_a_placeholder_readable() -> None:
    from browser_toolset.safety.sanitize import redact

    assert redact('title {{secret:bank}} {"password": "{{secret:bank}}"}') == (
        'title {{secret:bank}} {"password": "{{secret:bank}}"}'
    )
    assert redact("password=hunter22") == "password=[redacted]"


def test_config_show_names_the_declarations_and_never_a_value(tmp_path: Path) -> None:
    from browser_toolset.config import load_settings
    from browser_toolset.config.render import show

    config = tmp_path / "c.toml"
    config.write_text("driver = 'mock'\n[secrets.bank]\nenv = 'BANK_PW'\nhosts = ['bank.test', '*.bank.test']\n")
    shown = show(load_settings(str(config), env={}))
    assert "# [secrets.bank] env = BANK_PW; hosts = bank.test, *.bank.test" in shown
