"""Frames without a browser: what a frame line says (`frame_notes`), the Selenium driver's tree surgery and frame states
(`drivers/selenium/frames.py`), the confirmation gate's view of an element in a frame, and the mock's frames."""

from __future__ import annotations

from typing import Any

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.drivers.mock import MockDriver, Site, button, frame, paragraph
from browser_toolset.drivers.selenium.contexts import NavRecord
from browser_toolset.drivers.selenium.documents import Document
from browser_toolset.drivers.selenium.events import Changes
from browser_toolset.drivers.selenium.frames import (
    FrameFacts,
    Place,
    frame_facts,
    frame_nodes,
    frame_state,
    placed,
    replace_nodes,
)
from browser_toolset.frame_notes import frame_around, frame_note, note_origin, origin_of
from browser_toolset.safety.confirm import ActionGate, Assessment, Target, classify
from browser_toolset.values import AXNode, Point, Rect
from tests.support.session import Session, ok, text


def remote(value: Any) -> dict[str, Any]:
    """A Python value as BiDi serializes it (the part `frame_facts` reads)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, dict):
        return {"type": "window", "value": value}
    return {"type": "array", "value": [remote(item) for item in value]}


def test_frame_facts_read_the_walker_s_reply() -> None:
    reply = remote(
        [
            [{"context": "F1"}, False, 50.0, 60.0, 50.0, 60.0, 570.0, 420.0, None, "http://127.0.0.2:1/pay"],
            None,
            [{"context": "F2"}, True, None, None, None, None, None, None, "allow-scripts", None],
        ]
    )
    first, gone, hidden = frame_facts(reply, 3)
    assert first == FrameFacts("F1", False, 50.0, 60.0, (50.0, 60.0, 570.0, 420.0), None, "http://127.0.0.2:1/pay")
    assert gone is None
    assert hidden is not None and hidden.shown is None and hidden.entered and hidden.sandboxed
    assert not FrameFacts(None, False, 0, 0, None, "allow-scripts allow-same-origin").sandboxed
    assert frame_facts({"type": "string", "value": "?"}, 2) == [None, None]


def test_a_place_nests_and_clips() -> None:
    tab = Place.tab(800, 600)
    outer = tab.inner(FrameFacts("F1", False, 100, 500, (100, 500, 600, 700), None))
    assert outer == Place(100, 500, (100, 500, 600, 600))  # the tab's viewport cuts the frame's bottom
    inner = outer.inner(FrameFacts("F2", False, 10, 20, (10, 20, 310, 220), None))
    assert inner == Place(110, 520, (110, 520, 410, 600))
    assert inner.to_tab(Point(5, 5)) == Point(115, 525) and inner.to_local(Point(115, 525)) == Point(5, 5)
    assert inner.shows(Point(200, 550)) and not inner.shows(Point(200, 650))
    assert tab.inner(FrameFacts("F3", False, None, None, None, None)).shown is None


def test_placed_moves_boxes_and_keeps_in_the_viewport_only_what_shows() -> None:
    shown = AXNode("button", "In view", "b1", bounds=Rect(10, 10, 50, 20))
    below = AXNode("paragraph", key="p1", bounds=Rect(10, 300, 50, 20), children=(AXNode("text", "Far"),))
    place = Place(100, 100, (100, 100, 400, 250))
    moved = placed((shown, below), place)
    assert moved[0].bounds == Rect(110, 110, 50, 20) and moved[0].in_viewport
    assert moved[1].bounds == Rect(110, 400, 50, 20) and not moved[1].in_viewport
    assert not moved[1].children[0].in_viewport  # a text run shows as far as the box around it
    assert all(not node.in_viewport for node in placed((shown,), Place(0, 0, None)))


def test_replace_nodes_rebuilds_only_the_path_to_what_changed() -> None:
    frame_node = AXNode("iframe", "Payment", "f1")
    untouched = AXNode("heading", "Checkout", "h1")
    root = AXNode("document", children=(untouched, AXNode("generic", key="g1", children=(frame_node,))))
    joined = replace_nodes(root, {id(frame_node): AXNode("iframe", "Payment", "f1", children=(AXNode("button"),))})
    assert joined.children[0] is untouched
    assert joined.children[1].children[0].children == (AXNode("button"),)
    assert replace_nodes(root, {}) is root


def test_frame_nodes_are_the_shown_frames_with_keys() -> None:
    shown = AXNode("iframe", "A", "f1")
    root = AXNode(
        "document",
        children=(
            shown,
            AXNode("iframe", "No key"),
            AXNode("generic", key="g", visible=False, children=(AXNode("iframe", "Hidden", "f2"),)),
        ),
    )
    assert frame_nodes(root) == [shown]


def record(navigation: str, stage: str, url: str = "http://127.0.0.2:1/", blocked: str | None = None) -> NavRecord:
    return NavRecord(navigation, "F1", url, 5, stage=stage, blocked_url=blocked)


def test_a_frame_s_state_from_its_document_and_navigations() -> None:
    changes = Changes()
    document = Document("F1", "T", "T", 4, changes, navigation="n1", url="http://127.0.0.2:1/", loaded_seq=6)
    assert frame_state(document, [record("n1", "load")]).status == "ready"
    refused = frame_state(document, [record("n2", "started", blocked="http://ads.test/")])
    assert (refused.status, refused.url, refused.readable) == ("blocked", "http://ads.test/", False)
    # the guard takes a frame off a refused data: address to a blank page: still blocked
    blanked = [record("n2", "started", "data:,x", blocked="data:,x"), record("n3", "load", "about:blank")]
    assert frame_state(document, blanked).status == "blocked"
    pending = frame_state(document, [record("n1", "load"), record("n2", "started", "http://127.0.0.2:1/next")])
    assert (pending.status, pending.url, pending.readable) == ("loading", "http://127.0.0.2:1/next", False)
    committed = frame_state(document, [record("n1", "committed")])
    assert (committed.status, committed.readable) == ("loading", True)


def test_what_a_frame_line_says() -> None:
    assert origin_of("http://127.0.0.2:41234/pay?x=1", "-") == "http://127.0.0.2:41234"
    assert origin_of("HTTPS://Pay.Test/form", "-") == "https://pay.test"
    assert origin_of("about:srcdoc", "http://127.0.0.1:5") == "http://127.0.0.1:5"
    assert origin_of(None, "http://127.0.0.1:5") == "http://127.0.0.1:5"
    assert origin_of("blob:https://pay.test/0b1c", "-") == "https://pay.test"
    assert origin_of("data:text/html,<p>x</p>", "-") == "a data: URL"
    assert origin_of("http://[::1]:8/", "-") == "http://[::1]:8"
    notes = {
        frame_note("https://pay.test"): "from https://pay.test",
        frame_note("https://pay.test", sandboxed=True): "from https://pay.test, sandboxed",
        frame_note("https://pay.test", "loading"): "from https://pay.test, still loading: read the page again shortly",
        frame_note("a data: URL", "blocked"): "from a data: URL: blocked by the URL policy, so nothing in it is read",
    }
    for note, expected in notes.items():
        assert note == expected
    for origin in ("https://pay.test", "a data: URL", "http://127.0.0.2:41234"):
        for status in ("ready", "loading", "blocked", "unreachable"):
            assert note_origin(frame_note(origin, status, sandboxed=True)) == origin
    assert note_origin("A page's own description") is None


def test_frame_around_names_the_innermost_frame() -> None:
    pay_now = AXNode("button", "Pay now", "b@2")
    agree = AXNode("button", "I agree", "a@3")
    consent = AXNode("iframe", "Consent", "f2@2", description=frame_note("https://consent.test"), children=(agree,))
    pay = AXNode("iframe", "Payment", "f1@1", description=frame_note("https://pay.test"), children=(pay_now, consent))
    tree = AXNode("document", children=(AXNode("heading", "Checkout", "h@1"), pay))
    assert frame_around(tree, "b@2") == "https://pay.test"
    assert frame_around(tree, "a@3") == "https://consent.test"
    assert frame_around(tree, "h@1") is None and frame_around(tree, "f1@1") is None
    assert frame_around(tree, "missing") is None and frame_around(None, "b@2") is None


def test_the_gate_names_the_frame_an_element_is_in() -> None:
    assessment = classify(Target("left_click", "button", "Pay now", ("Card payment",), frame="https://pay.test"))
    assert assessment.categories == ("purchase",)
    assert assessment.reasons == ("the element is named 'Pay now', in a frame from https://pay.test",)
    # a generic commit word counts in a frame's payment form as on the page
    held = classify(Target("left_click", "button", "Continue", ("Card payment",), frame="https://pay.test"))
    assert held.categories == ("purchase",)
    assert classify(Target("left_click", "button", "Continue", (), frame="https://pay.test")).categories == ()


def shop() -> Site:
    site = Site("https://shop.test")
    site.page(
        "/",
        "Shop",
        frame("Payment", "https://pay.test/form"),
        frame("Ad", "https://ads.test/banner"),
        frame("Self", "/"),
    )
    site.page("https://pay.test/form", "Pay", button("Pay now"), frame("Consent", "https://consent.test/"))
    site.page("https://consent.test/", "Consent", button("I agree"))
    site.page("https://ads.test/banner", "Ad", paragraph("Secret"))
    return site


def test_the_mock_joins_frames_and_blocks_what_the_policy_refuses() -> None:
    policy = URLPolicy(allow_hosts=["shop.test", "pay.test", "consent.test"], resolve_names=False)
    asked: list[str] = []

    def decline(assessment: Assessment) -> bool:
        asked.extend(assessment.reasons)
        return False

    gate = ActionGate(default="ask", ask=decline)
    toolset = BrowserToolset(MockDriver(shop(), sleep=lambda s: None), navigation=policy, confirm=gate)
    gate.lookup = toolset.describe_ref
    session = Session(toolset)
    ok(session.call("navigate", url="https://shop.test/"))
    tree = text(ok(session.call("read_page", filter="all")))
    lines = [line.rsplit(" [ref_", 1)[0] for line in tree.splitlines()]
    assert lines[:5] == [
        'iframe "Payment" description="from https://pay.test"',
        '  button "Pay now"',
        '  iframe "Consent" description="from https://consent.test"',
        '    button "I agree"',
        'iframe "Ad" description="from https://ads.test: blocked by the URL policy, so nothing in it is read"',
    ]
    assert "Secret" not in tree
    # a frame showing its own page nests no deeper than the mock's limit
    tab = toolset._inventory.target(None)
    nested = [node for node in toolset.driver.snapshot(tab.handle).root.walk() if node.name == "Self"]
    assert len(nested) == 17 and not nested[-1].children
    pay_now = next(line.rsplit(" [", 1)[1].rstrip("]") for line in tree.splitlines() if '"Pay now"' in line)
    refusal = session.call("left_click", target={"type": "ref", "ref": pay_now})
    assert refusal.get("is_error") and asked == ["the element is named 'Pay now', in a frame from https://pay.test"]
    x, y = toolset.frame().to_image(toolset.driver.element_center(tab.handle, tab.refs.key_of(pay_now)))
    assert session.call("left_click", target={"type": "coordinate", "x": x, "y": y}).get("is_error")
    assert asked[1:] == asked[:1]
