"""navigate, back / forward / reload, redirects, statuses, fragments and page-started navigations."""

from __future__ import annotations

from tests.conformance import sites
from tests.conformance.conftest import smoke
from tests.conformance.differences import history_step
from tests.conformance.harness import Target
from tests.support.session import ok, texts

REFUSED = "Error: Navigation refused. Only http and https URLs are allowed."


def navigated(visit_url: str, title: str, status: int = 200) -> str:
    return f"Navigated to {visit_url} — {title} (HTTP {status})"


@smoke
def test_navigate_reports_url_title_and_status(target: Target) -> None:
    visit = target.visit(sites.shop())
    assert texts(visit.go("/"))[0] == navigated(visit.url("/"), "Mock Shop")
    assert visit.tabs() == [("tab-1", "Mock Shop", sites.BASE + "/", True)]


def test_back_forward_and_reload(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    visit.go("/about")
    back = texts(ok(visit.call("navigate", url="back")))[0]
    assert back in history_step(target.driver_name, visit.url("/"), "Mock Shop")
    forward = texts(ok(visit.call("navigate", url="forward")))[0]
    assert forward in history_step(target.driver_name, visit.url("/about"), "About")
    assert texts(ok(visit.call("navigate", url="reload")))[0] == navigated(visit.url("/about"), "About")
    assert visit.tabs() == [("tab-1", "About", sites.BASE + "/about", True)]


def test_going_back_past_the_first_page_is_not_an_error(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    for _ in range(3):
        result = texts(ok(visit.call("navigate", url="back")))[0]
        # whether the blank page a new tab starts at is an entry of its history is the browser's choice (HTML says
        # the first navigation replaces it, as Firefox does; Chromium and the mock keep it): the tab is at one of
        # the two, and the result says which
        ((_, _, where, _),) = visit.tabs()
        assert where in ("about:blank", sites.BASE + "/")
        assert result.startswith(f"Navigated to {visit.url(where)}")
    assert texts(ok(visit.call("navigate", url="forward")))[0].startswith(f"Navigated to {visit.url('/')}")


def test_redirects_are_followed(target: Target) -> None:
    visit = target.visit(sites.shop())
    assert texts(visit.go("/old-about"))[0] == navigated(visit.url("/about"), "About")


def test_error_statuses_are_pages_too(target: Target) -> None:
    visit = target.visit(sites.shop())
    assert texts(visit.go("/gone"))[0] == navigated(visit.url("/gone"), "Gone", 410)
    assert texts(visit.go("/nowhere"))[0] == navigated(visit.url("/nowhere"), "404 Not Found", 404)
    assert visit.read(filter="all") == [
        'heading "Not Found" level=1',
        "paragraph",
        '  text "The requested URL /nowhere was not found on this server."',
    ]


def test_a_link_click_navigates(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    visit.click('link "About us"')
    assert visit.read_until(lambda lines: lines[:1] == ['heading "About us" level=1'], filter="all") == [
        'heading "About us" level=1',
        "paragraph",
        '  text "We make hats."',
        'link "Home"',
    ]
    assert visit.tabs() == [("tab-1", "About", sites.BASE + "/about", True)]


def test_a_fragment_link_keeps_the_document_and_its_refs(target: Target) -> None:
    visit = target.visit(sites.long_page())
    visit.go("/long")
    bottom = visit.ref('button "Bottom button"')
    assert 'button "Bottom button"' not in visit.read()
    visit.click('link "Jump to the end"')
    visit.read_until(lambda lines: 'heading "The end" level=1' in lines)
    assert visit.tabs()[0][2] == sites.BASE + "/long#end"
    # same document: the ref read before the jump still names the button
    ok(visit.call("left_click", target={"type": "ref", "ref": bottom}))
    visit.read_until(lambda lines: 'paragraph "Bottom reached"' in lines or '  text "Bottom reached"' in lines)


@smoke
def test_refused_schemes(target: Target) -> None:
    visit = target.visit(sites.shop())
    visit.go("/")
    for url in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"):
        assert visit.error("navigate", url=url) == REFUSED
    assert visit.tabs() == [("tab-1", "Mock Shop", sites.BASE + "/", True)]
