"""The mock reads the roles a site declares as browsers read the same roles in markup (drivers/mock/roles.py): roles
that need a context fall back outside it, and regions and forms need a name; and a checkbox, radio or select the
page hides behind a drawing of its own reads and works as the control itself. tests/browser/test_role_rules_browser.py
checks the same rules on Chromium and Firefox."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import Element, MockDriver, Site, SiteFormatError, checkbox, group, radio, select
from browser_toolset.drivers.mock.layout import _label
from browser_toolset.values import AXNode
from tests.support.session import Session, ok, text

REF = re.compile(r" \[(ref_\d+)\]$")


def session_on(*elements: Element) -> Iterator[Session]:
    site = Site("https://roles.test/").page("/", "Roles", *elements)
    site.start = "/"
    with MockDriver(site, sleep=lambda seconds: None) as driver:
        yield Session(BrowserToolset(driver, sleep=lambda seconds: None))


def read(session: Session, **options: object) -> list[str]:
    """The read's lines, indentation kept, refs dropped."""
    out = text(ok(session.call("read_page", filter="all", **options)))
    return [REF.sub("", line) for line in out.splitlines()]


def ref_of(session: Session, start: str) -> str:
    out = text(ok(session.call("read_page", filter="all")))
    for line in out.splitlines():
        match = REF.search(line)
        if match and line.strip().startswith(start):
            return match.group(1)
    raise AssertionError(f"no line starts with {start!r} in:\n{out}")


def mock(session: Session) -> MockDriver:
    driver = session.toolset.driver
    assert isinstance(driver, MockDriver)
    return driver


def tree(session: Session) -> AXNode:
    driver = mock(session)
    return driver.snapshot(driver.list_tabs()[0].handle).root


# --- roles that need a context --------------------------------------------------------------------------------------

CONTEXT = (
    Element("listitem", text="Orphan item"),
    Element("option", text="Orphan option"),
    Element("treeitem", text="Orphan tree item"),
    group("list", group("generic", Element("listitem", text="Real item")), name="Real list"),
    group("listbox", Element("option", "Real option", states=["selected"]), name="Real listbox"),
    group("tree", Element("treeitem", "Branch"), group("group", Element("treeitem", "Leaf")), name="Real tree"),
    select("Size", ["Small", "Large"]),
)


@pytest.fixture
def context() -> Iterator[Session]:
    yield from session_on(*CONTEXT)


def test_roles_outside_their_context_read_as_generic(context: Session) -> None:
    shown = read(context)
    # a generic element has no name from its content and is no control: what it holds is text
    # (the text of neighbouring wrappers prints as one run)
    assert shown[0] == 'text "Orphan item Orphan option Orphan tree item"'
    assert shown[1] == 'list "Real list"'
    orphans = tree(context).children[:3]
    assert [node.role for node in orphans] == ["generic", "generic", "generic"]
    assert [node.name for node in orphans] == ["", "", ""]
    assert not any(node.interactive for node in orphans)


def test_roles_in_their_context_keep_them(context: Session) -> None:
    shown = read(context)
    at = shown.index('list "Real list"')
    assert shown[at : at + 3] == ['list "Real list"', "  listitem", '    text "Real item"']
    assert '  option "Real option" selected' in shown
    assert '  treeitem "Branch"' in shown and '    treeitem "Leaf"' in shown
    # a select's options sit in its combobox
    options = [node for node in tree(context).walk() if node.role == "option" and node.name in ("Small", "Large")]
    assert len(options) == 2


def test_regions_and_forms_need_a_name() -> None:
    for session in session_on(
        group("region", Element("paragraph", text="Unnamed region")),
        group("region", Element("paragraph", text="Named region"), name="Deals"),
        group("form", Element("button", "Go")),
        group("form", Element("button", "Send"), name="Contact"),
    ):
        shown = read(session)
        assert shown == [
            "paragraph",
            '  text "Unnamed region"',
            'region "Deals"',
            "  paragraph",
            '    text "Named region"',
            'button "Go"',
            'form "Contact"',
            '  button "Send"',
        ]


def test_synonyms_read_as_the_role_they_stand_for() -> None:
    for session in session_on(group("directory", Element("listitem", text="Entry")), Element("image", "Logo")):
        assert read(session) == ["list", "  listitem", '    text "Entry"', 'img "Logo"']


# --- controls hidden behind a drawing of their own ------------------------------------------------------------------


@pytest.fixture
def concealed() -> Iterator[Session]:
    yield from session_on(
        group(
            "radiogroup",
            radio("Apple", "fruit", checked=True, concealed="opacity"),
            radio("Pear", "fruit", concealed="sr-only"),
            name="Fruit",
        ),
        checkbox("Send me news", concealed="zero-size"),
        select("Size", ["Small", "Medium", "Large"], value="Medium", concealed="sr-only"),
    )


def test_a_concealed_control_reads_as_the_control(concealed: Session) -> None:
    assert read(concealed) == [
        'radiogroup "Fruit"',
        '  radio "Apple" checked',
        '  radio "Pear" unchecked',
        'checkbox "Send me news" unchecked',
        'combobox "Size" value="Medium"',
    ]


def test_a_concealed_control_works_through_its_ref(concealed: Session) -> None:
    ok(concealed.call("left_click", target={"type": "ref", "ref": ref_of(concealed, 'radio "Pear"')}))
    news = ref_of(concealed, 'checkbox "Send me news"')
    ok(concealed.call("form_input", target={"type": "ref", "ref": news}, value=True))
    size = ref_of(concealed, 'combobox "Size"')
    ok(concealed.call("form_input", target={"type": "ref", "ref": size}, value="Large"))
    shown = [line.removesuffix(" focused") for line in read(concealed)]
    assert shown == [
        'radiogroup "Fruit"',
        '  radio "Apple" unchecked',
        '  radio "Pear" checked',
        'checkbox "Send me news" checked',
        'combobox "Size" value="Large"',
    ]


def test_a_capture_shows_a_concealed_control_s_label_alone(concealed: Session) -> None:
    page = mock(concealed).page()
    assert [e.role for e in page.root.walk()][:3] == ["document", "radiogroup", "radio"]
    apple = next(e for e in page.root.walk() if e.name == "Apple")
    assert _label(apple) == "Apple"
    assert _label(next(e for e in page.root.walk() if e.name == "Send me news")) == "Send me news"


def test_the_site_format_declares_a_concealed_control_and_refuses_the_wrong_one() -> None:
    site = Site.from_dict(
        {
            "base_url": "https://roles.test/",
            "start": "/",
            "pages": {
                "/": {"title": "Roles", "elements": [{"role": "checkbox", "name": "Agree", "concealed": "clip"}]}
            },
        }
    )
    with MockDriver(site, sleep=lambda seconds: None) as driver:
        session = Session(BrowserToolset(driver, sleep=lambda seconds: None))
        assert read(session) == ['checkbox "Agree" unchecked']
    with pytest.raises(SiteFormatError, match=r"elements\[0\].*only a checkbox, radio or select"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "button", "name": "Go", "concealed": "clip"}]}}})
    with pytest.raises(SiteFormatError, match="concealed must be one of"):
        Site.from_dict({"pages": {"/": {"elements": [{"role": "radio", "name": "A", "concealed": "hidden"}]}}})
