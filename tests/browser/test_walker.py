"""Focused tests of the in-page walker (`drivers/selenium/walker.js`) in headless Chromium: roles, states, visibility,
keys, shadow DOM, iframes, page text, setValue, center/scrollIntoView, plus a timing print for a 5,000-element page.

Pages are served from memory on 127.0.0.1; elements under test carry `data-testname`, which the walker's `inspect`
op reports, so a test can map a name to its element key and then find that key in a snapshot.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.server import serve
from tests.support.walker import WALKER_SOURCE, WalkerBrowser

Node = dict[str, Any]

FRAME_CHILD = """<!doctype html><title>child</title><style>body{margin:0}</style>
<button data-testname="in-frame" style="margin:10px">Inside</button>
<p>Frame text</p>"""

PAGES: dict[str, str] = {}


def page(path: str, body: str, title: str = "Test", head: str = "") -> str:
    PAGES[path] = f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    return path


ROLES = page(
    "/roles",
    """
<a data-testname="link" href="/x">Link</a>
<a data-testname="anchor">Anchor</a>
<button data-testname="button">Button</button>
<input data-testname="text">
<input data-testname="search" type="search">
<input data-testname="email-list" type="email" list="dl"><datalist id="dl"><option value="a@b"></datalist>
<input data-testname="checkbox" type="checkbox">
<input data-testname="radio" type="radio">
<input data-testname="number" type="number">
<input data-testname="range" type="range">
<input data-testname="submit" type="submit">
<input data-testname="image" type="image" alt="Go">
<select data-testname="select"><option data-testname="option">A</option></select>
<select data-testname="select-multiple" multiple><option>A</option></select>
<select data-testname="select-size" size="3"><option>A</option></select>
<textarea data-testname="textarea"></textarea>
<h3 data-testname="h3">Heading</h3>
<div data-testname="aria-heading" role="heading" aria-level="5">Heading</div>
<img data-testname="img" alt="Pic" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<img data-testname="img-decorative" alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<header data-testname="banner">Top</header>
<nav data-testname="nav">Nav</nav>
<main data-testname="main">
  <article><header data-testname="article-header">Article top</header>
  <footer data-testname="article-footer">Article end</footer></article>
</main>
<aside data-testname="aside">Aside</aside>
<section data-testname="section">Plain section</section>
<section data-testname="region" aria-label="Named">Named section</section>
<form data-testname="form-unnamed"></form>
<form data-testname="form" aria-label="Search"></form>
<ul data-testname="ul"><li data-testname="li">One</li></ul>
<ol data-testname="ol"><li>One</li></ol>
<table data-testname="table">
  <thead><tr data-testname="tr"><th data-testname="th-col">H</th><th>H2</th></tr></thead>
  <tr><th data-testname="th-row">R</th><td data-testname="td">D</td></tr>
</table>
<dialog data-testname="dialog" open>Dialog</dialog>
<details data-testname="details"><summary data-testname="summary">More</summary>Body</details>
<fieldset data-testname="fieldset"><legend>Legend</legend></fieldset>
<progress data-testname="progress" value="3" max="10"></progress>
<meter data-testname="meter" value="0.5"></meter>
<output data-testname="output">5</output>
<hr data-testname="hr">
<p data-testname="p">Para</p>
<div data-testname="div">Div</div>
<div data-testname="explicit" role="bogus button link">Explicit</div>
<div data-testname="presentation-focusable" role="presentation" tabindex="0">Focusable</div>
<span data-testname="presentation" role="presentation">Presentational</span>
<div data-testname="editable" contenteditable="true">Edit me</div>
""",
)

EXPECTED_ROLES = {
    "link": "link",
    "anchor": "generic",
    "button": "button",
    "text": "textbox",
    "search": "searchbox",
    "email-list": "combobox",
    "checkbox": "checkbox",
    "radio": "radio",
    "number": "spinbutton",
    "range": "slider",
    "submit": "button",
    "image": "button",
    "select": "combobox",
    "option": "option",
    "select-multiple": "listbox",
    "select-size": "listbox",
    "textarea": "textbox",
    "h3": "heading",
    "aria-heading": "heading",
    "img": "img",
    "img-decorative": "none",
    "banner": "banner",
    "nav": "navigation",
    "main": "main",
    "article-header": "generic",
    "article-footer": "generic",
    "aside": "complementary",
    "section": "generic",
    "region": "region",
    "form-unnamed": "generic",
    "form": "form",
    "ul": "list",
    "li": "listitem",
    "ol": "list",
    "table": "table",
    "tr": "row",
    "th-col": "columnheader",
    "th-row": "rowheader",
    "td": "cell",
    "dialog": "dialog",
    "details": "group",
    "summary": "button",
    "fieldset": "group",
    "progress": "progressbar",
    "meter": "meter",
    "output": "status",
    "hr": "separator",
    "p": "paragraph",
    "div": "generic",
    "explicit": "button",
    "presentation-focusable": "generic",
    "presentation": "none",
    "editable": "textbox",
}

STATES = page(
    "/states",
    """
