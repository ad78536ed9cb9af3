"""Storage state without a browser: Playwright's shape read and written exactly, the file's mode, encryption at
rest, the mock driver, and the configuration keys that load it into a toolset."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from browser_toolset.config import load_settings
from browser_toolset.config.toolsets import open_toolset, save_configured_storage
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
    text = path.read_text()
    assert "abc" not in text and "ada" not in text and "shop.test" not in text
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
