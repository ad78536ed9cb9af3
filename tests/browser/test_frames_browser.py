"""Frames of every origin in one tree, on Chromium and Firefox, locally and through a Selenium Grid.

The scenario of the issue: a shop on one site (127.0.0.1) embeds the payment form of a second site (127.0.0.2),
which embeds the consent button of a third (localhost): three sites, so Chromium runs each frame in a process of its
own, and Firefox passes none of the tab's input into them. `read_page` shows the three documents with refs under
their frame lines, `find` finds the frame's button, `get_page_text` has the frames' text where they stand, and every
member that takes a ref or a coordinate reaches the frame's page, which records what it received, on the page and at
its own server (the proof that does not go through the driver). "Pay now" is held by the confirmation gate as any
purchase is, naming the frame's origin.

Then the other kinds of frame (`frames/kinds.html`): sandboxed ones, one the URL guard refuses (blocked, nothing read
from it: its server never sees the request), and one that loads only when asked (still loading, then read).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from anthropic.tools.browser import BetaLocalFilePolicy

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import Browser, SeleniumConfig, SeleniumDriver
from browser_toolset.safety.confirm import ActionGate, Assessment
from tests.support.browsers import guarded, require_browser
from tests.support.polling import wait_until
from tests.support.server import PageServer
from tests.support.session import Session, error, ok, text

pytestmark = pytest.mark.browser

REF_LINE = re.compile(r"^(?P<indent>\s*)(?P<body>.*?)(?: \[(?P<ref>ref_\d+)\])?$")


@pytest.fixture(scope="module")
def other() -> Iterator[PageServer]:
    """The second site: the same pages on 127.0.0.2."""
    with PageServer(host="127.0.0.2") as pages:
        yield pages


def shop_url(server: PageServer, other: PageServer, *, cache: bool = False) -> str:
    """The shop page, its frames given by address; with `cache`, every page may enter the back/forward cache."""
    port = server.base.rsplit(":", 1)[1]
    extra = "cache=ok&" if cache else ""
    consent = f"http://localhost:{port}/frames/consent.html?{extra}"
    pay = other.url("frames/pay.html") + f"?{extra}consent=" + quote(consent, safe="")
    return server.url("frames/shop.html") + f"?{extra}pay=" + quote(pay, safe="")


def lines(output: str) -> list[tuple[int, str, str | None]]:
    """read_page output as (indent, line without ref, ref)."""
    out = []
    for line in output.splitlines():
        match = REF_LINE.match(line)
        assert match, line
        out.append((len(match.group("indent")) // 2, match.group("body"), match.group("ref")))
    return out


def ref_of(output: str, body: str) -> str:
    found = [ref for _, line, ref in lines(output) if line == body and ref]
    assert found, f"no line {body!r} in:\n{output}"
    return found[0]


def received(other: PageServer, mark: int) -> list[str]:
    """What the frames' pages reported to their server (`other`) since `mark`."""
    return [
        parse_qs(urlsplit(path).query)["what"][0]
        for method, path in other.requests_since(mark)
        if urlsplit(path).path == "/frames/record"
    ]


