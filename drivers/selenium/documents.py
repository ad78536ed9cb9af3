"""Browsing contexts and the document each one shows, as BiDi events tell them: one `Document` per browsing context,
tab or frame, replaced by a new one when a navigation commits another document there.

A read, an input or a title asks the tab's `Document`, once, what it needs to know about the page: whether it is
still the tab's document (`current`), its URL and title, whether it has loaded, the realms that run script in it
(the page's own and the driver's sandbox), whether the page walker is installed there, and the document id its
element keys carry. Nothing about a document is kept anywhere else, so nothing about it can go stale elsewhere: a
new document starts with nothing known, and a context that closes takes its document with it.

Frames are browsing contexts like tabs: each has its `Document`, linked to its parent context, so a frame's document
is found (`for_context`, `frames`, `of_tab`) and its realms addressed like a tab's. Chromium restores a page from its
back/forward cache without announcing its frames again: `adopt` takes them from `browsingContext.getTree`.

Every handler runs on the BiDi dispatcher thread, in the order the browser sent its events, so a handler may rely on
`contextCreated` having been seen before anything else about that context. State changes under the lock of the
`Changes` shared with `Contexts`, whose clock a change ticks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from .connection import JSON, BidiConnection, BidiError, BidiTimeout, Handler
from .errors import GONE_ERRORS, ContextGone
from .events import Changes
from .titles import is_title_report, new_marker, reported_title

__all__ = ["CreatedListener", "DestroyedListener", "Document", "Documents"]

CreatedListener = Callable[[str, "str | None", "str | None"], None]
"""Called with (context, parent, opener) for every new browsing context."""

DestroyedListener = Callable[[str, "str | None", frozenset[str]], None]
"""Called with (context, parent, every context that went with it, itself included) when a context closes."""


@attrs.define(eq=False)
class Document:
    """One document of one browsing context, from the moment it is the context's document until another replaces it
    or the context closes (`current` turns false then). The handlers of `Documents` change it under the lock they
    share; reading one field needs no lock."""

    context: str
    parent: str | None
    """The browsing context whose document holds this context's frame; None for a tab."""
    top: str
    """The tab the context belongs to (itself for a tab)."""
    seq: int
    """When it became the context's document, on the clock of `Changes`."""
    _changes: Changes = attrs.field(repr=False)
    host: Document | None = attrs.field(default=None, repr=False)
    """The parent's document the frame was created in (None for a tab): the frame goes when that one is left."""
    navigation: str | None = None
    """The navigation that brought it; None for the first document of a context."""
    url: str | None = None
    """Its URL as the events tell it (fragment and History API changes included); None until they do."""
    title: str | None = None
    """Its title as the title watch (`titles.title_watch`) last reported it; None while unknown."""
    loaded_seq: int = 0
    """When it finished loading (a browser's error page loads too); 0 until it has."""
    current: bool = True
    """Whether it is still its context's document."""
    realms: dict[str, str] = attrs.field(factory=dict)
    """Sandbox name ("" for the page's own realm) -> the realm `script.realmCreated` announced for it."""
    noted: dict[str, str] = attrs.field(factory=dict)
    """Realms a reply named that no event announced (Firefox announces no sandbox realm), by sandbox name. Trusted
    only while no navigation has started in the context: Firefox restores a document from its back/forward cache
    without a commit, and without destroying the realms of the one it hides."""
    starts: int = 0
    """Navigations started in the context while this is its document."""
    walker: str | None = None
    """The realm the page walker is installed in (see `script.walker_declaration`); None until a call installs it."""
    keys: str | None = None
    """The walker's id of this document, which the element keys the driver hands out carry; None before a read."""
    reachable: bool | None = None
    """For a frame's document: whether the browser runs script in it when asked (see `frame_tree`); None until asked."""
    frames_seen: bool = False
    """Whether a read found frames in it that no event had announced (see `frame_tree`): its reads join frames."""
    frame_element: tuple[Document, str] | None = attrs.field(default=None, repr=False)
    """For a frame's document: the document whose walker last read the frame element showing it, and the element's
    key there (the walker's own); None for a tab, and until a read met the frame."""

    @property
    def loaded(self) -> bool:
        return self.loaded_seq > 0

    def realm(self, sandbox: str = "") -> str | None:
        """The realm that runs script in this document: its own (`sandbox` "") or the named sandbox's, when the
        browser announced it or a reply named it (see `noted`)."""
        return self.realms.get(sandbox) or self.noted.get(sandbox)

    def walker_installed(self, sandbox: str, realm: str, starts: int) -> None:
        """A call that began when `starts` navigations had started here installed the walker in `realm`, the realm of
        `sandbox` its reply named."""
        with self._changes:
            self.walker = realm
            if starts == self.starts:
                self.noted[sandbox] = realm

    def answered(self, reachable: bool) -> None:
        """Whether a script call reached the document."""
        with self._changes:
            self.reachable = reachable

    def walker_missing(self, realm: str) -> None:
        """`realm` turned out to have no walker after all."""
        with self._changes:
            if self.walker == realm:
                self.walker = None


