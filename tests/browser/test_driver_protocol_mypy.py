"""Issue 16, item 5, statically: mypy refuses to instantiate a `Driver` subclass that lacks a required method,
naming it, and accepts one that leaves only optional methods out. In the slow lane (tests/browser/) because mypy
reads the protocol side of the package and what it imports: seconds from the checkout's mypy cache
(`tests/support/mypy_cache.py`), about fifteen without one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.mypy_cache import seeded_cache

ROOT = Path(__file__).resolve().parents[2]

LACKING_CLICK = """
from browser_toolset.driver import Driver
from browser_toolset.drivers.mock import MockDriver


class NoClick(Driver):
    name = "no-click"
{methods}

NoClick()
"""


def _protocol_methods_but(*left_out: str) -> str:
    """Every method of `MockDriver`'s that `Driver` declares, as `NoClick` methods delegating nowhere, except
    `left_out`: the source of a driver that lacks exactly those."""
    from browser_toolset.driver import OPTIONAL_METHODS, REQUIRED_METHODS

    lines = []
    for method in (*REQUIRED_METHODS, *OPTIONAL_METHODS):
        if method not in left_out:
            lines.append(f"    {method} = MockDriver.{method}")
    return "\n".join(lines)


@pytest.mark.slow
def test_16_5_mypy_flags_a_driver_missing_a_required_method_and_not_one_missing_optional_ones(
    tmp_path: Path,
) -> None:
    api = pytest.importorskip("mypy.api")
    lacking = tmp_path / "lacking.py"
    lacking.write_text(LACKING_CLICK.format(methods=_protocol_methods_but("click", "type_text")))
    optional = tmp_path / "optional.py"
    optional.write_text(
        LACKING_CLICK.format(methods=_protocol_methods_but("drain_console", "drain_network", "evaluate", "set_files"))
    )
    common = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(seeded_cache(tmp_path))]
    stdout, _, status = api.run([*common, str(lacking)])
    assert status != 0
    assert 'Cannot instantiate abstract class "NoClick" with abstract attributes "click" and "type_text"' in stdout
    stdout, _, status = api.run([*common, str(optional)])
    assert status == 0, stdout
