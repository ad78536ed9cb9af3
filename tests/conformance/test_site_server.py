"""`SiteServer` serves what the mock would load at the same URL, and refuses what it cannot serve faithfully.

The conformance suite proves the rendered pages behave as the mock's in real browsers; these tests pin the HTTP
side (statuses, redirects, attachments, routes, URL mapping) and every refusal, without a browser.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest

from browser_toolset.drivers.mock import (
    Dialog,
    Download,
    Element,
    Log,
    Navigate,
    Page,
    Request,
    ScriptError,
    Site,
    Toggle,
    button,
    group,
    link,
    select,
)
from browser_toolset.testing.site_server import SiteServer, UnrenderableSite, render_page
from tests.conformance import sites


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    opener = urllib.request.build_opener(NoRedirects)
    request = urllib.request.Request(url, method=method)
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.fixture
def shop() -> Iterator[SiteServer]:
    site = sites.shop()
    site.page("/buy", "Buy", button("Pay", Request("/api/pay", method="POST", status=202)))
    with SiteServer(site) as server:
        yield server


def test_urls_map_between_the_site_and_the_server(shop: SiteServer) -> None:
    assert shop.origin.startswith("http://127.0.0.1:")
    assert shop.url("/") == shop.origin + "/"
    assert shop.url("/search?q=hat#top") == shop.origin + "/search?q=hat#top"
    assert shop.url("https://SHOP.test/about") == shop.origin + "/about"
    assert shop.url("https://elsewhere.test/x") == "https://elsewhere.test/x"
    assert shop.site_url(shop.origin + "/search?q=hat") == "https://shop.test/search?q=hat"
    assert shop.site_url("about:blank") == "about:blank"


def test_pages_statuses_and_the_mock_s_404(shop: SiteServer) -> None:
    status, headers, body = fetch(shop.url("/"))
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"<title>Mock Shop</title>" in body
    assert fetch(shop.url("/gone"))[0] == 410
    status, _, body = fetch(shop.url("/nowhere"))
    assert status == 404 and b"The requested URL /nowhere was not found on this server." in body
    status, headers, body = fetch(shop.url("/"), "HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_redirects_point_at_the_server(shop: SiteServer) -> None:
    status, headers, _ = fetch(shop.url("/old-about"))
    assert status == 301 and headers["Location"] == shop.url("/about")


def test_links_on_the_site_s_host_point_at_the_server(shop: SiteServer) -> None:
    shop.site.page("/links", "Links", link("Absolute", "https://shop.test/about"), link("Away", "https://away.test/"))
    _, _, body = fetch(shop.url("/links"))
    assert f'href="{shop.url("/about")}"'.encode() in body
    assert b'href="https://away.test/"' in body


def test_files_downloads_and_requests_have_routes(shop: SiteServer) -> None:
    events = SiteServer(sites.events())
    try:
        status, headers, body = fetch(events.url("/prices.csv"))
        assert status == 200 and body == b"item,price\ncap,10\n"
        assert headers["Content-Disposition"] == "attachment; filename*=UTF-8''prices.csv"
        status, headers, body = fetch(events.url("/files/report.csv"))
        assert status == 200 and body == b"item,price\nhat,20\n" and "report.csv" in headers["Content-Disposition"]
        status, headers, _ = fetch(events.url("/api/cart"))
        assert status == 201 and headers["Content-Type"] == "application/json"
    finally:
        events.close()
    assert fetch(shop.url("/api/pay"), "POST")[0] == 202
    assert fetch(shop.url("/api/pay"))[0] == 404
    assert ("POST", "/api/pay") in shop.requests


def test_a_changed_site_is_served_at_the_next_request(shop: SiteServer) -> None:
    shop.site.page("/", "Renamed")
    assert b"<title>Renamed</title>" in fetch(shop.url("/"))[2]


def test_render_page_places_the_behaviours_on_their_elements() -> None:
    page = Page("Home", (button("Go", Navigate("https://shop.test/next?q={q}")), link("Back", "/")))
    markup = render_page(Site("https://shop.test"), "/", page, served_origin="http://127.0.0.1:1")
    assert '<button type="button" data-m="1" data-on-click=' in markup
    assert "&quot;kind&quot;:&quot;navigate&quot;" in markup and "http://127.0.0.1:1/next?q={q}" in markup
    assert '<a href="/" data-m="2">Back</a>' in markup


def test_render_page_names_and_shows_roles_as_the_mock_does() -> None:
    # The mock names a list item only by its `name`, never by its text, and shows no name as text (ARIA: listitem
    # takes no name from content); a button takes both from its text.
    items = group("list", Element("listitem", "Opening hours"), Element("listitem", text="Sunday: closed"))
    page = Page("Home", (items, button("Buy")))
    markup = render_page(Site("https://shop.test"), "/", page)
    assert '<li data-m="2" aria-label="Opening hours"></li>' in markup
    assert '<li data-m="3">Sunday: closed</li>' in markup
    assert '<button type="button" data-m="4">Buy</button>' in markup


def test_render_page_carries_the_behaviours_script() -> None:
    markup = render_page(Site("https://shop.test"), "/", Page("Home", (button("Go", Navigate("/next")),)))
    script = markup[markup.index("<script>") : markup.index("</script>")]
    assert 'document.addEventListener("click"' in script and 'case "navigate":' in script


def one_page(*elements: Element, **page: object) -> Callable[[], Site]:
    def build() -> Site:
        return Site("https://shop.test").page("/", "Home", *elements, **page)  # type: ignore[arg-type]

    return build


REFUSED: list[tuple[Callable[[], Site], str]] = [
    (one_page(scripts={"window.x": "1"}), "Page.scripts"),
    (one_page(scripts={"window.x": ScriptError("TypeError")}), "Page.scripts"),
    (lambda: Site("https://shop.test").unreachable("down.shop.test"), "unreachable hosts (down.shop.test)"),
    (lambda: Site("https://shop.test").redirect("https://other.test/", "/"), "only pages are served on hosts other"),
    (one_page(button("Leave", Dialog("Sure?", kind="beforeunload"))), "a beforeunload dialog"),
    (one_page(button("Get", Download("/f.csv", error="Network error"))), "Download('/f.csv') fails"),
    (one_page(button("Get", Download("https://cdn.test/f.csv"))), "goes to another host"),
    (one_page(button("Get", Request("/api", duration_ms=5))), "Request('/api') sets error or duration_ms"),
    (one_page(button("Get", Request("/api?q={q}"))), "has placeholders"),
    (one_page(button("Log", Log("x", level="fatal"))), "Log level 'fatal'"),
    (one_page(button("Flip", Toggle("nothing"))), "Toggle('nothing') names no element"),
    (one_page(Element("switch", "Dark mode")), "role switch"),
    (one_page(Element("spinbutton", "Age")), "role spinbutton"),
    (one_page(Element("listbox", "Pick", options=["a", "b"])), "role listbox"),
    (one_page(select("Colour", ["Red"], value="Mauve")), "the value 'Mauve', which none of its options has"),
    (one_page(button("Odd", states=["busy"])), "the state 'busy'"),
    (one_page(Element("heading", "Big", value="7")), "has a value"),
    (one_page(status=204), "status 204"),
    (lambda: Site("https://shop.test").redirect("/x", "/", status=200), "a redirect with status 200"),
    (lambda: Site("https://shop.test").file("/x", "data", error="Failed"), "a file that fails"),
]


@pytest.mark.parametrize(("build", "named"), REFUSED, ids=[named for _, named in REFUSED])
def test_what_cannot_be_served_faithfully_is_refused_by_name(build: Callable[[], Site], named: str) -> None:
    with pytest.raises(UnrenderableSite) as raised:
        SiteServer(build()).close()
    assert named in str(raised.value)
