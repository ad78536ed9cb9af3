"""Per-call latency of browser-toolset on headless Chromium, side by side with raw Selenium and Playwright.

Run: `python benchmarks/bench_chromium.py [--rounds N]` (Playwright is optional: `pip install playwright`; it is
driven against the same system Chromium, never a downloaded one). Each contender gets its own browser; the rounds
are interleaved (one operation of each in turn) so machine noise hits all three alike. It prints the median
milliseconds per operation and the ratio of each baseline to browser-toolset (above 1.0: we are faster). Nothing
here asserts a time: speed is read, not tested.

What each contender does per operation, as a user of that library would write it:
- browser-toolset: the member call through the SDK pipeline (`tool_result`), including tab state and result
  rendering, so it measures everything Claude waits for.
- Selenium (classic WebDriver): `get`, `ActionChains` click, `send_keys`, `get_screenshot_as_png`, and
  `find_elements` for an element read.
- Playwright: `goto`, `mouse.click`, `keyboard.type`, `screenshot`, and `locator.aria_snapshot()`.
"""

from __future__ import annotations

import argparse
import http.server
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset, URLPolicy, load_driver
from browser_toolset.drivers.selenium import CHROMIUM_FLAGS

CHROMIUM_ARGS = ["--headless=new", *CHROMIUM_FLAGS]

PAGE = """<!doctype html><title>Bench</title>
<input id="q" style="position:absolute;left:20px;top:20px;width:200px" aria-label="Query">
<button id="b" style="position:absolute;left:20px;top:60px;width:100px;height:30px"
  onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Press</button>
<main style="position:absolute;top:120px">%s</main>"""


@contextmanager
def serve() -> Iterator[str]:
    root = Path(tempfile.mkdtemp(prefix="bench-"))
    items = "".join(f"<p>Item {i} <a href='#i{i}'>link {i}</a> <button>buy {i}</button></p>" for i in range(300))
    (root / "index.html").write_text(PAGE % items)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)


Operations = dict[str, Callable[[], object]]


class Ours:
    name = "browser-toolset"

    def __init__(self, url: str) -> None:
        self.url = url
        driver = load_driver("selenium", {"browser": "chromium"})
        self.toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True))
        self.count = 0

    def call(self, name: str, **input: Any) -> None:
        self.count += 1
        block = BetaToolUseBlock(
            type="tool_use", id=f"toolu_{self.count}", name=name, input=input, toolset_name="browser"
        )
        result = self.toolset.tool_result(block)
        if result.get("is_error"):
            raise RuntimeError(result["content"])

    def operations(self) -> Operations:
        point = {"type": "coordinate", "x": 70, "y": 75}
        return {
            "navigate": lambda: self.call("navigate", url=self.url),
            "click": lambda: self.call("left_click", target=point),
            "type": lambda: self.call("type", text="hello"),
            "screenshot": lambda: self.call("screenshot"),
            "read elements": lambda: self.call("read_page", filter="interactive"),
        }

    def close(self) -> None:
        self.toolset.close()


class RawSelenium:
    name = "selenium classic"

    def __init__(self, url: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.url = url
        self.profile = tempfile.mkdtemp(prefix="bench-selenium-")
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in [*CHROMIUM_ARGS, f"--user-data-dir={self.profile}", "--window-size=1280,800"]:
            options.add_argument(arg)
        self.driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))

    def operations(self) -> Operations:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        def click() -> None:
            ActionChains(self.driver).move_by_offset(0, 0).perform()  # reset origin cheaply
            ActionChains(self.driver).move_to_element(self.driver.find_element(By.ID, "b")).click().perform()

        return {
            "navigate": lambda: self.driver.get(self.url),
            "click": click,
            "type": lambda: self.driver.find_element(By.ID, "q").send_keys("hello"),
            "screenshot": lambda: self.driver.get_screenshot_as_png(),
            "read elements": lambda: [
                (e.tag_name, e.text) for e in self.driver.find_elements(By.CSS_SELECTOR, "a,button,input")[:50]
            ],
        }

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


class Playwright:
    name = "playwright"

    def __init__(self, url: str) -> None:
        from playwright.sync_api import sync_playwright

        self.url = url
        self.manager = sync_playwright().start()
        self.browser = self.manager.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=CHROMIUM_ARGS[1:]
        )
        self.page = self.browser.new_page(viewport={"width": 1280, "height": 800})

    def operations(self) -> Operations:
        return {
            "navigate": lambda: self.page.goto(self.url),
            "click": lambda: self.page.mouse.click(70, 75),
            "type": lambda: self.page.keyboard.type("hello"),
            "screenshot": lambda: self.page.screenshot(),
            "read elements": lambda: self.page.locator("body").aria_snapshot(),
        }

    def close(self) -> None:
        self.browser.close()
        self.manager.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with serve() as url:
        contenders: list[Any] = [Ours(url), RawSelenium(url)]
        try:
            contenders.append(Playwright(url))
        except Exception as exc:  # an optional baseline: say why it is missing and go on
            print(f"(playwright baseline skipped: {type(exc).__name__}: {exc})")
        try:
            timings: dict[tuple[str, str], list[float]] = {}
            operations = [contender.operations() for contender in contenders]
            for ops in operations:
                ops["navigate"]()  # warm up
            names = list(operations[0])
            for _ in range(args.rounds):
                for op in names:
                    for contender, ops in zip(contenders, operations):
                        start = time.perf_counter()
                        ops[op]()
                        timings.setdefault((contender.name, op), []).append((time.perf_counter() - start) * 1000)
            header = f"{'operation':<15}" + "".join(f"{c.name:>20}" for c in contenders)
            print(header + "".join(f"{'ratio ' + c.name[:10]:>22}" for c in contenders[1:]))
            for op in names:
                medians = [statistics.median(timings[(c.name, op)]) for c in contenders]
                row = f"{op:<15}" + "".join(f"{m:>17.1f} ms" for m in medians)
                row += "".join(f"{m / medians[0]:>22.2f}" for m in medians[1:])
                print(row)
        finally:
            for contender in contenders:
                with suppress(Exception):
                    contender.close()


if __name__ == "__main__":
    main()
