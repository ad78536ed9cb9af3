"""`browser-toolset demo`: a whole agent run on a small bundled site, recorded, with an HTML report.

The demo serves the bundled Acme Cloud site (`browser_toolset/demo_site/`: docs pages, a pricing page with a CSV
price list, a contact form that raises a dialog, a link that opens a new tab) on 127.0.0.1, and runs a multi-step
task through the real loop (`run_task`) in headless Chromium. Claude is played by the fake Messages API with a
scripted conversation, so the demo needs no API key and no network; the fake API still holds every request to
the API's rules. With `--live` (and `ANTHROPIC_API_KEY` set), the real model does the same task instead.

When no browser can start, the demo says so and runs on the mock driver, with the same site described for it
(`demo_site/mock_site.json`). Either way it writes a session directory (`messages.jsonl`, `calls.jsonl`,
`images/`, `settings.json`) and `report.html` beside it, and prints where they are.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Final, TextIO

import attrs

__all__ = [
    "DEFAULT_OUTPUT",
    "DRIVERS",
    "SCRIPT",
    "TASK",
    "DemoResult",
    "demo_command",
    "replay_line",
    "run_demo",
    "serve_site",
    "site_directory",
]

TASK: Final = (
    "On the Acme Cloud website: find the monthly price of the Pro plan, download the price list, send the contact "
    "form as Ada Lovelace (ada@example.com) asking for a quote for the Pro plan for a team of 3, and check the "
    "service status."
)
DEFAULT_OUTPUT: Final = "browser-toolset-demo"
DRIVERS: Final = ("auto", "chromium", "firefox", "mock")
"""`run_demo`'s choices: `auto` is headless Chromium, else the mock driver when no browser can start."""
MAX_TURNS: Final = 20


def _call(name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "toolset_name": "browser", "name": name, "input": input}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _ref(number: int) -> dict[str, Any]:
    return {"type": "ref", "ref": f"ref_{number}"}


def _point(x: int, y: int) -> dict[str, Any]:
    return {"type": "coordinate", "x": x, "y": y}


# The scripted Claude. Refs are numbered per tab in the order the pages show them, so they are known in advance:
# on the pricing page read_page lists Home, Docs, Pricing, Contact and the price list (ref_1..ref_5); on the contact
# page Home..Contact (ref_6..ref_9), Name, Email, the three Plan radio buttons, Message and Send (ref_10..ref_16);
# back home, Home..Contact and Service status (ref_17..ref_21). The navigation bar sits at the same place on every
# page: Home at x=280, Docs 400, Pricing 520, Contact 640, y=32.
SCRIPT: Final[tuple[list[dict[str, Any]], ...]] = (
    [_text("I'll start with a look at the home page."), _call("screenshot")],
    [
        _text("There is a Pricing link in the navigation bar. Opening it."),
        _call("left_click", target=_point(520, 32)),
        _call("get_page_text"),
    ],
    [
        _text("The Pro plan costs $29 per month. Now the price list: I need the download link's reference."),
        _call("read_page", filter="interactive"),
        _call("left_click", target=_ref(5)),
    ],
    [
        _text("The price list is downloading. Next, the contact form."),
        _call("left_click", target=_ref(4)),
        _call("read_page", filter="interactive"),
    ],
    [
        _text("Filling in the form and sending it."),
        _call("form_input", target=_ref(10), value="Ada Lovelace"),
        _call("form_input", target=_ref(11), value="ada@example.com"),
        _call("left_click", target=_ref(13)),
        _call("form_input", target=_ref(15), value="Hello, could you send us a quote for the Pro plan for 3 people?"),
        _call("left_click", target=_ref(16)),
    ],
    [
        _text("A confirmation dialog appeared and the form was sent. Let me check the page."),
        _call("screenshot"),
        _call("left_click", target=_point(280, 32)),
        _call("read_page", filter="interactive"),
    ],
    [
        _text("The Service status link opens in a new tab."),
        _call("left_click", target=_ref(21)),
        _call("switch_tab", tab_id="tab-2"),
        _call("get_page_text"),
    ],
    [
        _text(
            "Done:\n- The Pro plan costs $29 per month (10 databases).\n- The price list was downloaded as "
            "acme-prices.csv.\n- The contact form was sent for Ada Lovelace (ada@example.com), plan Pro, asking "
            "for a quote for 3 people.\n- Service status: all systems operational."
        )
    ],
)


