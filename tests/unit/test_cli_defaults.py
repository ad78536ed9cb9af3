"""Issue 16, item 1: `run` and `exec` use a real browser unless told otherwise (Chromium, else Firefox, else an error
naming what to install); the mock only with `--driver mock`, and then `run` says on its first line that the pages
are not real. No browser starts here: the driver factory is replaced, and what it was asked for is the oracle."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_toolset import config as cfg
from browser_toolset.cli import browser, main
from browser_toolset.cli import run_command as run_module
from browser_toolset.config import BrowserNotFound, load_settings, open_toolset, with_default_browser
from browser_toolset.drivers import selenium
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.testing.fake_api import FakeMessagesAPI

ROOT = Path(__file__).resolve().parent.parent.parent
SITE = ROOT / "examples" / "shop.json"
SCRIPTS = ROOT / "tests" / "scripts"
CALL = {"type": "tool_use", "id": "t1", "name": "list_tabs", "input": {}, "toolset_name": "browser"}
LIST_TABS = json.dumps({"role": "assistant", "content": [CALL]})


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No BROWSER_TOOLSET_* variables or ./browser-toolset.toml of the machine leak in."""
    for name in list(__import__("os").environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def installed(monkeypatch: pytest.MonkeyPatch, *families: str) -> None:
    """Pretend that only these browser families (`chromium`, `firefox`) have their browser and WebDriver here."""

    def found(config: selenium.SeleniumConfig, env: object = None) -> str | None:
        return f"/opt/{config.family}" if config.family in families else None

    monkeypatch.setattr(selenium, "find_browser_binary", found)
    monkeypatch.setattr(selenium, "find_driver_binary", found)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, str]]]]:
    """The drivers the CLI starts, by name and options; each is the shop's mock, so the command can go on."""
    asked: list[tuple[str, dict[str, str]]] = []

    def load(name: str, options: Any) -> MockDriver:
        asked.append((name, dict(options)))
        return MockDriver.from_json(SITE)

    monkeypatch.setattr(browser, "load_driver", load)
    yield asked


def run_cli(argv: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        status = main(argv)
    except SystemExit as exc:
        status = 1 if isinstance(exc.code, str) else int(exc.code or 0)
        err.write(exc.code if isinstance(exc.code, str) else "")
    return status, out.getvalue(), err.getvalue()


def test_16_1_exec_and_run_start_chromium_when_nothing_names_a_driver(
    monkeypatch: pytest.MonkeyPatch, started: list[tuple[str, dict[str, str]]]
) -> None:
    installed(monkeypatch, "chromium", "firefox")
    status, _, err = run_cli(["exec"], monkeypatch, LIST_TABS + "\n")
    assert status == 0, err
    assert started == [("selenium", {"browser": "chromium"})]
    monkeypatch.setattr(run_module, "run_command", lambda toolset, task, **options: toolset.close() or 0)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    status, _, err = run_cli(["run", "Find the price of the Pro plan", "--start-url", "https://example.com"],
                             monkeypatch)  # fmt: skip
    assert status == 0, err
    assert started[1] == ("selenium", {"browser": "chromium"})
    assert "NOTICE" not in err


def test_16_1_firefox_when_chromium_is_not_installed(
    monkeypatch: pytest.MonkeyPatch, started: list[tuple[str, dict[str, str]]]
) -> None:
    installed(monkeypatch, "firefox")
    assert run_cli(["exec"], monkeypatch, LIST_TABS + "\n")[0] == 0
    assert started == [("selenium", {"browser": "firefox"})]
    settings = with_default_browser(load_settings(env={}))
    assert settings.driver_options == {"browser": "firefox"}
    assert settings.sources["driver_options.browser"] == "default (the first installed of chromium, firefox)"


def test_16_1_without_a_browser_the_error_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, started: list[tuple[str, dict[str, str]]]
) -> None:
    installed(monkeypatch)
    status, out, err = run_cli(["exec"], monkeypatch, LIST_TABS + "\n")
    assert (status, out, started) == (2, "", [])
    assert "no browser to run" in err
    for advice in ("apt install chromium chromium-driver", "browser-toolset[firefox]", "--browser", "--driver mock"):
        assert advice in err
    with pytest.raises(BrowserNotFound, match=r"neither Chromium .* nor Firefox"):
        open_toolset(load_settings(env={}))


def test_16_1_a_named_browser_a_grid_or_another_driver_is_not_second_guessed(
    monkeypatch: pytest.MonkeyPatch, started: list[tuple[str, dict[str, str]]]
) -> None:
    installed(monkeypatch)  # nothing found here, and nothing needs to be
    for flags, options in (
        ([("browser", "firefox", "--browser")], {"browser": "firefox"}),
        ([("remote", "http://127.0.0.1:4444", "--remote")], {"remote": "http://127.0.0.1:4444"}),
        ([("driver", "mock", "--driver")], {}),
    ):
        settings = load_settings(env={}, flags=flags)
        assert with_default_browser(settings) == settings and settings.driver_options == options
    assert run_cli(["exec", "--browser", "firefox"], monkeypatch, LIST_TABS + "\n")[0] == 0
    assert started == [("selenium", {"browser": "firefox"})]


def test_16_1_run_on_the_mock_says_on_its_first_line_that_the_pages_are_not_real(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        argv = ["run", "What do hats cost?", "--driver", "mock", "--site", str(SCRIPTS / "shop_site.json")]
        status, out, err = run_cli(argv, monkeypatch)
    assert status == 0, err
    assert err.splitlines()[0] == run_module.MOCK_NOTICE
    assert "not the real web" in run_module.MOCK_NOTICE and "--driver" in run_module.MOCK_NOTICE
    assert out == "Hats cost 12, and the price list is downloaded.\n"


def test_16_1_a_configuration_without_a_driver_means_the_default_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, "chromium", "firefox")
    settings = load_settings(env={})
    assert (settings.driver, settings.browser, settings.source("driver")) == ("selenium", None, "default")
    status, out, err = run_cli(["config", "show"], monkeypatch)
    assert status == 0, err
    assert 'driver = "selenium"' in out
    assert "# browser = (not set: the first installed of chromium, firefox; here: chromium)" in out
    installed(monkeypatch)
    assert "here: none of them is installed" in run_cli(["config", "show"], monkeypatch)[1]
    documented = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "## The default browser" in documented and "the first of Chromium and Firefox installed here" in documented
    assert '`"selenium"`' in cfg.markdown_table().splitlines()[2]  # the key table documents it too


def test_16_1_an_option_of_the_mock_without_driver_mock_says_which_driver_it_got(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, _, err = run_cli(["exec", "--site", str(SITE)], monkeypatch)
    assert status == 1
    assert "unknown driver option 'driver_options.site' (from flag --site) for the selenium driver" in err
    assert "no driver was named, so it is the default, selenium" in err and "--driver mock" in err