class Shop:
    """A session on the shop page with a confirmation gate that asks (and records) every purchase: the person says
    no the first time and yes after that; consent is allowed."""

    def __init__(self, driver: SeleniumDriver, server: PageServer, other: PageServer, uploads: Path) -> None:
        self.asked: list[Assessment] = []
        gate = ActionGate(decisions={"terms": "allow"}, default="ask", ask=self.ask)
        self.toolset = BrowserToolset(
            driver,
            navigation=URLPolicy(allow_private=True),
            confirm=gate,
            configs={"file_upload": {"enabled": True}},
            file_policy=BetaLocalFilePolicy(upload_roots=[str(uploads)]),
        )
        gate.lookup = self.toolset.describe_ref
        self.session = Session(self.toolset)
        self.driver = driver
        self.other = other
        self.pay_origin = other.base
        self.consent_origin = "http://localhost:" + server.base.rsplit(":", 1)[1]
        ok(self.session.call("navigate", url=shop_url(server, other)))
        wait_until(lambda: "I agree" in self.text(), timeout=15, interval=0.2)

    def ask(self, assessment: Assessment) -> bool:
        self.asked.append(assessment)
        return len(self.asked) > 1

    def read(self, **options: object) -> str:
        return text(ok(self.session.call("read_page", **options)))

    def text(self) -> str:
        return text(ok(self.session.call("get_page_text")))

    def click_ref(self, ref: str) -> dict[str, object]:
        return self.session.call("left_click", target={"type": "ref", "ref": ref})

    def point(self, ref: str) -> dict[str, object]:
        """The screenshot pixel of the element's centre, as Claude would take it from a screenshot."""
        tab = self.toolset._inventory.target(None)
        x, y = self.toolset.frame().to_image(self.driver.element_center(tab.handle, tab.refs.key_of(ref)))
        return {"type": "coordinate", "x": x, "y": y}

    def click_at(self, ref: str) -> dict[str, object]:
        return self.session.call("left_click", target=self.point(ref))


def in_order(seen: list[str], expected: list[str]) -> bool:
    """Whether `expected` happened in this order (other things in between)."""
    rest = iter(seen)
    return all(any(what == wanted for what in rest) for wanted in expected)


