"""Elements: what a page is made of, as immutable definitions, and one short builder per common element.

A test describes what an element *is* (a search box, a link that opens a tab) rather than how a browser renders
it. The driver instantiates a fresh live copy of these definitions on every load (see `document`), which is what
keeps one test's changes to a page out of the next load.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from browser_toolset.values import Rect

from .behaviours import Behaviour

if TYPE_CHECKING:
    from typing_extensions import TypedDict, Unpack


@attrs.frozen
class Option:
    """One choice of a `select` (role combobox) or listbox. `text` is what the user sees; it defaults to `value`."""

    value: str
    text: str = ""

    @property
    def label(self) -> str:
        return self.text or self.value


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    if isinstance(values, str):
        return (values,)
    return tuple(values)


def _bounds(value: Rect | Sequence[float] | None) -> Rect | None:
    if value is None or isinstance(value, Rect):
        return value
    x, y, width, height = value
    return Rect(x, y, width, height)


def _elements(values: Iterable[Element]) -> tuple[Element, ...]:
    return tuple(values)


CONCEALMENTS = ("opacity", "zero-size", "clip", "clip-path", "sr-only", "appearance", "offscreen", "covered")
"""The ways pages hide a native checkbox, radio or select behind a drawing of their own (`Element.concealed`)."""

CONCEALABLE_ROLES = ("checkbox", "radio", "combobox")


def _concealment(instance: Element, attribute: attrs.Attribute[str], value: str) -> None:
    if not value:
        return
    if value not in CONCEALMENTS:
        raise ValueError(f"concealed must be one of {', '.join(CONCEALMENTS)}; got {value!r}")
    if instance.role not in CONCEALABLE_ROLES:
        raise ValueError(
            f"only a checkbox, radio or select (combobox) can be concealed behind a drawing of its own, "
            f"not a {instance.role}"
        )


def _behaviours(values: Iterable[Behaviour]) -> tuple[Behaviour, ...]:
    return tuple(values)


def _options(values: Iterable[Option | str]) -> tuple[Option, ...]:
    return tuple(Option(value) if isinstance(value, str) else value for value in values)


@attrs.frozen
class Element:
    """One element of a page.

    `role` is an ARIA role (`button`, `link`, `textbox`, `main`, ...; `text` is a bare run of text). `bounds` is the
    border box in CSS pixels relative to the top of the page (not the viewport); leave it out and the driver stacks
    elements in 40 px rows, which is all most tests need. `text` is content rendered inside the element (a
    paragraph's words); links, buttons and headings without a `name` take it as their name. `value` is a text
    field's text, or the value or text of a select's chosen option. `href` and `new_tab` make a link; `on_click`,
    `on_hover` and (for forms) `on_submit` are behaviours run in order. `multiline` makes a text field a textarea
    (state `multiline`); `input_type` is the HTML input type of a field whose value has a shape of its own
    (`date`, `number`, `email`, ...: see `typed_field`), which the tree reports as the node's `input_type`.
    `concealed` says how the page hides a native checkbox, radio or select behind a label or look-alike it draws
    (one of `CONCEALMENTS`): a person operates it through that drawing, so it reads and acts as the control itself,
    where its label is, as on a real browser; a capture shows the label alone. `src` makes an `iframe` a frame
    showing the page at that URL (see `frame`).
    """

    role: str
    name: str = ""
    id: str | None = None
    value: str | None = None
    text: str = ""
    description: str = ""
    placeholder: str = ""
    states: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    checked: bool | None = None
    level: int | None = None
    bounds: Rect | None = attrs.field(default=None, converter=_bounds)
    visible: bool = True
    href: str | None = None
    new_tab: bool = False
    options: tuple[Option, ...] = attrs.field(default=(), converter=_options)
    group: str | None = None
    multiline: bool = False
    input_type: str = ""
    file_input: bool = False
    concealed: str = attrs.field(default="", validator=_concealment)
    src: str | None = None
    children: tuple[Element, ...] = attrs.field(default=(), converter=_elements)
    on_click: tuple[Behaviour, ...] = attrs.field(default=(), converter=_behaviours)
    on_hover: tuple[Behaviour, ...] = attrs.field(default=(), converter=_behaviours)
    on_submit: tuple[Behaviour, ...] = attrs.field(default=(), converter=_behaviours)


# --- builders: one short function per common element ------------------------------------------------------------

if TYPE_CHECKING:

    class _Common(TypedDict, total=False):
        id: str | None
        description: str
        states: Iterable[str]
        bounds: Rect | Sequence[float] | None
        visible: bool
        on_hover: Iterable[Behaviour]

    class _Clickable(_Common, total=False):
        on_click: Iterable[Behaviour]


def heading(name: str, level: int = 1, **options: Unpack[_Clickable]) -> Element:
    return Element("heading", name, level=level, **options)


def paragraph(content: str, **options: Unpack[_Clickable]) -> Element:
    return Element("paragraph", text=content, **options)


def text(content: str, **options: Unpack[_Clickable]) -> Element:
    """A bare run of text, which the accessibility tree shows as a `text` node with no key."""
    return Element("text", text=content, **options)


def link(name: str, href: str, *, new_tab: bool = False, **options: Unpack[_Clickable]) -> Element:
    return Element("link", name, href=href, new_tab=new_tab, **options)


def button(name: str, *on_click: Behaviour, **options: Unpack[_Common]) -> Element:
    return Element("button", name, on_click=on_click, **options)


def textbox(name: str, value: str = "", *, placeholder: str = "", **options: Unpack[_Clickable]) -> Element:
    return Element("textbox", name, value=value, placeholder=placeholder, **options)


def searchbox(name: str, value: str = "", *, placeholder: str = "", **options: Unpack[_Clickable]) -> Element:
    return Element("searchbox", name, value=value, placeholder=placeholder, **options)


def textarea(name: str, value: str = "", *, placeholder: str = "", **options: Unpack[_Clickable]) -> Element:
    return Element("textbox", name, value=value, placeholder=placeholder, multiline=True, **options)


TYPED_FIELD_ROLES: dict[str, str] = {
    "date": "textbox",
    "time": "textbox",
    "datetime-local": "textbox",
    "month": "textbox",
    "week": "textbox",
    "email": "textbox",
    "tel": "textbox",
    "url": "textbox",
    "number": "spinbutton",
    "range": "slider",
    "color": "button",
}
"""The input types a `typed_field` may have, with the role a browser gives each (HTML-AAM)."""


def typed_field(name: str, input_type: str, value: str = "", **options: Unpack[_Clickable]) -> Element:
    """An `<input type=...>` whose value has a shape of its own: a date, a number, an email address, a colour.
    The role follows from the type, as in a browser (a number field is a spinbutton, a colour input a button). The
    mock reports the type but does not check values against it: typing letters into a number field is the page's
    business to refuse, and tests of that need a real browser."""
    if input_type not in TYPED_FIELD_ROLES:
        raise ValueError(f"input_type must be one of {', '.join(TYPED_FIELD_ROLES)}; got {input_type!r}")
    return Element(TYPED_FIELD_ROLES[input_type], name, value=value, input_type=input_type, **options)


def checkbox(name: str, checked: bool = False, *, concealed: str = "", **options: Unpack[_Clickable]) -> Element:
    return Element("checkbox", name, checked=checked, concealed=concealed, **options)


def radio(
    name: str, group: str, checked: bool = False, *, concealed: str = "", **options: Unpack[_Clickable]
) -> Element:
    return Element("radio", name, group=group, checked=checked, concealed=concealed, **options)


def select(
    name: str,
    choices: Iterable[Option | str],
    value: str | None = None,
    *,
    concealed: str = "",
    **options: Unpack[_Clickable],
) -> Element:
    """A `<select>`: role combobox whose options the driver lists as hidden `option` children. `value` picks the
    initial option by value or text (the first option otherwise)."""
    return Element("combobox", name, options=_options(choices), value=value, concealed=concealed, **options)


def file_input(name: str, **options: Unpack[_Clickable]) -> Element:
    return Element("button", name, file_input=True, **options)


def frame(name: str, src: str, **options: Unpack[_Common]) -> Element:
    """An `<iframe>` showing the page at `src` (relative to the page, or on another host: another origin). Its
    page's elements are the frame's children in the tree, as a real browser's driver joins them; a frame the URL
    guard refuses shows nothing, and says so. A frame's page runs no `on_load` behaviours, and its links and
    behaviours act on the tab, as if they targeted the top of the page."""
    return Element("iframe", name, src=src, **options)


def form(
    *children: Element, on_submit: Iterable[Behaviour] = (), name: str = "", **options: Unpack[_Common]
) -> Element:
    return Element("form", name, children=children, on_submit=on_submit, **options)


def group(role: str, *children: Element, name: str = "", **options: Unpack[_Clickable]) -> Element:
    """A container such as `main`, `navigation`, `banner`, `contentinfo`, `list` or `generic`."""
    return Element(role, name, children=children, **options)