<input data-testname="checked" type="checkbox" checked aria-label="a">
<input data-testname="unchecked" type="checkbox" aria-label="b">
<input data-testname="indeterminate" type="checkbox" aria-label="c">
<div data-testname="aria-mixed" role="checkbox" aria-checked="mixed" tabindex="0">d</div>
<div data-testname="aria-switch" role="switch" tabindex="0">e</div>
<button data-testname="pressed" aria-pressed="true">f</button>
<button data-testname="expanded" aria-expanded="true">g</button>
<button data-testname="collapsed" aria-expanded="false">h</button>
<details open><summary data-testname="summary-open">i</summary>x</details>
<fieldset disabled><input data-testname="fieldset-disabled" aria-label="j"></fieldset>
<div aria-disabled="true"><button data-testname="aria-disabled-inherited">k</button></div>
<input data-testname="readonly-required" readonly required aria-label="l">
<input data-testname="invalid" aria-invalid="true" aria-label="m">
<select data-testname="multiselectable" multiple aria-label="n">
  <option selected data-testname="selected">o</option></select>
<div role="tablist"><div data-testname="tab" role="tab" aria-selected="true">p</div></div>
<dialog data-testname="modal">Modal</dialog>
<h4 data-testname="h4">Level four</h4>
<div data-testname="aria-level" role="heading" aria-level="6">Level six</div>
<input data-testname="password" type="password" value="hunter2" aria-label="q">
<input data-testname="empty-password" type="password" aria-label="r">
<input data-testname="range" type="range" min="0" max="10" value="7" aria-label="s">
<div data-testname="slider" role="slider" aria-valuenow="40" aria-valuetext="40%" tabindex="0" aria-label="t"></div>
<select data-testname="combo" aria-label="u"><option>One</option><option selected>Two</option></select>
<div id="host"></div>
""",
)

VISIBILITY = page(
    "/visibility",
    """
<style>body{margin:0} .box{width:100px;height:20px}</style>
<div data-testname="plain" class="box">plain</div>
<div data-testname="display-none" class="box" style="display:none">x</div>
<div data-testname="visibility-hidden" class="box" style="visibility:hidden">x
  <span data-testname="visible-again" style="visibility:visible">again</span></div>
<div data-testname="opacity-zero" class="box" style="opacity:0"><span data-testname="opacity-child">x</span></div>
<div data-testname="zero-size" style="width:0;height:0;overflow:hidden">x</div>
<div data-testname="zero-size-visible-child" style="width:0;height:0">
  <span data-testname="overflowing">over</span></div>
<div style="width:50px;height:20px;overflow:hidden;position:relative">
  <span data-testname="clipped" style="position:absolute;left:200px">clipped</span></div>
<div data-testname="clip-path" class="box" style="clip-path:inset(50%)">x</div>
<span data-testname="sr-only"
  style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">sr</span>