# --- The site ------------------------------------------------------------------------------------------------------


def site_directory() -> Path:
    """The bundled site's folder (package data)."""
    return Path(str(resources.files("browser_toolset.cli.demo_site")))


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """The demo prints its own progress."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def list_directory(self, path: Any) -> None:
        self.send_error(404, "Not found")
        return None


@contextmanager
def serve_site(directory: Path | None = None) -> Iterator[str]:
    """Serve the demo site on 127.0.0.1 (any free port) for the duration; yields its origin, `http://127.0.0.1:N`."""
    handler = functools.partial(_QuietHandler, directory=str(directory or site_directory()))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="demo-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def write_mock_site(origin: str, path: Path) -> Path:
    """The mock twin of the site, at `origin`, written to `path` (so the session can be replayed on the mock)."""
    data = json.loads((site_directory() / "mock_site.json").read_text(encoding="utf-8"))
    data["base_url"] = origin
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


# --- The run -------------------------------------------------------------------------------------------------------


@attrs.frozen
class DemoResult:
    session: Path
    report: Path
    driver: str
    stop_reason: str
    final_text: str
    calls: int
    errors: int
    rejected_requests: int
    seconds: float

    @property
    def ok(self) -> bool:
        return self.stop_reason == "end_turn" and self.rejected_requests == 0


def _start_browser(out: TextIO, browser: str = "chromium") -> Any | None:
    try:
        from ..drivers.selenium import SeleniumDriver

        return SeleniumDriver.from_options({"browser": browser})
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        print(
            f"NOTICE: headless {browser.capitalize()} could not start ({type(exc).__name__}: {first}).\n"
            "NOTICE: running the demo on the mock driver instead (an in-memory browser with the same site).",
            file=out,
            flush=True,
        )
        return None


def _fresh_session(directory: Path) -> None:
    """Empty a session directory of an earlier demo's files (and only those)."""
    for name in ("messages.jsonl", "calls.jsonl", "settings.json", "session.json", "mock-site.json", "report.html"):
        (directory / name).unlink(missing_ok=True)
    if (directory / "images").is_dir():
        shutil.rmtree(directory / "images")


