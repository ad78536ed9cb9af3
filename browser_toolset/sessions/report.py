"""`browser-toolset report SESSION [--output FILE]`: one self-contained HTML file showing a recorded session.

The file needs nothing else to be read offline: images are inlined as data URIs, the CSS is inline, and nothing
is fetched. The session is shown as a timeline: the task, Claude's text, and each browser call (one
`<section class="step">` per call of `calls.jsonl`) with its input, result text, images, the tab inventory after it
and the time it took. Errors are highlighted. A call aimed at a coordinate (clicks, hovers, drags, scrolls at a
point) shows the last screenshot before it with the point marked, since coordinates refer to the screenshot Claude
was looking at. Every string from the session (page text, titles, URLs, Claude's text) is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TextIO

from PIL import Image, ImageDraw

from .recording import RecordedCall, Session

__all__ = ["render_report", "report_command", "write_report"]

POINT_MEMBERS: Final = frozenset(
    {
        "left_click",
        "right_click",
        "middle_click",
        "double_click",
        "triple_click",
        "hover",
        "mouse_move",
        "left_mouse_down",
        "left_mouse_up",
        "left_click_drag",
        "scroll",
    }
)
RESULT_TEXT_SHOWN: Final = 20_000
MARKER: Final = (220, 20, 60)

CSS: Final = """
* { box-sizing: border-box; }
body {
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  margin: 0;
  background: #f4f5f7;
  color: #1d2330;
}
header { background: #1d2330; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 6px; font-size: 20px; }
header .meta { color: #c5cad6; font-size: 13px; }
main { max-width: 1100px; margin: 0 auto; padding: 20px 28px 60px; }
.task, .claude { border-radius: 8px; padding: 12px 16px; margin: 14px 0; white-space: pre-wrap; }
.task { background: #fff8e1; border: 1px solid #f0d48a; }
.claude { background: #eef3ff; border: 1px solid #c8d6fb; }
.who {
  font-weight: 600;
  font-size: 12px;
  text-transform: uppercase;
  letter-spacing: .05em;
  color: #55607a;
  display: block;
  margin-bottom: 4px;
  white-space: normal;
}
.step {
  background: #fff;
  border: 1px solid #d9dde5;
  border-left: 5px solid #2e7d32;
  border-radius: 8px;
  margin: 12px 0;
  padding: 10px 16px;
}
.step.error { border-left-color: #c62828; background: #fff5f5; }
.step.not_executed { border-left-color: #9e9e9e; background: #f7f7f7; color: #666; }
.step h3 {
  margin: 0 0 6px;
  font-size: 15px;
  display: flex;
  gap: 10px;
  align-items: baseline;
  flex-wrap: wrap;
}
.step h3 .n { color: #7a8499; font-weight: 500; }
.step h3 .member { font-family: ui-monospace, Menlo, Consolas, monospace; }
.step h3 .time { margin-left: auto; color: #7a8499; font-weight: 400; font-size: 13px; }
.badge {
  font-size: 11px;
  padding: 1px 7px;
  border-radius: 9px;
  background: #e8f5e9;
  color: #2e7d32;
  font-weight: 600;
}
.error .badge { background: #ffebee; color: #c62828; }
.not_executed .badge { background: #eee; color: #666; }
pre {
  background: #f6f8fa;
  border: 1px solid #e3e6eb;
  border-radius: 6px;
  padding: 8px 10px;
  margin: 6px 0;
  overflow: auto;
  max-height: 320px;
  white-space: pre-wrap;
  word-break: break-word;
  font: 12.5px/1.4 ui-monospace, Menlo, Consolas, monospace;
}
.error pre.result { border-color: #f3b7b7; background: #fff0f0; color: #8e1b1b; }
.label { font-size: 12px; color: #55607a; margin-top: 8px; }
img.shot {
  max-width: min(100%, 800px);
  border: 1px solid #cfd4dd;
  border-radius: 4px;
  display: block;
  margin: 6px 0;
}
table.tabs { border-collapse: collapse; font-size: 12.5px; margin-top: 4px; }
table.tabs td { padding: 2px 10px 2px 0; vertical-align: top; }
table.tabs tr.active td { font-weight: 600; }
table.tabs td.url { color: #3b5bab; word-break: break-all; }
.summary { display: flex; gap: 16px; flex-wrap: wrap; margin: 6px 0 0; }
.summary span { background: #2b3346; padding: 2px 10px; border-radius: 10px; }
details summary { cursor: pointer; color: #55607a; font-size: 12px; }
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _data_uri(data: bytes, media_type: str) -> str:
    return f"data:{_esc(media_type)};base64,{base64.b64encode(data).decode('ascii')}"


def _blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list | tuple) else []


def _point(target: object) -> tuple[float, float] | None:
    if isinstance(target, Mapping) and target.get("type") == "coordinate":
        x, y = target.get("x"), target.get("y")
        if isinstance(x, int | float) and isinstance(y, int | float):
            return float(x), float(y)
    if isinstance(target, list | tuple) and len(target) == 2 and all(isinstance(v, int | float) for v in target):
        return float(target[0]), float(target[1])
    return None


def call_points(member: str, call_input: Mapping[str, Any]) -> list[tuple[float, float]]:
    """The image-pixel points a call aims at (two for a drag: from, to)."""
    if member not in POINT_MEMBERS:
        return []
    points = []
    if member == "left_click_drag":
        start = _point(call_input.get("from"))
        if start is not None:
            points.append(start)
    end = _point(call_input.get("target"))
    if end is None:
        end = _point(call_input.get("coordinate"))
    if end is not None:
        points.append(end)
    return points


def marked_image(data: bytes, points: Sequence[tuple[float, float]]) -> bytes | None:
    """A PNG copy of the screenshot with a marker on each point (a numbered ring and crosshair), or None."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            image = opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    draw = ImageDraw.Draw(image)
    radius = max(10, min(image.size) // 40)
    previous: tuple[float, float] | None = None
    for number, (x, y) in enumerate(points, start=1):
        if previous is not None:
            draw.line([previous, (x, y)], fill=MARKER, width=3)
        for ring, colour in ((radius + 2, (255, 255, 255)), (radius, MARKER)):
            draw.ellipse([x - ring, y - ring, x + ring, y + ring], outline=colour, width=3)
        draw.line([x - radius * 1.6, y, x + radius * 1.6, y], fill=MARKER, width=2)
        draw.line([x, y - radius * 1.6, x, y + radius * 1.6], fill=MARKER, width=2)
        if len(points) > 1:
            draw.text((x + radius + 4, y - radius - 4), str(number), fill=MARKER)
        previous = (x, y)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


class _Renderer:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.last_screenshot: bytes | None = None
        self.parts: list[str] = []

    def image_tag(self, block: Mapping[str, Any], alt: str) -> str:
        loaded = self.session.image_bytes(block)
        if loaded is None:
            return '<p class="label">(image missing)</p>'
        data, media_type = loaded
        return f'<img class="shot" alt="{_esc(alt)}" src="{_data_uri(data, media_type)}">'

    def tabs_table(self, tabs: Sequence[Any]) -> str:
        if not tabs:
            return ""
        rows = []
        for tab in tabs:
            if not isinstance(tab, Mapping):
                continue
            active = bool(tab.get("active"))
            rows.append(
                f'<tr class="{"active" if active else ""}"><td>{"▶" if active else ""} {_esc(tab.get("tab_id", ""))}'
                f'</td><td>{_esc(tab.get("title", ""))}</td><td class="url">{_esc(tab.get("url", ""))}</td></tr>'
            )
        return f'<div class="label">Tabs after this call</div><table class="tabs">{"".join(rows)}</table>'

    def step(self, call: RecordedCall) -> str:
        outcome = call.outcome if call.outcome in ("ok", "error", "not_executed") else "error"
        badge = {"ok": "ok", "error": "error", "not_executed": "not executed"}[outcome]
        title = "opening the start page" if call.turn == 0 else f"turn {call.turn}"
        parts = [
            f'<section class="step {outcome}" id="call-{call.index}" data-member="{_esc(call.member)}">',
            f'<h3><span class="n">#{call.index}</span><span class="member">{_esc(call.member)}</span>'
            f'<span class="badge">{badge}</span><span class="n">{_esc(title)}</span>'
            f'<span class="time">{call.ms:.0f} ms</span></h3>',
        ]
        if call.input:
            shown = json.dumps(call.input, ensure_ascii=False)
            if len(shown) > 100:
                shown = json.dumps(call.input, ensure_ascii=False, indent=1)
            parts.append(f'<pre class="input">{_esc(shown)}</pre>')
        points = call_points(call.member, call.input)
        if points and self.last_screenshot is not None:
            marked = marked_image(self.last_screenshot, points)
            if marked is not None:
                parts.append('<div class="label">Where it acted, on the last screenshot before it</div>')
                parts.append(f'<img class="shot marked" alt="click point" src="{_data_uri(marked, "image/png")}">')
        texts: list[str] = []
        changes: list[str] = []
        images: list[str] = []
        for block in call.result:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "image":
                images.append(self.image_tag(block, f"{call.member} image"))
                loaded = self.session.image_bytes(block)
                if loaded is not None and call.member == "screenshot":
                    self.last_screenshot = loaded[0]
            elif kind == "browser_state":
                for change in block.get("state_changes") or ():
                    changes.append(json.dumps(change, ensure_ascii=False))
        if texts:
            text = "\n".join(texts)
            if len(text) > RESULT_TEXT_SHOWN:
                text = text[:RESULT_TEXT_SHOWN] + f"\n… ({len(text) - RESULT_TEXT_SHOWN} more characters)"
            parts.append(f'<pre class="result">{_esc(text)}</pre>')
        parts.extend(images)
        if changes:
            parts.append('<div class="label">State changes</div>')
            parts.append(f'<pre class="changes">{_esc(chr(10).join(changes))}</pre>')
        parts.append(self.tabs_table(call.tabs))
        parts.append("</section>")
        return "".join(parts)

    def text_block(self, kind: str, who: str, text: str) -> str:
        return f'<div class="{kind}"><span class="who">{_esc(who)}</span>{_esc(text.strip())}</div>'

    def render(self, title: str) -> str:
        calls = {call.tool_use_id: call for call in self.session.calls}
        shown: set[str] = set()
        body: list[str] = []

        def emit_call(call: RecordedCall) -> None:
            if call.tool_use_id in shown:
                return
            shown.add(call.tool_use_id)
            body.append(self.step(call))

        pending_start = [call for call in self.session.calls if call.turn == 0]
        for message in self.session.messages:
            role = message.get("role")
            for block in _blocks(message.get("content")):
                if not isinstance(block, Mapping):
                    continue
                kind = block.get("type")
                if role == "user" and kind == "text":
                    body.append(self.text_block("task", "Task", str(block.get("text", ""))))
                    for call in pending_start:
                        emit_call(call)
                    pending_start = []
                elif role == "assistant" and kind == "text" and str(block.get("text", "")).strip():
                    body.append(self.text_block("claude", "Claude", str(block.get("text", ""))))
                elif role == "assistant" and kind == "tool_use":
                    found = calls.get(str(block.get("id")))
                    if found is not None:
                        for call in pending_start:
                            emit_call(call)
                        pending_start = []
                        emit_call(found)
                elif role == "user" and kind == "image":
                    body.append(self.image_tag(block, "image in the task"))
        for call in self.session.calls:  # calls no message shows (a session recorded without messages)
            emit_call(call)
        return self.page(title, body)

    def page(self, title: str, body: Sequence[str]) -> str:
        calls = self.session.calls
        errors = sum(1 for call in calls if call.outcome == "error")
        skipped = sum(1 for call in calls if call.outcome == "not_executed")
        total_ms = sum(call.ms for call in calls)
        replies = sum(1 for message in self.session.messages if message.get("role") == "assistant")
        turns = max(replies, max((call.turn for call in calls), default=0))
        settings = json.dumps(self.session.settings, ensure_ascii=False, indent=1)
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
            "style-src 'unsafe-inline'\">"
            f"<title>{_esc(title)}</title><style>{CSS}</style></head><body>"
            f'<header><h1>{_esc(title)}</h1><div class="summary">'
            f"<span>{_count(len(calls), 'call')}</span><span>{_count(turns, 'turn')}</span>"
            f"<span>{_count(errors, 'error')}</span>"
            f"<span>{skipped} not executed</span><span>{total_ms / 1000:.2f} s in the browser</span></div></header>"
            f"<main>{''.join(body)}"
            f"<details><summary>Settings (secrets removed)</summary><pre>{_esc(settings)}</pre></details>"
            "</main></body></html>\n"
        )


def render_report(session: Session, title: str | None = None) -> str:
    """The HTML of the report of `session`."""
    directory = session.directory.resolve()
    name = directory.parent.name if directory.name == "session" and directory.parent.name else directory.name
    return _Renderer(session).render(title or f"Browser session: {name}")


def write_report(directory: str | Path, output: str | Path | None = None, title: str | None = None) -> Path:
    """Write the report of the session in `directory` to `output` (default `report.html` inside it)."""
    session = Session(directory)
    path = Path(output) if output is not None else session.directory / "report.html"
    path.write_text(render_report(session, title), encoding="utf-8")
    return path


# --- Command line --------------------------------------------------------------------------------------------------


def report_command(
    session: str | Path,
    output: str | Path | None = None,
    title: str | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """`browser-toolset report`: write the report and print its path; 2 when the session cannot be read."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        path = write_report(session, output, title)
    except (OSError, ValueError) as exc:
        print(f"browser-toolset report: {exc}", file=err)
        return 2
    print(path, file=out)
    return 0
