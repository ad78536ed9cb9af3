"""Issue 16, item 8 (the command line: `--version`, a top-level help listing every command, real defaults in every
help, `-o` always a driver option, API settings from the environment in `config show`, a refused start page ending
`run` before any API call, the fake API's script format documented, `allow_hosts` in the library) and issue 15,
item 6 (the command line in one place: one module of parsers, commands as functions of plain values, one `main`, no
command lost silently to a module that does not import)."""

from __future__ import annotations

import argparse
import ast
import inspect
import io
import json
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from browser_toolset import URLPolicy
from browser_toolset.agent.command import run_command
from browser_toolset.cli import browser, main
from browser_toolset.cli.config_command import init_config, show_config
from browser_toolset.cli.demo import demo_command
from browser_toolset.cli.exec_command import exec_session
from browser_toolset.cli.grid_command import serve_grid
from browser_toolset.cli.parsers import COMMANDS, build_parser
from browser_toolset.cli.run_command import run_task_command
from browser_toolset.mcp.command import serve as serve_mcp
from browser_toolset.sessions.replay import replay_command
from browser_toolset.sessions.report import report_command
from browser_toolset.testing.fake_api import FakeMessagesAPI, load_script
from browser_toolset.testing.fake_api.command import serve_script

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "browser_toolset"
SITE = ROOT / "examples" / "shop.json"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No BROWSER_TOOLSET_* or ANTHROPIC_* variables or ./browser-toolset.toml of the machine leak in."""
    for name in list(__import__("os").environ):
        if name.startswith(("BROWSER_TOOLSET_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")


def run_cli(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        status = main(argv)
    except SystemExit as exc:
        status = 1 if isinstance(exc.code, str) else int(exc.code or 0)
        err.write(exc.code if isinstance(exc.code, str) else "")
    return status, out.getvalue(), err.getvalue()


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def every_parser() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for name, command in subparsers(build_parser()).items():
        if name == "config":
            for action, inner in subparsers(command).items():
                yield f"config {action}", inner
        yield name, command


# --- item 8 -----------------------------------------------------------------------------------------------------------


def test_16_8_version(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run_cli(["--version"], monkeypatch)
    assert (status, out) == (0, f"browser-toolset {version('browser-toolset')}\n")
    completed = subprocess.run(
        [sys.executable, "-m", "browser_toolset.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert completed.stdout == out


def test_16_8_the_top_level_help_lists_every_command_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run_cli(["--help"], monkeypatch)
    assert status == 0
    assert set(subparsers(build_parser())) == set(COMMANDS) == {
        "run", "exec", "demo", "replay", "report", "config", "grid", "fake-api", "mcp",
    }  # fmt: skip
    lines = out.splitlines()
    for name, help in COMMANDS.items():
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        assert line.split(None, 1)[1] == help
    assert "Claude's client-side browser tool" in out and "COMMAND --help" in out


def test_16_8_every_help_shows_real_defaults() -> None:
    for name, parser in every_parser():
        text = parser.format_help()
        assert "None" not in text, f"{name} --help shows None:\n{text}"
    run = subparsers(build_parser())["run"].format_help()
    for default in ("(default claude-opus-5-5)", "(default 4096)", "(default 50)", "(default 20)", "(default 10)"):
        assert default in " ".join(run.split()), default


def test_16_8_o_is_the_driver_option_everywhere() -> None:
    with_o = {}
    for name, parser in every_parser():
        for action in parser._actions:
            if "-o" in action.option_strings:
                with_o[name] = action
    assert set(with_o) == {"run", "exec", "replay", "config show", "mcp"}
    assert all(action.dest == "option" and action.metavar == "KEY=VALUE" for action in with_o.values())
    commands = subparsers(build_parser())
    for name in ("report", "demo"):
        options = {s for action in commands[name]._actions for s in action.option_strings}
        assert "--output" in options and "-o" not in options


def test_16_8_config_show_says_which_api_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run_cli(["config", "show", "--driver", "mock"], monkeypatch)
    assert status == 0
    assert "# loop.api_key = (not set)" in out and "# loop.base_url = (not set)" in out
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-very-secret-value")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8123/")
    status, out, _ = run_cli(["config", "show", "--driver", "mock"], monkeypatch)
    assert status == 0
    (key,) = [line for line in out.splitlines() if "loop.api_key" in line]
    (url,) = [line for line in out.splitlines() if "loop.base_url" in line]
    assert key.endswith("# set from the environment (ANTHROPIC_API_KEY)") and "very-secret" not in out
    assert '"http://127.0.0.1:8123/"' in url and url.endswith("# set from the environment (ANTHROPIC_BASE_URL)")
    # the configuration's own setting is what shows, when there is one
    status, out, _ = run_cli(["config", "show", "--driver", "mock", "--set", "loop.base_url=http://10.0.0.1/"],
                             monkeypatch)  # fmt: skip
    assert 'loop.base_url = "http://10.0.0.1/"' in out and "ANTHROPIC_BASE_URL" not in out


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        (["--allow-host", "shop.test"], "example.com is not on this session's list of allowed hosts"),
        ([], "127.0.0.1 is a loopback address"),
    ],
)
def test_16_8_a_refused_start_url_ends_the_run_before_any_api_call(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], reason: str
) -> None:
    def no_browser(name: str, options: Any) -> Any:
        raise AssertionError("no browser may start for a run that cannot start")

    monkeypatch.setattr(browser, "load_driver", no_browser)
    url = "https://example.com/" if flags else "http://127.0.0.1:8000/"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FakeMessagesAPI([[{"type": "text", "text": "Done."}]]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        argv = ["run", "Find the price", "--driver", "mock", "--site", str(SITE), "--start-url", url, *flags]
        status, out, err = run_cli(argv, monkeypatch)
        assert api.requests == []
    assert (status, out) == (2, "")
    assert f"--start-url {url} is refused: {reason}" in err and "nothing was sent to Claude" in err


def test_16_8_the_fake_apis_script_format_is_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    page = (ROOT / "docs" / "fake-api.md").read_text(encoding="utf-8")
    assert "(docs/fake-api.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    example = page[page.index("```json") + len("```json") : page.index("```", page.index("```json") + 7)]
    assert [turn.stop_reason for turn in load_script(json.loads(example))] == ["tool_use", "tool_use", "end_turn"]
    status, out, _ = run_cli(["fake-api", "--help"], monkeypatch)
    assert status == 0 and "script format: a JSON list of assistant turns" in out and "docs/fake-api.md" in out


def test_16_8_the_allowlist_is_allow_hosts_in_the_library_as_in_the_configuration() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        policy = URLPolicy(allow_hosts=["Example.com"])
    assert policy.allow_hosts == ("example.com",) and not policy.allows("https://other.test/")
    with pytest.warns(DeprecationWarning, match=r"allow_hosts=.*as in the configuration \(urls.allow_hosts\)"):
        old = URLPolicy(allowed_hosts=["example.com"])
    assert old == policy
    with pytest.warns(DeprecationWarning):
        assert old.allowed_hosts == ("example.com",)
    with pytest.raises(TypeError, match="not both"):
        URLPolicy(allow_hosts=["a.test"], allowed_hosts=["b.test"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "URLPolicy(allow_hosts=" in readme and "allowed_hosts" not in readme


# --- issue 15, item 6 -------------------------------------------------------------------------------------------------


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_15_6_one_module_owns_the_parsers() -> None:
    parsing = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "argparse" in imports_of(path) and not path.relative_to(PACKAGE).as_posix().startswith("drivers/")
    }
    # parsers.py builds every parser, the optional mcp command's too; main.py reads what they parsed
    assert parsing == {"cli/parsers.py", "cli/main.py"}
    # and builds it without the optional package, which only the command's own module imports, when it runs
    completed = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['mcp'] = None\nfrom browser_toolset.cli import main\n"
         "main(['mcp', '--help'])"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert completed.returncode == 0 and "--save-storage-state FILE" in completed.stdout, completed.stderr


COMMAND_FUNCTIONS: list[Callable[..., int]] = [
    exec_session, run_task_command, run_command, replay_command, report_command, demo_command, serve_script,
    serve_grid, show_config, init_config, serve_mcp,
]  # fmt: skip


@pytest.mark.parametrize("function", COMMAND_FUNCTIONS, ids=lambda function: function.__name__)
def test_15_6_commands_are_functions_of_plain_values(function: Callable[..., int]) -> None:
    hints = get_type_hints(function)
    assert hints.pop("return") is int
    assert hints and argparse.Namespace not in hints.values()
    assert set(hints) == set(inspect.signature(function).parameters)


def test_15_6_python_m_runs_the_cli_and_the_fake_api() -> None:
    for module, text in (("browser_toolset.cli", "COMMAND"), ("browser_toolset.testing.fake_api", "script format")):
        completed = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True)
        assert completed.returncode == 0 and text in completed.stdout, completed.stderr


def test_15_6_a_command_module_that_does_not_import_is_an_error_not_a_missing_command() -> None:
    script = (
        "import sys; sys.modules['browser_toolset.sessions.replay'] = None\n"
        "from browser_toolset.cli import main\nmain(['--help'])\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert completed.returncode == 1 and completed.stdout == ""
    assert "browser_toolset.sessions.replay" in completed.stderr and "Traceback" in completed.stderr


def test_15_6_the_mcp_command_says_what_to_install_when_mcp_is_missing() -> None:
    script = (
        "import sys; sys.modules['mcp'] = None\n"
        "from browser_toolset.cli import main\n"
        "print(main(['exec', '--list']))\nsys.exit(main(['mcp', '--transport', 'stdio']))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert completed.returncode == 2, completed.stderr
    assert "mock" in completed.stdout.split()  # every other command still works
    assert completed.stderr.strip() == (
        "browser-toolset: the mcp command needs the 'mcp' package, which is not installed: "
        "pip install 'browser-toolset[mcp]'"
    )
