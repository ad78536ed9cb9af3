"""The mock driver on its own: every `Driver` method called directly, no executor in between."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import (
    DriverError,
    ElementGone,
    InvalidValue,
    NavigationFailed,
    NotSupported,
    TabGone,
)
from browser_toolset.drivers.mock import (
    Call,
    CloseTab,
    Dialog,
    Download,
    Element,
    Focus,
    Hide,
    Log,
    MockDriver,
    Navigate,
    OpenTab,
    Option,
    Request,
    ScriptError,
    Show,
    Site,
    SiteFormatError,
    Submit,
    Toggle,
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
    text,
    textarea,
    textbox,
)
from browser_toolset.values import (
    WHOLE_TREE,
    AXNode,
    AXSnapshot,
    ConsoleEntry,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    NavigationBlocked,
    NavigationOutcome,
    NetworkEntry,
    Point,
    Rect,
    Size,
    TabClosed,
    TabInfo,
    TabOpened,
)

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "examples" / "shop.json"
H = "mock-1"


def make_site() -> Site:
    site = Site("https://shop.test")
    site.page(
        "/",
        "Home",
        group("navigation", link("Docs", "/docs"), name="Main"),
        group(
            "main",
            heading("Welcome"),
            paragraph("Fresh shoes every day."),
            form(
                searchbox("Search", id="q"),
                button("Go", Submit()),
                on_submit=[Navigate("/search?q={q}")],
                id="search",
            ),
            link("Help", "/help", new_tab=True),
            button("Save", Log("saved"), Request("/api/save", method="POST", status=201)),
            button("Export", Download("/export.csv", content="a,b\n1,2\n")),
            button("Broken export", Download("/broken.csv", error="NETWORK_FAILED")),
            button("Delete", Dialog("Really delete?", "confirm")),
            text("Secret", visible=False, id="secret"),
            link("Old", "/old"),
        ),
        group("contentinfo", paragraph("Copyright footer")),
        on_load=[Log("home loaded", level="info")],
        scripts={"window.answer": "42", "boom()": ScriptError("ReferenceError: boom is not defined")},
    )
    site.page("/docs", "Docs", heading("Documentation"))
    site.page("/help", "Help", heading("Help"), button("Close", CloseTab()))
    site.page("/search", "Search results", heading("Results"))
    site.redirect("/old", "/new", 301)
    site.redirect("/new", "/docs")
    site.redirect("/loop", "/loop")
    site.redirect("/away", "https://evil.test/")
    site.file("/price-list.csv", "item,price\n", "prices.csv")
    site.page(
        "/form",
        "Form",
        form(
            textbox("Name", id="name"),
            textbox("Locked", "fixed", states=["readonly"]),
            textbox("Off", states=["disabled"]),
            checkbox("Gift wrap", id="gift"),
            select("Shipping", [Option("std", "Standard"), Option("exp", "Express")], id="ship"),
            radio("Card", "pay", checked=True),
            radio("Invoice", "pay"),
            textarea("Notes", id="notes"),
            file_input("Receipt"),
            button("Place order", Submit()),
            on_submit=[Navigate("/thanks?name={name}&ship={ship}&gift={gift}")],
        ),
        heading("Not a control"),
    )
    site.page("/thanks", "Thanks")
    site.page(
        "/long",
        "Long",
        heading("Top"),
        button("Far", bounds=(16, 3000, 100, 40)),
        button("Wide", bounds=(2000, 100, 100, 40)),
        button("Bottom", bounds=(16, 4000, 100, 40)),
    )
    site.page(
        "/menu",
        "Menu",
        button("Products", on_hover=[Show("submenu")]),
        group("menu", Element("menuitem", "Shoes"), id="submenu", visible=False),
        button("Hide menu", Hide("submenu")),
    )
    site.unreachable("down.test")
    return site


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    slept: list[float] = []
    with MockDriver(make_site(), start_url="/", sleep=slept.append, clock=lambda: 1000.0) as d:
        yield d


def click_on(d: MockDriver, name: str, handle: str = H, **kwargs: Any) -> None:
    d.click(handle, d.page(handle).center(name), **kwargs)


def active(d: MockDriver) -> str | None:
    """The handle of the tab the driver reports active, if any."""
    return next((tab.handle for tab in d.list_tabs() if tab.active), None)


def node(d: MockDriver, name: str, handle: str = H) -> AXNode:
    snapshot: AXSnapshot = d.snapshot(handle)
    return next(n for n in snapshot.root.walk() if n.name == name and n.key is not None)


# --- protocol and construction -------------------------------------------------------------------------------------


def test_it_is_a_driver() -> None:
    checked: Driver = MockDriver()
    assert isinstance(checked, Driver)
    assert checked.name == "mock"


def test_without_a_site_it_has_one_blank_tab() -> None:
    d = MockDriver()
    assert d.list_tabs() == [TabInfo("mock-1", "about:blank", "", active=True)]
    assert d.viewport("mock-1") == Size(1280, 800)
    assert d.snapshot("mock-1").root.children == ()
    assert d.page_text("mock-1") == ""


def test_from_options_reads_a_json_site_and_a_viewport() -> None:
    d = MockDriver.from_options({"site": str(EXAMPLE), "viewport": "1024x700", "start_url": "/checkout"})
    assert d.viewport("mock-1") == Size(1024, 700)
    assert d.list_tabs() == [TabInfo("mock-1", "https://shop.test/checkout", "Checkout", active=True)]
    assert MockDriver.from_options({"site": str(EXAMPLE)}).list_tabs()[0].url == "https://shop.test/"
    with pytest.raises(ValueError, match="unknown mock driver option 'headless'"):
        MockDriver.from_options({"headless": "true"})
    with pytest.raises(ValueError, match="mock driver option 'viewport': viewport must be WIDTHxHEIGHT"):
        MockDriver.from_options({"viewport": "big"})
    with pytest.raises(ValueError, match="each between 100 and 10000"):
        MockDriver.from_options({"viewport": "50x50"})
    assert MockDriver.from_options({"viewport": "800 × 600"}).viewport("mock-1") == Size(800, 600)


def test_the_example_site_works_end_to_end(tmp_path: Path) -> None:
    d = MockDriver.from_json(EXAMPLE, download_dir=tmp_path, sleep=lambda s: None)
    d.click(H, d.page().center("Search products"))
    d.type_text(H, "red shoes\n")
    assert d.list_tabs()[0].url == "https://shop.test/search?q=red+shoes"
    assert d.navigate(H, "https://shop.test/old-offers") == NavigationOutcome("https://shop.test/offers", 200, "Offers")
    d.navigate(H, "https://shop.test/checkout")
    d.set_value(H, node(d, "Full name").key or "", "Ada")
    d.set_value(H, node(d, "Shipping").key or "", "Express (next day)")
    click_on(d, "Place order")
    assert d.list_tabs()[0].url == "https://shop.test/thanks?name=Ada&shipping=express"
    assert [e.text for e in d.drain_console(H)][-1] == "order placed for Ada"


# --- tabs ----------------------------------------------------------------------------------------------------------


def test_open_activate_and_close_tabs(driver: MockDriver) -> None:
    assert driver.open_tab() == "mock-2"
    assert active(driver) == "mock-2"
    assert driver.list_tabs()[1] == TabInfo("mock-2", "about:blank", "", active=True)
    assert driver.open_tab() == "mock-3"
    driver.navigate("mock-3", "https://shop.test/docs")
    assert driver.list_tabs()[2] == TabInfo("mock-3", "https://shop.test/docs", "Docs", active=True)
    driver.activate_tab("mock-2")
    driver.close_tab("mock-2")
    assert driver.handles == ["mock-1", "mock-3"]
    assert active(driver) == "mock-3"  # the right-hand neighbour, as browsers do
    assert driver.drain_events() == []  # tabs the executor opened are not reported back


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.navigate("mock-9", "https://shop.test/"),
        lambda d: d.snapshot("mock-9"),
        lambda d: d.capture("mock-9"),
        lambda d: d.click("mock-9", Point(1, 1)),
        lambda d: d.type_text("mock-9", "x"),
        lambda d: d.activate_tab("mock-9"),
        lambda d: d.close_tab("mock-9"),
        lambda d: d.drain_console("mock-9"),
    ],
)
def test_a_closed_or_unknown_tab_raises_tab_gone(driver: MockDriver, call: object) -> None:
    with pytest.raises(TabGone, match="mock-9"):
        call(driver)  # type: ignore[operator]


def test_a_new_tab_link_reports_tab_opened_and_stays_in_the_background(driver: MockDriver) -> None:
    click_on(driver, "Help")
    assert driver.drain_events() == [TabOpened("mock-2", opener="mock-1")]
    assert active(driver) == "mock-1"
    assert driver.list_tabs()[1] == TabInfo("mock-2", "https://shop.test/help", "Help")
    click_on(driver, "Close", handle="mock-2")
    assert driver.drain_events() == [TabClosed("mock-2")]
    assert driver.handles == ["mock-1"]


@pytest.mark.parametrize("how", [{"button": "middle"}, {"modifiers": ["Control"]}, {"modifiers": ("Meta",)}])
def test_middle_or_modified_clicks_open_links_in_new_tabs(driver: MockDriver, how: dict[str, Any]) -> None:
    click_on(driver, "Docs", **how)
    assert driver.drain_events() == [TabOpened("mock-2", opener="mock-1")]
    assert driver.list_tabs()[0].url == "https://shop.test/"


# --- navigation and history ----------------------------------------------------------------------------------------


def test_navigate_reports_url_status_and_title(driver: MockDriver) -> None:
    assert driver.navigate(H, "https://SHOP.test/docs#intro") == NavigationOutcome(
        "https://shop.test/docs#intro", 200, "Docs"
    )


def test_an_unknown_url_is_a_404_page_not_an_error(driver: MockDriver) -> None:
    assert driver.navigate(H, "https://shop.test/nope") == NavigationOutcome(
        "https://shop.test/nope", 404, "404 Not Found"
    )
    assert "The requested URL /nope was not found" in driver.page_text(H)


def test_an_unreachable_host_fails_and_the_tab_stays(driver: MockDriver) -> None:
    with pytest.raises(NavigationFailed, match=r"down\.test is unreachable"):
        driver.navigate(H, "https://down.test/")
    assert driver.list_tabs()[0].url == "https://shop.test/"
    assert driver.drain_network(H)[-1].error == "net::ERR_NAME_NOT_RESOLVED"


def test_redirects_are_followed_and_logged(driver: MockDriver) -> None:
    driver.drain_network(H)
    assert driver.navigate(H, "https://shop.test/old") == NavigationOutcome("https://shop.test/docs", 200, "Docs")
    assert [(e.url, e.status) for e in driver.drain_network(H)] == [
        ("https://shop.test/old", 301),
        ("https://shop.test/new", 302),
        ("https://shop.test/docs", 200),
    ]
    with pytest.raises(NavigationFailed, match="redirected more than 20 times"):
        driver.navigate(H, "https://shop.test/loop")


def test_history_back_forward_reload(driver: MockDriver) -> None:
    first = driver.snapshot(H).document
    driver.navigate(H, "https://shop.test/docs")
    second = driver.snapshot(H).document
    assert second != first
    assert driver.history(H, "back") == NavigationOutcome("https://shop.test/", 200, "Home")
    assert driver.snapshot(H).document not in (first, second)
    assert driver.history(H, "forward").url == "https://shop.test/docs"
    before = driver.snapshot(H).document
    assert driver.history(H, "reload").url == "https://shop.test/docs"
    assert driver.snapshot(H).document != before
    driver.history(H, "back")
    driver.navigate(H, "https://shop.test/search")  # drops the forward entry
    unchanged = driver.snapshot(H).document
    assert driver.history(H, "forward").url == "https://shop.test/search"
    assert driver.snapshot(H).document == unchanged  # nothing to go forward to: not an error, no reload


def test_a_fragment_navigation_keeps_the_document_and_scrolls_to_the_target(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/long")
    driver.page().element("Far").set(id="far")
    document = driver.snapshot(H).document
    assert driver.navigate(H, "https://shop.test/long#far").url == "https://shop.test/long#far"
    assert driver.snapshot(H).document == document
    assert driver.page().scroll.y == 3020 - 400
    assert driver.history(H, "back").url == "https://shop.test/long"
    assert driver.snapshot(H).document == document
    driver.history(H, "reload")
    assert driver.snapshot(H).document != document


def test_going_back_from_the_first_entry_stays_put() -> None:
    d = MockDriver()
    document = d.snapshot(H).document
    assert d.history(H, "back") == NavigationOutcome("about:blank", None, "")
    assert d.snapshot(H).document == document


def test_a_url_that_serves_a_file_downloads_and_leaves_the_tab(driver: MockDriver) -> None:
    assert driver.navigate(H, "https://shop.test/price-list.csv").url == "https://shop.test/"
    started = driver.drain_events()
    assert started == [DownloadStarted("download-1", "https://shop.test/price-list.csv", "prices.csv")]
    (completed,) = driver.drain_events()
    assert isinstance(completed, DownloadCompleted)
    assert completed.path is not None
    assert Path(completed.path).read_text() == "item,price\n"


# --- the URL guard -------------------------------------------------------------------------------------------------


def test_the_guard_stops_navigations_redirects_popups_downloads_and_requests(driver: MockDriver) -> None:
    driver.set_url_guard(lambda url: "evil" not in url and "help" not in url and "export" not in url)
    assert driver.navigate(H, "https://evil.test/").url == "https://shop.test/"
    assert driver.navigate(H, "https://shop.test/away").url == "https://shop.test/"
    click_on(driver, "Help")  # a new-tab link
    click_on(driver, "Export")  # a download
    assert driver.drain_events() == [
        NavigationBlocked("https://evil.test/", "mock-1"),
        NavigationBlocked("https://evil.test/", "mock-1"),
        NavigationBlocked("https://shop.test/help", "mock-1"),
        NavigationBlocked("https://shop.test/export.csv", "mock-1"),
    ]
    assert driver.handles == ["mock-1"]
    driver.set_url_guard(lambda url: "api" not in url)
    driver.drain_network(H)
    click_on(driver, "Save")
    (request,) = driver.drain_network(H)
    assert request == NetworkEntry(
        "POST", "https://shop.test/api/save", None, error="blocked by the URL guard", timestamp=1e6
    )
    assert driver.calls_to("set_url_guard")[0].allows("https://evil.test/") is False


# --- events from clicks --------------------------------------------------------------------------------------------


def test_a_download_completes_on_a_later_drain_with_the_file_written(driver: MockDriver) -> None:
    click_on(driver, "Export")
    assert driver.drain_events() == [DownloadStarted("download-1", "https://shop.test/export.csv", "export.csv")]
    (done,) = driver.drain_events()
    assert isinstance(done, DownloadCompleted) and done.path is not None
    assert done == DownloadCompleted("download-1", "https://shop.test/export.csv", done.path, 8)
    assert Path(done.path).read_bytes() == b"a,b\n1,2\n"
    assert Path(done.path).parent == driver.download_dir
    click_on(driver, "Export")
    driver.drain_events()
    (again,) = driver.drain_events()
    assert isinstance(again, DownloadCompleted) and again.path is not None
    assert Path(again.path).name == "export (1).csv"
    directory = driver.download_dir
    driver.close()
    assert not directory.exists()


def test_a_failing_download_reports_failed(driver: MockDriver) -> None:
    click_on(driver, "Broken export")
    assert isinstance(driver.drain_events()[0], DownloadStarted)
    assert driver.drain_events() == [DownloadFailed("download-1", "https://shop.test/broken.csv", "NETWORK_FAILED")]


def test_download_timing_is_configurable() -> None:
    site = Site("https://a.test").page(
        "/",
        "A",
        button("Now", Download("/now.txt", content="x", completes_after=0)),
        button("Later", Download("/later.txt", content="y", completes_after=3)),
    )
    d = MockDriver(site, start_url="/")
    click_on(d, "Now")
    assert [type(e) for e in d.drain_events()] == [DownloadStarted, DownloadCompleted]
    click_on(d, "Later")
    assert [type(e) for e in d.drain_events()] == [DownloadStarted]
    assert d.drain_events() == []
    d.complete_downloads()
    assert [type(e) for e in d.drain_events()] == [DownloadCompleted]
    d.close()


def test_dialogs_are_dismissed_and_reported(driver: MockDriver) -> None:
    click_on(driver, "Delete")
    assert driver.drain_events() == [DialogHandled("confirm", "Really delete?", accepted=False)]


def test_console_and_network_drain_per_tab_since_the_last_drain(driver: MockDriver) -> None:
    assert driver.drain_console(H) == [ConsoleEntry("info", "home loaded", 1e6, "https://shop.test/")]
    assert driver.drain_network(H) == [NetworkEntry("GET", "https://shop.test/", 200, "text/html", None, "", 1e6)]
    click_on(driver, "Save")
    assert driver.drain_console(H) == [ConsoleEntry("log", "saved", 1e6, "https://shop.test/")]
    assert driver.drain_network(H) == [
        NetworkEntry("POST", "https://shop.test/api/save", 201, "application/json", None, "", 1e6)
    ]
    assert driver.drain_console(H) == []
    other = driver.open_tab()
    driver.navigate(other, "https://shop.test/docs")
    assert driver.drain_console(other) == []
    assert len(driver.drain_network(other)) == 1
    assert driver.drain_network(H) == []


# --- forms and keys ------------------------------------------------------------------------------------------------


def test_click_focuses_and_typing_goes_to_the_focused_field(driver: MockDriver) -> None:
    click_on(driver, "Search")
    assert "focused" in node(driver, "Search").states
    driver.type_text(H, "red shoez")
    driver.press_keys(H, ["Backspace"])
    driver.type_text(H, "s")
    assert driver.page().element("q").value == "red shoes"
    driver.press_keys(H, ["Enter"])  # submits the enclosing form
    assert driver.list_tabs()[0].url == "https://shop.test/search?q=red+shoes"


def test_enter_in_a_form_without_on_submit_clicks_its_first_button() -> None:
    site = Site("https://a.test").page(
        "/", "A", form(textbox("Query", id="q"), button("Go", Navigate("/find?q={q}")), button("Other", Log("no")))
    )
    d = MockDriver(site, start_url="/")
    click_on(d, "Query")
    d.type_text(active(d) or "", "cats\n")
    assert d.list_tabs()[0].url == "https://a.test/find?q=cats"


def test_a_page_that_keeps_redirecting_itself_stops() -> None:
    site = Site("https://a.test").page("/", "Loop", on_load=[Navigate("/")])
    d = MockDriver(site, start_url="/")
    assert d.list_tabs()[0].url == "https://a.test/"
    assert d.drain_console(H)[-1].text == "mock: too many chained page navigations"


def test_select_all_then_type_replaces(driver: MockDriver) -> None:
    click_on(driver, "Search")
    driver.type_text(H, "old")
    driver.press_keys(H, ["Control", "a"])
    driver.type_text(H, "new")
    assert driver.page().element("q").value == "new"
    driver.press_keys(H, ["Meta", "a"])
    driver.press_keys(H, ["Delete"])
    assert driver.page().element("q").value == ""
    driver.type_text(H, "abc")
    click_on(driver, "Search", count=3)  # a triple click selects the field's text too
    driver.press_keys(H, ["Shift", "x"])
    assert driver.page().element("q").value == "X"


def test_typing_with_nothing_focused_does_nothing(driver: MockDriver) -> None:
    driver.type_text(H, "hello")
    assert driver.page().element("q").value == ""


def test_tab_moves_focus_in_document_order(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    driver.press_keys(H, ["Tab"])
    assert driver.page().focused is driver.page().element("name")
    driver.type_text(H, "Ada")
    driver.press_keys(H, ["Tab"])
    assert driver.page().focused is driver.page().element("Locked")
    driver.press_keys(H, ["Shift", "Tab"])
    driver.type_text(H, "Bea")  # tabbing into a field selects its text
    assert driver.page().element("name").value == "Bea"


def test_a_textarea_takes_newlines_and_readonly_fields_ignore_typing(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    click_on(driver, "Notes")
    driver.type_text(H, "ring twice\nback door")
    assert driver.page().element("notes").value == "ring twice\nback door"
    assert driver.list_tabs()[0].url == "https://shop.test/form"
    assert node(driver, "Notes").value == "ring twice back door"  # the tree collapses whitespace
    click_on(driver, "Locked")
    driver.type_text(H, "zzz")
    assert driver.page().element("Locked").value == "fixed"


def test_set_value_on_text_checkbox_radio_and_select(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    key = {n.name: n.key or "" for n in driver.snapshot(H).root.walk()}
    assert driver.set_value(H, key["Name"], "Ada Lovelace") == "Ada Lovelace"
    assert driver.set_value(H, key["Name"], 12.0) == "12"
    assert driver.set_value(H, key["Name"], 2.5) == "2.5"
    assert driver.set_value(H, key["Gift wrap"], True) == "true"
    assert "checked" in node(driver, "Gift wrap").states
    assert driver.set_value(H, key["Shipping"], "exp") == "Express"
    assert driver.set_value(H, key["Shipping"], "standard") == "Standard"  # visible text, any case
    assert node(driver, "Shipping").value == "Standard"
    assert driver.set_value(H, key["Invoice"], True) == "true"
    assert "unchecked" in node(driver, "Card").states
    click_on(driver, "Place order")
    assert driver.list_tabs()[0].url == "https://shop.test/thanks?name=2.5&ship=std&gift=on"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("Shipping", "Overnight", '\'Overnight\' is not an option of combobox "Shipping". Its options are: '
         '"Standard" \\(value \'std\'\\), "Express" \\(value \'exp\'\\)'),
        ("Gift wrap", "yes", 'checkbox "Gift wrap" takes true or false'),
        ("Name", True, 'textbox "Name" is not a checkbox or radio button'),
        ("Not a control", "x", 'heading "Not a control" is not a form control'),
        ("Off", "x", 'textbox "Off" is disabled'),
        ("Locked", "x", 'textbox "Locked" is read-only'),
        ("Receipt", "x", "is a file input"),
    ],
)  # fmt: skip
def test_set_value_refuses_what_the_control_cannot_take(
    driver: MockDriver, name: str, value: str | bool, message: str
) -> None:
    driver.navigate(H, "https://shop.test/form")
    with pytest.raises(InvalidValue, match=message):
        driver.set_value(H, node(driver, name).key or "", value)


def test_set_files_on_a_file_input(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    driver.set_files(H, node(driver, "Receipt").key or "", ["/uploads/a.pdf", "/uploads/b.png"])
    assert driver.page().element("Receipt").files == ("/uploads/a.pdf", "/uploads/b.png")
    assert node(driver, "Receipt").value == "a.pdf, b.png"
    with pytest.raises(InvalidValue, match="not a file input"):
        driver.set_files(H, node(driver, "Name").key or "", ["/uploads/a.pdf"])


def test_clicking_and_space_toggle_checkboxes(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    click_on(driver, "Gift wrap")
    assert driver.page().element("gift").checked is True
    driver.press_keys(H, [" "])
    assert driver.page().element("gift").checked is False
    click_on(driver, "Gift wrap", count=2)
    assert driver.page().element("gift").checked is False
    click_on(driver, "Invoice")
    assert [driver.page().element(n).checked for n in ("Card", "Invoice")] == [False, True]


def test_behaviours_toggle_focus_show_and_hide_by_id(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/form")
    driver.page().run(Toggle("gift"), Focus("notes"))
    assert driver.page().element("gift").checked is True
    assert driver.page().focused is driver.page().element("notes")
    driver.navigate(H, "https://shop.test/menu")
    assert not node(driver, "Shoes").visible
    driver.move(H, driver.page().center("Products"))  # hovering reveals the menu
    assert node(driver, "Shoes").visible
    click_on(driver, "Hide menu")
    assert not node(driver, "Shoes").visible


def test_mouse_down_and_up_on_one_element_clicks_but_a_drag_away_does_not(driver: MockDriver) -> None:
    save = driver.page().center("Save")
    driver.mouse_down(H, save)
    driver.mouse_up(H, save)
    assert [e.text for e in driver.drain_console(H)] == ["home loaded", "saved"]
    driver.drag(H, save, driver.page().center("Welcome"))
    assert driver.drain_console(H) == []


def test_hold_keys_uses_the_injected_sleep_and_does_not_repeat() -> None:
    slept: list[float] = []
    d = MockDriver(sleep=slept.append)
    assert d.hold_keys(H, ["Shift", "a"], 2.5).repeated is False
    assert slept == [2.5]


# --- the accessibility tree ----------------------------------------------------------------------------------------


def test_snapshot_keys_are_stable_while_the_document_lives(driver: MockDriver) -> None:
    first = driver.snapshot(H)
    second = driver.snapshot(H)
    assert first == second
    keys = [n.key for n in first.root.walk() if n.key]
    assert len(keys) == len(set(keys))
    save = driver.page().element("Save")
    save.set(name="Saved", role="link")
    renamed = node(driver, "Saved")
    assert (renamed.key, renamed.role) == (save.key, "link")
    assert driver.snapshot(H).document == first.document
    save.remove()
    with pytest.raises(ElementGone):
        driver.element_center(H, save.key)
    added = driver.page().add(button("New"), parent="search")
    assert node(driver, "New").key == added[0].key != save.key
    old_key = node(driver, "Welcome").key or ""
    driver.history(H, "reload")
    assert driver.snapshot(H).document != first.document
    with pytest.raises(ElementGone):
        driver.scroll_into_view(H, old_key)
    assert node(driver, "Welcome").key != old_key


def test_snapshot_reports_roles_states_text_runs_and_hidden_elements(driver: MockDriver) -> None:
    root = driver.snapshot(H).root
    assert (root.role, root.name, root.bounds) == ("document", "Home", Rect(0, 0, 1280, 800))
    paragraph_node = next(n for n in root.walk() if n.role == "paragraph")
    assert paragraph_node.children == (AXNode("text", "Fresh shoes every day.", bounds=paragraph_node.bounds),)
    secret = next(n for n in root.walk() if n.name == "Secret")
    assert (secret.role, secret.key, secret.visible, secret.in_viewport, secret.bounds) == (
        "text", None, False, False, None
    )  # fmt: skip
    assert node(driver, "Docs").interactive and not node(driver, "Welcome").interactive
    assert node(driver, "Welcome").level == 1
    driver.navigate(H, "https://shop.test/form")
    shipping = node(driver, "Shipping")
    assert [(o.role, o.name, o.states, o.visible) for o in shipping.children] == [
        ("option", "Standard", ("selected",), False),
        ("option", "Express", (), False),
    ]
    assert node(driver, "Off").states == ("disabled",) and not node(driver, "Off").interactive
    assert node(driver, "Card").states == ("checked",)


def test_elements_without_bounds_are_stacked_in_rows() -> None:
    d = MockDriver(Site().page("/", "Rows", button("One"), button("Two"), textbox("Three")), start_url="/")
    one, two, three = d.snapshot(H).root.children
    assert [n.bounds.y for n in (one, two, three) if n.bounds] == [16, 56, 96]
    assert three.bounds == Rect(16, 96, 320, 32)


def test_in_viewport_follows_scrolling(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/long")
    far = node(driver, "Far")
    assert (far.visible, far.in_viewport, far.bounds) == (True, False, Rect(16, 3000, 100, 40))
    driver.wheel(H, Point(100, 100), 0, 2500)
    far = node(driver, "Far")
    assert far.in_viewport and far.bounds == Rect(16, 500, 100, 40)
    assert not node(driver, "Top").in_viewport


# --- geometry: scrolling and pointing ------------------------------------------------------------------------------


def test_wheel_scrolling_is_clamped_to_the_page(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/long")
    driver.wheel(H, Point(10, 10), -50, 99999)
    assert driver.page().scroll == Point(0, 4040 + 16 - 800)
    driver.wheel(H, Point(10, 10), 99999, -99999)
    assert driver.page().scroll == Point(2100 + 16 - 1280, 0)
    driver.press_keys(H, ["End"])
    assert driver.page().scroll.y == 3256
    driver.press_keys(H, ["PageUp"])
    assert driver.page().scroll.y == 3256 - 700
    driver.press_keys(H, ["Home"])
    assert driver.page().scroll.y == 0


def test_element_center_scrolls_into_view_first(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/long")
    key = node(driver, "Far").key or ""
    center = driver.element_center(H, key)
    assert driver.page().scroll.y == 3020 - 400
    assert center == Point(66, 400)
    driver.click(H, center)
    assert driver.page().focused is driver.page().element("Far")
    assert driver.element_center(H, key) == center  # already in view: no further scrolling


def test_hidden_elements_have_no_centre(driver: MockDriver) -> None:
    secret = driver.page().element("secret")
    with pytest.raises(ElementGone):
        driver.element_center(H, "e9999")
    with pytest.raises(DriverError, match="hidden"):
        driver.element_center(H, secret.key)


def test_points_outside_the_viewport_are_refused(driver: MockDriver) -> None:
    with pytest.raises(DriverError, match="outside the 1280x800 viewport"):
        driver.click(H, Point(1280, 10))


# --- capture -------------------------------------------------------------------------------------------------------


def pixels(d: MockDriver) -> Image.Image:
    capture = d.capture(H)
    image = Image.open(io.BytesIO(capture.png))
    assert image.format == "PNG"
    assert image.size == (capture.viewport.width, capture.viewport.height)
    return image.convert("RGB")


def test_capture_is_a_png_of_the_viewport_with_boxes_where_elements_are() -> None:
    site = Site().page("/", "Boxes", button("Target", bounds=(100, 200, 80, 40)))
    d = MockDriver(site, viewport=Size(640, 480), start_url="/")
    image = pixels(d)
    assert image.size == (640, 480)
    assert image.getpixel((100, 220)) != (255, 255, 255)  # the left edge of the box
    assert image.getpixel((179, 220)) != (255, 255, 255)  # the right edge
    assert image.getpixel((300, 300)) == (255, 255, 255)  # empty page
    d.wheel(H, Point(1, 1), 0, 100)  # the page is only 480 + 0 tall: nothing to scroll
    assert d.page().scroll == Point(0, 0)


def test_capture_follows_the_scroll_offset(driver: MockDriver) -> None:
    driver.navigate(H, "https://shop.test/long")
    assert pixels(driver).getpixel((16, 700)) == (255, 255, 255)
    driver.wheel(H, Point(1, 1), 0, 2400)
    assert pixels(driver).getpixel((16, 620)) != (255, 255, 255)


# --- text and scripting --------------------------------------------------------------------------------------------


def test_page_text_puts_main_first_and_leaves_out_hidden_and_peripheral_text(driver: MockDriver) -> None:
    lines = driver.page_text(H).splitlines()
    assert lines[:3] == ["Welcome", "Fresh shoes every day.", "Go"]
    assert "Secret" not in lines and "Copyright footer" not in lines and "Docs" not in lines
    driver.navigate(H, "https://shop.test/long")
    assert driver.page_text(H) == "Top\nFar\nWide\nBottom"


def test_evaluate_knows_a_few_properties_literals_and_canned_scripts(driver: MockDriver) -> None:
    assert driver.evaluate(H, "document.title") == "Home"
    assert driver.evaluate(H, "window.location.href;") == "https://shop.test/"
    assert driver.evaluate(H, "1 + 2 * 3") == "7"
    assert driver.evaluate(H, "7 / 2") == "3.5"
    assert driver.evaluate(H, "-1 / 0") == "-Infinity"
    assert driver.evaluate(H, "'a' + 1") == "a1"
    assert driver.evaluate(H, "true") == "true"
    assert driver.evaluate(H, "null") == "null"
    assert driver.evaluate(H, "window.answer") == "42"
    with pytest.raises(DriverError, match="ReferenceError: boom is not defined"):
        driver.evaluate(H, "boom()")
    with pytest.raises(NotSupported, match="no JavaScript engine"):
        driver.evaluate(H, "document.querySelector('h1').textContent")


# --- recorded calls ------------------------------------------------------------------------------------------------


def test_every_call_is_recorded_with_its_defaults() -> None:
    d = MockDriver(Site().page("/", "A", button("B")), start_url="/")
    d.click(H, Point(10, 20), modifiers=["Shift"])
    assert d.calls[-1] == Call("click", handle=H, point=Point(10, 20), button="left", count=1, modifiers=("Shift",))
    assert d.calls[-1].point == Point(10, 20)
    assert d.calls[-1].matches("click", modifiers=["Shift"])
    assert not d.calls[-1].matches("click", button="right")
    with pytest.raises(TabGone):
        d.snapshot("mock-7")
    assert d.calls[-1] == Call("snapshot", handle="mock-7", request=WHOLE_TREE)  # failing calls are recorded too
    assert [c.method for c in d.calls] == ["click", "snapshot"]
    assert d.calls_to("snapshot") == [Call("snapshot", handle="mock-7", request=WHOLE_TREE)]
    assert repr(d.calls[0]).startswith("Call('click', handle='mock-1', point=Point(x=10, y=20)")
    with pytest.raises(AttributeError, match="no argument 'url'"):
        _ = d.calls[0].url


# --- sites -----------------------------------------------------------------------------------------------------------


def test_live_page_helpers_run_behaviours_as_the_page(driver: MockDriver) -> None:
    page = driver.page()
    page.run(OpenTab("/docs"), Log("from script", level="warn"))
    assert driver.drain_events() == [TabOpened("mock-2", "mock-1")]
    assert driver.drain_console(H)[-1] == ConsoleEntry("warn", "from script", 1e6, "https://shop.test/")
    page.title = "Renamed"
    assert driver.list_tabs()[0].title == "Renamed"
    page.run(Navigate("/docs"))
    assert page.url == "https://shop.test/docs"  # the page handle follows the tab
    with pytest.raises(LookupError, match="no element with id or name 'Nope'"):
        page.element("Nope")
    with pytest.raises(TypeError, match="cannot set 'children'"):
        page.element("Documentation").set(children=())


def test_a_page_started_navigation_to_an_unreachable_host_shows_an_error_page(driver: MockDriver) -> None:
    driver.page().run(Navigate("https://down.test/x"))
    assert driver.list_tabs()[0] == TabInfo("mock-1", "https://down.test/x", "down.test", active=True)
    assert "This site can't be reached" in driver.page_text(H)


def test_json_sites_name_the_entry_that_is_wrong(tmp_path: Path) -> None:
    bad = {"pages": {"/": {"elements": [{"role": "button", "on_click": [{"navigate": "/a", "log": "x"}]}]}}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(SiteFormatError, match=r"pages\['/'\]\.elements\[0\]\.on_click\[0\]: a behaviour names"):
        Site.from_json(path)
    with pytest.raises(SiteFormatError, match=r"elements\[0\]: unknown key 'nmae'"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "button", "nmae": "x"}]}}})
    with pytest.raises(SiteFormatError, match=r"elements\[0\]\.visible: expected bool"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "button", "visible": "no"}]}}})
    with pytest.raises(SiteFormatError, match=r"on_click\[0\]\.toggle: expected str, got 1"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "button", "on_click": [{"toggle": 1}]}]}}})
    with pytest.raises(SiteFormatError, match=r"on_click\[0\]\.content: expected str, got 3"):
        Site.from_dict(
            {"pages": {"/": {"elements": [{"role": "button", "on_click": [{"download": "/f", "content": 3}]}]}}}
        )
    with pytest.raises(SiteFormatError, match=r"pages\['/r'\]\.status: expected int"):
        Site.from_dict({"pages": {"/r": {"redirect": "/", "status": "301"}}})
    with pytest.raises(SiteFormatError, match="needs a role"):
        Site.from_dict({"pages": {"/": {"elements": [{"name": "x"}]}}})


def test_json_and_python_sites_agree() -> None:
    from_json = Site.from_dict(
        {
            "base_url": "https://a.test",
            "pages": {
                "/": {
                    "title": "A",
                    "elements": [
                        {
                            "role": "button",
                            "name": "Go",
                            "bounds": [1, 2, 3, 4],
                            "on_click": ["submit", {"toggle": "x"}],
                        },
                        {"role": "combobox", "name": "C", "options": ["x", {"value": "y", "text": "Why"}]},
                    ],
                },
                "/r": {"redirect": "/", "status": 301},
                "/f": {"file": {"content": "hi", "filename": "f.txt"}},
            },
        }
    )
    by_hand = (
        Site("https://a.test")
        .page(
            "/",
            "A",
            button("Go", Submit(), Toggle("x"), bounds=(1, 2, 3, 4)),
            select("C", ["x", Option("y", "Why")]),
        )
        .redirect("/r", "/", 301)
        .file("/f", "hi", "f.txt")
    )
    assert from_json == by_hand
