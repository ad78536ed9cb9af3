"""`SeleniumDriver` input and elements on headless Chromium and Firefox: the pointer to the CSS pixel on a canvas
that records where events land, the keyboard, and the accessibility tree's elements (values, files, frames,
shadow roots), against pages served from `tests/pages/`.

Each test runs on the session's shared browser (`driver`, reset to one blank tab), on both browsers unless it is
about one: Firefox has no CDP, so only Chromium auto-repeats a held key.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from browser_toolset.driver_errors import ElementGone, InvalidValue
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.values import Point, Size
from tests.support.browsers import find, js, only, pixel
from tests.support.polling import wait_until
from tests.support.server import PageServer

# --- pointer --------------------------------------------------------------------------------------------------------


def canvas_events(driver: SeleniumDriver, handle: str, kind: str) -> list[dict[str, object]]:
    text = js(driver, handle, f"JSON.stringify(events.filter(e => e.type === '{kind}'))")
    result = json.loads(text)
    assert isinstance(result, list)
    return result


def test_clicks_land_on_the_exact_css_pixel(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    points = [(0, 0), (1, 1), (640, 400), (1279, 799), (123.6, 456.2)]
    for x, y in points:
        driver.click(tab, Point(x, y))
    clicks = canvas_events(driver, tab, "click")
    assert [(c["x"], c["y"]) for c in clicks] == [(0, 0), (1, 1), (640, 400), (1279, 799), (123, 456)]
    png = driver.capture(tab).png
    for x, y in [(1, 1), (640, 400), (123, 456)]:
        assert pixel(png, x, y) == (255, 0, 0), f"the click marker is at ({x}, {y}) in the screenshot"
        assert pixel(png, x + 1, y) == (255, 255, 255)


def test_buttons_counts_and_modifiers(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    driver.click(tab, Point(10, 10), button="right")
    driver.click(tab, Point(20, 20), button="middle")
    driver.click(tab, Point(30, 30), count=2)
    driver.click(tab, Point(40, 40), count=3)
    driver.click(tab, Point(50, 50), modifiers=["Control", "Shift"])
    downs = canvas_events(driver, tab, "mousedown")
    assert [(d["x"], d["button"]) for d in downs][:2] == [(10, 2), (20, 1)]
    assert [d["detail"] for d in downs if d["x"] == 40] == [1, 2, 3]
    assert len(canvas_events(driver, tab, "dblclick")) >= 1
    modified = next(d for d in downs if d["x"] == 50)
    assert modified["ctrl"] is True and modified["shift"] is True and modified["alt"] is False
    after = canvas_events(driver, tab, "click")[-1]
    assert after["ctrl"] is True and after["x"] == 50


def test_move_press_release_and_drag(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("canvas.html"))
    driver.move(tab, Point(300, 200))
    last = canvas_events(driver, tab, "mousemove")[-1]
    assert (last["x"], last["y"], last["buttons"]) == (300, 200, 0), "a move with no button down"
    driver.mouse_down(tab, Point(100, 100))
    driver.move(tab, Point(150, 120))
    driver.mouse_up(tab, Point(200, 140))
    down, up = canvas_events(driver, tab, "mousedown")[-1], canvas_events(driver, tab, "mouseup")[-1]
    assert (down["x"], down["y"], up["x"], up["y"]) == (100, 100, 200, 140)
    held = [m for m in canvas_events(driver, tab, "mousemove") if m["buttons"] == 1]
    assert held, "the button stays down between press and release"
    driver.drag(tab, Point(400, 400), Point(500, 450))
    moves = [m for m in canvas_events(driver, tab, "mousemove") if m["buttons"] == 1 and int(str(m["x"])) > 400]
    assert len(moves) >= 5, "a drag moves through intermediate points"
    up = canvas_events(driver, tab, "mouseup")[-1]
    assert (up["x"], up["y"]) == (500, 450)


def test_wheel_scrolls_the_page(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("wheel.html"))
    driver.wheel(tab, Point(640, 400), 0, 300)
    wait_until(lambda: js(driver, tab, "scrollY") == "300")  # the page may scroll after the wheel's events
    driver.wheel(tab, Point(640, 400), 200, -100)
    wait_until(lambda: js(driver, tab, "[scrollX, scrollY]") == "[200, 200]")
    assert js(driver, tab, "JSON.stringify(wheels[0])") == '{"x":640,"y":400,"dx":0,"dy":300}'


def test_a_hover_where_the_pointer_already_is_still_moves_it(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """A menu that closed while the pointer stayed put must reopen on the next hover at the same point."""
    driver.navigate(tab, server.url("canvas.html"))
    driver.move(tab, Point(300, 200))
    first = len(canvas_events(driver, tab, "mousemove"))
    driver.move(tab, Point(300, 200))
    moves = canvas_events(driver, tab, "mousemove")
    assert len(moves) > first
    assert (moves[-1]["x"], moves[-1]["y"]) == (300, 200)
    driver.move(tab, Point(0, 0))  # at the left edge it arrives from the right
    last = canvas_events(driver, tab, "mousemove")[-1]
    assert (last["x"], last["y"]) == (0, 0)


# --- keyboard -------------------------------------------------------------------------------------------------------


def test_type_text_and_press_keys(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    driver.type_text(tab, "Hello, wörld! 😀")
    assert js(driver, tab, "document.getElementById('name').value") == "Hello, wörld! 😀"
    driver.press_keys(tab, ["Control", "a"])
    driver.press_keys(tab, ["Backspace"])
    assert js(driver, tab, "document.getElementById('name').value") == ""
    driver.press_keys(tab, ["Shift", "a"])
    assert js(driver, tab, "document.getElementById('name').value") == "A"
    driver.press_keys(tab, ["Tab"])
    assert js(driver, tab, "document.activeElement.id") == "notes"
    driver.type_text(tab, "one\ntwo")
    assert js(driver, tab, "document.getElementById('notes').value") == "one\ntwo"


def key_log(driver: SeleniumDriver, tab: str, key: str) -> list[tuple[str, bool]]:
    """What the page saw of `key`: (event type, whether it was an auto-repeat), in order."""
    expression = f"JSON.stringify(keyLog.filter(k => k.key === {key!r}).map(k => [k.type, k.repeat]))"
    return [(str(kind), bool(repeat)) for kind, repeat in json.loads(js(driver, tab, expression))]


@only("chromium")
def test_hold_keys_auto_repeats_on_chromium(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    started = time.monotonic()
    outcome = driver.hold_keys(tab, ["x"], 1.0)
    assert time.monotonic() - started >= 1.0, "the key is held as long as asked"
    assert outcome.repeated is True
    # One press, then repeats (one per round trip to the browser, so how many depends on the machine's load), then
    # one release: what the driver sent is what the page saw, and the value is what the keyboard typed.
    seen = key_log(driver, tab, "x")
    assert seen[0] == ("keydown", False) and seen[-1] == ("keyup", False)
    repeats = seen[1:-1]
    assert len(repeats) >= 2 and set(repeats) == {("keydown", True)}, seen
    assert js(driver, tab, "document.getElementById('name').value") == "x" * (len(repeats) + 1)
    short = driver.hold_keys(tab, ["Shift"], 0.2)
    assert short.repeated is False, "no repeat before the keyboard's repeat delay"
    assert key_log(driver, tab, "Shift") == [("keydown", False), ("keyup", False)]


@only("firefox")
def test_hold_keys_never_claims_a_repeat_on_firefox(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """Firefox has no CDP, so the driver holds keys without auto-repeat, and must not claim one."""
    driver.navigate(tab, server.url("form.html"))
    field = find(driver.snapshot(tab).root, "textbox", "Name")
    driver.click(tab, driver.element_center(tab, field.key or ""))
    started = time.monotonic()
    outcome = driver.hold_keys(tab, ["x"], 0.5)
    assert time.monotonic() - started >= 0.5, "the key is held as long as asked"
    assert outcome.repeated is False
    assert key_log(driver, tab, "x") == [("keydown", False), ("keyup", False)]
    assert js(driver, tab, "document.getElementById('name').value") == "x"


# --- accessibility tree and elements ------------------------------------------------------------------------------


def test_snapshot_and_element_actions(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    snapshot = driver.snapshot(tab)
    assert snapshot.viewport == Size(1280, 800)
    name = find(snapshot.root, "textbox", "Name")
    assert name.placeholder == "Your name" and name.interactive and name.in_viewport and name.bounds
    assert name.key is not None
    assert driver.set_value(tab, name.key, "Grace") == "Grace"
    agree = find(snapshot.root, "checkbox", "I agree")
    assert agree.key is not None and "unchecked" in agree.states
    assert driver.set_value(tab, agree.key, True) == "true"
    colour = find(snapshot.root, "combobox", "Colour")
    assert colour.key is not None
    assert driver.set_value(tab, colour.key, "Blue") in ("b", "Blue")
    with pytest.raises(InvalidValue, match="Red"):
        driver.set_value(tab, colour.key, "Purple")
    values = "['name', 'agree', 'colour'].map(id => document.getElementById(id))"
    values += ".map(e => e.type === 'checkbox' ? e.checked : e.value)"
    assert js(driver, tab, values) == '["Grace", true, "b"]'
    assert js(driver, tab, "changes.join()") == "name,agree,colour"
    again = driver.snapshot(tab)
    assert again.document == snapshot.document
    assert find(again.root, "textbox", "Name").key == name.key, "keys survive re-reads"
    assert "checked" in find(again.root, "checkbox", "I agree").states
    driver.navigate(tab, server.url("form.html"))
    assert driver.snapshot(tab).document != snapshot.document
    with pytest.raises(ElementGone):
        driver.element_center(tab, name.key)
    with pytest.raises(ElementGone):
        driver.set_value(tab, name.key, "x")
    fresh = find(driver.snapshot(tab).root, "textbox", "Name")
    assert fresh.key is not None and driver.element_center(tab, fresh.key)
    js(driver, tab, "document.getElementById('name').remove()")
    with pytest.raises(ElementGone):
        driver.element_center(tab, fresh.key)


def test_scroll_into_view_and_center_of_a_far_element(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("long.html"))
    far = find(driver.snapshot(tab).root, "button", "Far button")
    assert far.key is not None and not far.in_viewport
    driver.scroll_into_view(tab, far.key)
    assert int(js(driver, tab, "scrollY")) > 0
    js(driver, tab, "scrollTo(0, 0)")
    center = driver.element_center(tab, far.key)
    assert 0 <= center.x < 1280 and 0 <= center.y < 800
    driver.click(tab, center)
    assert js(driver, tab, "document.getElementById('far').textContent") == "far clicked"


CENTRE_OF_TARGET = (
    "(() => { const r = document.getElementById('target').getBoundingClientRect(); "
    "return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); })()"
)


def test_an_element_is_measured_once_the_page_has_loaded(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """A page still loading moves its elements (here its load opens a banner above the link, as a late stylesheet
    moves what it styles): an element's point is measured once the page has loaded, so a click lands on it. Firefox
    once clicked where a link had been before its stylesheet applied."""
    # Straight through BiDi, to have the page while its image still loads (the driver's own navigate waits for it).
    loading = {"context": tab, "url": server.url("settle_loading.html"), "wait": "interactive"}
    driver._conn.command("browsingContext.navigate", loading)
    assert js(driver, tab, "document.readyState") == "interactive"
    target = find(driver.snapshot(tab).root, "link", "Target")
    point = driver.element_center(tab, target.key or "")
    assert js(driver, tab, "document.readyState") == "complete"
    x, y = json.loads(js(driver, tab, CENTRE_OF_TARGET))
    assert (point.x, point.y) == pytest.approx((x, y), abs=0.5)
    assert point.y > 300, "below the banner the load opened"
    driver.click(tab, point)
    assert wait_until(lambda: js(driver, tab, "location.hash") == "#clicked")


def test_a_click_that_navigates_answers_once_the_page_has_loaded(
    driver: SeleniumDriver, tab: str, server: PageServer
) -> None:
    """Until its load a page may still be taking its stylesheets and images, and a screenshot would show it half
    built: a click's navigation answers once the new page has loaded (here its image takes 1.5 s, and the load
    opens a banner)."""
    driver.navigate(tab, server.url("settle_from.html"))
    go = find(driver.snapshot(tab).root, "link", "To the loading page")
    driver.click(tab, driver.element_center(tab, go.key or ""))
    assert js(driver, tab, "[location.pathname, document.readyState].join(' ')") == "/settle_loading.html complete"
    assert js(driver, tab, "document.getElementById('banner').style.height") == "300px"


def test_a_moving_element_is_measured_where_it_stops(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    """An element in motion is measured where it stops: here a transition that waits 200 ms before it moves the
    link for 300 ms, so frames agree on where the link is until the transition starts."""
    driver.navigate(tab, server.url("settle_moving.html"))
    root = driver.snapshot(tab).root
    driver.click(tab, driver.element_center(tab, find(root, "button", "Move").key or ""))
    point = driver.element_center(tab, find(root, "link", "Moving").key or "")
    x, y = json.loads(js(driver, tab, CENTRE_OF_TARGET))
    assert (point.x, point.y) == pytest.approx((x, y), abs=0.5)
    assert point.y > 400, "where the transition ends, 400 px down"
    driver.click(tab, point)
    assert wait_until(lambda: js(driver, tab, "location.hash") == "#clicked")


def test_iframes_and_shadow_dom(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("iframe.html"))
    inner = find(driver.snapshot(tab).root, "button", "Inner button")
    assert inner.bounds is not None and inner.bounds.x >= 100 and inner.bounds.y >= 200, "frame offsets applied"
    driver.click(tab, driver.element_center(tab, inner.key or ""))
    assert find(driver.snapshot(tab).root, "button", "clicked")

    driver.navigate(tab, server.url("shadow.html"))
    shadow = find(driver.snapshot(tab).root, "button", "Shadow button")
    driver.click(tab, driver.element_center(tab, shadow.key or ""))
    assert js(driver, tab, "document.getElementById('out').textContent") == "shadow clicked"
    field = find(driver.snapshot(tab).root, "textbox", "Shadow field")
    assert driver.set_value(tab, field.key or "", "inside") == "inside"


def test_set_files(driver: SeleniumDriver, tab: str, server: PageServer, tmp_path: Path) -> None:
    driver.navigate(tab, server.url("form.html"))
    first, second = tmp_path / "a.txt", tmp_path / "b.csv"
    first.write_text("hello")
    second.write_text("x,y\n1,2\n")
    attachment = find(driver.snapshot(tab).root, "button", "Attachment")
    driver.set_files(tab, attachment.key or "", [str(first), str(second)])
    assert js(driver, tab, "document.getElementById('status').textContent") == "files: a.txt:5,b.csv:8"
    name = find(driver.snapshot(tab).root, "textbox", "Name")
    with pytest.raises(InvalidValue):
        driver.set_files(tab, name.key or "", [str(first)])


def test_page_text_is_the_visible_text(driver: SeleniumDriver, tab: str, server: PageServer) -> None:
    driver.navigate(tab, server.url("form.html"))
    text = driver.page_text(tab)
    assert "Sign up" in text and "keyLog" not in text
