"""Frames of every origin in one tree, the same on every driver: a frame's page joined under its `iframe` line, which
names the origin it comes from, in document order; `find` and `get_page_text` reach into it; refs inside it act on
its page; a frame the URL policy refuses is shown blocked, with nothing read from it.

The site spans three hosts: the shop, a payment form from a second host, which embeds a consent button from a third.
On a real browser `SiteServer` serves each host from a loopback address of its own (another site to the browser).
"""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from browser_toolset.drivers.mock import (
    Page,
    Show,
    Site,
    SiteFormatError,
    button,
    form,
    frame,
    heading,
    paragraph,
    textbox,
)
from browser_toolset.testing.site_server import SiteServer
from tests.conformance.conftest import smoke
from tests.conformance.harness import Target, Visit
from tests.support.session import ok, text

BASE = "https://frames.test"
PAY = "https://pay.test"
CONSENT = "https://consent.test"
REFUSED = "data:text/html,<p>Secret text a refused frame must never show</p>"
BLOCKED = "from a data: URL: blocked by the URL policy, so nothing in it is read"


def shop() -> Site:
    site = Site(BASE)
    site.page(
        "/",
        "Shop",
        heading("Checkout"),
        paragraph("Blue teapot, 24 EUR."),
        frame("Payment", f"{PAY}/form"),
        frame("Help", "/help"),
        frame("Ad", REFUSED),
        paragraph("Delivery in three days."),
    )
    site.page("/help", "Help", paragraph("Ask us anything."))
    site.page(
        f"{PAY}/form",
        "Pay",
        form(textbox("Card number", id="card"), button("Pay now", Show("paid")), name="Card payment"),
        paragraph("Payment received.", id="paid", visible=False),
        frame("Consent", f"{CONSENT}/"),
    )
    site.page(
        f"{CONSENT}/",
        "Consent",
        button("I agree", Show("agreed")),
        paragraph("Consent given.", id="agreed", visible=False),
    )
    return site


def origin(visit: Visit, url: str) -> str:
    """Where this target serves the site's `url` from, as a frame line names it."""
    parts = urlsplit(visit.url(url))
    return f"{parts.scheme}://{parts.netloc}"


def shows(line: str) -> Callable[[list[str]], bool]:
    """Whether a read has `line`, at any depth."""
    return lambda lines: any(each.strip() == line for each in lines)


def tree(visit: Visit) -> list[str]:
    return [
        'heading "Checkout" level=1',
        "paragraph",
        '  text "Blue teapot, 24 EUR."',
        f'iframe "Payment" description="from {origin(visit, PAY + "/")}"',
        '  form "Card payment"',
        '    textbox "Card number"',
        '    button "Pay now"',
        f'  iframe "Consent" description="from {origin(visit, CONSENT + "/")}"',
        '    button "I agree"',
        f'iframe "Help" description="from {origin(visit, "/")}"',
        "  paragraph",
        '    text "Ask us anything."',
        f'iframe "Ad" description="{BLOCKED}"',
        "paragraph",
        '  text "Delivery in three days."',
    ]


@smoke
def test_frames_of_every_origin_in_one_tree(target: Target) -> None:
    visit = target.visit(shop())
    visit.go("/")
    # until the whole tree is in: the frames load on their own, and Firefox's data: frame is refused (and undone) a
    # moment after it starts
    expected = tree(visit)
    assert visit.read_until(lambda lines: lines == expected, filter="all") == expected
    found = text(ok(visit.call("find", query="Pay now button")))
    assert found.splitlines()[0].startswith('button "Pay now" [ref_'), found
    shown = text(ok(visit.call("get_page_text"))).splitlines()
    assert [line for line in shown if line in ("Blue teapot, 24 EUR.", "Pay now", "I agree", "Ask us anything.")] == [
        "Blue teapot, 24 EUR.",
        "Pay now",
        "I agree",
        "Ask us anything.",
    ]
    assert shown[-1] == "Delivery in three days."
    assert not any("Secret" in line for line in shown)


def test_refs_inside_frames_act_on_their_pages(target: Target) -> None:
    visit = target.visit(shop())
    visit.go("/")
    # Chromium now and then never attaches a frame of another site when a page is loaded again in a long-lived
    # browser; the frame's line then tells Claude to reload the page, and Claude would: so does this test, once.
    reload_note = "reload the page to read it"
    first = visit.read_until(
        lambda lines: shows('button "I agree"')(lines) or reload_note in "".join(lines), filter="all"
    )
    if reload_note in "".join(first):
        ok(visit.call("navigate", url="reload"))
    visit.read_until(shows('button "I agree"'), filter="all")
    card = visit.ref('textbox "Card number"')
    ok(visit.call("left_click", target={"type": "ref", "ref": card}))
    ok(visit.call("type", text="4242"))
    visit.click('button "Pay now"')
    visit.click('button "I agree"')
    lines = visit.read_until(shows('text "Consent given."'), filter="all")
    assert '    textbox "Card number" value="4242"' in lines
    assert lines.index('    text "Payment received."') < lines.index('      text "Consent given."')
    ok(visit.call("form_input", target={"type": "ref", "ref": card}, value="1111"))
    assert visit.read(ref=card, filter="all") == ['textbox "Card number" value="1111"']
    consent = visit.ref(f'iframe "Consent" description="from {origin(visit, CONSENT + "/")}"')
    assert visit.read(ref=consent, filter="all") == [
        f'iframe "Consent" description="from {origin(visit, CONSENT + "/")}"',
        '  button "I agree" focused',
        "  paragraph",
        '    text "Consent given."',
    ]


def test_the_site_server_serves_each_other_host_from_a_site_of_its_own() -> None:
    """Each host of the site with pages is served from another loopback name (another site to a browser); a frame's
    address, on whichever host, points at where that host is served."""
    with SiteServer(shop()) as server:
        pay, consent = server.url(f"{PAY}/form"), server.url(f"{CONSENT}/")
        hosts = {urlsplit(url).hostname for url in (server.url("/"), pay, consent)}
        assert hosts == {"127.0.0.1", "127.0.0.2", "localhost"}
        assert server.site_url(pay) == f"{PAY}/form" and server.site_url(consent) == f"{CONSENT}/"
        with urllib.request.urlopen(server.url("/"), timeout=5) as response:
            shop_page = response.read().decode()
        frames = re.findall(r"<iframe src=\"([^\"]*)\" data-m=\"\d+\" aria-label=\"(\w+)\">", shop_page)
        assert frames[:2] == [(pay, "Payment"), ("/help", "Help")]
        with urllib.request.urlopen(pay, timeout=5) as response:
            pay_page = response.read().decode()
        assert "<title>Pay</title>" in pay_page and f'src="{consent}"' in pay_page


def test_the_site_format_declares_frames() -> None:
    site = Site.from_dict(
        {
            "base_url": BASE,
            "pages": {
                "/": {"title": "Shop", "elements": [{"role": "iframe", "name": "Payment", "src": f"{PAY}/form"}]},
                f"{PAY}/form": {"title": "Pay", "elements": [{"role": "button", "name": "Pay now"}]},
            },
        }
    )
    assert site.resolve(f"{BASE}/") == Page("Shop", (frame("Payment", f"{PAY}/form"),))
    with pytest.raises(SiteFormatError, match=r"pages\['/'\]\.elements\[0\]\.src: expected str"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "iframe", "src": 3}]}}})
