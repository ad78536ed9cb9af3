"""What the executor asks before it types or shows a secret (`Driver.document_url`, `Driver.secret_boxes`), read in
the driver's sandbox, where a page script cannot fake what the DOM says.

A document without a URL of its own (`about:blank`, `about:srcdoc`) belongs to the page that made it, so its URL is
its parent's; a `blob:` URL names its origin after the scheme. Same-origin frames and open shadow roots are entered
in the page; a frame of another origin is its own document, read by its own call (`frame_tree` knows which those are).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from browser_toolset.driver_errors import DriverError
from browser_toolset.values import Rect

from .script import Scripts, decode, encode

__all__ = ["boxes_in", "element_url", "focused_url"]

_URL_OF = """
const urlOf = (doc) => {
  for (let i = 0; i < 32 && doc; i++) {
    const url = doc.URL || '';
    if (url.startsWith('blob:')) return url.slice(5);
    if (!url.startsWith('about:')) return url;
    const frame = doc.defaultView && doc.defaultView.frameElement;
    if (!frame) return url;
    doc = frame.ownerDocument;
  }
  return 'about:blank';
};
"""

ELEMENT_URL = "(element) => {" + _URL_OF + "return urlOf(element.ownerDocument);}"
FOCUSED_URL = (
    "() => {"
    + _URL_OF
    + """
  let doc = document;
  let element = doc.activeElement;
  for (let i = 0; i < 64 && element; i++) {
    if (element.shadowRoot && element.shadowRoot.activeElement) {
      element = element.shadowRoot.activeElement;
      continue;
    }
    if (element.tagName === 'IFRAME' || element.tagName === 'FRAME') {
      let inner = null;
      try { inner = element.contentDocument; } catch (error) { inner = null; }
      if (!inner) return null;
      doc = inner;
      element = inner.activeElement;
      continue;
    }
    break;
  }
  return urlOf(doc);
}"""
)
"""The URL of the document that holds the focused element, or null when the focus is in a frame of another origin
(which this document cannot see into)."""

BOXES = """(values) => {
  const boxes = [];
  const holds = (text) => !!text && values.some((value) => text.includes(value));
  const add = (element, dx, dy) => {
    for (const r of element.getClientRects()) {
      if (r.width > 0 && r.height > 0) boxes.push([r.x + dx, r.y + dy, r.width, r.height]);
    }
  };
  const visit = (root, dx, dy, depth) => {
    if (!root || depth > 16) return;
    const owner = root.ownerDocument || root;
    const walker = owner.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (holds(node.data) && node.parentElement) add(node.parentElement, dx, dy);
        continue;
      }
      const tag = node.tagName;
      const field = tag === 'INPUT' || tag === 'TEXTAREA';
      if (field && ((tag === 'INPUT' && node.type === 'password') || holds(node.value))) {
        add(node, dx, dy);
      }
      if (node.shadowRoot) visit(node.shadowRoot, dx, dy, depth + 1);
      if (tag === 'IFRAME' || tag === 'FRAME') {
        let inner = null;
        try { inner = node.contentDocument; } catch (error) { inner = null; }
        if (inner && inner.documentElement) {
          const r = node.getBoundingClientRect();
          visit(inner.documentElement, dx + r.x + node.clientLeft, dy + r.y + node.clientTop, depth + 1);
        }
      }
    }
  };
  visit(document.documentElement, 0, 0, 0);
  return boxes;
}"""
"""Every element of the document (and its same-origin frames and open shadow roots) whose text or value holds one
of `values`, and every password field: their boxes in the document's viewport."""


def _call(scripts: Scripts, context: str, declaration: str, arguments: list[Any]) -> Any:
    params = {
        "functionDeclaration": declaration,
        "arguments": arguments,
        "awaitPromise": False,
        "resultOwnership": "none",
    }
    reply = scripts.run(context, "script.callFunction", params, sandbox=True, timeout=10)
    if not isinstance(reply, Mapping) or reply.get("type") != "success":
        raise DriverError("the page could not be read to find where secrets are (a script of the driver failed)")
    return decode(reply.get("result"))


def element_url(scripts: Scripts, context: str, element: Mapping[str, Any]) -> str:
    """The URL of the document that holds `element` (a remote node reference with its `sharedId`) in `context`."""
    found = _call(scripts, context, ELEMENT_URL, [{"sharedId": element["sharedId"]}])
    return str(found) if isinstance(found, str) else "about:blank"


def focused_url(scripts: Scripts, context: str) -> str:
    """The URL of the document in `context` that holds its focused element; `about:blank` (no host, so no secret
    is typed) when the focus is in a frame of another origin that `context` cannot see into."""
    found = _call(scripts, context, FOCUSED_URL, [])
    return str(found) if isinstance(found, str) else "about:blank"


def boxes_in(scripts: Scripts, context: str, values: Sequence[str]) -> list[Rect]:
    """The boxes of what holds one of `values` in `context`'s document, in its own viewport's CSS px."""
    found = _call(scripts, context, BOXES, [encode(list(values))])
    boxes = []
    for item in found if isinstance(found, list) else []:
        if isinstance(item, list) and len(item) == 4 and all(isinstance(n, (int, float)) for n in item):
            boxes.append(Rect(float(item[0]), float(item[1]), float(item[2]), float(item[3])))
    return boxes
