"""Storage state over BiDi: cookies through `storage.getCookies` / `storage.setCookie`, and each origin's
`localStorage` through script in a page of that origin. Never through files of the profile: on a Grid those are on
the node, and the same commands work on every browser and through a Grid alike.

A page of an origin is needed to reach its `localStorage`, and loading one for real would send a request (with the
cookies just set) to a server that has not been asked for anything. So a hidden tab navigates to the origin's root
under a network intercept of its own, and this module answers that request with a blank page itself
(`network.provideResponse`): nothing leaves the browser. Only origins the URL guard allows are visited, so a state
file cannot make the browser run a page of a host the session refuses. That request is also seen by the URL guard's
intercept (every request is, when no egress proxy runs); `in_front_of` puts this module's handler before the
guard's, so the request is answered here and never continued to the network.

Saving reads the `localStorage` of the origins loaded and of every document open in a tab or frame, each through a
blank page of its origin in the same way; an origin visited earlier but no longer open is not read.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from browser_toolset.storage_state import Cookie, OriginStorage, SameSite, StorageState, canonical_origin

from .connection import JSON, BidiConnection, BidiError, Handler, Listener
from .contexts import Contexts
from .errors import bidi_errors
from .events import as_dict

__all__ = ["BrowserStorage"]

log = logging.getLogger(__name__)

_BLANK_PAGE = '<!doctype html><meta charset=utf-8><link rel=icon href="data:,"><title></title>'
"""The page an origin's storage is reached through. Its icon is named, inline: Chromium fetches `/favicon.ico` past
the intercept otherwise."""
_TO_BIDI: Mapping[str, str] = {"Strict": "strict", "Lax": "lax", "None": "none"}
_FROM_BIDI: Mapping[str, SameSite] = {"strict": "Strict", "lax": "Lax", "none": "None", "default": "Lax"}
"""BiDi's `default` is a cookie set without the attribute, which browsers treat as `Lax`: Playwright writes that."""

_WRITE = """(items) => {
    for (const [name, value] of JSON.parse(items)) localStorage.setItem(name, value);
    return localStorage.length;
}"""
_READ = "() => JSON.stringify(Object.keys(localStorage).map((name) => [name, localStorage.getItem(name)]))"


class BrowserStorage:
    """Reads and loads the storage state of one browser session. `allows` is the URL guard's current verdict."""

    def __init__(
        self, connection: BidiConnection, contexts: Contexts, allows: Callable[[], Callable[[str], bool] | None]
    ):
        self._conn = connection
        self._contexts = contexts
        self._allows = allows
        self._lock = threading.Lock()  # one read or load at a time
        self._answering: set[str] = set()  # hidden tabs whose requests this module answers
        self._answering_lock = threading.Lock()
        self._known_origins: list[str] = []  # origins loaded, read again when saving

    # --- events ---------------------------------------------------------------------------------------------------

    def in_front_of(self, guard: Listener) -> Listener:
        """`guard`'s handlers, with requests of the hidden tabs answered here instead of reaching it."""
        return _InFront(self, guard.handlers())

    def answers(self, params: JSON) -> bool:
        """Answer a request of a hidden tab with the blank page (its favicon and anything else with a 404), on the
        dispatcher thread with fire-and-forget commands; False for a request of any other tab."""
        with self._answering_lock:
            if str(params.get("context")) not in self._answering:
                return False
        if not params.get("isBlocked"):
            return True  # seen before the hidden tab's own intercept was added: nothing to answer
        request = as_dict(params.get("request"))
        navigation = bool(params.get("navigation"))
        self._conn.send(
            "network.provideResponse",
            {
                "request": str(request.get("request")),
                "statusCode": 200 if navigation else 404,
                "reasonPhrase": "OK" if navigation else "Not Found",
                "headers": [
                    {"name": "Content-Type", "value": {"type": "string", "value": "text/html; charset=utf-8"}},
                    {"name": "Cache-Control", "value": {"type": "string", "value": "no-store"}},
                ],
                "body": {"type": "string", "value": _BLANK_PAGE if navigation else ""},
            },
        )
        return True

    # --- reading --------------------------------------------------------------------------------------------------

    def read(self) -> StorageState:
        with self._lock, bidi_errors("read the storage state"):
            reply = self._conn.command("storage.getCookies", {})
            cookies = tuple(_cookie(as_dict(c)) for c in reply.get("cookies") or [])
            origins = self._origins_to_read()
            stored = []
            if origins:
                with self._hidden_tab() as tab:
                    for origin in origins:
                        self._open_blank(tab, origin)
                        items = json.loads(self._call(tab, _READ))
                        if items:
                            stored.append(OriginStorage(origin, tuple((str(k), str(v)) for k, v in items)))
            return StorageState(cookies, tuple(stored))

    def _origins_to_read(self) -> list[str]:
        tree = self._conn.command("browsingContext.getTree", {})
        found = list(self._known_origins)
        for url in _urls(tree.get("contexts") or []):
            origin = canonical_origin(url)
            if origin and origin not in found:
                found.append(origin)
        return [origin for origin in found if self._allowed(origin)]

    # --- loading --------------------------------------------------------------------------------------------------

    def load(self, state: StorageState) -> list[str]:
        refused = [o.origin for o in state.origins if not self._allowed(o.origin)]
        with self._lock, bidi_errors("load the storage state"):
            for cookie in state.cookies:
                self._conn.command("storage.setCookie", {"cookie": _bidi_cookie(cookie)})
            origins = [o for o in state.origins if o.origin not in refused]
            if origins:
                with self._hidden_tab() as tab:
                    for entry in origins:
                        self._open_blank(tab, entry.origin)
                        self._call(tab, _WRITE, json.dumps([list(pair) for pair in entry.local_storage]))
                        if entry.origin not in self._known_origins:
                            self._known_origins.append(entry.origin)
        for origin in refused:
            log.warning("the storage state's localStorage of %s was not loaded: the URL policy refuses it", origin)
        return refused

    # --- the hidden tab -------------------------------------------------------------------------------------------

    def _allowed(self, origin: str) -> bool:
        allows = self._allows()
        if allows is None:
            return True
        try:
            return bool(allows(origin + "/"))
        except Exception:  # a guard that fails refuses
            return False

    def _hidden_tab(self) -> _HiddenTab:
        return _HiddenTab(self)

    def _open_blank(self, tab: str, origin: str) -> None:
        self._conn.command("browsingContext.navigate", {"context": tab, "url": origin + "/", "wait": "complete"})

    def _call(self, tab: str, function: str, *arguments: str) -> Any:
        reply = self._conn.command(
            "script.callFunction",
            {
                "functionDeclaration": function,
                "target": {"context": tab},
                "arguments": [{"type": "string", "value": argument} for argument in arguments],
                "awaitPromise": False,
            },
        )
        if reply.get("type") == "exception":
            details = as_dict(reply.get("exceptionDetails"))
            raise BidiError("script.callFunction", "javascript error", str(details.get("text") or "storage refused"))
        return as_dict(reply.get("result")).get("value")


