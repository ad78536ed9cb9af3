"""Storage state without a browser: Playwright's shape read and written exactly, the file's mode, encryption at
rest, the mock driver, the configuration keys that load it into a toolset, and the commands (`exec`, `run`, the MCP
server) saving it as their sessions close."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import sys
from pathlib import Path

import anyio
import pytest

from browser_toolset.cli import main
from browser_toolset.config import load_settings
from browser_toolset.config.toolsets import (
    open_async_toolset,
    open_toolset,
    save_configured_storage,
    save_storage_on_close,
)
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.storage_state import (
    Cookie,
    OriginStorage,
    StorageState,
    StorageStateError,
    load_storage_state,
    new_key,
    read_storage_state,
    save_storage_state,
    write_storage_state,
)
from tests.support.polling import wait_until

ROOT = Path(__file__).resolve().parent.parent.parent
SITE = ROOT / "examples" / "shop.json"

PLAYWRIGHT = {
    "cookies": [
        {
            "name": "sid",
            "value": "abc",
            "domain": ".shop.test",
            "path": "/",
            "expires": 1893456000.5,
            "httpOnly": True,
            "secure": True,
            "sameSite": "Strict",
        },
        {
            "name": "theme",
            "value": "dark",
            "domain": "shop.test",
            "path": "/",
            "expires": -1,
            "httpOnly": False,
            "secure": False,
            "sameSite": "Lax",
        },
    ],
    "origins": [{"origin": "https://shop.test", "localStorage": [{"name": "user", "value": "ada"}]}],
}


def test_a_playwright_state_reads_and_writes_back_the_same_json(tmp_path: Path) -> None:
    state = StorageState.from_json(PLAYWRIGHT)
    assert state.cookies[0] == Cookie("sid", "abc", ".shop.test", "/", 1893456000.5, True, True, "Strict")
    assert state.cookies[1].session
    assert state.origins == (OriginStorage("https://shop.test", (("user", "ada"),)),)
    assert state.to_json() == PLAYWRIGHT
    path = tmp_path / "state.json"
    write_storage_state(state, path)
    assert json.loads(path.read_text()) == PLAYWRIGHT
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_storage_state(path) == state


def test_the_file_is_0600_even_with_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        write_storage_state(StorageState(), tmp_path / "s.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "s.json").st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"], "no temporary file left behind"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cookies": [{"name": "a", "value": "b", "domain": "x", "sameSite": "lax"}]}, "sameSite must be one of"),
        ({"cookies": [{"name": "a", "value": 1, "domain": "x"}]}, r"cookies\[0\]: value must be a string"),
        ({"origins": [{"origin": "https://x.test/path"}]}, "origin must be a scheme, host and port"),
        ({"cookies": {}}, "a list of cookies"),
    ],
)
def test_a_malformed_state_is_refused_saying_where(change: dict[str, object], message: str) -> None:
    with pytest.raises(StorageStateError, match=message):
        StorageState.from_json({"cookies": [], "origins": [], **change})


def test_an_encrypted_file_round_trips_and_hides_the_cookies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_KEY", new_key())
    state = StorageState.from_json(PLAYWRIGHT)
    path = tmp_path / "state.enc.json"
    write_storage_state(state, path, "STATE_KEY")
    # The values stay out of the file: out of its readable fields, and out of the sealed bytes (compared as bytes,
    # quoted as the JSON has them: the base64 text of random bytes may spell "abc" by chance)
    envelope = json.loads(path.read_text())
    sealed = __import__("base64").b64decode(envelope.pop("ciphertext"))
    readable = json.dumps(envelope)
    for plain in ("abc", "ada", "shop.test"):
        assert plain not in readable and f'"{plain}'.encode() not in sealed
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert read_storage_state(path, "STATE_KEY") == state
    with pytest.raises(StorageStateError, match="is encrypted: name the variable"):
        read_storage_state(path)
    monkeypatch.setenv("STATE_KEY", new_key())
    with pytest.raises(StorageStateError, match="does not open with the key in STATE_KEY"):
        read_storage_state(path, "STATE_KEY")


def test_an_altered_encrypted_file_fails_to_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_KEY", new_key())
    path = tmp_path / "state.enc.json"
    write_storage_state(StorageState.from_json(PLAYWRIGHT), path, "STATE_KEY")
    envelope = json.loads(path.read_text())
    sealed = bytearray(__import__("base64").b64decode(envelope["ciphertext"]))
    sealed[0] ^= 1
    envelope["ciphertext"] = __import__("base64").b64encode(bytes(sealed)).decode()
    path.write_text(json.dumps(envelope))
    with pytest.raises(StorageStateError, match="or the file was altered"):
        read_storage_state(path, "STATE_KEY")


def test_a_key_of_the_wrong_size_or_missing_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SHORT_KEY", "c2hvcnQ=")
    with pytest.raises(StorageStateError, match="must hold base64 of 32 bytes"):
        write_storage_state(StorageState(), tmp_path / "s", "SHORT_KEY")
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    with pytest.raises(StorageStateError, match="NO_SUCH_KEY is not set"):
        write_storage_state(StorageState(), tmp_path / "s", "NO_SUCH_KEY")


def test_the_mock_loads_merges_and_refuses_origins_the_url_guard_refuses(tmp_path: Path) -> None:
    driver = MockDriver.from_json(SITE)
    driver.set_url_guard(lambda url: "blocked.test" not in url)
    first = StorageState.from_json(PLAYWRIGHT)
    assert driver.load_storage_state(first) == []
    later = StorageState(
        (Cookie("theme", "light", "shop.test"),),
        (
            OriginStorage("https://shop.test", (("cart", "2"),)),
            OriginStorage("https://blocked.test", (("x", "y"),)),
        ),
    )
    assert load_storage_state(driver, later) == ["https://blocked.test"]
    state = driver.storage_state()
    assert {(c.name, c.value) for c in state.cookies} == {("sid", "abc"), ("theme", "light")}
    assert state.origins == (OriginStorage("https://shop.test", (("user", "ada"), ("cart", "2"))),)
    saved = save_storage_state(driver, tmp_path / "out.json")
    assert read_storage_state(tmp_path / "out.json") == saved == state


def test_the_configuration_loads_a_state_into_the_toolset_and_saves_it(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(PLAYWRIGHT))
    target = tmp_path / "out.json"
    config = tmp_path / "c.toml"
    config.write_text(
        f"driver = 'mock'\n[driver_options]\nsite = {str(SITE)!r}\n"
        f"[storage]\nload = {str(source)!r}\nsave = {str(target)!r}\n"
    )
    settings = load_settings(str(config), env={})
    with open_toolset(settings) as toolset:
        assert toolset.driver.storage_state() == StorageState.from_json(PLAYWRIGHT)
        save_configured_storage(toolset, settings)
    assert json.loads(target.read_text()) == PLAYWRIGHT


# --- saved as the commands' sessions close -------------------------------------------------------------------------

SCRIPTS = ROOT / "tests" / "scripts"


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No BROWSER_TOOLSET_* variables or ./browser-toolset.toml of the machine leak into the commands."""
    for name in list(os.environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def state_file(folder: Path) -> Path:
    path = folder / "in.json"
    path.write_text(json.dumps(PLAYWRIGHT))
    return path


def command(argv: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_closing_saves_first_once_and_a_failure_is_a_line_not_a_traceback(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    flags = {"driver": "mock", "driver_options.site": str(SITE), "storage.save": str(target)}
    settings = load_settings(flags=flags, env={}, use_default_file=False)
    toolset = open_toolset(settings)
    driver = toolset.driver
    assert isinstance(driver, MockDriver)
    driver.load_storage_state(StorageState.from_json(PLAYWRIGHT))  # as a page's own cookies would be there
    errors = io.StringIO()
    save_storage_on_close(toolset, settings, errors)
    toolset.close()
    toolset.close()
    names = [call.method for call in driver.calls]
    assert names.count("storage_state") == 1 and names.index("storage_state") < names.index("close")
    assert json.loads(target.read_text()) == PLAYWRIGHT and errors.getvalue() == ""

    nowhere = str(tmp_path / "missing" / "out.json")
    settings = load_settings(flags={"driver": "mock", "storage.save": nowhere}, env={}, use_default_file=False)
    toolset = open_toolset(settings)
    save_storage_on_close(toolset, settings, errors)
    toolset.close()
    assert isinstance(toolset.driver, MockDriver)
    assert errors.getvalue().startswith(f"browser-toolset: the storage state was not saved to {nowhere}: ")
    assert "Traceback" not in errors.getvalue() and errors.getvalue().count("\n") == 1
    assert "close" in [call.method for call in toolset.driver.calls], "the browser closes all the same"


def test_open_async_toolset_loads_the_configured_state(tmp_path: Path) -> None:
    flags = {"driver": "mock", "driver_options.site": str(SITE), "storage.load": str(state_file(tmp_path))}
    settings = load_settings(flags=flags, env={}, use_default_file=False)

    async def loaded() -> StorageState:
        toolset = await open_async_toolset(settings)
        try:
            return toolset.driver.storage_state()
        finally:
            await toolset.close()

    assert asyncio.run(loaded()) == StorageState.from_json(PLAYWRIGHT)


def test_exec_loads_and_saves_the_state_with_the_flags(
    monkeypatch: pytest.MonkeyPatch, clean_environment: Path
) -> None:
    source, target = state_file(clean_environment), clean_environment / "out.json"
    navigate = {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "navigate", "input": {"url": "https://shop.test/"},
         "toolset_name": "browser"},
    ]}  # fmt: skip
    argv = ["exec", "--driver", "mock", "--site", str(SITE), "--storage-state", str(source)]
    status, out, err = command([*argv, "--save-storage-state", str(target)], monkeypatch, json.dumps(navigate) + "\n")
    assert (status, err) == (0, "") and "Mock Shop" in out
    assert json.loads(target.read_text()) == PLAYWRIGHT
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    # encrypted at rest when a key is named
    monkeypatch.setenv("STATE_KEY", new_key())
    secret = clean_environment / "secret.json"
    status, _, err = command(
        [*argv, "--save-storage-state", str(secret), "--set", "storage.key_env=STATE_KEY"], monkeypatch
    )
    assert (status, err) == (0, "") and "ada" not in secret.read_text()
    assert read_storage_state(secret, "STATE_KEY") == StorageState.from_json(PLAYWRIGHT)
    # a save that fails says so, and the session's answers stand
    status, _, err = command(["exec", "--driver", "mock", "--save-storage-state", str(source.parent)], monkeypatch)
    assert status == 0 and err.startswith(f"browser-toolset: the storage state was not saved to {source.parent}: ")
    assert "Traceback" not in err


def test_run_saves_the_state_when_the_run_ends(monkeypatch: pytest.MonkeyPatch, clean_environment: Path) -> None:
    from browser_toolset.testing.fake_api import FakeMessagesAPI

    source, target = state_file(clean_environment), clean_environment / "out.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        monkeypatch.setenv("BROWSER_TOOLSET_LOOP_BASE_URL", api.base_url)
        argv = ["run", "What do hats cost?", "--driver", "mock", "--site", str(SCRIPTS / "shop_site.json"), "-q",
                "--max-turns", "9", "--storage-state", str(source), "--save-storage-state", str(target)]  # fmt: skip
        status, out, err = command(argv, monkeypatch)
    assert status == 0, err
    assert out == "Hats cost 12, and the price list is downloaded.\n"
    assert json.loads(target.read_text()) == PLAYWRIGHT


def test_an_mcp_stdio_session_saves_the_state_as_it_closes(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from tests.unit.test_mcp_http import ok
    from tests.unit.test_mcp_stdio import stdio_client

    source, target = state_file(tmp_path), tmp_path / "out.json"

    async def session() -> None:
        flags = ("--storage-state", str(source), "--save-storage-state", str(target))
        async with stdio_client("legacy", *flags) as client:
            ok(await client.call_tool("navigate", {"url": "https://shop.test/"}))
            assert not target.exists()  # saved when the session closes, not before

    anyio.run(session)
    wait_until(target.exists, timeout=30)  # the file is written whole (renamed into place)
    assert json.loads(target.read_text()) == PLAYWRIGHT
