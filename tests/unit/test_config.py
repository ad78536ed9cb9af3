"""The configuration: layers and precedence, every refusal naming its key and source, `config show` / `config init`,
driver option declarations, and `open_toolset`."""

from __future__ import annotations

import io
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import tomllib

from browser_toolset import config as cfg
from browser_toolset.cli import main
from browser_toolset.config import ConfigError, Settings, load_settings, open_toolset
from browser_toolset.driver_options import DriverOption, declared_options
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.drivers.selenium import SeleniumConfig
from browser_toolset.drivers.selenium import options as selenium_options

ROOT = Path(__file__).resolve().parent.parent.parent
SITE = ROOT / "examples" / "shop.json"


def load(file: Path | None = None, env: Mapping[str, str] | None = None, flags: Any = ()) -> Settings:
    return load_settings(file, env=dict(env or {}), flags=flags, use_default_file=False)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def cli(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        status = main(argv)
    except SystemExit as exc:
        status = 1 if isinstance(exc.code, str) else int(exc.code or 0)
        if isinstance(exc.code, str):
            err.write(exc.code)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No BROWSER_TOOLSET_* variables or ./browser-toolset.toml of the machine leak in."""
    for name in list(__import__("os").environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


# --- layers and precedence ------------------------------------------------------------------------------------------


def test_defaults_match_the_executor_defaults() -> None:
    settings = load()
    assert settings.driver == "selenium" and settings.driver_options == {}
    assert settings.images == cfg.ImageSettings(1568, 1_150_000, 2000, "png", 85)
    assert settings.confirm.decisions() == dict.fromkeys(("purchase", "message", "delete", "account", "terms"), "ask")
    assert settings.files.upload_max_mib == 50.0 and settings.urls.allow_hosts is None
    assert all(settings.source(key.name) == "default" for key in cfg.setting_keys())


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    file = write(
        tmp_path / "c.toml",
        'driver = "mock"\nviewport = "800x600"\nenable = ["read_console"]\n[images]\nquality = 50\nformat = "jpeg"\n'
        '[urls]\nallow_hosts = ["a.test"]\n[loop]\nmax_turns = 7\n[driver_options]\nstart_url = "https://a.test/"\n',
    )
    env = {"BROWSER_TOOLSET_IMAGES_QUALITY": "60", "BROWSER_TOOLSET_URLS_ALLOW_HOSTS": "b.test, c.test"}
    settings = load(file, env, [("images.quality", 70, "--image-quality")])
    assert settings.viewport == "800x600" and settings.source("viewport") == f"file {file}"
    assert settings.images.format == "jpeg" and settings.images.quality == 70
    assert settings.source("images.quality") == "flag --image-quality"
    assert settings.urls.allow_hosts == ("b.test", "c.test")
    assert settings.source("urls.allow_hosts") == "env BROWSER_TOOLSET_URLS_ALLOW_HOSTS"
    assert settings.enable == ("read_console",) and settings.loop.max_turns == 7
    assert settings.driver_options == {"start_url": "https://a.test/", "viewport": "800x600"}
    assert load(file, env).images.quality == 60


def test_shortcuts_become_driver_options_and_the_later_layer_wins(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", '[driver_options]\nviewport = "900x700"\n')
    assert load(file).driver_options == {"viewport": "900x700"}
    assert load(file, {"BROWSER_TOOLSET_VIEWPORT": "1000x700"}).driver_options == {"viewport": "1000x700"}
    both = load(file, {"BROWSER_TOOLSET_OPTION_VIEWPORT": "1100x700"}, [("viewport", "1200x700", "--viewport")])
    assert both.driver_options == {"viewport": "1200x700"}


def test_selenium_settings_reach_the_driver_options(tmp_path: Path) -> None:
    file = write(
        tmp_path / "c.toml",
        'driver = "selenium"\nbrowser = "firefox"\nremote = "http://127.0.0.1:4444"\nheadless = false\n'
        'profile_dir = "/tmp/p"\n[files]\ndownload_dir = "/tmp/d"\n[timeouts]\nnavigation = 12\n'
        '[driver_options]\ndialogs = "accept"\n',
    )
    options = load(file).driver_options
    assert options == {
        "dialogs": "accept", "browser": "firefox", "remote": "http://127.0.0.1:4444", "headless": "false",
        "profile_dir": "/tmp/p", "download_dir": "/tmp/d", "navigation_timeout": "12.0",
    }  # fmt: skip
    config = SeleniumConfig.from_options(options)
    assert (config.profile_dir, config.headless, config.navigation_timeout) == ("/tmp/p", False, 12.0)


def test_browser_timeouts_are_ignored_by_a_driver_without_them() -> None:
    env = {"BROWSER_TOOLSET_DRIVER": "mock", "BROWSER_TOOLSET_TIMEOUTS_NAVIGATION": "5"}
    assert load(env=env).driver_options == {}
    assert load(env={"BROWSER_TOOLSET_TIMEOUTS_NAVIGATION": "5"}).driver_options == {"navigation_timeout": "5.0"}


def test_the_default_file_and_the_config_variable(tmp_path: Path) -> None:
    write(tmp_path / "browser-toolset.toml", "[images]\nquality = 40\n")
    assert load_settings(env={}).images.quality == 40
    other = write(tmp_path / "other.toml", "[images]\nquality = 30\n")
    assert load_settings(env={"BROWSER_TOOLSET_CONFIG": str(other)}).images.quality == 30
    assert load_settings(other, env={}).config_file == str(other)


# --- refusals --------------------------------------------------------------------------------------------------------


def refusal(**kwargs: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        load(**kwargs)
    return str(caught.value)


def test_an_unknown_key_in_the_file_names_the_file_and_the_accepted_keys(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", "browsr = 'firefox'\n")
    message = refusal(file=file)
    assert message.startswith(f"{file}: unknown key 'browsr'; accepted keys: driver, browser, remote")
    file = write(tmp_path / "c.toml", "[images]\nqualty = 3\n")
    assert refusal(file=file) == (
        f"{file}: unknown key 'images.qualty'; the keys of [images] are images.max_long_edge, images.max_pixels, "
        "images.max_edge, images.format, images.quality"
    )
    file = write(tmp_path / "c.toml", "images = 3\n")
    assert refusal(file=file) == f"{file}: [images] must be a table of keys, not 3"


def test_a_bad_value_in_the_file(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", "[images]\nquality = '85'\nformat = 'gif'\n")
    message = refusal(file=file)
    assert message == (
        f"images.format = 'gif' (from {file}) is not valid: expected png or jpeg or webp; got 'gif'; use png or "
        "jpeg or webp"
    )
    file = write(tmp_path / "c.toml", "[urls]\nallow_private = 'maybe'\n")
    assert "urls.allow_private = 'maybe'" in refusal(file=file) and "use true or false" in refusal(file=file)
    file = write(tmp_path / "c.toml", "enable = ['read_minds']\n")
    assert "'read_minds' is not an optional member; use a list of file_upload, javascript_exec" in refusal(file=file)
    file = write(tmp_path / "c.toml", "[images]\nmax_edge = 4000\n")
    assert "expected a whole number between 1 and 2000; got 4000" in refusal(file=file)
    file = write(tmp_path / "c.toml", "not toml = =\n")
    assert refusal(file=file).startswith(f"{file}: not valid TOML:")
    assert refusal(file=tmp_path / "missing.toml").startswith(f"{tmp_path / 'missing.toml'}: cannot be read")


def test_a_bad_value_in_the_environment() -> None:
    assert refusal(env={"BROWSER_TOOLSET_IMAGES_QUALITY": "high"}) == (
        "images.quality = 'high' (from environment variable BROWSER_TOOLSET_IMAGES_QUALITY) is not valid: expected "
        "a whole number; got 'high'; use a whole number between 1 and 100"
    )
    assert "confirm.purchase = 'later'" in refusal(env={"BROWSER_TOOLSET_CONFIRM_PURCHASE": "later"})
    assert "use ask or deny or allow" in refusal(env={"BROWSER_TOOLSET_CONFIRM_PURCHASE": "later"})
    assert "use a number of seconds above 0" in refusal(env={"BROWSER_TOOLSET_TIMEOUTS_API": "-1"})
    message = refusal(env={"BROWSER_TOOLSET_IMAGE_QUALITY": "80"})
    assert message.startswith("environment variable BROWSER_TOOLSET_IMAGE_QUALITY is not a browser-toolset setting")
    assert "BROWSER_TOOLSET_IMAGES_QUALITY" in message
    # the test suite's own variables are not settings
    suite = {"BROWSER_TOOLSET_CONFORMANCE_DRIVERS": "x", "BROWSER_TOOLSET_WPT_ACCNAME": "y"}
    assert load(env=suite).driver == "selenium"


def test_the_mcp_servers_variables_are_not_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """`BROWSER_TOOLSET_MCP_*` belong to the MCP server (`mcp.options`): exported for it, they do not stop the other
    commands, nor a misspelt setting from being refused beside them."""
    server = {"BROWSER_TOOLSET_MCP_TOKEN": "t", "BROWSER_TOOLSET_MCP_MAX_SESSIONS": "8"}
    assert load(env=server) == load(env={})
    assert "BROWSER_TOOLSET_MCPX is not a browser-toolset setting" in refusal(env={"BROWSER_TOOLSET_MCPX": "1"})
    for name, value in server.items():
        monkeypatch.setenv(name, value)
    status, out, err = cli(["config", "show", "--driver", "mock"], monkeypatch)
    assert status == 0 and 'driver = "mock"' in out, err
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    status, out, err = cli(["exec", "--driver", "mock"], monkeypatch)
    assert (status, out, err) == (0, "", "")


def test_a_bad_flag() -> None:
    assert refusal(flags=[("images.quality", "0", "--set")]) == (
        "images.quality = '0' (from flag --set) is not valid: expected a whole number between 1 and 100; got '0'; "
        "use a whole number between 1 and 100"
    )
    assert "viewport = '10x10' (from flag --viewport) is not valid" in refusal(
        flags=[("viewport", "10x10", "--viewport")]
    )
    assert "remote = 'ftp://x' (from flag --remote)" in refusal(flags=[("remote", "ftp://x", "--remote")])
    assert refusal(flags=[("image.quality", "5", "--set")]).startswith(
        "unknown key 'image.quality' (from flag --set); accepted keys: driver,"
    )


def test_driver_options_are_checked_against_the_drivers_declaration(tmp_path: Path) -> None:
    mock = ("driver", "mock", "--driver")
    assert refusal(flags=[mock, ("driver_options.sight", "x", "-o")]) == (
        "unknown driver option 'driver_options.sight' (from flag -o) for the mock driver; its options are site, "
        "viewport, start_url"
    )
    # an option meant for the mock, with no driver named: the default driver is named, and how to pick another
    message = refusal(flags=[("driver_options.site", "x", "--site")])
    assert message.startswith(
        "unknown driver option 'driver_options.site' (from flag --site) for the selenium driver; its options are "
        "browser, remote,"
    )
    assert message.endswith(
        " (no driver was named, so it is the default, selenium; name another with --driver, such as --driver mock)"
    )
    file = write(tmp_path / "c.toml", "driver = 'selenium'\n[driver_options]\nheadless = 'perhaps'\n")
    assert refusal(file=file) == (
        f"driver_options.headless = 'perhaps' (from {file}) is not valid: expected true or false (or yes/no, on/off, "
        "1/0); got 'perhaps'; use true or false (or yes/no, on/off, 1/0)"
    )
    assert "is not valid" in refusal(flags=[("driver", "selenium", "--driver"), ("driver_options.dialogs", "x", "-o")])
    assert refusal(flags=[mock, ("browser", "firefox", "--browser")]) == (
        "browser (from flag --browser) does not apply to the mock driver, whose options are site, viewport, start_url"
    )
    assert refusal(env={"BROWSER_TOOLSET_DRIVER": "chrome"}).startswith(
        "driver = 'chrome' (from environment variable BROWSER_TOOLSET_DRIVER) is not an installed driver; use one of"
    )


def test_drivers_declare_their_options() -> None:
    mock = MockDriver.options()
    assert [option.key for option in mock] == ["site", "viewport", "start_url"]
    assert declared_options(MockDriver.from_options) == mock
    selenium = {option.key: option for option in selenium_options()}
    assert selenium["headless"] == DriverOption(
        "headless", "bool", "true", "run the browser without a window", "true or false (or yes/no, on/off, 1/0)"
    )
    assert selenium["browser"].choices == ("chromium", "chrome", "firefox") and selenium["browser"].type == "choice"
    assert selenium["profile_dir"].type == "path" and selenium["navigation_timeout"].type == "number"
    assert all(isinstance(option, DriverOption) and option.help for option in selenium.values())


def test_a_third_party_driver_without_declarations_gets_its_options_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def factory(options: Mapping[str, str]) -> MockDriver:
        return MockDriver.from_options({})

    assert declared_options(factory) is None
    monkeypatch.setattr(cfg.sources, "driver_factory", lambda name: factory if name == "thirdparty" else None)
    settings = load(env={"BROWSER_TOOLSET_DRIVER": "thirdparty", "BROWSER_TOOLSET_OPTION_ANYTHING": "1"},
                    flags=[("driver_options.flag", True, "-o"), ("browser", "firefox", "--browser")])  # fmt: skip
    assert settings.driver_options == {"anything": "1", "flag": "true", "browser": "firefox"}

    def declaring(options: Mapping[str, str]) -> MockDriver:
        return MockDriver.from_options({})

    declaring.options = lambda: (DriverOption("depth", "integer", "3", "how deep"),)  # type: ignore[attr-defined]
    monkeypatch.setattr(cfg.sources, "driver_factory", lambda name: declaring)
    assert load(flags=[("driver_options.depth", "4", "-o")]).driver_options == {"depth": "4"}
    assert "expected a whole number; got '4.5'; use a whole number" in refusal(
        flags=[("driver_options.depth", "4.5", "-o")]
    )


# --- config show and config init ---------------------------------------------------------------------------------


def test_config_show_prints_values_and_sources_and_masks_the_api_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    file = write(tmp_path / "c.toml", "[images]\nquality = 50\n[loop]\napi_key = 'sk-ant-secret-value'\n")
    monkeypatch.setenv("BROWSER_TOOLSET_LOOP_MAX_TURNS", "9")
    status, out, err = cli(["config", "show", "--config", str(file), "--driver", "mock", "--site", str(SITE),
                            "--image-format", "jpeg"], monkeypatch)  # fmt: skip
    assert status == 0, err
    lines = {line.split("#")[0].strip(): line.rsplit("# ", 1)[1] for line in out.splitlines()[1:] if " = " in line}
    assert lines["images.quality = 50"] == f"file {file}"
    assert lines['images.format = "jpeg"'] == "flag --image-format"
    assert lines["loop.max_turns = 9"] == "env BROWSER_TOOLSET_LOOP_MAX_TURNS"
    assert lines['loop.api_key = "********"'] == f"file {file}"
    assert lines[f"driver_options.site = {__import__('json').dumps(str(SITE))}"] == "flag --site"
    assert lines['driver = "mock"'] == "flag --driver"
    assert "sk-ant" not in out
    assert "# driver_options.viewport = (driver default '1280x800')" in out


def test_config_show_refuses_what_load_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    status, _, err = cli(["config", "show", "--set", "images.quality=500"], monkeypatch)
    assert status == 1 and "images.quality = '500' (from flag --set) is not valid" in err


def test_config_init_documents_every_key_and_round_trips(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "example.toml"
    status, _, err = cli(["config", "init", str(path)], monkeypatch)
    assert status == 0, err
    text = path.read_text()
    for key in cfg.setting_keys():
        assert key.env in text and key.meta.help.split(" (")[0].lower() in text.lower()
    for option in selenium_options():
        assert f"selenium: {option.key}: " in text
    tomllib.loads(text)
    assert load(path) == load()
    assert cli(["config", "init", str(path)], monkeypatch)[0] == 1  # no overwrite without --force
    assert cli(["config", "init", str(path), "--force"], monkeypatch)[0] == 0


def test_show_output_is_toml_that_loads_back_to_the_same_settings(tmp_path: Path) -> None:
    file = write(
        tmp_path / "c.toml", "enable = ['read_network']\n[urls]\nallow_hosts = ['a.test']\n[loop]\nmodel = 'm'\n"
    )
    settings = load(file)
    shown = write(tmp_path / "shown.toml", cfg.show(settings))
    assert load(shown) == settings


def test_every_key_is_in_the_documentation() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text()
    for key in cfg.setting_keys():
        assert f"| `{key.name}` | `{key.env}` |" in text


# --- open_toolset ----------------------------------------------------------------------------------------------------


def test_open_toolset_builds_the_configured_toolset(tmp_path: Path) -> None:
    file = write(
        tmp_path / "c.toml",
        f"driver = 'mock'\nenable = ['read_console']\n[driver_options]\nsite = {str(SITE)!r}\n"
        "[images]\nformat = 'jpeg'\n"
        "[urls]\nallow_hosts = ['shop.test']\n[confirm]\npurchase = 'allow'\n",
    )
    with open_toolset(load(file)) as toolset:
        assert toolset.image_limits.format == "jpeg"
        assert toolset.navigation.allow_hosts == ("shop.test",)
        assert isinstance(toolset.driver, MockDriver)
        assert toolset.driver.list_tabs()[0].url == "https://shop.test/"


def test_open_async_toolset(tmp_path: Path) -> None:
    import asyncio

    async def use() -> str:
        toolset = await cfg.open_async_toolset(load(flags={"driver": "mock", "driver_options.site": str(SITE)}))
        try:
            return str(toolset.driver.list_tabs()[0].url)
        finally:
            await toolset.close()

    assert asyncio.run(use()) == "https://shop.test/"
