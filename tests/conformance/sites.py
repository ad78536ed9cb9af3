"""The sites the conformance suite visits, built fresh for each test (a test may change its site).

One description serves every driver: the mock loads it, a real browser gets it from `SiteServer`. Nothing here sets
`bounds` but the far-away elements, so layout is each driver's own.
"""

from __future__ import annotations

from browser_toolset.drivers.mock import (
    CloseTab,
    Dialog,
    Download,
    Element,
    Hide,
    Log,
    Navigate,
    OpenTab,
    Option,
    Request,
    Show,
    Site,
    Submit,
    button,
    checkbox,
    file_input,
    form,
    group,
    heading,
    link,
    paragraph,
    radio,
    searchbox,
    select,
    textarea,
    textbox,
)
from browser_toolset.drivers.mock import text as text_run

BASE = "https://shop.test"


def shop() -> Site:
    """A small shop: a home page with every common element, and the pages its links and form lead to."""
    site = Site(BASE)
    site.page(
        "/",
        "Mock Shop",
        heading("Welcome"),
        paragraph("Fine hats since 1999."),
        text_run("Free delivery on orders over 50."),
        link("About us", "/about"),
        link("Help", "/help", new_tab=True),
        form(
            searchbox("Search", id="q", placeholder="Hats, caps"),
            button("Go", Submit()),
            on_submit=[Navigate("/search?q={q}")],
            name="Search the shop",
        ),
        button("Menu", Show("menu")),
        group("generic", paragraph("Secret sale"), name="Sale", id="menu", visible=False),
        button("Sold out", states=["disabled"]),
        heading("Contact", level=2, description="Answers within a day"),
        button("Far away", bounds=(16, 3000, 160, 32)),
    )
    site.page("/about", "About", heading("About us"), paragraph("We make hats."), link("Home", "/"))
    site.page("/help", "Help", heading("Help"), paragraph("Ask us anything."))
    site.page("/search", "Results", heading("Results"), paragraph("Nothing found."))
    site.redirect("/old-about", "/about", status=301)
    site.page("/gone", "Gone", heading("This page is gone"), status=410)
    return site


def forms() -> Site:
    """Every kind of form control, on one page."""
    site = Site(BASE)
    site.page(
        "/form",
        "Sign up",
        heading("Sign up"),
        form(
            textbox("Name", id="name"),
            textbox("Email", id="email", placeholder="you@example.com", states=["required"]),
            textarea("Notes", id="notes"),
            checkbox("I agree", id="agree"),
            group("radiogroup", radio("Small", "size"), radio("Large", "size", checked=True), name="Size"),
            select("Colour", ["Red", Option("gr", "Green"), Option("bl", "Blue")], id="colour"),
            file_input("Attachment"),
            textbox("Code", "X-1", id="code", states=["readonly"]),
            button("Send", Submit()),
            on_submit=[Navigate("/sent?name={name}&colour={colour}&agree={agree}")],
            name="Sign up",
        ),
    )
    site.page("/sent", "Sent", heading("Thank you"))
    return site


def reading() -> Site:
    """Page text: a page without a main region (read in full, in order) and one with (main content first)."""
    site = Site(BASE)
    site.page(
        "/plain",
        "Plain",
        heading("Opening hours"),
        paragraph("Monday to Friday, nine to five."),
        group("list", Element("listitem", text="Saturday: ten to two"), Element("listitem", text="Sunday: closed")),
        paragraph("Not for your eyes.", visible=False),
        link("Directions", "/directions"),
        button("Call us"),
    )
    site.page(
        "/article",
        "Article",
        group("navigation", link("Home", "/"), link("Blog", "/blog"), name="Site"),
        group("main", heading("Hats through the ages"), paragraph("People have worn hats for millennia.")),
    )
    return site


def events() -> Site:
    """Things a page does by itself: tabs, downloads, dialogs, console lines, requests, hover menus."""
    site = Site(BASE)
    site.page(
        "/",
        "Events",
        button("Open help", OpenTab("/help")),
        button("Open popup", OpenTab("/popup")),
        button("Get report", Download("/files/report.csv", "report.csv", "item,price\nhat,20\n")),
        link("Price list", "/prices.csv"),
        button("Alert", Dialog("Saved!")),
        button("Delete", Dialog("Are you sure?", kind="confirm")),
        button("Log", Log("hello from the page"), Log("careful", level="warn")),
        button("Fetch", Request("/api/cart", status=201)),
        group(
            "generic",
            button("More", on_hover=[Show("extra")]),
            button("Extra", Hide("extra"), id="extra", visible=False),
        ),
    )
    site.page("/help", "Help", heading("Help"))
    site.page("/popup", "Popup", button("Close me", CloseTab()))
    site.file("/prices.csv", "item,price\ncap,10\n", "prices.csv")
    return site


def long_page() -> Site:
    """A page taller than the viewport, with an anchor to jump to."""
    site = Site(BASE)
    site.page(
        "/long",
        "Long",
        heading("Top"),
        link("Jump to the end", "#end"),
        heading("The end", id="end", bounds=(16, 2400, 400, 40)),
        button("Bottom button", Show("done"), bounds=(16, 2600, 200, 32)),
        paragraph("Bottom reached", id="done", visible=False, bounds=(16, 2500, 400, 32)),
    )
    return site
