"""`browser-toolset mcp`'s command line: its parser is the CLI's (the same settings flags as `exec`, the server's
own beside them), its options come from the flags, else the `BROWSER_TOOLSET_MCP_*` variables, else the defaults,
and an option that cannot be served is refused before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser_toolset.cli.main import main
from browser_toolset.cli.parsers import build_parser, settings_flags
from browser_toolset.config import ConfigError, Settings, load_settings
from browser_toolset.mcp import command
from browser_toolset.mcp.options import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS, ServerOptions
from tests.unit.test_cli_defaults import installed
from tests.unit.test_mcp_http import ROOT, SHOP


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No BROWSER_TOOLSET_* variables or ./browser-toolset.toml of the machine leak in."""
    for name in list(os.environ):
        if name.startswith("BROWSER_TOOLSET_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_the_settings_flags_are_execs() -> None:
    parser = build_parser()
    argv = ["--driver", "mock", "--site", SHOP, "--enable", "javascript_exec", "--confirm", "all=deny",
            "--storage-state", "in.json", "--save-storage-state", "out.json", "-o", "viewport=800x600"]  # fmt: skip
    mcp, run = parser.parse_args(["mcp", *argv]), parser.parse_args(["exec", *argv])
    assert settings_flags(mcp) == settings_flags(run)
    settings = load_settings(flags=settings_flags(mcp), env={})
    assert (settings.storage.load, settings.storage.save) == ("in.json", "out.json")
    assert settings.source("storage.save") == "flag --save-storage-state"
    assert not hasattr(mcp, "record")  # the server records nothing


def test_the_defaults_and_the_environment_under_the_flags() -> None:
    assert ServerOptions.from_flags(env={}) == ServerOptions()
    assert (ServerOptions().idle_timeout, ServerOptions().max_sessions) == (DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS)
    env = {
        "BROWSER_TOOLSET_MCP_TOKEN": "t1",
        "BROWSER_TOOLSET_MCP_IDLE_TIMEOUT": "30",
        "BROWSER_TOOLSET_MCP_MAX_SESSIONS": "8",
    }
    from_env = ServerOptions.from_flags(transport="http", env=env)
    assert (from_env.token, from_env.idle_timeout, from_env.max_sessions) == ("t1", 30.0, 8)
    flags = ServerOptions.from_flags(transport="http", token="t2", idle_timeout=0, max_sessions=2, env=env)
    assert (flags.token, flags.idle_seconds, flags.session_limit) == ("t2", None, 2)
    # stdio serves one client, whose browser lives as long as the process
    assert (from_env.session_limit, from_env.idle_seconds) == (8, 30.0)
    stdio = ServerOptions.from_flags(env=env)
    assert (stdio.session_limit, stdio.idle_seconds) == (1, None)


@pytest.mark.parametrize(
    ("given", "env", "message"),
    [
        ({"transport": "http", "host": "0.0.0.0"}, {}, "--host 0.0.0.0 is not a loopback address"),
        ({"transport": "http", "host": "0.0.0.0", "allow_non_loopback": True}, {}, "needs a bearer token"),
        ({"idle_timeout": -1}, {}, "must be 0 (never) or a number of seconds"),
        ({"max_sessions": 0}, {}, "at least 1, not 0"),
        ({}, {"BROWSER_TOOLSET_MCP_MAX_SESSIONS": "2.5"}, "at least 1, not 2.5"),
        ({}, {"BROWSER_TOOLSET_MCP_IDLE_TIMEOUT": "soon"}, "BROWSER_TOOLSET_MCP_IDLE_TIMEOUT = 'soon' is not a number"),
        ({}, {"BROWSER_TOOLSET_MCP_IDLE_TIMEOUT": "inf"}, "is not a finite number"),
    ],
)
def test_what_cannot_be_served_is_refused(given: dict[str, Any], env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ServerOptions.from_flags(env=env, **given)
    assert message in str(caught.value)


def test_a_non_loopback_host_with_a_token_from_the_environment_is_served() -> None:
    env = {"BROWSER_TOOLSET_MCP_TOKEN": "secret"}
    options = ServerOptions.from_flags(transport="http", host="0.0.0.0", allow_non_loopback=True, env=env)
    assert options.token == "secret" and "secret" not in repr(options)


@pytest.mark.usefixtures("clean_environment")
def test_the_server_chooses_the_default_browser_as_exec_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[tuple[Settings, ServerOptions]] = []

    def serve(settings: Settings, options: ServerOptions) -> int:
        served.append((settings, options))
        return 0

    monkeypatch.setattr(command, "serve", serve)
    installed(monkeypatch, "firefox")
    assert main(["mcp", "--transport", "http", "--port", "0"]) == 0
    ((settings, options),) = served
    assert (settings.driver, settings.driver_options) == ("selenium", {"browser": "firefox"})
    assert options == ServerOptions(transport="http", port=0)
    installed(monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        main(["mcp"])
    assert stopped.value.code == 2 and "no browser to run" in capsys.readouterr().err
    assert main(["mcp", "--print-tools"]) == 0  # the tool list needs no browser
    assert len(served) == 2


@pytest.mark.usefixtures("clean_environment")
def test_a_refused_option_ends_the_command_with_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "--transport", "http", "--host", "0.0.0.0", "--allow-non-loopback", "--driver", "mock"]) == 2
    assert capsys.readouterr().err.startswith("browser-toolset: --host 0.0.0.0 needs a bearer token")


@pytest.mark.long
def test_python_m_is_the_cli_command() -> None:
    for argv in (["-m", "browser_toolset.mcp"], ["-m", "browser_toolset.cli", "mcp"]):
        completed = subprocess.run(
            [sys.executable, *argv, "--print-tools", "--driver", "mock", "--enable", "read_console"],
            capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        assert completed.stdout.splitlines()[-1].startswith("28 tools, ")
    usage = subprocess.run([sys.executable, "-m", "browser_toolset.mcp", "--help"], capture_output=True, text=True)
    assert usage.stdout.startswith("usage: browser-toolset mcp ") and "--save-storage-state FILE" in usage.stdout
