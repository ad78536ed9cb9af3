"""The confirmation gate judges commitments on real pages (issue 16 item 4), on headless Chromium and Firefox, with
every category denied and nobody to ask. On a checkout page (a form that POSTs to /checkout), filling the name and
ticking the newsletter box run, while ticking the terms box and clicking "Place order" are held before they reach the
page, and a "Buy now" link to another page is followed. On a page whose words name no purchase, what the elements do
decides: the form's address, a link's address, the script a link runs, and what Enter submits."""

from __future__ import annotations

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.safety.confirm import ActionGate
from tests.support.server import PageServer
from tests.support.session import Session, error, ok


def gated(driver: SeleniumDriver, server: PageServer, page: str) -> Session:
    """A session on `page` whose gate denies every category, with nobody to ask."""
    gate = ActionGate(default="deny")
    toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True), confirm=gate)
    gate.lookup = toolset.describe_ref
    session = Session(toolset)
    ok(session.call("navigate", url=server.url(page)))
    return session


@pytest.fixture
def session(driver: SeleniumDriver, server: PageServer) -> Session:
    return gated(driver, server, "checkout_form.html")


def ref(session: Session, role: str, name: str) -> dict[str, str]:
    view = session.toolset.view()
    node = next(node for node in view.tree.walk() if node.role == role and node.name == name)
    found = view.ref_for(node)
    assert found is not None
    return {"type": "ref", "ref": found}


def evaluate(driver: SeleniumDriver, script: str) -> str:
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    return driver.evaluate(handle, script)


def test_16_4_fields_and_the_newsletter_box_run_and_place_order_is_held(session: Session) -> None:
    driver = session.toolset.driver
    assert isinstance(driver, SeleniumDriver)
    ok(session.call("form_input", target=ref(session, "textbox", "Name on card"), value="Ada Lovelace"))
    ok(session.call("form_input", target=ref(session, "checkbox", "Subscribe to our newsletter"), value=True))
    assert evaluate(driver, "document.querySelector('[name=newsletter]').checked") == "true"
    message = error(session.call("form_input", target=ref(session, "checkbox", "I accept the terms"), value=True))
    assert "was not run: it looks like accepting terms or giving consent" in message
    message = error(session.call("left_click", target=ref(session, "button", "Place order")))
    assert "was not run: it looks like a purchase or payment" in message
    assert evaluate(driver, "window.submitted") == "false"
    assert evaluate(driver, "document.querySelector('[name=terms]').checked") == "false"
    ok(session.call("left_click", target=ref(session, "link", "Buy now")))
    assert evaluate(driver, "location.pathname").endswith("/index.html")


def sent(driver: SeleniumDriver) -> str:
    """What the commitments page's forms and script link did, in order (each form records its submission)."""
    return evaluate(driver, "window.sent.join(',')")


def test_16_4_what_an_element_does_decides_on_a_page_whose_words_name_no_purchase(
    driver: SeleniumDriver, server: PageServer
) -> None:
    session = gated(driver, server, "commitments.html")
    message = error(session.call("left_click", target=ref(session, "button", "Continue")))
    assert "was not run: it looks like a purchase or payment ('Continue' commits a form, dialog or page" in message
    message = error(session.call("left_click", target=ref(session, "button", "OK")))
    assert "was not run: it looks like deleting something (the address it submits to performs it)" in message
    message = error(session.call("left_click", target=ref(session, "link", "Buy now")))
    assert "was not run: it looks like a purchase or payment (the element is named 'Buy now')" in message
    message = error(session.call("left_click", target=ref(session, "link", "Take it out")))
    assert "was not run: it looks like deleting something (the address it loads performs it)" in message
    assert sent(driver) == ""
    # Look-alikes run: a note saved, and typing a new line in it.
    ok(session.call("left_click", target=ref(session, "button", "Save note")))
    ok(session.call("left_click", target=ref(session, "textbox", "Note to the courier")))
    ok(session.call("key", text="Return"))
    assert sent(driver) == "note"


def test_16_4_enter_is_judged_by_what_it_submits(driver: SeleniumDriver, server: PageServer) -> None:
    session = gated(driver, server, "commitments.html")
    ok(session.call("left_click", target=ref(session, "textbox", "Card number")))
    ok(session.call("type", text="4242424242424242"))
    message = error(session.call("key", text="Return"))
    assert "key on button 'Continue' was not run: it looks like a purchase or payment" in message
    message = error(session.call("key", text="ctrl+a Return"))
    assert "key on button 'Continue' was not run" in message
    ok(session.call("left_click", target=ref(session, "searchbox", "Search the shop")))
    ok(session.call("type", text="socks"))
    ok(session.call("key", text="Return"))
    assert sent(driver) == "search"
    # Tab moves the focus from the search field to its own button: the search form is what Enter submits.
    ok(session.call("left_click", target=ref(session, "searchbox", "Search the shop")))
    ok(session.call("key", text="Tab Return"))
    assert sent(driver) == "search,search"
    assert evaluate(driver, "document.querySelector('[name=card]').value") == "4242424242424242"