<div data-testname="hidden-attr" class="box" hidden>x</div>
<div data-testname="inert" class="box" inert>x</div>
<div data-testname="aria-hidden" class="box" aria-hidden="true">x</div>
<div id="scroller" style="height:40px;overflow:auto">
  <div style="height:200px"></div><div data-testname="scrolled-out" class="box">in scroller</div></div>
<div data-testname="fixed-escapes" style="overflow:hidden;width:10px;height:10px">
  <span data-testname="fixed" style="position:fixed;top:300px;left:300px">fixed</span></div>
<div style="height:3000px"></div>
<div data-testname="below" class="box">below</div>
""",
)

KEYS = page(
    "/keys",
    """<div id="list"><p data-testname="first">First</p><p data-testname="second">Second</p></div>""",
)

SHADOW = page(
    "/shadow",
    """
<div id="host"><span data-testname="slotted">Slotted text</span></div>
<button data-testname="labelled" aria-labelledby="lbl"></button>
<label id="lbl"><div id="host2"></div></label>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<h2>Shadow heading</h2><button>Shadow button</button><slot></slot>';
document.getElementById('host2').attachShadow({mode: 'open'}).innerHTML = 'from shadow';
</script>
""",
)

TEXT = page(
    "/text",
    """
<header>Site header</header>
<nav><a href="/a">Nav link</a></nav>
<main>
  <h1>Article title</h1>
  <p>First   paragraph
     with <b>bold</b> text.</p>
  <p style="display:none">display none text</p>
  <p style="visibility:hidden">visibility hidden text</p>
  <p aria-hidden="true">aria hidden text</p>
  <p hidden>hidden attribute text</p>
  <p style="opacity:0">transparent text</p>
  <p style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">clipped text</p>
  <script>var scriptText = 1;</script><style>.styleText{}</style>
  <ul><li>Item one</li><li>Item two</li></ul>
  <pre>line one
line two</pre>
</main>
<footer>Site footer</footer>
""",
)

NO_MAIN = page("/nomain", "<h1>Title</h1><div>Block one</div><div>Block <span>two</span></div>")

FORMS = page(
    "/forms",
    """
<input data-testname="text" value="old" aria-label="Text">
<input data-testname="password" type="password" aria-label="Password">
<input data-testname="number" type="number" aria-label="Number">
<input data-testname="checkbox" type="checkbox" aria-label="Check" onclick="window.clicks = (window.clicks || 0) + 1">
<input data-testname="stubborn" type="checkbox" aria-label="Stubborn" onclick="return false">
<input data-testname="disabled" disabled aria-label="Disabled">
<textarea data-testname="textarea" aria-label="Area"></textarea>
<select data-testname="select" aria-label="Choice">
  <option value="a">Alpha</option><option value="b">  Beta   blocker </option><option value="c">Gamma</option>
</select>
<div data-testname="editable" contenteditable="true">old</div>
<div data-testname="div">Not a control</div>
<script>
window.events = [];
for (const type of ['input', 'change']) {
  document.addEventListener(type, (e) => window.events.push(type + ':' + e.target.getAttribute('data-testname')));
}
// What React does: track the value through an instance property, so a plain `el.value = ...` is invisible.
const tracked = document.querySelector('[data-testname=text]');
const proto = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
window.trackerValue = tracked.value;
Object.defineProperty(tracked, 'value', {
  configurable: true,
  get() { return proto.get.call(this); },
  set(v) { window.trackerValue = v; proto.set.call(this, v); },
});
</script>
""",
)

GEOMETRY = page(
    "/geometry",
    """
<style>body{margin:0}</style>
<button data-testname="top" style="position:absolute;left:10px;top:10px;width:100px;height:40px">Top</button>
<div style="height:4000px"></div>
<button data-testname="far" style="width:100px;height:40px">Far</button>
<div data-testname="none" style="display:none">none</div>
<div id="scroller" style="height:50px;overflow:auto;width:200px">
  <div style="height:300px"></div>
  <button data-testname="in-scroller" style="height:20px">Deep</button>
