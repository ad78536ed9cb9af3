"""A ref click whose point another element covers is reported, not made (issue #10), on headless Chromium and
Firefox: a fixed overlay over a button, a button inside the overlay, a checkbox under its own label, an overlay
that fades out while the click waits; and `Driver.element_at` itself, which the checks rest on. Each test runs on
the session's shared browsers (`driver`, tests/browser/conftest.py)."""

from __future__ import annotations

import json

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.safety.confirm import ActionGate
from browser_toolset.values import Point
from tests.support.browsers import find
from tests.support.server import PageServer
from tests.support.session import Session, error, ok, text


@pytest.fixture
def session(driver: SeleniumDriver, server: PageServer) -> Session:
    session = Session(BrowserToolset(driver, navigation=URLPolicy(allow_private=True)))
    ok(session.call("navigate", url=server.url("covered.html")))
    return session


def ref(session: Session, query: str) -> dict[str, str]:
    found = text(ok(session.call("find", query=query))).splitlines()[0]
    return {"type": "ref", "ref": found.rsplit("[", 1)[1].rstrip("]")}


def clicked(driver: SeleniumDriver) -> list[str]:
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    return list(json.loads(driver.evaluate(handle, "JSON.stringify(window.clicked)")))


def test_element_at_names_the_topmost_element_and_what_a_click_reaches(session: Session) -> None:
    driver = session.toolset.driver
    assert isinstance(driver, SeleniumDriver)
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    root = driver.snapshot(handle).root
    save, close, agree = find(root, "button", "Save"), find(root, "button", "Close"), find(root, "checkbox", "Agree")
    assert save.key and close.key and agree.key
    hit = driver.element_at(handle, driver.element_center(handle, save.key), of=save.key)
    assert hit is not None and (hit.role, hit.name, hit.within) == ("dialog", "Pick a date", False)
    hit = driver.element_at(handle, driver.element_center(handle, close.key), of=close.key)
    assert hit is not None and (hit.key, hit.role, hit.name, hit.within) == (close.key, "button", "Close", True)
    assert hit.context == ("Pick a date",)
    # the checkbox's centre is under its label's text box: a click there reaches it through the label
    hit = driver.element_at(handle, driver.element_center(handle, agree.key), of=agree.key)
    assert hit is not None and hit.within is True
    assert driver.element_at(handle, Point(5, 5)) is not None


def test_a_covered_ref_click_fails_naming_the_cover_and_nothing_is_clicked(session: Session) -> None:
    driver = session.toolset.driver
    assert isinstance(driver, SeleniumDriver)
    save = ref(session, "Save button")
    message = error(session.call("left_click", target=save))
    assert message.startswith(f'Error: The click on {save["ref"]} would land on dialog "Pick a date"'), message
    assert message.endswith(
        f"which covers it. Wait for that to go away or close it first, then click {save['ref']} again."
    )
    ok(session.call("left_click", target=ref(session, "Free button")))
    ok(session.call("left_click", target=ref(session, "Close button")))
    ok(session.call("left_click", target=ref(session, "Agree checkbox")))
    assert clicked(driver) == ["free", "close", "agree"]


def test_a_cover_fading_out_is_waited_for(session: Session) -> None:
    driver = session.toolset.driver
    assert isinstance(driver, SeleniumDriver)
    save = ref(session, "Save button")
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    assert driver.evaluate(handle, "window.fadePicker()") == "fading"
    ok(session.call("left_click", target=save))
    assert clicked(driver) == ["save"]


def test_a_coordinate_click_on_a_delete_button_is_held_like_a_ref_click(
    driver: SeleniumDriver, server: PageServer
) -> None:
    """The confirm gate judges a coordinate click by the element under the point (here the button's inner span,
    described as the button), mapped from screenshot pixels exactly as the click would be."""
    gate = ActionGate(default="deny")
    toolset = BrowserToolset(driver, navigation=URLPolicy(allow_private=True), confirm=gate)
    gate.lookup = toolset.describe_ref
    session = Session(toolset)
    ok(session.call("navigate", url=server.url("covered.html")))
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    button = find(driver.snapshot(handle).root, "button", "Delete account")
    assert button.key
    x, y = toolset.frame().to_image(driver.element_center(handle, button.key))
    held = error(session.call("left_click", target={"type": "coordinate", "x": x, "y": y}))
    assert held.startswith("Error: left_click on button 'Delete account' was not run: it looks like deleting"), held
    by_ref = error(session.call("left_click", target=ref(session, "Delete account button")))
    assert by_ref == held
    free = find(driver.snapshot(handle).root, "button", "Free")
    assert free.key
    x, y = toolset.frame().to_image(driver.element_center(handle, free.key))
    ok(session.call("left_click", target={"type": "coordinate", "x": x, "y": y}))
    assert clicked(driver) == ["free"]


@pytest.mark.parametrize(
    ("page", "role", "name"),
    [("iframe.html", "button", "Inner button"), ("shadow.html", "button", "Shadow button")],
)
def test_element_at_descends_into_frames_and_shadow_roots(
    driver: SeleniumDriver, server: PageServer, page: str, role: str, name: str
) -> None:
    handle = next(tab.handle for tab in driver.list_tabs() if tab.active)
    driver.navigate(handle, server.url(page))
    node = find(driver.snapshot(handle).root, role, name)
    assert node.key
    hit = driver.element_at(handle, driver.element_center(handle, node.key), of=node.key)
    assert hit is not None and (hit.key, hit.role, hit.name, hit.within) == (node.key, role, name, True)
