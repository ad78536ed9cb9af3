"""Every driver is tied to the `Driver` protocol statically: a driver whose signature drifts from it fails
`mypy --strict`. In the slow lane (tests/browser/) because it runs mypy over a copy of the package: seconds from
the checkout's mypy cache (`tests/support/mypy_cache.py`), about twenty without one."""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path

import pytest

from browser_toolset.drivers.mock import MockDriver
from tests.support.mypy_cache import seeded_cache

ROOT = Path(__file__).resolve().parent.parents[1]


@pytest.mark.slow
def test_renaming_a_driver_keyword_fails_mypy(tmp_path: Path) -> None:
    """A driver whose signature drifts from the protocol is a type error, not a run-time surprise."""
    api = pytest.importorskip("mypy.api")
    copy = tmp_path / "browser_toolset"
    shutil.copytree(ROOT / "browser_toolset", copy, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    click_source = Path(inspect.getfile(inspect.unwrap(MockDriver.click))).resolve()
    target = copy / "drivers" / click_source.relative_to((ROOT / "drivers").resolve())
    text = target.read_text()
    start = text.index("    def click(")
    end = text.index(")", text.index("count", start))
    assert "count: int" in text[start:end]
    target.write_text(text[:start] + text[start:end].replace("count: int", "times: int") + text[end:])
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    stdout, _, status = api.run(
        ["--config-file", str(tmp_path / "pyproject.toml"), "--cache-dir", str(seeded_cache(tmp_path)), str(copy)]
    )
    assert status != 0
    assert 'Signature of "click" incompatible with supertype "browser_toolset.driver.Driver"' in stdout, stdout
