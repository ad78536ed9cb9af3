"""What a driver says on a frame's line: the `description` of a frame node (`AXNode`, role `iframe`) names the origin
the frame shows and, when that is so, that it is sandboxed, still loading, blocked by the URL policy, or out of the
driver's reach (then nothing in it is read). Every driver words it the same way, so a frame reads alike on each
(`docs/read-page-format.md`).
"""

from __future__ import annotations

import re
from typing import Literal, TypeAlias
from urllib.parse import urlsplit

from .values import AXNode

__all__ = ["FrameStatus", "frame_around", "frame_note", "note_origin", "origin_of"]

FrameStatus: TypeAlias = Literal["ready", "loading", "blocked", "unreachable"]
"""`unreachable`: the browser shows the frame but its automation interface offers no way into it (Chromium restores
a page from its back/forward cache without the frames of other origins, for one)."""


def origin_of(url: str | None, inherited: str) -> str:
    """The origin a frame's URL names, as `scheme://host[:port]`; `inherited` (its parent's) for the blank and `srcdoc`
    documents that take their parent's; a phrase for the URLs that have none."""
    if not url or url.startswith(("about:blank", "about:srcdoc")):
        return inherited
    if url.startswith("blob:"):
        return origin_of(url[len("blob:") :], inherited)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "an address that does not parse"
    scheme = parts.scheme.lower()
    if scheme in ("http", "https", "ws", "wss", "ftp") and parts.hostname:
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return f"{scheme}://{host}" + (f":{port}" if port is not None else "")
    if scheme == "chrome-error" or url.startswith("about:neterror"):
        return "an error page"
    return f"a {scheme}: URL" if scheme else "an address without a scheme"


def frame_note(origin: str, status: FrameStatus = "ready", *, sandboxed: bool = False) -> str:
    """The frame line's description: which origin the frame shows, and why nothing (or not all) of it may be there."""
    if status == "blocked":
        return f"from {origin}: blocked by the URL policy, so nothing in it is read"
    if status == "unreachable":
        return f"from {origin}: the browser gives no access to it now; reload the page to read it"
    note = f"from {origin}" + (", sandboxed" if sandboxed else "")
    if status == "loading":
        note += ", still loading: read the page again shortly"
    return note


_NOTE = re.compile(
    r"from (?P<origin>.+?)(?:, sandboxed)?"
    r"(?:, still loading: .*|: blocked by the URL policy, .*|: the browser gives no access to it now; .*)?"
)


def note_origin(note: str) -> str | None:
    """The origin a frame line's description (`frame_note`) names; None for any other description."""
    match = _NOTE.fullmatch(note)
    return match.group("origin") if match else None


def frame_around(tree: AXNode | None, key: str | None) -> str | None:
    """The origin of the innermost frame around the element `key` in `tree` (as its frame line names it); None when
    the element is in the page's own document, or is not in the tree."""
    if tree is None or key is None:
        return None
    stack: list[tuple[AXNode, str | None]] = [(tree, None)]
    while stack:
        node, around = stack.pop()
        if node.key == key:
            return around
        if node.role == "iframe":
            around = note_origin(node.description) or around
        stack.extend((child, around) for child in node.children)
    return None
