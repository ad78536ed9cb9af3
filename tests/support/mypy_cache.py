"""A mypy cache for a test that runs mypy, started from the checkout's own.

`.ci/run` and tox's type environment run mypy over the checkout, with the configuration these tests use, before the
suite: starting from that cache, mypy checks only what a test wrote or changed, instead of the SDK, Selenium and the
whole package cold (about 20 seconds each on a 2-core machine). Without one (a first run, a partial checkout), the
test runs cold and only takes longer. A copy, never the checkout's folder itself: a test's mutated package must not
leave its types behind for the next run."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def seeded_cache(tmp_path: Path) -> Path:
    """A cache folder under `tmp_path` for `mypy --cache-dir`, holding a copy of the checkout's cache if it has one."""
    cache = tmp_path / ".mypy_cache"
    checkout = ROOT / ".mypy_cache"
    if checkout.is_dir():
        shutil.copytree(checkout, cache)
    return cache
