"""What the executor asks the mock before it types or shows a secret: which document holds an element (a frame's
own URL inside a frame), and where the elements that hold a secret's value, and the password fields, are drawn."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urljoin

from browser_toolset.values import Rect

from .document import LiveElement, _Document
from .layout import _Layout
from .site import normalize_url

__all__ = ["_document_url", "_secret_boxes"]


def _document_url(doc: _Document, element: LiveElement | None) -> str:
    """The URL of the frame document `element` is in (the tab's document when it is in none); the mock keeps a
    frame's elements under its frame element, so the frames above it name the document, innermost first."""
    frames: list[str] = []
    node = element.parent if element is not None else None
    while node is not None:
        if node.role == "iframe" and node.spec.src is not None:
            frames.append(node.spec.src)
        node = node.parent
    url = doc.url
    for src in reversed(frames):
        url = normalize_url(urljoin(url, src)) if src else "about:blank"
    return url


def _holds(element: LiveElement, values: Sequence[str]) -> bool:
    if element.spec.input_type == "password":
        return True
    texts = (element.value or "", element.name, element.spec.text, element.spec.description)
    return any(value and value in text for value in values for text in texts)


def _secret_boxes(doc: _Document, layout: _Layout, values: Sequence[str]) -> list[Rect]:
    boxes = []
    for element in doc.root.walk():
        box = layout.boxes.get(element)
        if box is not None and element is not doc.root and _holds(element, values):
            boxes.append(Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height))
    return boxes
