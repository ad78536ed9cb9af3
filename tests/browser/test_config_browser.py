"""The configuration on real browsers: a persistent `profile_dir` is the folder Chromium and Firefox use, and it
is kept after the toolset closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_toolset.config import load_settings, open_toolset
from browser_toolset.testing.plugin import require_browser


@pytest.mark.long
@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_a_persistent_profile_dir_is_used_and_kept(browser: str, tmp_path: Path) -> None:
    # a browser of its own: the profile folder is a launch option
    require_browser("firefox" if browser == "firefox" else "chromium")
    profile = tmp_path / "profile"
    flags = [("driver", "selenium", "--driver"), ("browser", browser, "--browser"),
             ("profile_dir", str(profile), "--profile-dir")]  # fmt: skip
    settings = load_settings(None, env={}, flags=flags, use_default_file=False)
    with open_toolset(settings) as toolset:
        assert toolset.driver.list_tabs()
    names = {path.name for path in profile.iterdir()}
    assert names, "the browser wrote nothing into the profile folder"
    assert ("Default" in names) if browser == "chromium" else ("prefs.js" in names)
