"""A tiny threaded HTTP server on 127.0.0.1 for browser tests: static files from `tests/pages/` plus a few
dynamic routes that static files cannot express.

    with PageServer() as server:
        driver.navigate(handle, server.url("form.html"))

Dynamic routes (query parameters are URL-decoded):

- `/redirect?to=URL&code=302` answers with a redirect to `URL`.
- `/status/CODE` answers `CODE` with a short HTML body.
- `/download/NAME?size=N` answers N bytes (default 1024) as an attachment named NAME.
- `/truncated/NAME?size=N` announces N bytes as an attachment, sends half of them, then closes the connection.
- `/slow?ms=N` answers a small HTML page after N milliseconds.
- `/echo` answers an HTML page showing the request's method, path and headers (as text).

Any static page asked with `?cache=ok` comes without `Cache-Control: no-store`, so browsers may keep it in their
back/forward cache.

Every request is recorded in `server.requests` (method, path) so tests can assert what reached the server;
`server.mark()` before a run and `server.requests_since(mark)` after it give that run's requests alone.
"""

from __future__ import annotations

import functools
import html
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

__all__ = ["PAGES", "PageServer", "serve"]

PAGES = Path(__file__).parents[1] / "pages"


class _Handler(SimpleHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""

    def end_headers(self) -> None:
        # Tests reload pages and expect fresh content; `?cache=ok` lets a page into the back/forward cache,
        # which `no-store` keeps it out of.
        if "cache=ok" not in urlsplit(self.path).query:
            self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        with self.server.lock:
            self.server.requests.append(("GET", self.path))
        path = parts.path
        if path == "/redirect":
            self._redirect(query.get("to", "/"), int(query.get("code", "302")))
        elif path.startswith("/status/"):
            self._status(int(path.rsplit("/", 1)[1]))
        elif path.startswith("/download/"):
            self._download(path.rsplit("/", 1)[1], int(query.get("size", "1024")), truncate=False)
        elif path.startswith("/truncated/"):
            self._download(path.rsplit("/", 1)[1], int(query.get("size", "65536")), truncate=True)
        elif path == "/slow":
            time.sleep(int(query.get("ms", "1000")) / 1000)
            self._html(200, f"<title>slow</title><p>slow {query.get('ms', '1000')} ms</p>")
        elif path == "/echo":
            headers = "".join(f"<li>{html.escape(k)}: {html.escape(v)}</li>" for k, v in self.headers.items())
            self._html(200, f"<title>echo</title><p id=method>{self.command}</p><ul>{headers}</ul>")
        elif path in self.server.pages:
            self._html(200, self.server.pages[path])
        else:
            super().do_GET()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        with self.server.lock:
            self.server.requests.append(("POST", self.path))
        self._html(200, f"<title>posted</title><pre id=body>{html.escape(body)}</pre>")

    def _html(self, code: int, body: str) -> None:
        data = f"<!doctype html><meta charset=utf-8>{body}".encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, to: str, code: int) -> None:
        self.send_response(code)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _status(self, code: int) -> None:
        phrase = HTTPStatus(code).phrase if code in HTTPStatus._value2member_map_ else "Status"
        self._html(code, f"<title>{code} {phrase}</title><h1>{code} {phrase}</h1>")

    def _download(self, name: str, size: int, *, truncate: bool) -> None:
        data = (b"0123456789abcdef" * (size // 16 + 1))[:size]
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Disposition", f'attachment; filename="{name}"')
        self.send_header("Content-Length", str(size))
        self.end_headers()
        if truncate:
            self.wfile.write(data[: size // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Browsers drop connections they no longer need (a favicon, a download they cancelled): not an error."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]

    def __init__(self, directory: Path, pages: Mapping[str, str], host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), functools.partial(_Handler, directory=str(directory)))
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []
        self.pages = pages


class PageServer:
    """Serves `directory` (default `tests/pages/`; None for no files) and the in-memory `pages` (`{"/path": html}`,
    looked up per request, so a test may add pages while it runs) on an ephemeral port of `host` (a loopback
    address: another one, such as 127.0.0.2, is another site to a browser) from a background thread."""

    def __init__(
        self, directory: Path | str | None = PAGES, pages: Mapping[str, str] | None = None, *, host: str = "127.0.0.1"
    ) -> None:
        self._empty = Path(tempfile.mkdtemp(prefix="page-server-")) if directory is None else None
        self._server = _Server(self._empty or Path(str(directory)), pages if pages is not None else {}, host)
        self._thread = threading.Thread(target=self._server.serve_forever, name="page-server", daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str = "") -> str:
        """The absolute URL of `path` on this server (`"form.html"`, `"/redirect?to=..."`)."""
        return f"{self.base}/{path.lstrip('/')}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self._server.lock:
            return list(self._server.requests)

    def mark(self) -> int:
        """Where the request log stands now: `requests_since(mark)` is what reached the server after it (the server
        is shared by a whole test session, so a test asks for what its own run sent)."""
        with self._server.lock:
            return len(self._server.requests)

    def requests_since(self, mark: int) -> list[tuple[str, str]]:
        with self._server.lock:
            return list(self._server.requests[mark:])

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if self._empty is not None:
            shutil.rmtree(self._empty, ignore_errors=True)

    def __enter__(self) -> PageServer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@contextmanager
def serve(directory: Path | str | None = PAGES, pages: Mapping[str, str] | None = None) -> Iterator[PageServer]:
    """`PageServer` as a context manager function, for fixtures: `with serve() as server: yield server`."""
    server = PageServer(directory, pages)
    try:
        yield server
    finally:
        server.close()
