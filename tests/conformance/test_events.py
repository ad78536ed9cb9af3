"""What pages do by themselves, as the state changes and notes of the results report it: downloads, dialogs,
console lines and requests."""

from __future__ import annotations

from typing import Any

from tests.conformance import sites
from tests.conformance.harness import Target
from tests.support.session import ok, state, text


def kinds(changes: list[dict[str, Any]]) -> list[str]:
    return [change["type"] for change in changes]


def finished(changes: list[dict[str, Any]]) -> bool:
    return any(kind in ("download_completed", "download_failed") for kind in kinds(changes))


DOWNLOADED = (["download_started", "download_completed"], ["download_completed"])
"""What a download reports over the calls that see it: started, then completed; or only completed, when the
browser reports both while one call runs (the contract's rule for a download that starts and finishes in the same
call). Which one depends on how fast the file arrives, not on the driver."""


def test_a_download_starts_and_completes(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    changes = visit.state_changes_until(visit.click('button "Get report"'), finished)
    assert kinds(changes) in DOWNLOADED
    if len(changes) == 2:
        assert changes[0] == {
            "type": "download_started",
            "download_id": "dl-1",
            "url": visit.url("/files/report.csv"),
        }
    completed = changes[-1]
    assert completed["download_id"] == "dl-1" and completed["url"] == visit.url("/files/report.csv")
    if "path" in completed:
        assert completed["path"].endswith("report.csv")
    assert completed.get("size_bytes", 18) == 18
    assert visit.tabs() == [("tab-1", "Events", sites.BASE + "/", True)]


def test_a_link_to_a_file_downloads_it_and_the_tab_stays(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    changes = visit.state_changes_until(visit.click('link "Price list"'), finished)
    assert kinds(changes) in DOWNLOADED
    assert all(change["url"] == visit.url("/prices.csv") for change in changes)
    assert changes[-1].get("size_bytes", 18) == 18
    assert visit.tabs() == [("tab-1", "Events", sites.BASE + "/", True)]
    assert 'button "Open help"' in visit.read()


def test_dialogs_are_dismissed_and_reported(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    alert = 'An alert dialog "Saved!" was dismissed.'
    assert alert in visit.notes_until(visit.click('button "Alert"'), lambda lines: alert in lines)
    confirm = 'A confirm dialog "Are you sure?" was dismissed.'
    assert confirm in visit.notes_until(visit.click('button "Delete"'), lambda lines: confirm in lines)
    assert visit.tabs() == [("tab-1", "Events", sites.BASE + "/", True)]


def test_console_lines(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    ok(visit.call("read_console"))
    visit.click('button "Log"')
    lines: list[str] = []

    def logged() -> bool:
        output = text(ok(visit.call("read_console")))
        if not output.startswith("No console entries"):
            lines.extend(output.splitlines())
        return len(lines) >= 2

    visit.until(logged)
    # the source a browser adds after each entry, " (URL)", is the driver's to give or not
    assert [line.split(" (", 1)[0] for line in lines] == ["[log] hello from the page", "[warn] careful"]


def test_requests_in_the_network_log(target: Target) -> None:
    visit = target.visit(sites.events())
    visit.go("/")
    first = text(ok(visit.call("read_network")))
    assert f"GET {visit.url('/')} 200 text/html" in first
    visit.click('button "Fetch"')
    seen: list[str] = []

    def fetched() -> bool:
        seen.extend(text(ok(visit.call("read_network"))).splitlines())
        return any(line.startswith(f"GET {visit.url('/api/cart')} 201 application/json") for line in seen)

    visit.until(fetched)
    assert state(ok(visit.call("list_tabs")))["tabs"][0]["url"] == visit.url("/")
