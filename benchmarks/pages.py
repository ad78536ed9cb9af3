"""The pages every contender reads and acts on, generated into a temporary folder and served on 127.0.0.1.

Listing pages of a given element count (`listing-500.html` ... `listing-20000.html`) have fixed controls at the
top (a text field with focus, the `Press` button, a `#tick` element the suite changes between reads so that no
reader can answer from a cache of an unchanged DOM) and items of six elements each (section, heading, paragraph,
link, button, text field); the `Checkout` button that `find` looks for is the last element of the page. Feature
pages (`forms`, `tables`, `shadow`, `iframes`) carry the same fixed controls and about 1,000 elements of their kind.
"""

from __future__ import annotations

import http.server
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

__all__ = ["FEATURES", "PRESS", "Site", "parse_size", "serve"]

PRESS = (70.0, 75.0)
"""CSS-pixel centre of the `Press` button (the target of clicks by coordinate)."""

TYPE_TEXT = "abcdefghijklmnopqrst"
"""Twenty characters for `type`."""

FEATURES = ("forms", "tables", "shadow", "iframes")

HEAD = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font:14px sans-serif;margin:0} .fixed{position:absolute;left:20px}</style></head><body>
<input id="q" class="fixed" style="top:20px;width:200px" aria-label="Query" autofocus>
<button id="b" class="fixed" style="top:60px;width:100px;height:30px"
  onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Press</button>
<span id="tick" class="fixed" style="top:65px;left:140px">0</span>
<main style="padding-top:110px">"""

TAIL = """</main><footer><button id="checkout">Checkout</button></footer></body></html>"""


def parse_size(text: str) -> int:
    """`500`, `1k`, `5k`, `20k` -> element counts."""
    text = text.strip().lower()
    return int(float(text[:-1]) * 1000) if text.endswith("k") else int(text)


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def listing(n: int) -> str:
    items = []
    for i in range(max(1, (n - 6) // 6)):
        items.append(
            f"<section><h3>Item {i}</h3><p>Description of item {i}, with some words to read "
            f"<a href='#i{i}'>details {i}</a></p><button>Buy {i}</button>"
            f"<input aria-label='Quantity {i}' value='1'></section>"
        )
    return HEAD % f"Listing {n}" + "".join(items) + TAIL


def forms(n: int = 1000) -> str:
    parts = []
    for i in range(n // 10):
        parts.append(
            f"<form><fieldset><legend>Address {i}</legend>"
            f"<label>Name {i} <input name='n{i}' placeholder='Full name'></label>"
            f"<label><input type='checkbox' name='c{i}'> Subscribe {i}</label>"
            f"<select aria-label='Country {i}'><option>France</option><option>Japan</option></select>"
            f"<textarea aria-label='Notes {i}'></textarea></fieldset></form>"
        )
    return HEAD % "Forms" + "".join(parts) + TAIL


def tables(n: int = 1000) -> str:
    rows = "".join(
        f"<tr><th scope='row'>Row {i}</th><td>{i * 3}</td><td>{i * 7 % 13}</td><td><a href='#r{i}'>open</a></td></tr>"
        for i in range(n // 6)
    )
    head = "<thead><tr><th>Name</th><th>Count</th><th>Score</th><th>Link</th></tr></thead>"
    return HEAD % "Tables" + f"<table><caption>Results</caption>{head}<tbody>{rows}</tbody></table>" + TAIL


def shadow(n: int = 1000) -> str:
    script = """<script>
customElements.define('x-card', class extends HTMLElement {
  constructor() { super(); const root = this.attachShadow({mode: 'open'});
    const title = this.dataset.title;
    root.innerHTML = `<div><h4>${title}</h4><slot></slot><button>Open ${title}</button></div>`; }
});</script>"""
    cards = "".join(f"<x-card data-title='Card {i}'><p>Body of card {i}</p></x-card>" for i in range(n // 5))
    return HEAD % "Shadow DOM" + script + cards + TAIL


def iframes(n: int = 1000, frames: int = 10) -> str:
    per = n // frames
    inner = "".join(
        f"<p>Frame text {i} <a href='#f{i}'>link {i}</a> <button>Act {i}</button></p>" for i in range(per // 4)
    )
    srcdoc = inner.replace("'", "&#39;")
    body = "".join(
        f"<iframe title='Frame {i}' width='600' height='200' srcdoc='{srcdoc}'></iframe>" for i in range(frames)
    )
    return HEAD % "Iframes" + body + TAIL


class Site:
    """The served pages: `url(name)` for `listing-5000`, `forms`, ..."""

    def __init__(self, base: str) -> None:
        self.base = base

    def url(self, name: str) -> str:
        return f"{self.base}/{name}.html"

    def listing(self, n: int) -> str:
        return self.url(f"listing-{n}")


@contextmanager
def serve(sizes: list[int]) -> Iterator[Site]:
    root = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    for n in sizes:
        (root / f"listing-{n}.html").write_text(listing(n))
    for name, make in (("forms", forms), ("tables", tables), ("shadow", shadow), ("iframes", iframes)):
        (root / f"{name}.html").write_text(make())

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # a browser that drops a connection (a favicon it no longer wants) is no error of the page's

    server = Server(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
