"""The title watch: a preload script that reports each document's title through the console, so that listing tabs
needs no round trip per tab.
"""

from __future__ import annotations

import json
import secrets

from .connection import JSON
from .events import as_dict

__all__ = ["TITLE_MARKER", "is_title_report", "new_marker", "reported_title", "title_watch"]

TITLE_MARKER = "browser-toolset-title"
"""Starts the first argument of the title watch's console reports; a per-session secret follows it."""

_TITLE_WATCH = """() => {
  const report = console.debug.bind(console);
  const marker = __MARKER__;
  let last = null;
  const send = (force) => {
    const title = document.title;
    if (force === true || title !== last) {
      last = title;
      report(marker, title);
    }
  };
  const observer = new MutationObserver(send);
  const watch = () => {
    send(true);
    observer.observe(document, { subtree: true, childList: true, characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch, { once: true });
  else watch();
  window.addEventListener("pagehide", () => observer.disconnect());
  window.addEventListener("pageshow", (event) => { if (event.persisted) watch(); });
}"""


def new_marker() -> str:
    """A session's marker: `TITLE_MARKER` and a secret, so a page cannot pass its own console lines off as reports."""
    return f"{TITLE_MARKER}:{secrets.token_hex(12)}"


def title_watch(marker: str) -> str:
    """A preload script (in the page realm of every new document) that reports the document's title once the
    document is parsed, whenever it changes, and when the page comes back from the back/forward cache, so listing
    tabs needs no round trip per tab.

    It reports through the console (`console.debug(marker, title)`, with the console function taken before any page
    script runs), not a BiDi channel: Chromium's mapper delivers channel messages by polling the page, up to ~150 ms
    after the load event when a big page keeps the renderer busy, while a console entry arrives before the load
    event, so `navigate` knows the title when the load does. The marker carries a per-session secret (`new_marker`),
    so a page cannot pass its own console lines off as reports, and reports never reach the console log.

    The observer is disconnected when the document is hidden (left, or put in the back/forward cache) and observes
    again if it comes back: an observer whose callback holds a reporting function bound outside the page kept every
    document it ever watched alive in Chromium (measured: ~1 MiB of renderer memory per navigation, for good)."""
    return _TITLE_WATCH.replace("__MARKER__", json.dumps(marker))


def is_title_report(params: JSON, marker: str) -> bool:
    """Whether a `log.entryAdded` is a report of the title watch with `marker` (which never reaches the console
    log)."""
    args = params.get("args")
    if not isinstance(args, list) or len(args) != 2:
        return False
    first = as_dict(args[0])
    return first.get("type") == "string" and first.get("value") == marker


def reported_title(params: JSON) -> tuple[str, str] | None:
    """The (context, title) of a report of the title watch (see `is_title_report`), None when it names no title."""
    title = as_dict(params["args"][1])
    if title.get("type") != "string":
        return None
    return str(as_dict(params.get("source")).get("context") or ""), str(title.get("value") or "")