def run_demo(
    output: str | Path = DEFAULT_OUTPUT,
    *,
    driver: str = "auto",
    live: bool = False,
    model: str | None = None,
    out: TextIO | None = None,
    quiet: bool = False,
) -> DemoResult:
    """Run the demo task; `driver` is `auto` (Chromium, else the mock), `chromium`, `firefox` or `mock`. Writes
    `OUTPUT/session/` and `OUTPUT/report.html`."""
    import anthropic

    from ..agent.options import DEFAULT_MODEL
    from ..agent.printing import TerminalPrinter
    from ..config import as_mapping, load_settings, url_policy
    from ..drivers.mock import MockDriver
    from ..executor.toolset import BrowserToolset
    from ..sessions.recording import record_run
    from ..sessions.report import write_report
    from ..testing.fake_api import FakeMessagesAPI, load_script

    out = out if out is not None else sys.stdout
    started = time.monotonic()
    root = Path(output)
    session = root / "session"
    session.mkdir(parents=True, exist_ok=True)
    _fresh_session(session)
    with serve_site() as origin:
        browser: Any | None = None
        browser_name = "firefox" if driver == "firefox" else "chromium"
        if driver in ("auto", "chromium", "firefox"):
            browser = _start_browser(out, browser_name)
            if browser is None and driver != "auto":
                raise RuntimeError(f"headless {browser_name.capitalize()} could not start")
        twin = write_mock_site(origin, session / "mock-site.json")
        chosen_model = model or DEFAULT_MODEL
        if browser is None:
            browser = MockDriver.from_json(twin)
            used = "mock"
            options: list[tuple[str, object, str]] = [("driver_options.site", str(twin.resolve()), "demo")]
        else:
            used = "selenium"
            options = [("browser", browser_name, "demo")]
        # The settings the demo runs with, recorded as `run --record` records its own, so that `replay` reuses them.
        configured = load_settings(
            env={},
            use_default_file=False,
            flags=[
                ("driver", used, "demo"),
                *options,
                ("urls.allow_hosts", ["127.0.0.1"], "demo"),
                ("urls.allow_private", True, "demo"),
                ("loop.model", chosen_model, "demo"),
                ("loop.max_turns", MAX_TURNS, "demo"),
            ],
        )
        toolset = BrowserToolset(browser, navigation=url_policy(configured))
        start_url = f"{origin}/index.html"
        settings = {
            "task": TASK,
            **as_mapping(configured),
            "start_url": start_url,
            "assistant": "live model" if live else "scripted (fake Messages API)",
        }
        shown = f", headless {browser_name.capitalize()}" if used == "selenium" else ""
        print(f"Demo site: {origin}/  (driver: {used}{shown})", file=out)
        print(f"Task: {TASK}", file=out, flush=True)
        printer = TerminalPrinter(stream=out, quiet=quiet)
        if live:
            settings["api_key"] = os.environ.get("ANTHROPIC_API_KEY", "")
            result = record_run(
                toolset,
                TASK,
                session,
                settings=settings,
                client=anthropic.Anthropic(),
                model=chosen_model,
                start_url=start_url,
                max_turns=MAX_TURNS,
                on_event=printer,
            )
            rejected = 0
        else:
            with FakeMessagesAPI(load_script(list(SCRIPT))) as api:
                client = anthropic.Anthropic(api_key="demo-key", base_url=api.base_url, max_retries=0)
                result = record_run(
                    toolset,
                    TASK,
                    session,
                    settings=settings,
                    client=client,
                    model=chosen_model,
                    start_url=start_url,
                    max_turns=MAX_TURNS,
                    on_event=printer,
                )
                rejected = sum(1 for request in api.requests if request.status != 200)
                for request in api.requests:
                    if request.status != 200:
                        print(f"fake API rejected request {request.number}: {request.error}", file=out)
    report = write_report(session, root / "report.html", title="browser-toolset demo: Acme Cloud")
    return DemoResult(
        session=session,
        report=report,
        driver=used,
        stop_reason=result.stop_reason,
        final_text=result.final_text,
        calls=result.calls,
        errors=result.errors,
        rejected_requests=rejected,
        seconds=time.monotonic() - started,
    )


# --- Command line --------------------------------------------------------------------------------------------------


def replay_line(result: DemoResult) -> str:
    """The command that replays the demo's session: on the mock twin of the site, which outlives the demo's server
    (on the mock it is the recorded driver already)."""
    line = f"browser-toolset replay {result.session}"
    if result.driver != "mock":
        line += f" --driver mock --site {result.session / 'mock-site.json'}"
    return line


def demo_command(
    output: str | Path = DEFAULT_OUTPUT,
    *,
    driver: str = "auto",
    live: bool = False,
    model: str | None = None,
    quiet: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """`browser-toolset demo`: run the demo (`run_demo`) and say where its session and report are and how to replay
    it. Exits 0 when the task finished with no request rejected, 2 when `live` has no API key, 1 otherwise."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if live and not os.environ.get("ANTHROPIC_API_KEY"):
        print("browser-toolset demo: --live needs ANTHROPIC_API_KEY in the environment", file=err)
        return 2
    try:
        result = run_demo(output, driver=driver, live=live, model=model, out=out, quiet=quiet)
    except Exception as exc:
        print(f"browser-toolset demo: {type(exc).__name__}: {exc}", file=err)
        return 1
    print("", file=out)
    if result.final_text and not quiet:
        print(f"Claude's answer:\n{result.final_text}\n", file=out)
    print(f"Session recorded in {result.session}/ (messages.jsonl, calls.jsonl, images/, settings.json)", file=out)
    print(f"Report: {result.report.resolve()}  (open it in a browser; it is one self-contained file)", file=out)
    print(f"Replay it: {replay_line(result)}", file=out)
    print(f"({result.calls} calls, {result.errors} errors, {result.seconds:.1f} s, driver {result.driver})", file=out)
    return 0 if result.ok else 1