def run_shop_scenario(driver: SeleniumDriver, server: PageServer, other: PageServer, uploads: Path) -> None:
    mark, server_mark = other.mark(), server.mark()
    shop = Shop(driver, server, other, uploads)
    tree = shop.read(filter="all")
    rows = lines(tree)
    bodies = [body for _, body, _ in rows]
    pay_line = f'iframe "Payment" description="from {shop.pay_origin}"'
    consent_line = f'iframe "Consent" description="from {shop.consent_origin}"'
    # three documents, each with refs, nested under their frame lines, in document order
    assert (
        bodies.index('region "Order summary"') < bodies.index(pay_line) < bodies.index('text "Delivery in three days."')
    )
    pay = bodies.index(pay_line)
    depth = rows[pay][0]
    inside = [row for row in rows[pay + 1 :] if row[0] > depth]
    inner = [body for _, body, _ in inside]
    for expected in ('form "Card payment"', 'textbox "Card number"', 'button "Pay now"', 'button "Cancel"'):
        assert expected in inner, tree
    assert consent_line in inner and 'button "I agree"' in inner, tree
    consent = next(row for row in inside if row[1] == consent_line)
    agree = next(row for row in inside if row[1] == 'button "I agree"')
    assert agree[0] == consent[0] + 1 and agree[2], tree
    assert all(ref for _, body, ref in rows if body.startswith(("button", "textbox", "iframe")))

    found = text(ok(shop.session.call("find", query="Pay now button")))
    assert 'button "Pay now"' in found, found
    page_text = shop.text().splitlines()
    assert page_text.index("Blue teapot, 1 × 24.00 EUR") < page_text.index("Pay now Cancel")
    assert page_text.index("Pay now Cancel") < page_text.index("Delivery in three days.")
    assert any(line.startswith("I agree") for line in page_text), page_text

    card = ref_of(tree, 'textbox "Card number"')
    ok(shop.session.call("hover", target={"type": "ref", "ref": card}))
    ok(shop.click_ref(card))
    ok(shop.session.call("type", text="4242 4242"))
    # Enter in the card field would submit the frame's payment form (its buttons are plain buttons, so the form
    # itself): asked about as a purchase in that frame, and declined
    declined = error(shop.session.call("key", text="Return"))
    assert "key on button 'Submit' was not run: it looks like a purchase or payment" in declined, declined
    (assessment,) = shop.asked
    assert assessment.target.frame == shop.pay_origin and assessment.target.context == ("Card payment",)
    assert assessment.target.action.startswith(f"GET {shop.pay_origin}/frames/pay.html"), assessment.target
    shop.asked.clear()
    # Pay now asks like any purchase, by ref and by coordinate; the person declines, then allows
    pay_now = ref_of(tree, 'button "Pay now"')
    declined = error(shop.click_ref(pay_now))
    assert "looks like a purchase or payment" in declined and "declined" in declined, declined
    (assessment,) = shop.asked
    assert assessment.target.name == "Pay now" and assessment.target.frame == shop.pay_origin
    assert any(reason.endswith(f"in a frame from {shop.pay_origin}") for reason in assessment.reasons)
    assert assessment.target.context == ("Card payment",)
    ok(shop.click_at(pay_now))
    assert [a.target.name for a in shop.asked] == ["Pay now", "Pay now"]
    assert shop.asked[1].target.frame == shop.pay_origin
    ok(shop.click_ref(ref_of(tree, 'button "Cancel"')))
    ok(shop.click_at(ref_of(tree, 'button "I agree"')))
    ok(shop.session.call("form_input", target={"type": "ref", "ref": card}, value="1111"))
    ok(
        shop.session.call(
            "file_upload",
            target={"type": "ref", "ref": ref_of(tree, 'button "Identity document"')},
            paths=[str(uploads / "a.txt")],
        )
    )
    terms = ref_of(tree, 'button "Show the terms"')
    assert 'button "Show the terms"' not in shop.read()  # below the frame's fold
    ok(shop.session.call("scroll_to", target={"type": "ref", "ref": terms}))
    assert 'button "Show the terms"' in [body for _, body, _ in lines(shop.read())]
    ok(shop.click_ref(terms))
    # the wheel over the frame scrolls the frame's page back up (in Firefox, through the frame's own context)
    ok(shop.session.call("scroll", target=shop.point(ref_of(tree, pay_line)), scroll_direction="up", scroll_amount=10))
    card_line = 'textbox "Card number" value="1111"'
    wait_until(lambda: card_line in [body for _, body, _ in lines(shop.read())], timeout=10)
    scoped = shop.read(ref=ref_of(tree, consent_line), filter="all")
    assert [body for _, body, _ in lines(scoped)][:2] == [consent_line, 'button "I agree"'], scoped

    wanted = [
        "hover on card",
        "focus on card",
        "trusted click on Pay now with card 4242 4242",
        "trusted click on Cancel",
        "file a.txt",
        "trusted click on Show the terms",
    ]
    wait_until(lambda: in_order(received(other, mark), wanted), timeout=15)
    wait_until(lambda: "consent true" in received(server, server_mark), timeout=15)
    assert "Consent given" in shop.text()


def test_a_payment_frame_of_another_site(
    driver: SeleniumDriver, server: PageServer, other: PageServer, uploads: Path
) -> None:
    run_shop_scenario(driver, server, other, uploads)


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def grid_driver(request: pytest.FixtureRequest, grid: str) -> Iterator[SeleniumDriver]:
    browser: Browser = request.param
    require_browser(browser)
    with SeleniumDriver(SeleniumConfig(browser=browser, remote_url=grid)) as remote:
        yield remote


@pytest.mark.grid
def test_a_payment_frame_of_another_site_through_a_grid(
    grid_driver: SeleniumDriver, server: PageServer, other: PageServer, uploads: Path
) -> None:
    run_shop_scenario(guarded(grid_driver), server, other, uploads)


