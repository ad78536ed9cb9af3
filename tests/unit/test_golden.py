"""The worked examples of docs/contract.md, reproduced: tool_use JSON in, exact tool_result JSON out.

The sites below are built so that the examples' own names, URLs and ref numbers come out (`docs` holds the five
elements of §3's read_page sample; `pricing` puts the price-list download at `ref_8`). Where the SDK's fixed
wording differs from the contract's illustration, the expected JSON is the SDK's, and the test says so: a click
acknowledges `Clicked.` (the SDK's text) and names the element on a second line, and a screenshot result is the
image alone (the SDK renders screenshots as one image block).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools.browser import BetaLocalFilePolicy
from anthropic.types.beta import BetaToolUseBlock

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import Download, MockDriver, Site, button, link, textbox
from tests.support.session import Session, tool_use

PRICE_LIST = b"plan,price\n" + b"x" * (48213 - len(b"plan,price\n"))


def example_site() -> Site:
    site = Site(base_url="https://example.com/")
    site.page(
        "/docs",
        "Documentation",
        link("Documentation", "/docs"),
        link("Getting started", "/docs/start"),
        textbox("Search docs"),
        button("Search"),
        link("Pricing", "/pricing", new_tab=True),
    )
    site.page(
        "/pricing",
        "Pricing",
        *[link(name, f"/pricing/{name.lower()}") for name in ("Free", "Team", "Business", "Enterprise")],
        link("Compare plans", "/pricing/compare"),
        link("FAQ", "/pricing/faq"),
        link("Contact sales", "/contact"),
        button(
            "Download price list (CSV)",
            Download("/pricing/price-list.csv?X-Amz-Signature=secret", filename="price-list.csv", content=PRICE_LIST),
        ),
    )
    site.page("/status", "Status")
    site.start = "/docs"
    return site


@pytest.fixture
def downloads(tmp_path: Path) -> Path:
    return tmp_path / "downloads"


@pytest.fixture
def driver(downloads: Path) -> Iterator[MockDriver]:
    downloads.mkdir()
    with MockDriver(example_site(), download_dir=downloads) as mock:
        yield mock


@pytest.fixture
def session(driver: MockDriver, downloads: Path) -> Session:
    policy = BetaLocalFilePolicy(download_dir=str(downloads), expose_download_paths=True)
    return Session(BrowserToolset(driver, file_policy=policy))


def exact(session: Session, name: str, input: dict[str, Any], *, id: str) -> dict[str, Any]:
    block = tool_use(name, input, id=id)
    result = dict(session.toolset.tool_result(BetaToolUseBlock.model_validate(block)))
    session.validator.feed(block, result)
    session.validator.assert_valid()
    return result


DOCS = {"tab_id": "tab-1", "title": "Documentation", "url": "https://example.com/docs"}
PRICING = {"tab_id": "tab-2", "title": "Pricing", "url": "https://example.com/pricing"}


def test_read_page_sample_of_section_3(session: Session) -> None:
    result = exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_read",
        "toolset_name": "browser",
        "content": [
            {
                "type": "text",
                "text": 'link "Documentation" [ref_1]\n'
                'link "Getting started" [ref_2]\n'
                'textbox "Search docs" [ref_3]\n'
                'button "Search" [ref_4]\n'
                'link "Pricing" [ref_5]',
            },
            {"type": "browser_state", "tabs": [{**DOCS, "active": True}]},
        ],
    }


def test_click_that_opens_a_tab_section_5(session: Session) -> None:
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    result = exact(
        session, "left_click", {"target": {"type": "ref", "ref": "ref_5"}}, id="toolu_01EgTXj1FjE2FCTt2zNFWLao"
    )
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_01EgTXj1FjE2FCTt2zNFWLao",
        "toolset_name": "browser",
        "content": [
            {"type": "text", "text": "Clicked."},  # the SDK's text ("Clicked element ref_5." in docs/contract.md §5)
            {"type": "text", "text": 'link "Pricing" [ref_5]'},
            {
                "type": "browser_state",
                "tabs": [{**DOCS, "active": True}, PRICING],
                "state_changes": [{"type": "tab_opened", "tab_id": "tab-2"}],
            },
        ],
    }


def test_new_tab_section_5(session: Session) -> None:
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    exact(session, "left_click", {"target": {"type": "ref", "ref": "ref_5"}}, id="toolu_click")
    result = exact(session, "new_tab", {}, id="toolu_01WvHSbQVV9j5nWGvTmk4vNL")
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_01WvHSbQVV9j5nWGvTmk4vNL",
        "toolset_name": "browser",
        "content": [
            {
                "type": "browser_state",
                "tabs": [DOCS, PRICING, {"tab_id": "tab-3", "title": "", "url": "about:blank", "active": True}],
                "state_changes": [{"type": "tab_opened", "tab_id": "tab-3"}],
            }
        ],
    }


def test_list_tabs_section_5(session: Session) -> None:
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    exact(session, "left_click", {"target": {"type": "ref", "ref": "ref_5"}}, id="toolu_click")
    result = exact(session, "list_tabs", {}, id="toolu_list")
    assert result["content"] == [{"type": "browser_state", "tabs": [{**DOCS, "active": True}, PRICING]}]


def test_download_started_then_completed_section_5(session: Session, downloads: Path) -> None:
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    exact(session, "left_click", {"target": {"type": "ref", "ref": "ref_5"}}, id="toolu_click")
    exact(session, "switch_tab", {"tab_id": "tab-2"}, id="toolu_switch")
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read2")
    clicked = exact(session, "left_click", {"target": {"type": "ref", "ref": "ref_8"}}, id="toolu_dl")
    assert clicked["content"][-1] == {
        "type": "browser_state",
        "tabs": [DOCS, {**PRICING, "active": True}],
        # the signed query string is stripped, as docs/contract.md §5 asks
        "state_changes": [
            {"type": "download_started", "download_id": "dl-1", "url": "https://example.com/pricing/price-list.csv"}
        ],
    }
    shot = exact(session, "screenshot", {}, id="toolu_shot")
    assert shot["content"][0]["type"] == "image"  # the SDK renders the screenshot as the image alone
    assert shot["content"][1] == {
        "type": "browser_state",
        "tabs": [DOCS, {**PRICING, "active": True}],
        "state_changes": [
            {
                "type": "download_completed",
                "download_id": "dl-1",
                "url": "https://example.com/pricing/price-list.csv",
                "path": str(downloads / "price-list.csv"),
                "size_bytes": 48213,
            }
        ],
    }


def test_error_texts_of_section_7(session: Session) -> None:
    refused = exact(session, "navigate", {"url": "javascript:alert(1)"}, id="toolu_nav")
    assert refused == {
        "type": "tool_result",
        "tool_use_id": "toolu_nav",
        "toolset_name": "browser",
        "content": [{"type": "text", "text": "Error: Navigation refused. Only http and https URLs are allowed."}],
        "is_error": True,
    }
    stale = exact(session, "left_click", {"target": {"type": "ref", "ref": "ref_3"}}, id="toolu_stale")
    assert stale["content"] == [
        {
            "type": "text",
            "text": "Error: ref_3 is stale or not found on the current page. Re-read the page to get fresh references.",
        }
    ]
    disabled = exact(session, "javascript_exec", {"text": "1"}, id="toolu_js")
    assert disabled["is_error"] is True and disabled["toolset_name"] == "browser"
    # the SDK's wording for a disabled member (docs/contract.md §7 has "... is not enabled in this environment.")
    assert disabled["content"] == [
        {
            "type": "text",
            "text": "The 'javascript_exec' action is not permitted by this application's permissions "
            "and cannot be used in this session.",
        }
    ]


def test_batch_of_section_2(session: Session) -> None:
    exact(session, "read_page", {"filter": "interactive"}, id="toolu_read")
    calls = [
        tool_use("left_click", {"target": {"type": "ref", "ref": "ref_3"}}, id="toolu_a"),
        tool_use("type", {"text": "tab ids"}, id="toolu_b"),
        tool_use("key", {"text": "Enter"}, id="toolu_c"),
    ]
    message = session.turn(*calls)
    assert [[block["text"] for block in r["content"] if block["type"] == "text"] for r in message["content"]] == [
        ["Clicked.", 'textbox "Search docs" [ref_3]'],
        ["Typed."],
        ["Pressed Enter."],
    ]
    failing = session.turn(
        tool_use("left_click", {"target": {"type": "ref", "ref": "ref_3"}}, id="toolu_d"),
        tool_use("navigate", {"url": "file:///etc/passwd"}, id="toolu_e"),
        tool_use("type", {"text": "x"}, id="toolu_f"),
        tool_use("key", {"text": "Enter"}, id="toolu_g"),
    )
    assert [r.get("is_error", False) for r in failing["content"]] == [False, True, True, True]
    assert [r["content"] for r in failing["content"][2:]] == [
        "Not executed: an earlier action in this turn failed."
    ] * 2
