"""The live document model: what a tab holds after loading a page, and what its roles mean to the mock.

A page definition is immutable; each load instantiates it into `LiveElement`s with fresh keys, which the driver
hands the executor and a test may change as the page's own script would. A key therefore names one element of
one document: removing the element or replacing the document makes it raise `ElementGone`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePosixPath
from typing import Any

import attrs

from browser_toolset.driver_errors import InvalidValue
from browser_toolset.values import MouseButton

from .elements import Element
from .resources import ScriptError

# --- what roles mean to the mock ------------------------------------------------------------------------------------

CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
TEXT_ENTRY = frozenset({"textbox", "searchbox", "spinbutton", "combobox"})
VALUE_ROLES = TEXT_ENTRY | {"slider", "progressbar", "meter", "scrollbar"}
INTERACTIVE = CHECKABLE | TEXT_ENTRY | {
    "button", "link", "listbox", "option", "slider", "menuitem", "tab", "treeitem",
}  # fmt: skip
NAME_FROM_CONTENT = frozenset({
    "link", "button", "heading", "cell", "columnheader", "rowheader", "option", "menuitem", "tab",
    "treeitem", "tooltip", "caption", "label", "status", "alert", "term", "definition",
}) | CHECKABLE  # fmt: skip
MAIN_REGIONS = frozenset({"main", "article"})
PERIPHERAL_REGIONS = frozenset({"navigation", "banner", "contentinfo"})


def _collapse(value: str) -> str:
    return " ".join(value.split())


# --- live elements and documents ------------------------------------------------------------------------------------

_FIXED_FIELDS = frozenset({"children", "options"})
_SETTABLE = frozenset(field.name for field in attrs.fields(Element)) - _FIXED_FIELDS


@attrs.define(eq=False, repr=False)
class LiveElement:
    """One element of a loaded document. Its `key` is what the driver hands the executor, and stays the same
    however the element changes, until it is removed or its document is replaced. `spec` is its current
    definition (children and options aside, which are live elements of their own)."""

    key: str
    spec: Element
    document: _Document
    parent: LiveElement | None = None
    children: list[LiveElement] = attrs.Factory(list)
    files: tuple[str, ...] = ()
    attached: bool = True

    @property
    def role(self) -> str:
        return self.spec.role

    @property
    def name(self) -> str:
        """The accessible name: `name`, else the text of links, buttons, headings and the like."""
        if self.spec.name or self.role not in NAME_FROM_CONTENT:
            return _collapse(self.spec.name)
        return _collapse(self.spec.text)

    @property
    def value(self) -> str | None:
        """A text field's text, a select's chosen option text, a file input's file names; None otherwise."""
        options = self.options
        if options:
            chosen = [option.name for option in options if "selected" in option.spec.states]
            return ", ".join(chosen)
        if self.spec.file_input:
            return ", ".join(PurePosixPath(path.replace("\\", "/")).name for path in self.files) or None
        if self.role in VALUE_ROLES:
            return self.spec.value or ""
        return None if self.role == "option" else self.spec.value

    @property
    def checked(self) -> bool | None:
        return bool(self.spec.checked) if self.role in CHECKABLE else None

    @property
    def visible(self) -> bool:
        """Whether this element and all its ancestors are shown (by their `visible` flag, not by layout)."""
        return self.spec.visible and (self.parent is None or self.parent.visible)

    @property
    def options(self) -> list[LiveElement]:
        return [child for child in self.children if child.role == "option"]

    @property
    def disabled(self) -> bool:
        return "disabled" in self.spec.states

    def set(self, **changes: Any) -> LiveElement:
        """Change any `Element` field but `children` and `options` (`value` on a select picks an option), keeping
        the element's key, as a page's script changing attributes would."""
        unknown = sorted(set(changes) - _SETTABLE)
        if unknown:
            raise TypeError(f"cannot set {unknown[0]!r} on an element; settable fields: {', '.join(sorted(_SETTABLE))}")
        if "value" in changes and self.options:
            _choose_option(self, str(changes.pop("value")))
        self.spec = attrs.evolve(self.spec, **changes)
        return self

    def remove(self) -> None:
        """Take the element and its subtree out of the document: their keys now raise `ElementGone`."""
        if self.parent is not None and self in self.parent.children:
            self.parent.children.remove(self)
        self.document.detach(self)

    def append(self, *elements: Element, index: int | None = None) -> list[LiveElement]:
        """Add new children (at `index`, else last), each with a fresh key."""
        added = [self.document.instantiate(element, self) for element in elements]
        at = len(self.children) if index is None else index
        self.children[at:at] = added
        return added

    def walk(self) -> Iterator[LiveElement]:
        """This element and its descendants, in document order."""
        yield self
        for child in list(self.children):
            yield from child.walk()

    def ancestors(self) -> Iterator[LiveElement]:
        """This element, its parent, and so on up to the document."""
        element: LiveElement | None = self
        while element is not None:
            yield element
            element = element.parent

    def __repr__(self) -> str:
        return f"<LiveElement {self.key} {self.role} {self.name!r}{'' if self.attached else ' (removed)'}>"


def _choose_option(owner: LiveElement, wanted: str) -> LiveElement:
    """Select the option whose value or text is `wanted` (exactly, then ignoring case and spacing)."""
    options = owner.options
    folded = _collapse(wanted).casefold()
    match = next((o for o in options if wanted in (o.spec.value, o.name)), None) or next(
        (o for o in options if folded in (_collapse(o.spec.value or "").casefold(), o.name.casefold())), None
    )
    if match is None:
        listed = ", ".join(
            f'"{o.name}"' + (f" (value {o.spec.value!r})" if o.spec.value not in (None, o.name) else "")
            for o in options
        )
        raise InvalidValue(f"{wanted!r} is not an option of {_describe(owner)}. Its options are: {listed}.")
    for option in options:
        states = [state for state in option.spec.states if state != "selected"]
        option.spec = attrs.evolve(option.spec, states=[*states, "selected"] if option is match else states)
    return match