@pytest.mark.long
def test_sandboxed_refused_and_late_frames(driver: SeleniumDriver, server: PageServer, other: PageServer) -> None:
    """The URL policy allows the first two sites, not the third (localhost), where the refused frame's page is."""
    policy = URLPolicy(allow_hosts=["127.0.0.1", "127.0.0.2"], allow_private=True)
    session = Session(BrowserToolset(driver, navigation=policy))
    mark, third = server.mark(), "http://localhost:" + server.base.rsplit(":", 1)[1]
    query = f"?other={quote(other.base, safe='')}&refused={quote(third, safe='')}&late=/slow%3Fms%3D5000"
    ok(session.call("navigate", url=server.url("frames/kinds.html") + query))
    tree = text(ok(session.call("read_page", filter="all")))
    bodies = [body for _, body, _ in lines(tree)]
    srcdoc = bodies.index(f'iframe "Sandboxed note" description="from {server.base}, sandboxed"')
    assert bodies[srcdoc + 1 : srcdoc + 4] == ["paragraph", 'text "Inside a sandbox"', 'button "Sandboxed button"']
    widget = bodies.index(f'iframe "Sandboxed widget" description="from {other.base}, sandboxed"')
    assert bodies[widget + 1] == 'button "Widget button"'
    refused = bodies.index(
        f'iframe "Refused ad" description="from {third}: blocked by the URL policy, so nothing in it is read"'
    )
    assert bodies[refused + 1].startswith('iframe "Late chat"'), tree
    assert "Secret" not in tree and "Secret" not in text(ok(session.call("get_page_text")))
    assert not any("/forbidden/" in path for _, path in server.requests_since(mark))
    ok(session.call("left_click", target={"type": "ref", "ref": ref_of(tree, 'button "Widget button"')}))
    ok(session.call("left_click", target={"type": "ref", "ref": ref_of(tree, 'button "Load the chat"')}))
    loading = f'iframe "Late chat" description="from {other.base}, still loading: read the page again shortly"'
    assert loading in [body for _, body, _ in lines(text(ok(session.call("read_page", filter="all"))))]
    loaded = f'iframe "Late chat" description="from {other.base}"'

    def chat_read() -> bool:
        now = [body for _, body, _ in lines(text(ok(session.call("read_page", filter="all"))))]
        return loaded in now and now[now.index(loaded) + 1 : now.index(loaded) + 3] == [
            "paragraph",
            'text "slow 5000 ms"',
        ]

    wait_until(chat_read, timeout=40, interval=0.5)
    assert 'button "Widget pressed"' in text(ok(session.call("read_page", filter="all")))


def test_a_page_back_from_the_cache_shows_its_frames_or_says_why_not(
    driver: SeleniumDriver, server: PageServer, other: PageServer
) -> None:
    """A page restored from the back/forward cache: Firefox gives its frames back (the driver learns them from the
    context tree, as no event announces them), Chromium's automation interface does not. Either way a frame never
    reads as empty without saying why."""
    session = Session(BrowserToolset(driver, navigation=URLPolicy(allow_private=True)))
    ok(session.call("navigate", url=shop_url(server, other, cache=True)))
    for _ in range(3):
        # Chromium's BiDi now and then never attaches a frame of another site (seen with pages the HTTP cache may
        # keep): the frame's line says so, and that a reload helps, which it does
        if "the browser gives no access to it now" not in text(ok(session.call("read_page", filter="all"))):
            break
        ok(session.call("navigate", url="reload"))
    wait_until(lambda: "I agree" in text(ok(session.call("get_page_text"))), timeout=15, interval=0.2)
    ok(session.call("navigate", url=server.url("index.html")))
    ok(session.call("navigate", url="back"))
    rows = lines(text(ok(session.call("read_page", filter="all"))))
    pay = next(index for index, (_, body, _) in enumerate(rows) if body.startswith('iframe "Payment"'))
    out_of_reach = f'iframe "Payment" description="from {other.base}: the browser gives no access to it now; reload'
    if rows[pay][1].startswith(out_of_reach):
        assert rows[pay + 1][0] <= rows[pay][0], "an unreachable frame shows nothing in it"
    else:
        assert rows[pay][1] == f'iframe "Payment" description="from {other.base}"'
        assert 'button "I agree"' in [body for _, body, _ in rows[pay + 1 :]]
    if driver.config.family == "firefox":
        assert not rows[pay][1].startswith(out_of_reach)