</div>
""",
)

PAGES["/frame-child"] = FRAME_CHILD


def _snapshot_page(browser: WalkerBrowser, url: str) -> dict[str, Any]:
    browser.get(url)
    snap: dict[str, Any] = browser.call("snapshot")
    return snap


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node["children"]:
        yield from walk(child)


def by_key(root: Node, key: str) -> Node:
    for node in walk(root):
        if node["key"] == key:
            return node
    raise AssertionError(f"no node with key {key}")


def elements_by_testname(browser: WalkerBrowser) -> dict[str, dict[str, Any]]:
    return {r["testname"]: r for r in browser.call("inspect", {"selector": "[data-testname]"})}


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, str]]:
    """Two servers of the same pages: different ports are different origins, for the cross-origin iframe."""
    with serve(None, pages=PAGES) as base, serve(None, pages=PAGES) as other:
        yield base.base, other.base


def test_implicit_and_explicit_roles(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + ROLES)
    found = elements_by_testname(walker_browser)
    roles = {name: found[name]["role"] for name in EXPECTED_ROLES}
    assert roles == EXPECTED_ROLES
    assert found["h3"]["level"] == 3
    assert found["aria-heading"]["level"] == 5
    assert found["image"]["name"] == "Go"
    assert found["fieldset"]["name"] == "Legend"
    assert found["region"]["name"] == "Named"


def test_states_levels_and_values(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + STATES)
    walker_browser.page(
        """() => {
            document.querySelector('[data-testname=indeterminate]').indeterminate = true;
            const root = document.getElementById('host').attachShadow({mode: 'open'});
            root.innerHTML = '<input data-testname="shadow-input" aria-label="In shadow">';
            root.querySelector('input').focus();
        }"""
    )
    found = elements_by_testname(walker_browser)

    def states(name: str) -> list[str]:
        return list(found[name]["states"])

    assert states("checked") == ["checked"]
    assert states("unchecked") == ["unchecked"]
    assert states("indeterminate") == ["mixed"]
    assert states("aria-mixed") == ["mixed"]
    assert states("aria-switch") == ["unchecked"]
    assert states("pressed") == ["pressed"]
    assert states("expanded") == ["expanded"]
    assert states("collapsed") == ["collapsed"]
    assert states("summary-open") == ["expanded"]
    assert states("fieldset-disabled") == ["disabled"]
    assert states("aria-disabled-inherited") == ["disabled"]
    assert states("readonly-required") == ["readonly", "required"]
    assert states("invalid") == ["invalid"]
    assert states("multiselectable") == ["multiselectable"]
    assert states("selected") == ["selected"]
    assert states("tab") == ["selected"]
    assert states("shadow-input") == ["focused"]
    assert found["h4"]["level"] == 4
    assert found["aria-level"]["level"] == 6
    assert found["password"]["value"] == "•••"
    assert found["empty-password"]["value"] == ""
    assert found["range"]["value"] == "7"
    assert found["slider"]["value"] == "40%"
    assert found["combo"]["value"] == "Two"
    assert states("modal") == []
    walker_browser.page("() => document.querySelector('[data-testname=modal]').showModal()")
    assert elements_by_testname(walker_browser)["modal"]["states"] == ["focused", "modal"]

    # The snapshot reports the same, in STATE_TOKENS order, and inherits aria-disabled through the walk.
    from browser_toolset.values import STATE_TOKENS

    snap = walker_browser.call("snapshot")
    node = by_key(snap["root"], found["readonly-required"]["key"])
    assert node["states"] == ["readonly", "required"]
    assert by_key(snap["root"], found["aria-disabled-inherited"]["key"])["states"] == ["disabled"]
    for each in walk(snap["root"]):
        assert list(each["states"]) == [t for t in STATE_TOKENS if t in each["states"]]


def test_visibility_and_viewport(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + VISIBILITY)
    found = elements_by_testname(walker_browser)
    snap = walker_browser.call("snapshot")
    assert snap["viewport"]["height"] > 0

    def node(name: str) -> Node:
        return by_key(snap["root"], found[name]["key"])

    assert node("plain")["visible"] and node("plain")["inViewport"]
    assert node("plain")["bounds"] == [0, 0, 100, 20]
    hidden = [
        "display-none",
        "opacity-zero",
        "opacity-child",
        "zero-size",
        "clipped",
        "clip-path",
        "sr-only",
        "hidden-attr",
        "inert",
        "aria-hidden",
    ]
    assert [name for name in hidden if node(name)["visible"]] == []
    assert node("display-none")["bounds"] is None
    assert node("visible-again")["visible"]
    # visibility:hidden hides the element, not a visibility:visible descendant: it stays as a bare wrapper over it
    assert node("visibility-hidden")["role"] == "none" and node("visibility-hidden")["name"] == ""
    assert node("overflowing")["visible"] and node("zero-size-visible-child")["visible"]
    assert node("fixed")["visible"] and node("fixed")["inViewport"]
    assert node("scrolled-out")["visible"] and not node("scrolled-out")["inViewport"]
    assert node("below")["visible"] and not node("below")["inViewport"]
    # Hidden nodes carry no name and no text children: hidden text never reaches the tree.
    assert node("display-none")["name"] == "" and node("display-none")["children"] == []
    texts = [n["name"] for n in walk(snap["root"]) if n["role"] == "text"]
    assert "again" in texts and "x" not in texts and "sr" not in texts


def test_keys_are_stable_and_never_reused(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + KEYS)
    first = walker_browser.call("snapshot")
    found = elements_by_testname(walker_browser)
    keys = {n["key"] for n in walk(first["root"]) if n["key"]}
    again = walker_browser.call("snapshot")
    assert again["document"] == first["document"]
    assert {n["key"] for n in walk(again["root"]) if n["key"]} == keys

    walker_browser.page(
        """() => {
            const list = document.getElementById('list');
            const p = document.createElement('p');
            p.textContent = 'Inserted';
            list.insertBefore(p, list.firstChild);
            document.querySelector('[data-testname=second]').remove();
            document.querySelector('[data-testname=first]').setAttribute('class', 'changed');
        }"""
    )
    after = walker_browser.call("snapshot")
    paragraphs = [n for n in walk(after["root"]) if n["role"] == "paragraph"]
    assert [p["children"][0]["name"] for p in paragraphs] == ["Inserted", "First"]
    assert paragraphs[1]["key"] == found["first"]["key"]
    assert paragraphs[0]["key"] not in keys
    # A removed element is gone; the element op hands back a node with a sharedId for the live ones.
    assert walker_browser.call("element", {"key": found["second"]["key"]}) is None
    assert walker_browser.call("center", {"key": found["second"]["key"]}) is None
    assert walker_browser.call("setValue", {"key": found["second"]["key"], "value": "x"}) is None
    assert walker_browser.call("scrollIntoView", {"key": found["second"]["key"]}) is None
    element = walker_browser.call("element", {"key": found["first"]["key"]})
    assert element["type"] == "node" and element["sharedId"]
    assert walker_browser.call("element", {"key": "e999999"}) is None

    # A new document starts over: a new document id, keys from a fresh counter.
    walker_browser.get(site[0] + KEYS)
    assert walker_browser.call("snapshot")["document"] != first["document"]


def test_shadow_dom(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    snap = _snapshot_page(walker_browser, site[0] + SHADOW)
    host = next(n for n in walk(snap["root"]) if any(c["role"] == "heading" for c in n["children"]))
    roles = [(c["role"], c["name"]) for c in host["children"]]
    assert roles[:2] == [("heading", "Shadow heading"), ("button", "Shadow button")]
    # The slot is transparent: the slotted light-DOM span sits where the slot renders it.
    assert roles[2][0] == "generic" and host["children"][2]["children"][0]["name"] == "Slotted text"
    found = elements_by_testname(walker_browser)
    assert found["labelled"]["name"] == "from shadow"


def test_iframes(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    base, other = site
    PAGES["/frames"] = (
        "<!doctype html><title>Frames</title><body style='margin:0'>"
        "<iframe title='Same' src='/frame-child' style='position:absolute;left:20px;top:30px;border:5px solid;"
        "padding:7px;width:300px;height:150px'></iframe>"
        f"<iframe title='Elsewhere' src='{other}/frame-child' style='position:absolute;left:400px;top:30px'></iframe>"
    )
    walker_browser.get(base + "/frames")
    time.sleep(0.2)
    snap = walker_browser.call("snapshot")
    frames = [n for n in walk(snap["root"]) if n["role"] == "iframe"]
    assert [(f["name"], f["interactive"]) for f in frames] == [("Same", False), ("Elsewhere", False)]
    same, cross = frames
    assert cross["children"] == []
    button = next(n for n in walk(same) if n["role"] == "button")
    assert button["name"] == "Inside" and button["visible"] and button["key"]
    # content-box offset: 20 + 5 border + 7 padding, + the button's 10px margin
    assert button["bounds"][:2] == [42, 52]
    assert "Frame text" in [n["name"] for n in walk(same) if n["role"] == "text"]
    center = walker_browser.call("center", {"key": button["key"]})
    assert center["x"] == pytest.approx(42 + button["bounds"][2] / 2, abs=0.1)
    assert center["y"] == pytest.approx(52 + button["bounds"][3] / 2, abs=0.1)
    assert "Frame text" in walker_browser.call("text")


def test_page_text_main_first_and_hidden_text_never(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + TEXT)
    text = walker_browser.call("text")
    assert text.splitlines() == [
        "Article title",
        "First paragraph with bold text.",
        "Item one",
        "Item two",
        "line one",
        "line two",
        "",
        "---",
        "",
        "Site header",
        "Site footer",
    ]
    walker_browser.get(site[0] + NO_MAIN)
    assert walker_browser.call("text") == "Title\nBlock one\nBlock two"


def test_set_value(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + FORMS)
    found = elements_by_testname(walker_browser)

    def set_value(name: str, value: Any) -> Any:
        return walker_browser.call("setValue", {"key": found[name]["key"], "value": value})

    assert set_value("text", "new text") == {"value": "new text"}
    # Written through the prototype's setter, so a React-style tracker still holds the old value and sees a change.
    assert walker_browser.page("() => window.trackerValue") == "old"
    assert walker_browser.page("() => window.events.join(' ')") == "input:text change:text"
    assert set_value("password", "s3cret") == {"value": "•••"}
    assert walker_browser.page("() => document.querySelector('[data-testname=password]').value") == "s3cret"
    assert set_value("number", 42) == {"value": "42"}
    assert "rejected" in set_value("number", "forty")["error"]
    assert set_value("checkbox", True) == {"value": "true"}
    assert set_value("checkbox", False) == {"value": "false"}
    # Checkboxes are clicked, not just set: frameworks listen for the click.
    assert walker_browser.page("() => window.clicks") == 2
    assert "cancelled" in set_value("stubborn", True)["error"]
    assert "checkbox or radio" in set_value("text", True)["error"]
    assert "disabled" in set_value("disabled", "x")["error"]
    assert set_value("textarea", "line1\nline2") == {"value": "line1\nline2"}
    # by value, by text, by text ignoring case; the answer is the option's text, as the tree shows it
    assert set_value("select", "c") == {"value": "Gamma"}
    assert set_value("select", "Beta blocker") == {"value": "Beta blocker"}
    assert set_value("select", "alpha") == {"value": "Alpha"}
    error = set_value("select", "Delta")["error"]
    assert error.startswith("no option") and '"Alpha", "Beta blocker", "Gamma"' in error
    assert set_value("editable", "new content") == {"value": "new content"}
    assert "not a form control" in set_value("div", "x")["error"]


def test_center_and_scroll_into_view(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + GEOMETRY)
    found = elements_by_testname(walker_browser)
    assert walker_browser.call("center", {"key": found["top"]["key"]}) == {"x": 60, "y": 30}
    assert walker_browser.page("() => window.scrollY") == 0

    far = walker_browser.call("center", {"key": found["far"]["key"]})
    viewport = walker_browser.call("snapshot")["viewport"]
    assert 0 < far["y"] < viewport["height"] and far["x"] == 50
    assert walker_browser.page("() => window.scrollY") > 0
    assert "no box" in walker_browser.call("center", {"key": found["none"]["key"]})["error"]

    deep = walker_browser.call("center", {"key": found["in-scroller"]["key"]})
    assert walker_browser.page("() => document.getElementById('scroller').scrollTop") > 0
    assert 0 < deep["y"] < viewport["height"]

    assert walker_browser.call("scrollIntoView", {"key": found["top"]["key"]}) is True
    assert walker_browser.page("() => window.scrollY") == 0


def test_walker_file_is_a_plain_function_declaration(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    """The driver may pass walker.js itself as `functionDeclaration`, without the JSON wrapper the tests use."""
    walker_browser.get(site[0] + NO_MAIN)
    raw = walker_browser.driver.script.call_function(
        function_declaration=WALKER_SOURCE,
        await_promise=False,
        target={"context": walker_browser.context, "sandbox": "browser-toolset"},
        arguments=[{"type": "string", "value": "text"}, {"type": "object", "value": []}],
        result_ownership="none",
    )
    assert raw["type"] == "success"
    assert raw["result"] == {"type": "string", "value": "Title\nBlock one\nBlock two"}
    # Page scripts see nothing of the walker's state, and cannot bend the DOM API it uses: it runs in the sandbox.
    walker_browser.page("() => { Element.prototype.getAttribute = () => 'tampered'; }")
    snap = walker_browser.call("snapshot")
    assert walker_browser.page("() => typeof window.__browserToolsetWalker") == "undefined"
    assert [n["name"] for n in walk(snap["root"]) if n["role"] == "heading"] == ["Title"]


SPARSE_DEFAULTS: dict[str, Any] = {
    "name": "",
    "key": None,
    "value": None,
    "description": "",
    "placeholder": "",
    "states": [],
    "level": None,
    "bounds": None,
    "visible": True,
    "inViewport": True,
    "interactive": False,
    "children": [],
}


def test_sparse_snapshot_is_the_full_one_without_defaults(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + STATES)
    full = walker_browser.call("snapshot")
    sparse = walker_browser.call("snapshot", {"sparse": True})

    def expand(node: Node) -> Node:
        out = {**SPARSE_DEFAULTS, **node}
        out["children"] = [expand(child) for child in out["children"]]
        return out

    assert sparse["document"] == full["document"]
    assert expand(sparse["root"]) == full["root"]
    assert len(json.dumps(sparse)) < len(json.dumps(full)) / 2


NAMES = page(
    "/names",
    """
