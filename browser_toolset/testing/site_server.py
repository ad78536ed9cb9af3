"""Serving a mock `Site` to a real browser: one site description, two kinds of browser.

A test (ours or a user's) describes its pages once, as a `browser_toolset.drivers.mock.Site`. `MockDriver` loads
that description in memory; `SiteServer` renders the same description to real HTML, with a small script that
performs its behaviours, and serves it from a threaded `http.server` on 127.0.0.1, so that Chromium or Firefox
(through `SeleniumDriver`) load the same pages. That is what lets one test, and the driver conformance suite
(`tests/conformance/`), expect the same observable results from the mock and from a real browser.

    with SiteServer(site) as server:
        driver.navigate(handle, server.url("/"))

The site's base origin (`https://shop.test`) maps onto the served one (`http://127.0.0.1:PORT`): a path keeps its
place, and absolute URLs on the base host are rewritten to the served origin wherever the site spells them (links,
behaviours, redirects, frames). A site with pages on other hosts (a frame's page from another origin) has each of
those hosts served from another loopback address (127.0.0.2, then localhost, then 127.0.0.3, ...: to a browser,
another site each), and URLs on them are rewritten the same way. URLs on hosts without pages are left alone: the
real browser goes to the real host, where the mock would have shown its 404 page.

Rendering is `browser_toolset.testing.site_html`: elements become the native HTML element of their role, and their
behaviours run in the page's script with the mock's semantics. A `Download` gets a route serving its content as an
attachment, a `Request` one answering with its status and MIME type; a `FileResponse` is served as an attachment, a
`Redirect` as an HTTP redirect, a page with its `status`; any other URL on the base host answers the mock's own 404
page.

What a real browser cannot reproduce as the mock does is refused with `UnrenderableSite`, naming the feature and
the page, when the server is built: canned `evaluate` results (`Page.scripts`), unreachable hosts, `beforeunload`
dialogs, downloads and requests that fail or take a set time, `value` on roles that have no
HTML value, checkable or editable roles with no native element (`switch`, `spinbutton`, ...), and options outside a
select. Such a test runs on the mock only.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urljoin, urlsplit

from browser_toolset.drivers.mock import FileResponse, Page, Redirect, Site

from .site_html import (
    UnrenderableSite,
    _attachment,
    _last_segment,
    _normalized,
    _not_found,
    _origin,
    _path_of,
    _Renderer,
    _Route,
    render_page,
)

__all__ = ["OTHER_HOSTS", "SiteServer", "UnrenderableSite", "render_page"]

OTHER_HOSTS = ("127.0.0.2", "localhost")
"""Where the pages of a site's other hosts are served, in turn (then 127.0.0.3, 127.0.0.4, ...): each another site
to a browser, so that Chromium puts a frame of each in a process of its own, as it would a real site's."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a test's output is for the test."""

    def do_GET(self) -> None:
        self.answer("GET")

    def do_HEAD(self) -> None:
        self.answer("HEAD")

    def do_POST(self) -> None:
        self.answer("POST")

    def do_PUT(self) -> None:
        self.answer("PUT")

    def do_PATCH(self) -> None:
        self.answer("PATCH")

    def do_DELETE(self) -> None:
        self.answer("DELETE")

    def answer(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        owner = self.server.owner
        owner.record(method, self.path)
        try:
            status, headers, body = owner.respond(method, self.path, self.server.site_origin)
        except UnrenderableSite as exc:
            status, headers, body = 500, {"Content-Type": "text/plain; charset=utf-8"}, str(exc).encode()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: SiteServer
    site_origin: str
    """The origin of the site whose pages this server answers for."""
    name: str
    """The host name it was asked to listen on (`localhost` stays `localhost`: another site than 127.0.0.1)."""

    def handle_error(self, request: object, client_address: object) -> None:
        """Browsers drop connections they no longer need (a favicon, a cancelled download): not an error."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class SiteServer:
    """Serves `site` on 127.0.0.1 (an ephemeral port unless `port` is given) from a background thread.

    The whole site is rendered once when the server is built, so that a site a browser cannot reproduce fails where
    the test built it, with `UnrenderableSite`, rather than as an error page later. Pages are rendered again on every
    request, so a test may change the site between navigations, as it may on the mock (check it again with
    `check()`)."""

    def __init__(self, site: Site, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.site = site
        self._lock = threading.Lock()
        self._requests: list[tuple[str, str]] = []
        self._server = self._listen(host, port, _origin(site.url("/")))
        self._others: dict[str, _Server] = {}
        """Site origin -> the server of another host's pages (see the module docstring)."""
        try:
            for index, origin in enumerate(self._other_origins()):
                self._others[origin] = self._listen(
                    OTHER_HOSTS[index] if index < len(OTHER_HOSTS) else f"127.0.0.{index + 1}", 0, origin
                )
            self.check()
        except BaseException:
            for server in (self._server, *self._others.values()):
                server.server_close()
            raise
        # a short poll interval: a test closes its server when it ends, and close() waits for the next poll
        self._threads = [
            threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="site-server", daemon=True
            )
            for server in (self._server, *self._others.values())
        ]
        for thread in self._threads:
            thread.start()

    def _listen(self, host: str, port: int, origin: str) -> _Server:
        server = _Server((host, port), _Handler)
        server.owner = self
        server.site_origin = origin
        server.name = host
        return server

    def _other_origins(self) -> list[str]:
        """The origins of the site's pages on hosts other than its own, in the order the site lists them."""
        base = _origin(self.site.url("/"))
        return list(dict.fromkeys(_origin(url) for url in self.site.pages if _origin(url) != base))

    def _served_origin(self, server: _Server) -> str:
        return f"http://{server.name}:{server.server_address[1]}"

    def _served_others(self) -> dict[str, str]:
        """Site origin -> served origin, for the other hosts."""
        return {origin: self._served_origin(server) for origin, server in self._others.items()}

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:PORT`: what the site's base origin becomes."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str = "/") -> str:
        """Where a path or URL of the site is served (`"/"`, `"/search?q=x"`, `"https://shop.test/about"`). A URL on
        another host comes back as it is."""
        site_url = self.site.url(path)
        if _origin(site_url) in self._others:
            return self._served_origin(self._others[_origin(site_url)]) + _path_of(site_url)
        if _origin(site_url) != _origin(self.site.url("/")):
            return site_url
        return self.origin + _path_of(site_url)

    def site_url(self, served: str) -> str:
        """The site URL a served URL stands for (the reverse of `url`); any other URL as it is."""
        for site_origin, served_origin in self._served_others().items():
            if _origin(served) == served_origin:
                return site_origin + _path_of(served)
        if _origin(served) != self.origin:
            return served
        return self.site.url(_path_of(served))

    @property
    def requests(self) -> list[tuple[str, str]]:
        """Every (method, path) the server was asked for, oldest first."""
        with self._lock:
            return list(self._requests)

    def record(self, method: str, path: str) -> None:
        with self._lock:
            self._requests.append((method, path))

    def check(self) -> None:
        """Render every page and route once; raise `UnrenderableSite` naming what cannot be served faithfully."""
        base = _origin(self.site.url("/"))
        if self.site.unreachable_hosts:
            hosts = ", ".join(sorted(self.site.unreachable_hosts))
            raise UnrenderableSite(f"unreachable hosts ({hosts}): a real browser reaches whatever the network has")
        for url, resource in self.site.pages.items():
            if _origin(url) != base and not isinstance(resource, Page):
                raise UnrenderableSite(f"{url}: only pages are served on hosts other than the site's own ({base})")
            if isinstance(resource, Page):
                renderer = _Renderer(self.site, url, resource, self.origin, self._served_others())
                renderer.document()
                list(renderer.routes())
            elif isinstance(resource, Redirect) and not 300 <= resource.status < 400:
                raise UnrenderableSite(f"{url}: a redirect with status {resource.status}, which browsers do not follow")
            elif isinstance(resource, FileResponse) and resource.error:
                raise UnrenderableSite(f"{url}: a file that fails ({resource.error!r}), which a server cannot fake")

    def _routes(self) -> dict[tuple[str, str], _Route]:
        routes: dict[tuple[str, str], _Route] = {}
        for url, resource in self.site.pages.items():
            if isinstance(resource, Page):
                for method, target, route in _Renderer(
                    self.site, url, resource, self.origin, self._served_others()
                ).routes():
                    routes.setdefault((method, target), route)
        return routes

    def respond(self, method: str, path: str, origin: str | None = None) -> tuple[int, dict[str, str], bytes]:
        """Status, headers and body for a request (to the site's own host, or to another host's `origin`): what the
        mock would load at the same site URL."""
        site_url = _normalized(self.site.url(path) if origin is None else origin + path).split("#", 1)[0]
        lookup = "GET" if method == "HEAD" else method
        resource = self.site.resolve(site_url) if lookup == "GET" else None
        if resource is None:
            route = self._routes().get((lookup, site_url))
            if route is not None:
                return route.status, dict(route.headers), route.body
            resource = _not_found(urlsplit(site_url).path or "/")
        if isinstance(resource, Redirect):
            renderer = _Renderer(self.site, site_url, Page(), self.origin, self._served_others())
            return resource.status, {"Location": renderer.served_url(urljoin(site_url, resource.to))}, b""
        if isinstance(resource, FileResponse):
            content = resource.content.encode() if isinstance(resource.content, str) else resource.content
            return 200, _attachment(resource.filename or _last_segment(site_url)), content
        body = _Renderer(self.site, site_url, resource, self.origin, self._served_others()).document().encode()
        return resource.status, {"Content-Type": "text/html; charset=utf-8"}, body

    def close(self) -> None:
        for server in (self._server, *self._others.values()):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> SiteServer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
