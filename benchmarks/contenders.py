"""The four contenders, each with its own browser, and what each does for every operation.

An operation is a method `op_NAME` (timed) with an optional `prep_NAME` run just before it (untimed). A contender
without `op_NAME` has no equivalent and shows "n/a". What each one does, as a user of that library would write it:

- `Ours`: the member call through the SDK pipeline, `BrowserToolset.tool_result(tool_use)`, so it includes tab
  state, refs, validation, result rendering and the post-call `browser_state`: everything Claude waits for.
- `RawBidi`: the minimal WebDriver BiDi commands for the same effect, over the driver's own `BidiConnection` on a
  session started the way the driver starts one, with no executor and no driver state: `browsingContext.navigate`
  (wait complete), one `input.performActions`, `browsingContext.captureScreenshot`, `browsingContext.create` /
  `activate`, and the same in-page walker (`walker.js`) through one `script.callFunction` for reads.
- `Classic`: classic WebDriver HTTP (Selenium without BiDi): `get`, W3C actions, `send_keys`, `WebElement.click`,
  `get_screenshot_as_png`, `find_element(...).rect`, `body.text`, and the same walker through `execute_script`.
- `Playwright`: `goto`, `mouse.click`, `keyboard.type`/`press`, `mouse.wheel`, `screenshot`,
  `page.aria_snapshot(mode="ai")`, `get_by_role(...).bounding_box()`, `inner_text("body")`, clicks on an
  `aria-ref=` locator from the AI snapshot, `new_page`/`bring_to_front`, on the system Chromium (`executable_path`).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import tempfile
from typing import Any

from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset, URLPolicy, load_driver

from .pages import PRESS, TYPE_TEXT

__all__ = ["Classic", "Contender", "Ours", "Playwright", "RawBidi", "walker_function"]

TICK = "document.getElementById('tick').textContent = String(Date.now())"
"""Changes the DOM before a cold read, so no contender answers from a cache of an unchanged page."""

FIND_QUERY = "Checkout button"
PRESS_LINE = re.compile(r'button "Press"[^\n]*?\[?(ref_\d+)')
SCROLL_PIXELS = 300


def walker_function() -> str:
    """`(op, arg) -> JSON string` around the driver's walker (`walker.js`), built here rather than taken from the
    driver, so the baselines stay one plain call whatever the driver does around it (installing it once,
    compressing large results, pruning in the page)."""
    from browser_toolset.drivers.selenium import walker_source

    return (
        f"function (op, arg) {{ const r = ({walker_source().strip().rstrip(';')}\n)(op, arg); "
        "return JSON.stringify(r === undefined ? null : r); }"
    )


def chromium_flags() -> list[str]:
    from browser_toolset.drivers.selenium import CHROMIUM_FLAGS

    return list(CHROMIUM_FLAGS)


class Contender:
    name = ""
    browser = "chromium"

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def has(self, op: str) -> bool:
        return hasattr(self, f"op_{op}")

    def prep(self, op: str) -> None:
        prep = getattr(self, f"prep_{op}", None)
        if prep is not None:
            prep()

    def run(self, op: str) -> object:
        return getattr(self, f"op_{op}")()

    def memory_root(self) -> int | None:
        return None

    def close(self) -> None:
        pass

    # cold reads: the DOM changed since the last read
    def prep_read_all(self) -> None:
        self.tick()

    def prep_read_interactive(self) -> None:
        self.tick()

    def prep_find(self) -> None:
        self.tick()

    def prep_text(self) -> None:
        self.tick()

    def tick(self) -> None:
        raise NotImplementedError


class Ours(Contender):
    name = "ours"

    def __init__(self, browser: str = "chromium", remote: str | None = None) -> None:
        self.browser = browser
        options = {"browser": browser}
        if remote:
            options["remote"] = remote
        self.toolset = BrowserToolset(load_driver("selenium", options), navigation=URLPolicy(allow_private=True))
        self.count = 0
        self.commands = 0
        self.tabs = {"tab-1"}
        self.extra_tab: str | None = None
        self.press_ref: str | None = None
        self.last_content: object = None
        conn = getattr(self.toolset.driver, "_conn", None)
        if conn is not None:  # count BiDi commands per call (a diagnostic; the driver's internals may change)
            for method in ("command", "send"):
                original = getattr(conn, method, None)
                if callable(original):
                    setattr(conn, method, self._counting(original))

    def _counting(self, original: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.commands += 1
            return original(*args, **kwargs)

        return counted

    def call(self, name: str, **input: Any) -> str:
        self.count += 1
        block = BetaToolUseBlock(
            type="tool_use", id=f"toolu_{self.count}", name=name, input=input, toolset_name="browser"
        )
        result = self.toolset.tool_result(block)
        content = result.get("content")
        text = (
            "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            if isinstance(content, list)
            else str(content)
        )
        if result.get("is_error"):
            raise RuntimeError(f"{name}: {text[:500]}")
        self.last_content = content
        return text

    def handle(self) -> str:
        for info in self.toolset.driver.list_tabs():
            if info.active:
                return info.handle
        return self.toolset.driver.list_tabs()[0].handle

    def tick(self) -> None:
        self.toolset.driver.evaluate(self.handle(), TICK)

    def goto(self, url: str) -> None:
        self.url = url
        self.call("navigate", url=url)

    def op_navigate(self) -> object:
        return self.call("navigate", url=self.url)

    def op_read_all(self) -> object:
        return self.call("read_page", filter="all")

    def op_read_interactive(self) -> object:
        return self.call("read_page", filter="interactive")

    def op_find(self) -> object:
        return self.call("find", query=FIND_QUERY)

    def prep_find_after_read(self) -> None:
        self.tick()
        self.call("read_page", filter="all")

    def op_find_after_read(self) -> object:
        return self.call("find", query=FIND_QUERY)

    def op_text(self) -> object:
        return self.call("get_page_text")

    def op_type20(self) -> object:
        return self.call("type", text=TYPE_TEXT)

    def op_key(self) -> object:
        return self.call("key", text="Enter")

    def op_click_xy(self) -> object:
        return self.call("left_click", target={"type": "coordinate", "x": PRESS[0], "y": PRESS[1]})

    def prep_click_ref(self) -> None:
        found = PRESS_LINE.search(self.call("read_page", filter="interactive"))
        if not found:
            raise RuntimeError("no ref for the Press button in read_page")
        self.press_ref = found.group(1)

    def op_click_ref(self) -> object:
        return self.call("left_click", target={"type": "ref", "ref": self.press_ref})

    def op_scroll(self) -> object:
        point = {"type": "coordinate", "x": 640, "y": 400}
        return self.call("scroll", target=point, scroll_direction="down", scroll_amount=3)

    def op_screenshot(self) -> object:
        return self.call("screenshot")

    def op_new_tab(self) -> object:
        text = self.call("new_tab")
        new = set(re.findall(r"tab-\d+", json.dumps(self.last_content, default=str))) - self.tabs
        self.extra_tab = sorted(new)[-1] if new else None
        return text

    def op_switch_tab(self) -> object:
        return self.call("switch_tab", tab_id="tab-1")

    def after_switch_tab(self) -> None:
        if self.extra_tab:
            self.call("close_tab", tab_id=self.extra_tab)
            self.extra_tab = None

    def op_state(self) -> object:
        """The post-call `browser_state` bookkeeping alone, when nothing changed (the executor's own step)."""
        read = getattr(self.toolset, "_read_state", None)
        return read() if read is not None else self.toolset._browser_state(None)  # type: ignore[arg-type]

    def memory_root(self) -> int | None:
        session = getattr(self.toolset.driver, "_session", None)
        try:
            return int(session.webdriver.service.process.pid)  # type: ignore[union-attr]
        except Exception:
            return None

    def close(self) -> None:
        self.toolset.close()


class RawBidi(Contender):
    name = "raw BiDi"

    def __init__(self, browser: str = "chromium") -> None:
        from browser_toolset.drivers.selenium import SeleniumConfig
        from browser_toolset.drivers.selenium.connection import BidiConnection
        from browser_toolset.drivers.selenium.launch import launch

        self.browser = browser
        self.session = launch(SeleniumConfig(browser=browser))  # type: ignore[arg-type]
        self.conn = BidiConnection(self.session.websocket_url)
        tree = self.conn.command("browsingContext.getTree", {"maxDepth": 0})
        self.context = str(tree["contexts"][0]["context"])
        self.extra: str | None = None
        self.walker = walker_function()
        self.command("browsingContext.setViewport", {"viewport": {"width": 1280, "height": 800}})

    def command(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.conn.command(method, {"context": self.context, **(params or {})})

    def walk(self, op: str) -> Any:
        reply = self.conn.command(
            "script.callFunction",
            {
                "functionDeclaration": self.walker,
                "arguments": [{"type": "string", "value": op}, {"type": "object", "value": []}],
                "awaitPromise": False,
                "resultOwnership": "none",
                "target": {"context": self.context, "sandbox": "bench"},
            },
        )
        return json.loads(reply["result"]["value"])

    def evaluate(self, expression: str, sandbox: bool = False) -> Any:
        target: dict[str, str] = {"context": self.context}
        if sandbox:
            target["sandbox"] = "bench"
        reply = self.conn.command(
            "script.evaluate",
            {"expression": expression, "awaitPromise": False, "resultOwnership": "none", "target": target},
        )
        return reply.get("result", {}).get("value")

    def tick(self) -> None:
        self.evaluate(TICK)

    def goto(self, url: str) -> None:
        self.url = url
        self.op_navigate()

    def op_navigate(self) -> object:
        return self.command("browsingContext.navigate", {"url": self.url, "wait": "complete"})

    def op_read_all(self) -> object:
        return self.walk("snapshot")

    def op_text(self) -> object:
        return self.walk("text")

    def actions(self, actions: list[dict[str, Any]]) -> object:
        return self.command("input.performActions", {"actions": actions})

    def op_type20(self) -> object:
        keys: list[dict[str, Any]] = []
        for char in TYPE_TEXT:
            keys += [{"type": "keyDown", "value": char}, {"type": "keyUp", "value": char}]
        return self.actions([{"type": "key", "id": "keyboard", "actions": keys}])

    def op_key(self) -> object:
        enter = "\ue007"
        return self.actions(
            [
                {
                    "type": "key",
                    "id": "keyboard",
                    "actions": [{"type": "keyDown", "value": enter}, {"type": "keyUp", "value": enter}],
                }
            ]
        )

    def click(self, x: float, y: float) -> object:
        pointer = [
            {"type": "pointerMove", "x": int(x), "y": int(y), "duration": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0},
        ]
        return self.actions(
            [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": pointer}]
        )

    def op_click_xy(self) -> object:
        return self.click(*PRESS)

    def op_click_ref(self) -> object:
        center = self.evaluate(
            "(() => { const r = document.getElementById('b').getBoundingClientRect();"
            " return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); })()",
            sandbox=True,
        )
        x, y = json.loads(center)
        return self.click(x, y)

    def op_scroll(self) -> object:
        wheel = [{"type": "scroll", "x": 640, "y": 400, "deltaX": 0, "deltaY": SCROLL_PIXELS, "duration": 0}]
        return self.actions([{"type": "wheel", "id": "wheel", "actions": wheel}])

    def op_screenshot(self) -> object:
        return base64.b64decode(self.command("browsingContext.captureScreenshot", {"origin": "viewport"})["data"])

    def op_new_tab(self) -> object:
        reply = self.conn.command("browsingContext.create", {"type": "tab"})
        self.extra = str(reply["context"])
        return reply

    def op_switch_tab(self) -> object:
        return self.command("browsingContext.activate")

    def after_switch_tab(self) -> None:
        if self.extra:
            self.conn.command("browsingContext.close", {"context": self.extra})
            self.extra = None

    def memory_root(self) -> int | None:
        try:
            return int(self.session.webdriver.service.process.pid)
        except Exception:
            return None

    def close(self) -> None:
        self.conn.close()
        self.session.webdriver.quit()
        for folder in self.session.temp_dirs:
            shutil.rmtree(folder, ignore_errors=True)


class Classic(Contender):
    name = "classic Selenium"

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.mkdtemp(prefix="bench-classic-")
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ["--headless=new", *chromium_flags(), f"--user-data-dir={self.profile}", "--window-size=1280,800"]:
            options.add_argument(arg)
        self.driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        self.driver.set_script_timeout(60)
        # the same 1280x800 viewport as the others: the window size includes no toolbar in headless mode, but check
        chrome = self.driver.execute_script(
            "return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight]"
        )
        self.driver.set_window_size(1280 + int(chrome[0]), 800 + int(chrome[1]))
        self.walker = walker_function()
        self.original = self.driver.current_window_handle
        self.extra: str | None = None

    def tick(self) -> None:
        self.driver.execute_script(TICK)

    def goto(self, url: str) -> None:
        self.url = url
        self.driver.get(url)

    def op_navigate(self) -> object:
        return self.driver.get(self.url)

    def op_read_all(self) -> object:
        return json.loads(self.driver.execute_script(f"return ({self.walker})('snapshot', {{}});"))

    def op_find(self) -> object:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.XPATH, "//button[normalize-space()='Checkout']").rect

    op_find_after_read = op_find

    def op_text(self) -> object:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.TAG_NAME, "body").text

    def op_type20(self) -> object:
        return self.driver.switch_to.active_element.send_keys(TYPE_TEXT)

    def op_key(self) -> object:
        from selenium.webdriver.common.keys import Keys

        return self.driver.switch_to.active_element.send_keys(Keys.ENTER)

    def op_click_xy(self) -> object:
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        builder = ActionBuilder(self.driver)
        builder.pointer_action.move_to_location(int(PRESS[0]), int(PRESS[1])).click()
        return builder.perform()

    def op_click_ref(self) -> object:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.ID, "b").click()

    def op_scroll(self) -> object:
        from selenium.webdriver.common.action_chains import ActionChains

        return ActionChains(self.driver).scroll_by_amount(0, SCROLL_PIXELS).perform()

    def op_screenshot(self) -> object:
        return self.driver.get_screenshot_as_png()

    def op_new_tab(self) -> object:
        self.driver.switch_to.new_window("tab")
        self.extra = self.driver.current_window_handle
        return self.extra

    def op_switch_tab(self) -> object:
        return self.driver.switch_to.window(self.original)

    def after_switch_tab(self) -> None:
        if self.extra:
            self.driver.switch_to.window(self.extra)
            self.driver.close()
            self.driver.switch_to.window(self.original)
            self.extra = None

    def memory_root(self) -> int | None:
        try:
            return int(self.driver.service.process.pid)
        except Exception:
            return None

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