class Documents:
    """The browsing-context tree and each context's current `Document`, fed by BiDi events. Thread-safe."""

    def __init__(self, connection: BidiConnection, changes: Changes) -> None:
        self._conn = connection
        self._changes = changes
        self._documents: dict[str, Document] = {}
        """Context -> its current document, in the order the contexts appeared."""
        self._reused: dict[str, int] = {}
        """Frames Firefox created again under the id of a frame it had not yet destroyed (a reload of their parent),
        by id: how many `contextDestroyed` for that id are about the older frame."""
        self._created: list[CreatedListener] = []
        self._destroyed: list[DestroyedListener] = []
        self.title_marker = new_marker()
        """What the title watch's reports start with in this session (see `titles.title_watch`)."""

    # --- wiring ---------------------------------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {
            "browsingContext.contextCreated": self._context_created,
            "browsingContext.contextDestroyed": self._context_destroyed,
            "browsingContext.navigationStarted": self._navigation_started,
            "browsingContext.navigationCommitted": self._committed,
            "browsingContext.domContentLoaded": self._moved,
            "browsingContext.load": self._loaded,
            "browsingContext.fragmentNavigated": self._same_document,
            "browsingContext.historyUpdated": self._same_document,
            "script.realmCreated": self._realm_created,
            "script.realmDestroyed": lambda params: self.forget_realm(params.get("realm")),
            "log.entryAdded": self._title_report,
        }

    def on_created(self, listener: CreatedListener) -> None:
        """Call `listener` on the dispatcher thread for every new browsing context, once it has its document."""
        self._created.append(listener)

    def on_destroyed(self, listener: DestroyedListener) -> None:
        """Call `listener` on the dispatcher thread for every context that closes, once its documents are gone."""
        self._destroyed.append(listener)

    def seed(self, contexts: Iterable[Mapping[str, Any]]) -> None:
        """Record the tabs that existed before the subscription (`browsingContext.getTree`)."""
        with self._changes:
            for info in contexts:
                handle = str(info["context"])
                if handle in self._documents:
                    continue
                document = Document(handle, None, handle, self._changes.seq, self._changes)
                if info.get("url"):
                    document.url = str(info["url"])
                    if info["url"] == "about:blank":
                        document.title = ""
                self._documents[handle] = document

    # --- talking to a context -------------------------------------------------------------------------------------

    def settle(self, timeout: float) -> None:
        """Let the events received so far be handled: a command's reply can overtake the events sent before it."""
        self._conn.settle(timeout)

    def command(self, context: str, method: str, params: Mapping[str, Any], *, timeout: float | None = None) -> JSON:
        """A BiDi command about browsing context `context`. Browsers may never answer a command about a context that
        closes under it (a script that closes its own tab), so the wait ends when the context goes; an error saying
        it is gone becomes `ContextGone` once the events confirm it."""
        try:
            return self._conn.command(
                method, params, timeout=timeout, abandon=lambda: None if self.exists(context) else "no such frame"
            )
        except BidiTimeout:
            raise
        except BidiError as exc:
            if exc.error in GONE_ERRORS:
                self._conn.settle(0.5)
                if not self.exists(context):
                    raise ContextGone(method, context) from exc
            raise

    # --- reading --------------------------------------------------------------------------------------------------

    def for_context(self, context: str) -> Document | None:
        """The context's current document as the events handled so far tell it; None for a context that is gone."""
        with self._changes:
            return self._documents.get(context)

    def frames(self, context: str) -> list[Document]:
        """The documents of the context's child frames, in the order the frames appeared."""
        with self._changes:
            return [document for document in self._documents.values() if document.parent == context]

    def of_tab(self, handle: str) -> list[Document]:
        """The current documents of a tab and of all its frames, the tab's first."""
        with self._changes:
            return [document for document in self._documents.values() if document.top == handle]

    def exists(self, context: str) -> bool:
        with self._changes:
            return context in self._documents

    def is_tab(self, context: str) -> bool:
        with self._changes:
            document = self._documents.get(context)
            return document is not None and document.parent is None

    def top_of(self, context: object) -> str | None:
        """The tab a context (tab or frame) belongs to, or None for a context that is gone."""
        with self._changes:
            document = self._documents.get(str(context)) if context else None
            return document.top if document else None

    def tabs(self) -> list[str]:
        """Open tabs in the order they appeared."""
        with self._changes:
            return [handle for handle, document in self._documents.items() if document.parent is None]

    def is_title_report(self, params: JSON) -> bool:
        """Whether a `log.entryAdded` is a report of this session's title watch."""
        return is_title_report(params, self.title_marker)

    # --- what no event says ---------------------------------------------------------------------------------------

    def assume_blank(self, context: str) -> None:
        """Note that a tab the driver opened shows its first, blank page: no event will say so (the title watch does
        not run there), and listing it should cost no round trip."""
        with self._changes:
            document = self._documents.get(context)
            if document is not None and document.url is None:
                document.url = "about:blank"
            if document is not None and document.url == "about:blank" and document.title is None:
                document.title = ""

    def restored(self, context: str, navigation: str, url: str, since: int) -> None:
        """A navigation that started at `since` ended without an event: the tab shows a complete document at `url`.
        Firefox restores a page from its back/forward cache that way (no commit), and that page is another document
        than the one the events last told of; a document that did commit since is the one restored. Either way its
        title is read afresh: the title watch's report of it may have come before, or be on its way."""
        with self._changes:
            document = self._documents.get(context)
            if document is None:
                return
            seq = self._changes.tick()
            if document.seq > since:
                document.url, document.title, document.loaded_seq = url, None, document.loaded_seq or seq
                return
            document.current = False
            self._documents[context] = Document(
                context,
                document.parent,
                document.top,
                seq,
                self._changes,
                host=document.host,
                navigation=navigation,
                url=url,
                loaded_seq=seq,
            )

    def adopt(self, tree: Iterable[Mapping[str, Any]], parent: str | None = None) -> None:
        """Record the frames a `browsingContext.getTree` reply shows that no event announced (Chromium restores a page
        from its back/forward cache without announcing its frames again): each with a complete document at the URL the
        tree gives."""
        with self._changes:
            pending = [(info, parent) for info in tree]
            while pending:
                info, above = pending.pop(0)
                handle = str(info.get("context"))
                children = info.get("children")
                if isinstance(children, list):
                    pending.extend((child, handle) for child in children if isinstance(child, Mapping))
                host = self._documents.get(above) if above else None
                if handle in self._documents or host is None:
                    continue
                seq = self._changes.tick()
                self._documents[handle] = Document(
                    handle,
                    above,
                    host.top,
                    seq,
                    self._changes,
                    host=host,
                    url=str(info.get("url") or ""),
                    loaded_seq=seq,
                )

    def forget_realm(self, realm: object) -> None:
        """`realm` is gone (its document was left, or a call addressed to it failed)."""
        with self._changes:
            for document in self._documents.values():
                for table in (document.realms, document.noted):
                    for name in [name for name, known in table.items() if known == realm]:
                        del table[name]
                if document.walker == realm:
                    document.walker = None

    # --- waiting --------------------------------------------------------------------------------------------------

    def wait_error_page(self, context: str, since: int, timeout: float = 1.0) -> None:
        """After a failed navigation, wait for the browser's error page to finish loading. Chromium wedges its whole
        BiDi session now and then when a new navigation with an active network intercept interrupts an error page
        that is still loading, so the next navigation must not start before it is in."""

        def error_page_in() -> bool:
            document = self._documents.get(context)
            return document is None or document.loaded_seq > since

        self._changes.wait(error_page_in, timeout)

    def wait_known(self, context: str, timeout: float) -> bool:
        """Wait until the context's `contextCreated` has been handled: a command's reply (`browsingContext.create`)
        can overtake it, and until then `command` takes the context for gone."""
        return self._changes.wait(lambda: context in self._documents, timeout)

    def wait_closed(self, context: str, timeout: float) -> bool:
        return self._changes.wait(lambda: context not in self._documents, timeout)

    # --- handlers -------------------------------------------------------------------------------------------------

    def _context_created(self, params: JSON) -> None:
        handle = str(params.get("context"))
        parent = str(params["parent"]) if params.get("parent") else None
        opener = str(params["originalOpener"]) if params.get("originalOpener") else None
        with self._changes:
            known = self._documents.get(handle)
            if known is not None and (known.host is None or known.host.current):
                return  # a context seen already: the subscription replays the contexts that existed
            if known is not None:
                # Firefox creates a frame in the new document of its parent under the id of the frame the old
                # document held, before it destroys that one: the next `contextDestroyed` of the id is the old one's.
                known.current = False
                self._reused[handle] = self._reused.get(handle, 0) + 1
            host = self._documents.get(parent) if parent else None
            top = host.top if host is not None else (parent or handle)
            # Its URL stays unknown until a navigation event names one: Chromium can announce a tab opened by a
            # middle click after the events of its first page, with the URL it had before them (about:blank).
            self._documents[handle] = Document(handle, parent, top, self._changes.tick(), self._changes, host=host)
        if known is None:
            for listener in self._created:
                listener(handle, parent, opener)

    def _context_destroyed(self, params: JSON) -> None:
        handle = str(params.get("context"))
        with self._changes:
            document = self._documents.get(handle)
            if document is None:
                return
            if self._reused.get(handle):
                self._reused[handle] -= 1  # the older frame of that id: the newer one stays
                return
            if document.parent is None:
                gone = [h for h, d in self._documents.items() if d.top == handle]
            else:
                gone = [h for h in self._documents if h == handle or self._descends(h, handle)]
            for h in gone:
                self._documents.pop(h).current = False
                self._reused.pop(h, None)
            self._changes.tick()
        for listener in self._destroyed:
            listener(handle, document.parent, frozenset(gone))

    def _descends(self, handle: str, ancestor: str) -> bool:
        parent = self._documents[handle].parent if handle in self._documents else None
        while parent:
            if parent == ancestor:
                return True
            parent = self._documents[parent].parent if parent in self._documents else None
        return False

    def _navigation_started(self, params: JSON) -> None:
        with self._changes:
            document = self._documents.get(str(params.get("context")))
            if document is not None:
                document.starts += 1
                document.noted.clear()

    def _committed(self, params: JSON) -> None:
        """A new document: it keeps the realms of the old one that are still alive (the browser destroys the others
        before the commit; Firefox keeps a frame's first realm for the same-origin document that replaces its initial
        blank one, as the window is reused), and the walker installed in one of them."""
        handle = str(params.get("context"))
        with self._changes:
            old = self._documents.get(handle)
            if old is None:
                return
            old.current = False
            realms = dict(old.realms)
            self._documents[handle] = Document(
                handle,
                old.parent,
                old.top,
                self._changes.tick(),
                self._changes,
                host=old.host,
                navigation=str(params["navigation"]) if params.get("navigation") else None,
                url=str(params["url"]) if params.get("url") else old.url,
                realms=realms,
                walker=old.walker if old.walker in realms.values() else None,
            )

    def _moved(self, params: JSON) -> None:
        """The URL of the document as it loads (`domContentLoaded`, `load`)."""
        with self._changes:
            document = self._documents.get(str(params.get("context")))
            if document is not None and params.get("url"):
                document.url = str(params["url"])

    def _loaded(self, params: JSON) -> None:
        with self._changes:
            document = self._documents.get(str(params.get("context")))
            if document is not None:
                document.loaded_seq = self._changes.tick()
            self._moved(params)

    def _same_document(self, params: JSON) -> None:
        """A fragment or History API change: the document stays, but waiters may be waiting on any change."""
        with self._changes:
            self._moved(params)
            self._changes.tick()

    def _realm_created(self, params: JSON) -> None:
        if params.get("type") != "window" or not params.get("context") or not params.get("realm"):
            return
        with self._changes:
            document = self._documents.get(str(params["context"]))
            if document is not None:
                document.realms[str(params.get("sandbox") or "")] = str(params["realm"])

    def _title_report(self, params: JSON) -> None:
        """A report of the title watch: the title of a context's document."""
        if not self.is_title_report(params):
            return
        reported = reported_title(params)
        if reported is None:
            return
        with self._changes:
            document = self._documents.get(reported[0])
            if document is not None:
                document.title = reported[1]
