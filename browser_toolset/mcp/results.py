"""A member's `tool_result` as an MCP `CallToolResult`: text blocks as text, images as image content (already
within the executor's image limits and formats), and the `browser_state` block, which the Messages API turns into
text for the model itself, as a short text block of our own and as structured content. An error result keeps the
executor's message word for word and is marked `isError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mcp_types as types

__all__ = ["call_result", "error_result", "state_text"]

_CHANGES: Mapping[str, str] = {
    "tab_opened": "tab {tab_id} opened",
    "download_started": "download {download_id} started: {url}",
    "download_completed": "download {download_id} finished: {url}",
    "download_failed": "download {download_id} failed: {url}",
}


def _change_line(change: Mapping[str, Any]) -> str:
    kind = str(change.get("type", ""))
    template = _CHANGES.get(kind)
    if template is None:
        return kind.replace("_", " ")
    line = template.format_map({key: change.get(key, "") for key in ("tab_id", "download_id", "url")})
    if kind == "download_completed" and change.get("path"):
        line += f" -> {change['path']}"
    if kind == "download_completed" and change.get("size_bytes") is not None:
        line += f" ({change['size_bytes']} bytes)"
    if kind == "download_failed" and change.get("error"):
        line += f" ({change['error']})"
    return line


def state_text(state: Mapping[str, Any]) -> str:
    """The tab inventory in a few lines: one per tab (the active one marked `*`), then what changed."""
    tabs: Sequence[Mapping[str, Any]] = state.get("tabs") or []
    lines = [f"Tabs ({len(tabs)}):"] if tabs else ["No tabs are open."]
    for tab in tabs:
        mark = "*" if tab.get("active") else " "
        title = str(tab.get("title") or "")
        lines.append(f"{mark} {tab.get('tab_id')}: {title} <{tab.get('url', '')}>" if title else
                     f"{mark} {tab.get('tab_id')}: <{tab.get('url', '')}>")  # fmt: skip
    changes = [_change_line(change) for change in state.get("state_changes") or []]
    if changes:
        lines.append("Changes: " + "; ".join(changes) + ".")
    return "\n".join(lines)


def _structured(state: Mapping[str, Any]) -> dict[str, Any]:
    structured: dict[str, Any] = {"tabs": [dict(tab) for tab in state.get("tabs") or []]}
    if state.get("state_changes"):
        structured["state_changes"] = [dict(change) for change in state["state_changes"]]
    return structured


def call_result(block: Mapping[str, Any]) -> types.CallToolResult:
    """The MCP result of one `tool_result` block (as `BrowserToolset.tool_result` returns it)."""
    raw = block.get("content")
    items: Sequence[Any] = [{"type": "text", "text": raw}] if isinstance(raw, str) else (raw or [])
    content: list[types.ContentBlock] = []
    structured: dict[str, Any] | None = None
    for item in items:
        kind = item.get("type") if isinstance(item, Mapping) else None
        if kind == "text":
            content.append(types.TextContent(text=str(item["text"])))
        elif kind == "image":
            source = item["source"]
            content.append(types.ImageContent(data=source["data"], mime_type=source["media_type"]))
        elif kind == "browser_state":
            content.append(types.TextContent(text=state_text(item)))
            structured = _structured(item)
    is_error = block.get("is_error") is True
    if not content:
        content.append(types.TextContent(text="The call failed." if is_error else "Done."))
    return types.CallToolResult(content=content, structured_content=structured, is_error=is_error)


def error_result(message: str) -> types.CallToolResult:
    """An error the server itself answers with (no browser session, an unknown tool), in the executor's style."""
    text = message if message.startswith("Error:") else f"Error: {message}"
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
