"""The confirmation gate judges commitments on real pages (issue 16 item 4), on headless Chromium and Firefox: on a
checkout page (a form that POSTs to /checkout), with every category denied and nobody to ask, filling the name and
ticking the newsletter box run, while ticking the terms box and clicking "Place order" are held before they reach the
page, and a "Buy now" link to another page is followed."""

from __future__ import annotations

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.safety.confirm import ActionGate
from tests.support.server import PageServer
from tests.support.session import Session, error, ok


@pytest.fixture
def session(driver: SeleniumDriver, server: PageServer) -> Session:
    gate = ActionGate(default="deny")
    toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True), confirm=gate)
    gate.lookup = toolset.describe_ref
    session = Session(toolset)
    ok(session.call("navigate", url=server.url("checkout_form.html")))
    return session


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