def _describe(element: LiveElement) -> str:
    return f'{element.role} "{element.name}"' if element.name else element.role


@attrs.define(eq=False)
class _Document:
    """One load of a page: its elements by key, and everything that lives and dies with the document (scroll
    offset, focus, hover, a pressed mouse button, a select-all in the focused field)."""

    id: str
    url: str
    title: str
    status: int | None
    new_key: Callable[[], str]
    scripts: Mapping[str, str | ScriptError] = attrs.Factory(dict)
    by_key: dict[str, LiveElement] = attrs.Factory(dict)
    scroll_x: float = 0.0
    scroll_y: float = 0.0
    focused: LiveElement | None = None
    select_all: bool = False
    hovered: LiveElement | None = None
    pressed: tuple[LiveElement, MouseButton] | None = None
    root: LiveElement = attrs.field(init=False)

    def instantiate(self, spec: Element, parent: LiveElement | None) -> LiveElement:
        live = LiveElement(self.new_key(), attrs.evolve(spec, children=(), options=()), self, parent)
        self.by_key[live.key] = live
        live.children = [self.instantiate(child, live) for child in spec.children]
        if spec.options:
            for option in spec.options:
                option_spec = Element("option", option.label, value=option.value, visible=spec.role == "listbox")
                live.children.append(self.instantiate(option_spec, live))
            if spec.value is not None:
                _choose_option(live, spec.value)
            elif spec.role == "combobox":
                _choose_option(live, spec.options[0].value)
        return live

    def detach(self, element: LiveElement) -> None:
        for gone in element.walk():
            gone.attached = False
            self.by_key.pop(gone.key, None)
        if self.focused is not None and not self.focused.attached:
            self.focused, self.select_all = None, False
        if self.hovered is not None and not self.hovered.attached:
            self.hovered = None
        if self.pressed is not None and not self.pressed[0].attached:
            self.pressed = None

    def find(self, ref: str, within: LiveElement | None = None) -> LiveElement | None:
        """The first element whose id is `ref`, else the first whose name is `ref`."""
        elements = list((within or self.root).walk())
        return next((e for e in elements if e.spec.id == ref), None) or next(
            (e for e in elements if e.name == ref), None
        )


# --- what an element does, by its role and definition ---------------------------------------------------------------


def _interactive(element: LiveElement) -> bool:
    """Focusable, clickable or editable: an interactive role or a click behaviour, and not disabled."""
    if element.disabled:
        return False
    if element.role == "link":
        return element.spec.href is not None or bool(element.spec.on_click)
    return element.role in INTERACTIVE or bool(element.spec.on_click) or element.spec.file_input


def _focusable(element: LiveElement) -> bool:
    return _interactive(element) and element.role != "option"


def _editable(element: LiveElement) -> bool:
    return element.role in TEXT_ENTRY and not element.options and not element.disabled


def _handles_click(element: LiveElement) -> bool:
    return (
        element.spec.href is not None
        or bool(element.spec.on_click)
        or element.role in CHECKABLE
        or (element.role == "option" and element.parent is not None and element.parent.role == "listbox")
    )


def _activated_by(element: LiveElement, key: str) -> bool:
    """Enter follows links and presses buttons; Space presses buttons and toggles checkboxes."""
    if key == "Enter":
        return _handles_click(element) and element.role not in CHECKABLE
    return key == " " and (element.role in CHECKABLE or element.role == "button")


def _enclosing_form(element: LiveElement | None) -> LiveElement | None:
    if element is None:
        return None
    return next((e for e in element.ancestors() if e.role == "form"), None)


def _form_value(element: LiveElement) -> str:
    if element.role in CHECKABLE:
        return "on" if element.checked else ""
    chosen = [option for option in element.options if "selected" in option.spec.states]
    if chosen:
        return chosen[0].spec.value or chosen[0].name
    return element.value or ""


def _form_data(form: LiveElement) -> list[tuple[str, str]]:
    """What a browser submits for `form`, as (name, value) pairs in document order: every enabled field named by
    its `group` or `id`, a checkbox or radio button only when checked (with its `value`, else `on`)."""
    pairs: list[tuple[str, str]] = []
    for element in form.walk():
        name = element.spec.group or element.spec.id
        if element is form or not name or element.disabled:
            continue
        if element.role in CHECKABLE:
            if element.checked:
                pairs.append((name, element.spec.value or "on"))
        elif element.role in TEXT_ENTRY or element.role == "listbox" or element.options:
            pairs.append((name, _form_value(element)))
    return pairs


def _set_checked(element: LiveElement, checked: bool) -> None:
    """Check or uncheck; checking a radio unchecks the others of its group (same `group`, else same parent)."""
    if checked and element.role in ("radio", "menuitemradio"):
        doc = element.document
        if element.spec.group is not None:
            peers = [e for e in doc.root.walk() if e.spec.group == element.spec.group]
        else:
            peers = list(element.parent.children) if element.parent is not None else []
        for peer in peers:
            if peer is not element and peer.role == element.role and peer.spec.checked:
                peer.spec = attrs.evolve(peer.spec, checked=False)
    element.spec = attrs.evolve(element.spec, checked=checked)
