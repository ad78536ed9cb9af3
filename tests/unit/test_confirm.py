"""High-impact calls wait for a person (docs/contract.md §6 item 6): the classifier's categories, the per-category
decisions, and the gate running inside the SDK's pipeline before each call, on the mock driver."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, button, checkbox, group, link, textbox
from browser_toolset.safety.confirm import (
    CATEGORIES,
    ActionGate,
    Assessment,
    KeyPress,
    Target,
    classify,
    key_press,
    parse_decisions,
)
from tests.support.session import Session, error, ok, text, tool_use


def click(
    name: str, role: str = "button", *, context: tuple[str, ...] = (), url: str | None = None, action: str = ""
) -> Target:
    return Target(member="left_click", role=role, name=name, context=context, url=url, action=action)


SHOP = "https://shop.example"


@pytest.mark.parametrize(
    ("target", "categories"),
    [
        (click("Place order"), ("purchase",)),
        (click("Buy now"), ("purchase",)),
        (click("Pay $24.99"), ("purchase",)),
        (click("Confirm purchase"), ("purchase",)),
        (click("Subscribe"), ("purchase",)),
        (click("Continue", url="https://shop.example/checkout/payment"), ("purchase",)),
        (click("Continue", url="https://shop.example/products"), ()),
        (click("Checkout", role="link"), ()),
        (click("Add to cart"), ()),
        (click("Send"), ("message",)),
        (click("Send message"), ("message",)),
        (click("Post comment"), ("message",)),
        (click("Submit", context=("Contact us",)), ("message",)),
        (click("Delete"), ("delete",)),
        (click("Remove item", role="link"), ("delete",)),
        (click("Empty trash"), ("delete",)),
        (click("Yes", context=("Delete this repository?",)), ("delete",)),
        (click("OK", context=("Are you sure you want to remove Ada?",)), ("delete",)),
        (click("Change password"), ("account",)),
        (click("Disable two-factor authentication"), ("account",)),
        (click("Revoke"), ("account",)),
        (click("Authorize application"), ("account",)),
        (click("Save", url="https://app.example/settings/security"), ("account",)),
        (click("Delete account"), ("delete", "account")),
        (click("I agree"), ("terms",)),
        (click("Accept all cookies"), ("terms",)),
        (click("Accept"), ("terms",)),
        (click("Continue", context=("Terms of service",)), ("terms",)),
        (click("Terms and conditions", role="link"), ()),
        (click("Search"), ()),
        (click("Next page", role="link"), ()),
        (click("Documentation", role="link"), ()),
        (click("Delete", role="textbox"), ()),
        (Target(member="right_click", role="button", name="Delete"), ()),
        (Target(member="hover", role="button", name="Place order"), ()),
        (Target(member="double_click", role="button", name="Place order"), ("purchase",)),
        (Target(member="form_input", role="checkbox", name="I accept the terms", checks=True), ("terms",)),
        (Target(member="form_input", role="checkbox", name="Subscribe to our newsletter", checks=True), ()),
        (Target(member="form_input", role="checkbox", name="I accept the terms", checks=False), ()),
        (Target(member="form_input", role="checkbox", name="Gift wrap", checks=True), ()),
        (Target(member="navigate", url="https://app.example/account/delete?id=7"), ("delete",)),
        (Target(member="navigate", url="https://news.example/unsubscribe?u=1"), ("account",)),
        (Target(member="navigate", url="https://shop.example/checkout"), ()),
        (Target(member="left_click", url="https://shop.example/checkout"), ()),
        # What the element loads: a form's method and address, a link's address or its script.
        (click("Continue", url=f"{SHOP}/basket", action=f"POST {SHOP}/checkout/confirm"), ("purchase",)),
        (click("Continue", url=f"{SHOP}/checkout", action=f"GET {SHOP}/search?q="), ()),
        (click("Continue", url=f"{SHOP}/checkout", action=f"GET {SHOP}/checkout"), ("purchase",)),
        (click("Continue", url=f"{SHOP}/checkout", action=f"POST {SHOP}/api/v2/submit"), ("purchase",)),
        (click("Place order", url=f"{SHOP}/basket", action=f"GET {SHOP}/order/place"), ("purchase",)),
        (click("Go", url=f"{SHOP}/items/7", action=f"POST {SHOP}/items/7/delete"), ("delete",)),
        (click("OK", url=f"{SHOP}/items/7", action="DIALOG", context=("Remove this item?",)), ("delete",)),
        (click("Buy now", "link", action=f"GET {SHOP}/products/42"), ()),
        (click("Buy now", "link", action="SCRIPT"), ("purchase",)),
        (click("Here", "link", action=f"GET {SHOP}/account/deactivate"), ("account",)),
        (click("Here", "link", action="nonsense"), ()),
        (Target(member="key", role="button", name="Place order", url=f"{SHOP}/basket"), ("purchase",)),
        (Target(member="hold_key", role="button", name="Delete"), ("delete",)),
        (Target(member="key", role="textbox", name="Delete"), ()),
        (Target(member="key"), ()),
    ],
)
def test_the_classifier(target: Target, categories: tuple[str, ...]) -> None:
    assert classify(target).categories == categories


@pytest.mark.parametrize(
    ("text", "press"),
    [
        ("Return", KeyPress("Enter")),
        ("ctrl+a BackSpace KP_Enter", KeyPress("Enter")),
        ("space", KeyPress(" ")),
        ("Tab Tab Return", KeyPress("Enter", moved=True)),
        ("shift+Tab Return", KeyPress("Enter", moved=True)),
        ("Return Tab", KeyPress("Enter")),
        ("a b c", None),
        ("Tab", None),
        ("NoSuchKey Return", None),
    ],
)
def test_a_key_call_is_judged_by_its_first_enter_or_space(text: str, press: KeyPress | None) -> None:
    assert key_press(text) == press


def test_decisions_parse_and_default() -> None:
    assert parse_decisions(["purchase=allow", "all=deny", "delete=ASK"]) == {
        "purchase": "deny",
        "message": "deny",
        "delete": "ask",
        "account": "deny",
        "terms": "deny",
    }
    with pytest.raises(ValueError, match="unknown category"):
        parse_decisions(["shopping=allow"])
    with pytest.raises(ValueError, match="expected CATEGORY"):
        parse_decisions(["purchase"])
    assert set(CATEGORIES) == {"purchase", "message", "delete", "account", "terms"}


# --- the gate inside the pipeline ---------------------------------------------------------------------------------


def store() -> Site:
    site = Site(base_url="https://store.test/")
    site.page(
        "/",
        "Store",
        link("Docs", "/docs"),
        button("Place order"),
        button("Add to cart"),
        checkbox("I accept the terms of service"),
        textbox("Note"),
        group("dialog", button("Yes"), button("No"), name="Delete your account?"),
    )
    site.page("/docs", "Docs")
    site.page("/account/delete", "Deleted")
    site.start = "/"
    return site


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    with MockDriver(store()) as mock:
        yield mock


def gated(driver: MockDriver, **gate: Any) -> tuple[Session, ActionGate]:
    action_gate = ActionGate(**gate)
    toolset = BrowserToolset(driver, confirm=action_gate)
    action_gate.lookup = toolset.describe_ref
    return Session(toolset), action_gate


def ref(session: Session, query: str) -> dict[str, str]:
    found = text(ok(session.call("find", query=query))).splitlines()[0]
    return {"type": "ref", "ref": found.rsplit("[", 1)[1].rstrip("]")}


def test_denied_calls_never_reach_the_driver_and_say_why(driver: MockDriver) -> None:
    session, _ = gated(driver, default="deny")
    order = ref(session, "place order button")
    message = error(session.call("left_click", target=order))
    assert message == (
        "Error: left_click on button 'Place order' was not run: it looks like a purchase or payment (the element "
        "is named 'Place order'), and this session refuses such actions without a person to confirm them. Do not "
        "retry it or work around it; tell the user what you were about to do so they can do it themselves or "
        "allow it."
    )
    assert driver.calls_to("click") == []
    ok(session.call("left_click", target=ref(session, "add to cart button")))
    assert len(driver.calls_to("click")) == 1


def test_the_dialog_around_a_button_is_its_context(driver: MockDriver) -> None:
    session, _ = gated(driver, default="deny")
    message = error(session.call("left_click", target=ref(session, "yes button")))
    assert "it looks like deleting something and an account or security change ('Yes' commits" in message
    ok(session.call("left_click", target=ref(session, "no button")))


def test_checking_a_terms_box_and_destructive_navigations_are_held(driver: MockDriver) -> None:
    session, _ = gated(driver, decisions={"delete": "deny", "terms": "deny"}, default="allow")
    terms = ref(session, "accept the terms checkbox")
    assert "accepting terms or giving consent" in error(session.call("form_input", target=terms, value=True))
    ok(session.call("form_input", target=terms, value=False))
    assert "deleting something" in error(session.call("navigate", url="https://store.test/account/delete"))
    ok(session.call("navigate", url="https://store.test/docs"))


def test_ask_consults_the_person_and_their_answer_stands(driver: MockDriver) -> None:
    asked: list[Assessment] = []
    answers = iter([False, True])

    def ask(assessment: Assessment) -> bool:
        asked.append(assessment)
        return next(answers)

    session, _ = gated(driver, decisions={"purchase": "ask"}, ask=ask)
    order = ref(session, "place order button")
    assert "the user declined it" in error(session.call("left_click", target=order))
    ok(session.call("left_click", target=order))
    assert [a.target.name for a in asked] == ["Place order", "Place order"]
    assert asked[0].target.url == "https://store.test/"


def test_ask_without_anyone_to_ask_is_deny_and_allow_runs(driver: MockDriver) -> None:
    session, _ = gated(driver, decisions={"purchase": "ask"})
    order = ref(session, "place order button")
    assert "refuses such actions" in error(session.call("left_click", target=order))
    session, _ = gated(driver, decisions={"purchase": "allow"}, default="deny")
    ok(session.call("left_click", target=ref(session, "place order button")))


def test_the_gate_holds_each_call_of_a_batch(driver: MockDriver) -> None:
    session, _ = gated(driver, default="deny")
    order, cart = ref(session, "place order button"), ref(session, "add to cart button")
    message = session.turn(
        tool_use("left_click", {"target": cart}),
        tool_use("left_click", {"target": order}),
        tool_use("left_click", {"target": cart}),
    )
    first, second, third = message["content"]
    assert not first.get("is_error") and second["is_error"] and third["is_error"]
    assert third["content"] == "Not executed: an earlier action in this turn failed."
    assert len(driver.calls_to("click")) == 1


def test_then_runs_after_the_gate(driver: MockDriver) -> None:
    seen: list[str] = []

    def then(context: Any) -> bool:
        seen.append(str(context.member))
        return True

    session, _ = gated(driver, default="deny", then=then)
    ok(session.call("list_tabs"))
    error(session.call("left_click", target=ref(session, "place order button")))
    assert seen == ["list_tabs", "find"]


@pytest.mark.parametrize(
    ("target", "categories"),
    [
        (click("Next", url="https://accounts.example.com/signin/identifier"), ()),
        (click("Continue", url="https://example.com/login/password"), ()),
        (click("Save", context=("Contact information",)), ()),
        (click("Save", url="https://example.com/settings/security"), ("account",)),
        (click("Save", url="https://example.com/account/settings"), ("account",)),
        (click("Update", context=("Change your password",)), ("account",)),
        (click("Update", url="https://shop.example/basket"), ()),
        (click("Save", context=("Change your password",)), ("account",)),
        (click("OK", context=("We value your privacy",)), ("terms",)),
    ],
)
def test_hosts_and_sign_in_pages_are_not_account_changes(target: Target, categories: tuple[str, ...]) -> None:
    assert classify(target).categories == categories


# --- clicks by coordinate are judged by the element under the point -----------------------------------------------


def at(toolset: BrowserToolset, driver: MockDriver, name: str) -> dict[str, Any]:
    """The coordinate target (screenshot pixels) at the centre of the element named `name`."""
    x, y = toolset.frame().to_image(driver.page().center(name))
    return {"type": "coordinate", "x": x, "y": y}


def test_a_coordinate_click_is_held_like_a_ref_click(driver: MockDriver) -> None:
    session, gate = gated(driver, default="deny")
    toolset = session.toolset
    message = error(session.call("left_click", target=at(toolset, driver, "Place order")))
    assert message.startswith(
        "Error: left_click on button 'Place order' was not run: it looks like a purchase or payment (the element "
        "is named 'Place order')"
    )
    assert driver.calls_to("click") == []
    for member in ("double_click", "triple_click"):
        assert "a purchase or payment" in error(session.call(member, target=at(toolset, driver, "Place order")))
    assert driver.calls_to("click") == []
    # the dialog around the button under the point is its context, as for a ref
    message = error(session.call("left_click", target=at(toolset, driver, "Yes")))
    assert "deleting something" in message
    ok(session.call("left_click", target=at(toolset, driver, "Add to cart")))
    assert len(driver.calls_to("click")) == 1
    assert gate.lookup is not None


def test_a_coordinate_click_asks_about_what_is_under_it_now(driver: MockDriver) -> None:
    """The element is read at the point when the call comes, not from an earlier read: a page that moved a "Buy
    now" button under the point is held."""
    asked: list[Assessment] = []

    def ask(assessment: Assessment) -> bool:
        asked.append(assessment)
        return True

    session, _ = gated(driver, decisions={"purchase": "ask"}, default="allow", ask=ask)
    target = at(session.toolset, driver, "Add to cart")
    driver.page().element("Add to cart").set(name="Buy now")
    ok(session.call("left_click", target=target))
    assert [(a.target.role, a.target.name) for a in asked] == [("button", "Buy now")]
    assert len(driver.calls_to("click")) == 1
