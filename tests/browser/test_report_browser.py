"""`browser-toolset report` rendered in headless Chromium: every step shown, every image decoded, nothing fetched
but the page, no script; the screenshot is kept in the test artefacts."""

from __future__ import annotations

import shutil
from pathlib import Path

from PIL import Image
from selenium.webdriver.common.by import By

from browser_toolset.sessions.recording import Session
from browser_toolset.sessions.report import write_report
from tests.support.server import serve
from tests.support.walker import chromium
from tests.unit.test_report import ARTEFACTS, record_session


def test_the_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    session = record_session(tmp_path)
    (tmp_path / "site").mkdir()
    write_report(session, tmp_path / "site" / "report.html")
    # a browser of its own: a window tall enough for the whole report is a launch option
    with serve(tmp_path / "site") as server, chromium((1280, 2400)) as browser:
        driver = browser.driver
        driver.get(server.url("report.html"))
        steps = driver.find_elements(By.CSS_SELECTOR, "section.step")
        assert len(steps) == len(Session(session).calls)
        assert len(driver.find_elements(By.CSS_SELECTOR, "section.step.error")) == 1
        # Every image decoded, and nothing was fetched but the page itself.
        assert driver.execute_script("return [...document.images].every(i => i.complete && i.naturalWidth > 0)")
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        assert driver.execute_script("return document.querySelectorAll('script').length") == 0
        shot = tmp_path / "report.png"
        driver.save_screenshot(str(shot))
    assert Image.open(shot).size[0] >= 1000
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, ARTEFACTS / "report.png")
