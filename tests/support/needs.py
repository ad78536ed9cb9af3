"""What to do when a test's browser, Grid jar or corpus is missing: skip, saying why, on a developer's machine, and
fail under CI (`CI` set), where `scripts/test` installs everything and a skip would hide a broken install."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)