<button data-testname="plain">OK</button>
<div role="tablist"><div data-testname="closable" role="tab">Doc <button>Close</button></div></div>
<input data-testname="described" aria-label="Email" aria-describedby="hint" aria-invalid="true"
  aria-errormessage="err"><span id="hint">We never share it.</span><span id="err">Not an email</span>
<a data-testname="titled" href="/x" title="More about it">Read</a>
<button data-testname="icon"><svg viewBox="0 0 8 8" width="8" height="8"><title>Settings</title><path d="M0 0h8v8z"/>
  </svg></button>
""",
)


def test_names_descriptions_and_presentational_children(walker_browser: WalkerBrowser, site: tuple[str, str]) -> None:
    walker_browser.get(site[0] + NAMES)
    found = elements_by_testname(walker_browser)
    snap = walker_browser.call("snapshot")

    def node(name: str) -> Node:
        return by_key(snap["root"], found[name]["key"])

    # A button's text is its name; ARIA makes its children presentational, so the tree does not repeat them...
    assert (node("plain")["name"], node("plain")["children"]) == ("OK", [])
    assert (node("icon")["name"], node("icon")["children"]) == ("Settings", [])
    # ...unless something inside can be acted on.
    assert [c["role"] for c in node("closable")["children"]] == ["text", "button"]
    assert node("described")["description"] == "We never share it. Not an email"
    assert (node("titled")["name"], node("titled")["description"]) == ("Read", "More about it")
