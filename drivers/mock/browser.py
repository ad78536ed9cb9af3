"""The browser state machine behind `MockDriver`: tabs, documents, history, loading, page behaviours, downloads and
the events they cause.

`MockDriver` turns protocol calls into these steps; `LivePage` and a test's own behaviours drive the same steps,
so a page's script and the executor change the browser in exactly the same ways.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import quote_plus, unquote, urlencode, urljoin, urlsplit

import attrs

from browser_toolset.driver_errors import ElementGone, NavigationFailed, TabGone
from browser_toolset.values import (
    ConsoleEntry,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    NavigationBlocked,
    NavigationOutcome,
    NetworkEntry,
    Size,
    TabClosed,
    TabOpened,
)

from .behaviours import (
    Behaviour,
    CloseTab,
    Dialog,
    Download,
    Focus,
    Hide,
    Log,
    Navigate,
    OpenTab,
    Request,
    Show,
    Submit,
    Toggle,
)
from .document import CHECKABLE, LiveElement, _Document, _enclosing_form, _form_data, _form_value, _set_checked
from .elements import Element, heading, paragraph
from .frames import show_frames
from .layout import _Layout, _layout, _scroll_into_view
from .resources import FileResponse, Page, Redirect
from .site import Site, normalize_url

MAX_REDIRECTS = 20
MAX_SCRIPT_DEPTH = 10

_HistoryEntry = Literal["push", "replace"] | int
"""Where a load lands in the tab's history: a new entry after the current one, the current one, or (for a history
step) the entry at that index."""


def _allow_all(url: str) -> bool:
    return True


@attrs.define(eq=False)
class _Tab:
    handle: str
    doc: _Document
    history: list[str]
    index: int = 0
    console: list[ConsoleEntry] = attrs.Factory(list)
    network: list[NetworkEntry] = attrs.Factory(list)


@attrs.define(eq=False)
class _Download:
    key: str
    url: str
    filename: str
    content: bytes
    error: str
    drains_left: int


_BLANK = Page()


def _not_found(url: str) -> Page:
    path = urlsplit(url).path or "/"
    return Page(
        "404 Not Found",
        (heading("Not Found"), paragraph(f"The requested URL {path} was not found on this server.")),
        status=404,
    )


def _error_page(url: str, reason: str) -> Page:
    host = urlsplit(url).hostname or url
    return Page(host, (heading("This site can't be reached"), paragraph(reason)))


class _Browser:
    """Every tab and what it shows, and everything that happened by itself since the last `drain_events`.

    `clock` gives the epoch seconds that console and network timestamps come from; `download_dir` is where
    downloads land (a temporary directory, made on first use and removed by `close()`, when None).
    """

    def __init__(self, site: Site, viewport: Size, clock: Callable[[], float], download_dir: str | Path | None) -> None:
        self.site = site
        self.viewport = viewport
        self.clock = clock
        self.tabs: dict[str, _Tab] = {}
        self.active: str | None = None
        self.events: list[DriverEvent] = []
        self.allows: Callable[[str], bool] = _allow_all
        self.closed = False
        self._downloads: list[_Download] = []
        self._counters: dict[str, Iterator[int]] = {}
        self._download_dir = None if download_dir is None else Path(download_dir)
        self._owns_download_dir = False

    # --- tabs ----------------------------------------------------------------------------------------------------

    def tab(self, handle: str) -> _Tab:
        tab = self.tabs.get(handle)
        if tab is None:
            raise TabGone(handle)
        return tab

    def element(self, handle: str, key: str) -> tuple[_Tab, LiveElement]:
        tab = self.tab(handle)
        element = tab.doc.by_key.get(key)
        if element is None:
            raise ElementGone(key)
        return tab, element

    def new_tab(self) -> _Tab:
        tab = _Tab(f"mock-{self._next('tab')}", self._document("about:blank", _BLANK, None), ["about:blank"])
        self.tabs[tab.handle] = tab
        return tab

    def remove_tab(self, tab: _Tab) -> None:
        handles = list(self.tabs)
        position = handles.index(tab.handle)
        del self.tabs[tab.handle]
        if self.active == tab.handle:
            rest = handles[position + 1 :] + handles[:position][::-1]
            self.active = rest[0] if rest else None

    def layout(self, doc: _Document) -> _Layout:
        return _layout(doc.root, self.viewport)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.tabs.clear()
        self.active = None
        self._downloads.clear()
        if self._owns_download_dir and self._download_dir is not None:
            shutil.rmtree(self._download_dir, ignore_errors=True)

    def _next(self, kind: str) -> int:
        return next(self._counters.setdefault(kind, itertools.count(1)))

    def _new_key(self) -> str:
        return f"e{self._next('element')}"

    def _document(self, url: str, page: Page, status: int | None) -> _Document:
        doc = _Document(f"doc-{self._next('document')}", url, page.title, status, self._new_key, page.scripts)
        doc.root = doc.instantiate(Element("document", page.title, children=page.elements), None)
        show_frames(doc, url, self.site, self.allows, _not_found)
        return doc

    # --- loading and history -------------------------------------------------------------------------------------

    def absolute(self, url: str) -> str:
        return url if urlsplit(url).scheme else self.site.url(url)

    def outcome(self, tab: _Tab) -> NavigationOutcome:
        return NavigationOutcome(tab.doc.url, tab.doc.status, tab.doc.title)

    def load(self, tab: _Tab, url: str, *, by_page: bool, entry: _HistoryEntry, depth: int = 0) -> None:
        """Fetch `url`, following redirects under the guard, and commit what it serves to `tab`. A failure
        raises `NavigationFailed` for the executor's own navigations and shows an error page for the page's."""
        current = normalize_url(url)
        if _same_document(tab.doc.url, current, traversal=isinstance(entry, int) and entry != tab.index):
            self._scroll_to_fragment(tab.doc, current)
            self._enter_history(tab, current, entry)
            return
        for _ in range(MAX_REDIRECTS + 1):
            if current == "about:blank":
                self._commit(tab, current, _BLANK, None, entry)
                return
            if not self.allows(current):
                self.events.append(NavigationBlocked(current, tab.handle))
                return
            parts = urlsplit(current)
            if parts.scheme not in ("http", "https"):
                self._fail(tab, current, f"the mock browser cannot load {parts.scheme}: URLs", by_page, entry)
                return
            host = parts.hostname or ""
            if host in self.site.unreachable_hosts:
                self._log_request(tab, "GET", current, None, error="net::ERR_NAME_NOT_RESOLVED")
                self._fail(tab, current, f"{host} is unreachable (its name did not resolve)", by_page, entry)
                return
            resource = self.site.resolve(current)
            if isinstance(resource, Redirect):
                self._log_request(tab, "GET", current, resource.status, "text/html")
                current = normalize_url(urljoin(current, resource.to))
                continue
            if isinstance(resource, FileResponse):
                self._log_request(tab, "GET", current, 200, "application/octet-stream")
                file = resource
                self._start_download(tab, current, file.filename, file.content, file.error, file.completes_after)
                return
            page = resource if resource is not None else _not_found(current)
            self._log_request(tab, "GET", current, page.status, "text/html")
            self._commit(tab, current, page, page.status, entry)
            self.run(tab, page.on_load, None, depth + 1)
            return
        self._fail(tab, url, f"it redirected more than {MAX_REDIRECTS} times", by_page, entry)

    def _scroll_to_fragment(self, doc: _Document, url: str) -> None:
        """A fragment navigation keeps the document (and its keys) and scrolls to the element with that id."""
        doc.url = url
        fragment = unquote(urlsplit(url).fragment)
        target = next((e for e in doc.root.walk() if fragment and e.spec.id == fragment), None)
        if target is not None and target in self.layout(doc).boxes:
            _scroll_into_view(doc, self.viewport, target)

    def _fail(self, tab: _Tab, url: str, reason: str, by_page: bool, entry: _HistoryEntry) -> None:
        if not by_page:
            raise NavigationFailed(f"Navigation to {url} failed: {reason}.")
        self._commit(tab, url, _error_page(url, reason), None, entry)

    def _commit(self, tab: _Tab, url: str, page: Page, status: int | None, entry: _HistoryEntry) -> None:
        tab.doc = self._document(url, page, status)
        self._enter_history(tab, url, entry)

    def _enter_history(self, tab: _Tab, url: str, entry: _HistoryEntry) -> None:
        if entry == "push":
            del tab.history[tab.index + 1 :]
            tab.history.append(url)
            tab.index = len(tab.history) - 1
        elif entry == "replace":
            tab.history[tab.index] = url
        else:
            tab.index = entry
            tab.history[entry] = url

    def _log_request(
        self, tab: _Tab, method: str, url: str, status: int | None, mime_type: str = "", *, error: str = ""
    ) -> None:
        tab.network.append(NetworkEntry(method, url, status, mime_type, None, error, self.clock() * 1000))

    # --- downloads and events ------------------------------------------------------------------------------------

    @property
    def download_dir(self) -> Path:
        if self._download_dir is None:
            self._download_dir = Path(tempfile.mkdtemp(prefix="browser-toolset-mock-"))
            self._owns_download_dir = True
        return self._download_dir

    def complete_downloads(self) -> None:
        for download in self._downloads:
            self.events.append(self._finish(download))
        self._downloads.clear()

    def drain_events(self) -> list[DriverEvent]:
        """The events so far, finishing first each download that has waited out its `completes_after` drains."""
        for download in [d for d in self._downloads if d.drains_left <= 0]:
            self._downloads.remove(download)
            self.events.append(self._finish(download))
        events, self.events = self.events, []
        for download in self._downloads:
            download.drains_left -= 1
        return events

    def _start_download(
        self, tab: _Tab, url: str, filename: str, content: str | bytes, error: str, completes_after: int
    ) -> None:
        if not self.allows(url):
            self.events.append(NavigationBlocked(url, tab.handle))
            return
        name = _safe_filename(filename or unquote(PurePosixPath(urlsplit(url).path).name))
        key = f"download-{self._next('download')}"
        data = content.encode() if isinstance(content, str) else content
        self.events.append(DownloadStarted(key, url, name))
        self._downloads.append(_Download(key, url, name, data, error, completes_after))

    def _finish(self, download: _Download) -> DriverEvent:
        if download.error:
            return DownloadFailed(download.key, download.url, download.error)
        path = _unused_path(self.download_dir, download.filename)
        path.write_bytes(download.content)
        return DownloadCompleted(download.key, download.url, str(path), len(download.content))

    # --- page behaviours -----------------------------------------------------------------------------------------

    def run(self, tab: _Tab, behaviours: Sequence[Behaviour], source: LiveElement | None, depth: int) -> None:
        """Run behaviours in order, stopping when one unloads the document (as a script's page would be gone)."""
        doc = tab.doc
        if depth > MAX_SCRIPT_DEPTH:
            tab.console.append(ConsoleEntry("error", "mock: too many chained page navigations", self.clock() * 1000))
            return
        for behaviour in behaviours:
            if tab.doc is not doc or tab.handle not in self.tabs:
                return
            self._perform(tab, behaviour, source, depth)

    def _perform(self, tab: _Tab, behaviour: Behaviour, source: LiveElement | None, depth: int) -> None:
        doc = tab.doc
        match behaviour:
            case Navigate(url):
                self.load(tab, self.resolve(doc, source, url), by_page=True, entry="push", depth=depth)
            case OpenTab(url):
                self.open_from_page(tab, self.resolve(doc, source, url), depth)
            case Download(url, filename, content, error, completes_after):
                self._start_download(tab, self.resolve(doc, source, url), filename, content, error, completes_after)
            case Dialog(message, kind):
                self.events.append(DialogHandled(kind, message, accepted=False))
            case Log(message, level):
                text = self._fill(doc, source, message, quote=False)
                tab.console.append(ConsoleEntry(level, text, self.clock() * 1000, doc.url))
            case Request():
                self._request(tab, behaviour, self.resolve(doc, source, behaviour.url))
            case Submit(form_id):
                owner = doc.find(form_id) if form_id else _enclosing_form(source)
                if owner is not None:
                    self.run(tab, owner.spec.on_submit, owner, depth)
            case Toggle(target):
                element = doc.find(target) if target else source
                if element is not None and element.role in CHECKABLE:
                    _set_checked(element, element.role in ("radio", "menuitemradio") or not element.checked)
            case Focus(target):
                element = doc.find(target) if target else source
                if element is not None:
                    doc.focused, doc.select_all = element, False
            case Show(target) | Hide(target):
                element = doc.find(target)
                if element is not None:
                    element.set(visible=isinstance(behaviour, Show))
            case CloseTab():
                self.remove_tab(tab)
                self.events.append(TabClosed(tab.handle))

    def open_from_page(self, opener: _Tab, url: str, depth: int) -> None:
        if url != "about:blank" and not self.allows(url):
            self.events.append(NavigationBlocked(url, opener.handle))
            return
        tab = self.new_tab()
        self.events.append(TabOpened(tab.handle, opener.handle))
        self.load(tab, url, by_page=True, entry="replace", depth=depth)

    def _request(self, tab: _Tab, request: Request, url: str) -> None:
        host = urlsplit(url).hostname or ""
        error = request.error
        if not self.allows(url):
            error = "blocked by the URL guard"
        elif host in self.site.unreachable_hosts:
            error = "net::ERR_NAME_NOT_RESOLVED"
        tab.network.append(
            NetworkEntry(
                request.method,
                url,
                None if error else request.status,
                "" if error else request.mime_type,
                request.duration_ms,
                error,
                self.clock() * 1000,
            )
        )

    def resolve(self, doc: _Document, source: LiveElement | None, url: str) -> str:
        """A behaviour's or link's URL, its `{field}` templates filled in, made absolute against the page."""
        filled = self._fill(doc, source, url, quote=True)
        base = doc.url if doc.url.startswith(("http://", "https://")) else self.site.base_url
        return normalize_url(urljoin(base, filled))

    def _fill(self, doc: _Document, source: LiveElement | None, template: str, *, quote: bool) -> str:
        """Replace `{field}` with that form field's value, looking in the source's form first, and `{form}` with
        the whole form as a browser submits it (`name=value&...`)."""
        scope = _enclosing_form(source)

        def value(match: re.Match[str]) -> str:
            if match.group(1) == "form" and scope is not None:
                pairs = _form_data(scope)
                return urlencode(pairs) if quote else "&".join(f"{name}={text}" for name, text in pairs)
            field = (doc.find(match.group(1), scope) if scope else None) or doc.find(match.group(1))
            if field is None:
                return match.group(0)
            current = _form_value(field)
            return quote_plus(current) if quote else current

        return re.sub(r"\{([^{}]+)\}", value, template)


def _same_document(here: str, there: str, *, traversal: bool) -> bool:
    """Whether going from `here` to `there` only moves to a fragment: a new `#fragment` on the same URL, or a
    history step between entries of one page that differ only in their fragments."""
    if not here.startswith(("http://", "https://")) or here.split("#", 1)[0] != there.split("#", 1)[0]:
        return False
    return "#" in there or (traversal and "#" in here)


def _safe_filename(name: str) -> str:
    """The last path segment, without control or reserved characters, so a page cannot pick where a file lands."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = re.sub(r'[\x00-\x1f\x7f<>:"|?*]', "_", base).strip(" .")
    return cleaned[:200] or "download"


def _unused_path(directory: Path, filename: str) -> Path:
    path = directory / filename
    stem, suffix = path.stem, path.suffix
    for number in itertools.count(1):
        if not path.exists():
            return path
        path = directory / f"{stem} ({number}){suffix}"
    raise AssertionError("unreachable")
