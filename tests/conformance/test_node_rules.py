"""Element details in a line, the same on every driver: a textarea is `multiline`, a typed field says its type and
the format its value takes, and a long value is cut on a page read but whole on a read of its ref."""

from __future__ import annotations

from browser_toolset.drivers.mock import Site, form, heading, textarea, textbox, typed_field
from tests.conformance.harness import Target
from tests.support.session import ok, text

BASE = "https://node-rules.test/"
ESSAY = " ".join(f"word-{i:03d}" for i in range(1, 41))


def fields() -> Site:
    site = Site(BASE)
    site.page(
        "/fields",
        "Fields",
        heading("Booking"),
        form(
            textbox("Guest", "Ada"),
            typed_field("Arrival", "date", "2026-12-24"),
            typed_field("Check-in time", "time"),
            typed_field("Nights", "number", "3"),
            typed_field("Email", "email"),
            typed_field("Colour", "color", "#336699"),
            textarea("Requests", ESSAY),
            name="Booking",
        ),
    )
    return site


def test_fields_say_their_kind_and_value_format(target: Target) -> None:
    visit = target.visit(fields())
    visit.go("/fields")
    assert visit.read(filter="all") == [
        'heading "Booking" level=1',
        'form "Booking"',
        '  textbox "Guest" value="Ada"',
        '  textbox "Arrival" type=date format=yyyy-mm-dd value="2026-12-24"',
        '  textbox "Check-in time" type=time format=hh:mm',
        '  spinbutton "Nights" type=number value="3"',
        '  textbox "Email" type=email',
        '  button "Colour" type=color format=#rrggbb value="#336699"',
        f'  textbox "Requests" value="{ESSAY[:98]}…" (value cut, 359 characters: read_page with this ref shows it in '
        "full) multiline",
    ]


def test_a_long_value_reads_whole_through_its_ref(target: Target) -> None:
    visit = target.visit(fields())
    visit.go("/fields")
    ref = visit.ref('textbox "Requests"')
    assert text(ok(visit.call("read_page", ref=ref))) == f'textbox "Requests" value="{ESSAY}" multiline [{ref}]'