class _HiddenTab:
    """A background tab for the duration of a `with`, answered by `BrowserStorage` and closed afterwards; it is
    never reported to the executor as opened or closed."""

    def __init__(self, storage: BrowserStorage) -> None:
        self._storage = storage
        self._handle = ""
        self._intercept: str | None = None

    def __enter__(self) -> str:
        conn, contexts = self._storage._conn, self._storage._contexts
        reply = conn.command("browsingContext.create", {"type": "tab", "background": True})
        self._handle = str(reply["context"])
        contexts.claim(self._handle)
        with self._storage._answering_lock:
            self._storage._answering.add(self._handle)
        try:
            added = conn.command("network.addIntercept", {"phases": ["beforeRequestSent"], "contexts": [self._handle]})
            self._intercept = str(added["intercept"])
        except BaseException:
            self.__exit__()
            raise
        return self._handle

    def __exit__(self, *exc_info: object) -> None:
        conn, contexts = self._storage._conn, self._storage._contexts
        try:
            if self._intercept is not None:
                conn.command("network.removeIntercept", {"intercept": self._intercept})
        except BidiError:
            log.debug("could not remove the storage intercept", exc_info=True)
        contexts.expect_close(self._handle)
        try:
            conn.command("browsingContext.close", {"context": self._handle})
        except BidiError:
            contexts.expect_close(self._handle, expected=False)
            log.warning("could not close the storage state's hidden tab %s", self._handle)
        with self._storage._answering_lock:
            self._storage._answering.discard(self._handle)


class _InFront:
    """The URL guard's handlers, its `beforeRequestSent` handed only the requests the hidden tabs do not make."""

    def __init__(self, storage: BrowserStorage, handlers: Mapping[str, Handler]) -> None:
        self._storage = storage
        self._handlers = dict(handlers)

    def handlers(self) -> Mapping[str, Handler]:
        wrapped = dict(self._handlers)
        behind = self._handlers.get("network.beforeRequestSent")

        def request_sent(params: JSON) -> None:
            if not self._storage.answers(params) and behind is not None:
                behind(params)

        wrapped["network.beforeRequestSent"] = request_sent
        return wrapped


# --- cookies between Playwright's shape and BiDi's -------------------------------------------------------------------


def _cookie(item: JSON) -> Cookie:
    value = as_dict(item.get("value"))
    text = str(value.get("value") or "")
    if value.get("type") == "base64":
        text = base64.b64decode(text).decode("utf-8", "replace")
    expiry = item.get("expiry")
    return Cookie(
        name=str(item.get("name") or ""),
        value=text,
        domain=str(item.get("domain") or ""),
        path=str(item.get("path") or "/"),
        expires=float(expiry) if isinstance(expiry, int | float) and not isinstance(expiry, bool) else -1,
        http_only=bool(item.get("httpOnly")),
        secure=bool(item.get("secure")),
        same_site=_FROM_BIDI.get(str(item.get("sameSite") or "default").lower(), "Lax"),
    )


def _bidi_cookie(cookie: Cookie) -> JSON:
    item: JSON = {
        "name": cookie.name,
        "value": {"type": "string", "value": cookie.value},
        "domain": cookie.domain,
        "path": cookie.path,
        "httpOnly": cookie.http_only,
        "secure": cookie.secure,
        # Browsers refuse SameSite=None on a cookie that is not secure; Chromium reports a cookie set without the
        # attribute as `none`, so a file saved there holds such cookies, which browsers treat as Lax.
        "sameSite": "lax" if cookie.same_site == "None" and not cookie.secure else _TO_BIDI[cookie.same_site],
    }
    if not cookie.session:
        item["expiry"] = int(cookie.expires)
    return item


def _urls(contexts: Iterable[object]) -> Iterable[str]:
    for context in contexts:
        item = as_dict(context)
        yield str(item.get("url") or "")
        yield from _urls(item.get("children") or [])
