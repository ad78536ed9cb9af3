"""Frames: an `iframe` element with a `src` shows the page at that URL, its elements joined under the frame element
as a real browser's driver joins a frame's document to the tree, and its line names the origin it comes from
(`browser_toolset.frame_notes`).

The mock keeps one document per tab, so a frame's elements live in the tab's document: their keys, focus, values and
clicks are the tab's like any other element's. What the URL guard refuses is not loaded: the frame shows nothing and
says so. Frames nest, to `MAX_FRAME_DEPTH`.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

import attrs

from browser_toolset.frame_notes import FrameStatus, frame_note, origin_of

from .document import LiveElement, _Document
from .resources import Page, Redirect
from .site import Site, normalize_url

__all__ = ["MAX_FRAME_DEPTH", "show_frames"]

MAX_FRAME_DEPTH = 16
"""Frames nested deeper than this stay empty: a site can make a frame show its own page."""

MAX_FRAME_REDIRECTS = 20


def show_frames(
    doc: _Document, url: str, site: Site, allows: Callable[[str], bool], missing: Callable[[str], Page]
) -> None:
    """Fill every frame of a freshly loaded document (at `url`) with the elements of the page its `src` names:
    `missing` makes the page of a URL the site does not have (its 404 page)."""
    pending: list[tuple[LiveElement, str, int]] = [(frame, url, 1) for frame in _frames(doc.root)]
    while pending:
        frame, base, depth = pending.pop(0)
        src = frame.spec.src or ""
        target = normalize_url(urljoin(base, src)) if src else "about:blank"
        inherited = origin_of(base, "the page's origin")
        status: FrameStatus = "ready"
        page: Page | None = None
        if target != "about:blank":
            target, page, refused = _fetch(site, target, allows, missing)
            status = "blocked" if refused else "ready"
        frame.spec = attrs.evolve(frame.spec, description=frame_note(origin_of(target, inherited), status))
        if page is None or depth > MAX_FRAME_DEPTH:
            continue
        frame.children = [doc.instantiate(element, frame) for element in page.elements]
        pending.extend((inner, target, depth + 1) for child in frame.children for inner in _frames(child))


def _frames(root: LiveElement) -> list[LiveElement]:
    return [element for element in root.walk() if element.role == "iframe" and element.spec.src is not None]


def _fetch(
    site: Site, url: str, allows: Callable[[str], bool], missing: Callable[[str], Page]
) -> tuple[str, Page | None, bool]:
    """Where a frame's URL leads (redirects followed), the page it shows there (None for none: a file, an address the
    mock cannot load), and whether the URL guard refused it."""
    for _ in range(MAX_FRAME_REDIRECTS + 1):
        if not allows(url):
            return url, None, True
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or (parts.hostname or "") in site.unreachable_hosts:
            return url, None, False
        resource = site.resolve(url)
        if isinstance(resource, Redirect):
            url = normalize_url(urljoin(url, resource.to))
            continue
        if resource is None:
            return url, missing(url), False
        return url, resource if isinstance(resource, Page) else None, False
    return url, None, False
