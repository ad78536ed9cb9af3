"""Test support for the in-page accessibility walker (`browser_toolset/drivers/selenium/walker.js`).

Three small pieces the walker tests share: the walker's source as the package ships it, one headless Chromium
driven through WebDriver BiDi, and a read-only HTTP server on 127.0.0.1 (serving a folder in place, in-memory
pages, or both). `WalkerBrowser.call` runs a walker op with the declarations the Selenium driver sends (its
`script.walker_call_declaration`, and `script.walker_declaration` to install the walker in a sandbox realm that
lacks it) through a BiDi `script.callFunction` in the `browser-toolset` sandbox, and reads the result as the
driver does (`script.walker_text`, which undoes the in-page gzip of long results). What it leaves out of the
driver's path: the driver's realm bookkeeping (it addresses the tab's context, not a realm id), its retries
across navigations, and its error wording.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from browser_toolset.drivers.selenium import CHROMIUM_FLAGS, walker_source
from browser_toolset.drivers.selenium.scratch import scratch_base
from browser_toolset.drivers.selenium.script import (
    SANDBOX,
    WALKER_MISSING,
    walker_call_declaration,
    walker_declaration,
    walker_text,
)
from tests.support.needs import unavailable

WALKER_SOURCE: str = walker_source()
"""The walker: one JavaScript function expression `(op, arg) => result`."""

HEADLESS_CHROMIUM_FLAGS = ("--headless=new", *CHROMIUM_FLAGS)


def local_value(value: Any) -> dict[str, Any]:
    """A Python value as a BiDi `script.LocalValue`."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [local_value(v) for v in value]}
    if isinstance(value, Mapping):
        if "sharedId" in value:  # an element handle the walker gave back earlier
            return {"sharedId": value["sharedId"]}
        return {"type": "object", "value": [[str(k), local_value(v)] for k, v in value.items()]}
    raise TypeError(f"cannot pass {type(value).__name__} to the walker")


def fast_utf8_validation() -> None:
    """Make websocket-client validate incoming text frames with Python's C UTF-8 decoder.

    Selenium runs its BiDi `WebSocketApp` with UTF-8 validation on, and without the optional `wsaccel` extension
    websocket-client validates in pure Python at about 0.13 s per MB: more than the walker takes to build a
    5,000-element snapshot. `bytes.decode("utf-8")` accepts and rejects exactly the same byte strings."""
    import websocket._abnf as abnf

    def validate_utf8(data: bytes | str) -> bool:
        if isinstance(data, str):
            return True
        try:
            bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    vars(abnf)["validate_utf8"] = validate_utf8


class WalkerError(AssertionError):
    """The walker threw (a bug in walker.js, or a page the test did not expect)."""


class WalkerBrowser:
    """One headless Chromium session with BiDi, plus the plumbing to run walker ops in its current tab."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.context: str = driver.current_window_handle

    def get(self, url: str) -> None:
        self.driver.get(url)

    def call(self, op: str, arg: Mapping[str, Any] | None = None) -> Any:
        """Run walker op `op` in the sandbox realm of the current tab; the decoded result (or, for `element`, the
        raw BiDi RemoteValue). As the driver does: the short call of the installed walker first, and the whole
        walker (which installs itself) where the realm answers that it has none."""
        arguments = [local_value(op), local_value(dict(arg or {}))]
        result = self._walker(walker_call_declaration(), op, arguments)
        if result.get("value") == WALKER_MISSING:
            result = self._walker(walker_declaration(), op, arguments)
        if op == "element":
            return None if result.get("type") == "null" else result
        return json.loads(walker_text(result["value"]))

    def _walker(self, declaration: str, op: str, arguments: list[dict[str, Any]]) -> dict[str, Any]:
        raw = self.driver.script.call_function(
            function_declaration=declaration,
            await_promise=True,  # a long result comes gzipped, through a promise
            target={"context": self.context, "sandbox": SANDBOX},
            arguments=arguments,
            result_ownership="none",
        )
        if raw.get("type") == "exception":
            details = raw.get("exceptionDetails", {})
            raise WalkerError(f"walker op {op!r} threw: {details.get('text')}\n{json.dumps(details)[:2000]}")
        return dict(raw["result"])

    def page(self, script: str, *args: Any) -> Any:
        """Run `script` (a function declaration) in the page's own realm, for test set-up (focus, scrolling)."""
        raw = self.driver.script.call_function(
            function_declaration=script,
            await_promise=True,
            target={"context": self.context},
            arguments=[local_value(a) for a in args],
            result_ownership="none",
        )
        if raw.get("type") == "exception":
            raise WalkerError(f"page script threw: {raw.get('exceptionDetails', {}).get('text')}")
        return raw["result"].get("value")


@contextmanager
def chromium(window_size: tuple[int, int] = (1280, 800)) -> Iterator[WalkerBrowser]:
    """Start one headless Chromium (binary and chromedriver from $CHROMIUM_BINARY / $CHROMEDRIVER, default
    /usr/bin) with BiDi, on a fresh temporary profile; never lets Selenium Manager download anything."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
    chromedriver = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    for path in (binary, chromedriver):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            unavailable(f"{path} is not installed")
    # Chromium binds a socket under its TMPDIR: both folders go under a base short enough for it, whatever TMPDIR is.
    base = scratch_base()
    profile = tempfile.mkdtemp(prefix="walker-chromium-", dir=base)
    scratch = tempfile.mkdtemp(prefix="walker-tmp-", dir=base)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    options.enable_bidi = True
    for flag in (
        *HEADLESS_CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        f"--window-size={window_size[0]},{window_size[1]}",
    ):
        options.add_argument(flag)
    fast_utf8_validation()
    service = Service(executable_path=chromedriver, env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(options=options, service=service)
    try:
        # BiDi replies are polled for; the default 0.1 s poll would dominate every walker call.
        cast(Any, driver.command_executor).client_config.websocket_interval = 0.002
        yield WalkerBrowser(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
