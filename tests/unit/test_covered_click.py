"""A ref click whose point another element covers is reported, not made (issue #10), on the mock driver: the
mock's topmost element at a point is the last one in document order whose box holds it, so an element with explicit
bounds placed after a button covers it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, button, group, heading
from browser_toolset.values import ElementAtPoint, Point, Rect
from tests.support.session import Session, error, ok, text

H = "mock-1"


def site() -> Site:
    site = Site(base_url="https://covered.test/")
    site.page(
        "/",
        "Covered",
        heading("Booking"),
        button("Save"),
        button("Book"),
        group(
            "dialog",
            button("Close"),
            name="Pick a date",
            bounds=Rect(0, 0, 1280, 300),
        ),
    )
    site.start = "/"
    return site


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(site()) as mock:
        yield mock


def ref(session: Session, query: str) -> dict[str, str]:
    found = text(ok(session.call("find", query=query))).splitlines()[0]
    return {"type": "ref", "ref": found.rsplit("[", 1)[1].rstrip("]")}


def test_element_at_is_the_topmost_element_and_says_what_a_click_reaches(driver: MockDriver) -> None:
    page = driver.page()
    save, close = page.element("Save"), page.element("Close")
    hit = driver.element_at(H, page.center(save), of=save.key)
    assert hit is not None
    assert (hit.role, hit.name, hit.within) == ("dialog", "Pick a date", False)
    hit = driver.element_at(H, page.center(close), of=close.key)
    assert hit is not None and (hit.key, hit.role, hit.name, hit.within) == (close.key, "button", "Close", True)
    assert hit.context == ("Pick a date",)
    assert driver.element_at(H, page.center(close)) == ElementAtPoint(close.key, "button", "Close", None, hit.context)
    assert driver.element_at(H, Point(5000, 5)) is None


def test_a_covered_ref_click_fails_naming_the_cover(driver: MockDriver) -> None:
    slept: list[float] = []
    toolset = BrowserToolset(driver, sleep=slept.append)
    session = Session(toolset)
    save = ref(session, "save button")
    cover = ref(session, "pick a date dialog")
    message = error(session.call("left_click", target=save))
    assert message == (
        f'Error: The click on {save["ref"]} would land on dialog "Pick a date" [{cover["ref"]}], which covers it. '
        f"Wait for that to go away or close it first, then click {save['ref']} again."
    )
    assert driver.calls_to("click") == []
    assert 0.4 <= sum(slept) <= 0.6, "it waited about half a second for the cover to go"
    # the close button inside the cover is not covered by it, and a button below it is reachable
    ok(session.call("left_click", target=ref(session, "close button")))
    assert len(driver.calls_to("click")) == 1


def test_a_cover_that_goes_away_while_waiting_lets_the_click_through(driver: MockDriver) -> None:
    page = driver.page()

    def fade(seconds: float) -> None:
        page.element("Pick a date").set(visible=False)

    session = Session(BrowserToolset(driver, sleep=fade))
    save = ref(session, "save button")
    ok(session.call("left_click", target=save))
    (call,) = driver.calls_to("click")
    assert call.point == page.center("Save")
