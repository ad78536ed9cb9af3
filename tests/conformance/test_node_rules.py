"""Element details in a line, the same on every driver: a textarea is `multiline`, a typed field says its type and
the format its value takes, the states a field carries (required, read-only, invalid), and a long value is cut on a
page read but whole on a read of its ref (up to the most a scoped read shows, and it says so beyond that)."""

from __future__ import annotations

from browser_toolset.drivers.mock import Site, form, heading, textarea, textbox, typed_field
from browser_toolset.executor.tree_text import FULL_VALUE_MAX
from tests.conformance.harness import Target
from tests.support.session import ok, text

BASE = "https://node-rules.test/"
ESSAY = " ".join(f"word-{i:03d}" for i in range(1, 41))
LOG = "0123456789" * 1200


def fields() -> Site:
    site = Site(BASE)
    site.page(
        "/fields",
        "Fields",
        heading("Booking"),
        form(
            textbox("Guest", "Ada"),
            typed_field("Arrival", "date", "2026-12-24"),
            typed_field("Birthday", "date", states=("required",)),
            typed_field("Check-in time", "time"),
            typed_field("Meeting", "datetime-local"),
            typed_field("Nights", "number", "3"),
            typed_field("Email", "email", "not an address"),
            typed_field("Phone", "tel"),
            typed_field("Website", "url"),
            typed_field("Colour", "color", "#336699"),
            typed_field("Volume", "range", "3"),
            textbox("Member", "Grace", states=("readonly",)),
            textbox("Code", states=("invalid",)),
            textarea("Requests", ESSAY),
            textarea("Log", LOG),
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
        '  textbox "Birthday" type=date format=yyyy-mm-dd required',
        '  textbox "Check-in time" type=time format=hh:mm',
        '  textbox "Meeting" type=datetime-local format=yyyy-mm-ddThh:mm',
        '  spinbutton "Nights" type=number value="3"',
        # a value the page put there is not the user's mistake: no `invalid` for it
        '  textbox "Email" type=email value="not an address"',
        '  textbox "Phone" type=tel',
        '  textbox "Website" type=url',
        '  button "Colour" type=color format=#rrggbb value="#336699"',
        '  slider "Volume" type=range value="3"',
        '  textbox "Member" value="Grace" readonly',
        '  textbox "Code" invalid',
        f'  textbox "Requests" value="{ESSAY[:98]}…" (value cut, 359 characters: read_page with this ref shows it in '
        "full) multiline",
        f'  textbox "Log" value="{LOG[:99]}…" (value cut, 12,000 characters: read_page with this ref shows it up to '
        "10,000 characters) multiline",
    ]


def test_a_long_value_reads_whole_through_its_ref(target: Target) -> None:
    visit = target.visit(fields())
    visit.go("/fields")
    ref = visit.ref('textbox "Requests"')
    assert text(ok(visit.call("read_page", ref=ref))) == f'textbox "Requests" value="{ESSAY}" multiline [{ref}]'
    # longer than a scoped read shows: cut there too, at the limit, saying so
    log = visit.ref('textbox "Log"')
    shown = LOG[: FULL_VALUE_MAX - 1] + "…"
    assert text(ok(visit.call("read_page", ref=log))) == (
        f'textbox "Log" value="{shown}" (value cut at 10,000 of 12,000 characters) multiline [{log}]'
    )
