"""The text rules of get_page_text on the mock, where it has the notion: form fields show their values where they
are, and text parked off the page is left out (on real browsers: `tests/browser/test_text_rules_browser.py`)."""

from __future__ import annotations

from browser_toolset.drivers.mock import Element, MockDriver, Site, paragraph, select, textarea, textbox
from browser_toolset.values import Size

# --- the mock -----------------------------------------------------------------------------------------------------


def mock_text(*elements: Element) -> list[str]:
    site = Site().page("/", "Mock", *elements)
    return MockDriver(site, viewport=Size(800, 600), start_url="/").page_text("mock-1").splitlines()


def test_mock_page_text_shows_field_values_where_the_fields_are() -> None:
    lines = mock_text(
        paragraph("Before"),
        textbox("Name", "Ada"),
        textarea("Bio", "Counts\nengines"),
        select("Colour", ["Red", "Green"], value="Green"),
        textbox("Empty", placeholder="Type here"),
        paragraph("After"),
    )
    assert lines == ["Before", "Ada", "Counts", "engines", "Green", "After"]


def test_mock_page_text_leaves_out_text_parked_off_the_page() -> None:
    lines = mock_text(
        paragraph("Seen"),
        paragraph("Parked left", bounds=(-9999, 10, 200, 20)),
        paragraph("Parked above", bounds=(10, -9999, 200, 20)),
        paragraph("Far right but reachable", bounds=(3000, 10, 200, 20)),
    )
    assert lines == ["Seen", "Far right but reachable"]
