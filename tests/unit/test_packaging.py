"""The package layout holds: the drivers are `browser_toolset.drivers.*` for imports, every driver subclasses the
`Driver` protocol, and the protocol side imports neither the executor nor the SDK (that mypy ties each driver to
the protocol statically is `tests/browser/test_packaging_mypy.py`, in the slow lane)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import browser_toolset
from browser_toolset.driver import Driver
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.drivers.selenium import SeleniumDriver

ROOT = Path(__file__).resolve().parent.parents[1]


def test_drivers_live_in_the_top_level_folder() -> None:
    link = ROOT / "browser_toolset" / "drivers"
    assert link.is_symlink() and link.resolve() == (ROOT / "drivers").resolve()
    source = Path(inspect.getfile(MockDriver)).resolve()
    assert source.is_relative_to((ROOT / "drivers").resolve())


def test_every_driver_subclasses_the_protocol() -> None:
    assert Driver in MockDriver.__mro__
    assert Driver in SeleniumDriver.__mro__


def test_the_protocol_side_imports_neither_executor_nor_sdk() -> None:
    code = (
        "import sys\n"
        "import browser_toolset.driver, browser_toolset.values, browser_toolset.driver_errors, "
        "browser_toolset.key_names\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('anthropic', 'browser_toolset.executor.toolset')))\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_drivers_start_without_the_sdk() -> None:
    """The drivers sit below the executor: a driver's process (the interrupt test's, an MCP server's browser, a
    user's own script) must not pay the SDK's import, about two seconds on a small machine."""
    code = (
        "import sys\n"
        "import browser_toolset.drivers.selenium, browser_toolset.drivers.mock\n"
        "print(sorted(m for m in sys.modules if m.startswith(('anthropic', 'browser_toolset.executor'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout[:400]


def test_public_names_resolve() -> None:
    for name in browser_toolset.__all__:
        assert getattr(browser_toolset, name) is not None, name