class Playwright(Contender):
    name = "Playwright"

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self.manager = sync_playwright().start()
        try:
            self.pw_browser = self.manager.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=chromium_flags()
            )
            self.context = self.pw_browser.new_context(viewport={"width": 1280, "height": 800})
            self.page = self.context.new_page()
        except BaseException:
            self.manager.stop()
            raise
        self.extra: Any = None
        self.press_ref: str | None = None

    def tick(self) -> None:
        self.page.evaluate(TICK)

    def goto(self, url: str) -> None:
        self.url = url
        self.page.goto(url)

    def op_navigate(self) -> object:
        return self.page.goto(self.url)

    def op_read_all(self) -> object:
        return self.page.aria_snapshot(mode="ai")

    def op_find(self) -> object:
        return self.page.get_by_role("button", name="Checkout", exact=True).bounding_box()

    def prep_find_after_read(self) -> None:
        self.tick()
        self.page.aria_snapshot(mode="ai")

    op_find_after_read = op_find

    def op_text(self) -> object:
        return self.page.inner_text("body")

    def op_type20(self) -> object:
        return self.page.keyboard.type(TYPE_TEXT)

    def op_key(self) -> object:
        return self.page.keyboard.press("Enter")

    def op_click_xy(self) -> object:
        return self.page.mouse.click(*PRESS)

    def prep_click_ref(self) -> None:
        snapshot = self.page.aria_snapshot(mode="ai")
        found = re.search(r'button "Press"[^\n]*?\[ref=([^\]]+)\]', snapshot)
        if not found:
            raise RuntimeError("no aria-ref for the Press button in the AI snapshot")
        self.press_ref = found.group(1)

    def op_click_ref(self) -> object:
        return self.page.locator(f"aria-ref={self.press_ref}").click()

    def op_scroll(self) -> object:
        self.page.mouse.move(640, 400)
        return self.page.mouse.wheel(0, SCROLL_PIXELS)

    def op_screenshot(self) -> object:
        return self.page.screenshot()

    def op_new_tab(self) -> object:
        self.extra = self.context.new_page()
        return self.extra

    def op_switch_tab(self) -> object:
        return self.page.bring_to_front()

    def after_switch_tab(self) -> None:
        if self.extra is not None:
            self.extra.close()
            self.extra = None

    def close(self) -> None:
        try:
            self.pw_browser.close()
        finally:
            self.manager.stop()
