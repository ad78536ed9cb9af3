"""Sites for the mock driver: pages, elements and behaviours as plain data, written in Python or JSON.

A test describes what a page *is* (a heading, a search box, a link that opens a tab) rather than how a browser
renders it, so everything here is an immutable definition. `MockDriver` instantiates a fresh live copy of a page
each time a tab loads it, which is what gives every navigation a new document and keeps one test's mutations out
of the next load. See `docs/mock-driver.md` for the guided tour.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, cast
from urllib.parse import urljoin, urlsplit, urlunsplit

import attrs

from browser_toolset.values import Rect

if TYPE_CHECKING:
    from typing_extensions import TypedDict, Unpack

__all__ = [
    "Behaviour",
    "CloseTab",
    "Dialog",
    "Download",
    "Element",
    "FileResponse",
    "Focus",
    "Hide",
    "Log",
    "Navigate",
    "OpenTab",
    "Option",
    "Page",
    "Redirect",
    "Request",
    "Resource",
    "ScriptError",
    "Show",
    "Site",
    "SiteFormatError",
    "Submit",
    "Toggle",
    "button",
    "checkbox",
    "file_input",
    "form",
    "group",
    "heading",
    "link",
    "normalize_url",
    "paragraph",
    "radio",
    "searchbox",
    "select",
    "text",
    "textarea",
    "textbox",
]


# --- behaviours: what happens when an element is clicked, hovered or submitted ------------------------------------
#
# URLs may be relative to the page, and may name form fields in braces (`/search?q={q}`): the driver fills in the
# field's current value (by element id, then by name), URL-encoded, when the behaviour runs.


@attrs.frozen
class Navigate:
    """Load `url` in the same tab, as a link or `location.href = ...` does."""

    url: str


@attrs.frozen
class OpenTab:
    """Open `url` in a new background tab, as a `target=_blank` link or `window.open` does."""

    url: str


@attrs.frozen
class Download:
    """Download `url` to a file. It is reported started at once and completed (or failed, when `error` is set)
    after `completes_after` more `drain_events` calls, so tests see a download finish on a later call."""

    url: str
    filename: str = ""
    content: str | bytes = b""
    error: str = ""
    completes_after: int = 1


DialogKind = Literal["alert", "confirm", "prompt", "beforeunload"]


@attrs.frozen
class Dialog:
    """Raise a native dialog, which the driver dismisses by itself and reports as `DialogHandled`."""

    message: str
    kind: DialogKind = "alert"


@attrs.frozen
class Log:
    """Write a console entry (`level` is log, info, warn, error or debug)."""

    text: str
    level: str = "log"


@attrs.frozen
class Request:
    """Issue a subresource request (a `fetch`), recorded in the tab's network log. `error` makes it fail."""

    url: str
    method: str = "GET"
    status: int = 200
    mime_type: str = "application/json"
    error: str = ""
    duration_ms: float | None = None


@attrs.frozen
class Submit:
    """Submit a form: the one whose id is `form`, else the nearest enclosing `form` element. Runs its
    `on_submit` behaviours."""

    form: str | None = None


@attrs.frozen
class Toggle:
    """Toggle a checkbox (check a radio): the element whose id or name is `target`, else the element clicked."""

    target: str | None = None


@attrs.frozen
class Focus:
    """Focus an element (by id or name), else the element clicked."""

    target: str | None = None


@attrs.frozen
class Show:
    """Make a hidden element (by id or name) visible, as a menu or disclosure does."""

    target: str


@attrs.frozen
class Hide:
    """Hide an element (by id or name)."""

    target: str


@attrs.frozen
class CloseTab:
    """Close the page's own tab, as `window.close()` does; reported as `TabClosed`."""


Behaviour = Union[Navigate, OpenTab, Download, Dialog, Log, Request, Submit, Toggle, Focus, Show, Hide, CloseTab]


# --- elements -------------------------------------------------------------------------------------------------------


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
    `on_hover` and (for forms) `on_submit` are behaviours run in order.
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
    file_input: bool = False
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


def checkbox(name: str, checked: bool = False, **options: Unpack[_Clickable]) -> Element:
    return Element("checkbox", name, checked=checked, **options)


def radio(name: str, group: str, checked: bool = False, **options: Unpack[_Clickable]) -> Element:
    return Element("radio", name, group=group, checked=checked, **options)


def select(
    name: str, choices: Iterable[Option | str], value: str | None = None, **options: Unpack[_Clickable]
) -> Element:
    """A `<select>`: role combobox whose options the driver lists as hidden `option` children. `value` picks the
    initial option by value or text (the first option otherwise)."""
    return Element("combobox", name, options=_options(choices), value=value, **options)


def file_input(name: str, **options: Unpack[_Clickable]) -> Element:
    return Element("button", name, file_input=True, **options)


def form(
    *children: Element, on_submit: Iterable[Behaviour] = (), name: str = "", **options: Unpack[_Common]
) -> Element:
    return Element("form", name, children=children, on_submit=on_submit, **options)


def group(role: str, *children: Element, name: str = "", **options: Unpack[_Clickable]) -> Element:
    """A container such as `main`, `navigation`, `banner`, `contentinfo`, `list` or `generic`."""
    return Element(role, name, children=children, **options)


# --- resources: what a URL serves -----------------------------------------------------------------------------------


@attrs.frozen
class ScriptError:
    """A canned `evaluate` result that throws, with this message."""

    message: str


@attrs.frozen
class Page:
    """A document. `on_load` behaviours run after every load (a console line, a fetch, a client-side redirect);
    `scripts` maps exact `evaluate` expressions to canned results, since the mock has no JavaScript engine."""

    title: str = ""
    elements: tuple[Element, ...] = attrs.field(default=(), converter=_elements)
    status: int = 200
    on_load: tuple[Behaviour, ...] = attrs.field(default=(), converter=_behaviours)
    scripts: Mapping[str, str | ScriptError] = attrs.field(factory=dict)


@attrs.frozen
class Redirect:
    """An HTTP redirect to `to` (relative to the redirecting URL)."""

    to: str
    status: int = 302


@attrs.frozen
class FileResponse:
    """A response the browser downloads instead of displaying (`Content-Disposition: attachment`): navigating here
    starts a download and leaves the tab where it was."""

    content: str | bytes = b""
    filename: str = ""
    error: str = ""
    completes_after: int = 1


Resource = Union[Page, Redirect, FileResponse]


def normalize_url(url: str) -> str:
    """The URL as a browser would show it: lower-case scheme and host, `/` for an empty path."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, parts.fragment))


def _lookup_key(url: str) -> str:
    return normalize_url(url).split("#", 1)[0]


@attrs.define
class Site:
    """Every URL the mock browser can load. Any other http(s) URL gets a 404 page; a host in `unreachable_hosts`
    fails to load at all. Paths are resolved against `base_url`, so most sites never spell a host. The builder
    methods return the site, so they chain; the driver reads the site on each load, so changes apply to the next
    navigation."""

    base_url: str = "https://example.test/"
    start: str | None = None
    pages: dict[str, Resource] = attrs.field(factory=dict)
    unreachable_hosts: set[str] = attrs.field(factory=set)

    def url(self, path: str) -> str:
        """`path` as an absolute URL against `base_url`."""
        return normalize_url(urljoin(self.base_url, path))

    def add(self, path: str, resource: Resource) -> Site:
        self.pages[_lookup_key(self.url(path))] = resource
        return self

    def page(
        self,
        path: str,
        title: str = "",
        *elements: Element,
        status: int = 200,
        on_load: Iterable[Behaviour] = (),
        scripts: Mapping[str, str | ScriptError] | None = None,
    ) -> Site:
        return self.add(path, Page(title, elements, status, on_load, dict(scripts or {})))

    def redirect(self, path: str, to: str, status: int = 302) -> Site:
        return self.add(path, Redirect(to, status))

    def file(self, path: str, content: str | bytes, filename: str = "", *, error: str = "") -> Site:
        return self.add(path, FileResponse(content, filename, error))

    def unreachable(self, *hosts: str) -> Site:
        self.unreachable_hosts.update(host.lower() for host in hosts)
        return self

    def resolve(self, url: str) -> Resource | None:
        """What `url` serves: an exact match (query included) first, then the same path without its query, so a
        `/search` page answers `/search?q=shoes`."""
        key = _lookup_key(url)
        if key in self.pages:
            return self.pages[key]
        return self.pages.get(key.split("?", 1)[0])

    @classmethod
    def from_json(cls, path: str | Path) -> Site:
        """A site from a JSON file in the format `docs/mock-driver.md` describes."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SiteFormatError(f"{path}: not valid JSON: {exc}") from exc
        return cls.from_dict(data, where=str(path))

    @classmethod
    def from_dict(cls, data: object, *, where: str = "site") -> Site:
        return _SiteReader(where).site(data)


# --- the JSON reader ------------------------------------------------------------------------------------------------


class SiteFormatError(ValueError):
    """A site description that cannot be read; the message names the offending entry, as in
    `shop.json: pages["/"].elements[2].on_click[0]: ...`."""


_ELEMENT_KEYS = frozenset(field.name for field in attrs.fields(Element))
_DIALOG_KINDS = ("alert", "confirm", "prompt", "beforeunload")
_FILE_OPTIONS: dict[str, type | tuple[type, ...]] = {
    "content": str,
    "filename": str,
    "error": str,
    "completes_after": int,
}
_SCALAR_FIELDS: dict[str, type | tuple[type, ...]] = {
    **dict.fromkeys(("role", "name", "id", "value", "text", "description", "placeholder", "href", "group"), str),
    **dict.fromkeys(("checked", "visible", "new_tab", "multiline", "file_input"), bool),
    "level": int,
}


class _SiteReader:
    """Turns parsed JSON into definitions, naming the path to whatever is wrong."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, message: str) -> SiteFormatError:
        return SiteFormatError(f"{self.where}: {path}: {message}")

    def options(self, value: object, path: str, types: Mapping[str, type | tuple[type, ...]]) -> dict[str, Any]:
        """An object whose keys are all in `types`, each value of its type."""
        fields = self.mapping(value, path, types)
        for key, item in fields.items():
            self.typed(item, types[key], f"{path}.{key}")
        return fields

    def mapping(self, value: object, path: str, allowed: Iterable[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {type(value).__name__}")
        unknown = sorted(set(value) - set(allowed))
        if unknown:
            raise self.fail(path, f"unknown key {unknown[0]!r}; expected one of {', '.join(sorted(allowed))}")
        return value

    def typed(self, value: object, kind: type | tuple[type, ...], path: str) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise self.fail(path, f"expected {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
        return value

    def listing(self, value: object, path: str) -> list[Any]:
        return list(self.typed(value, list, path))

    def site(self, data: object) -> Site:
        fields = self.mapping(data, "top level", ("base_url", "start", "unreachable", "pages"))
        site = Site(
            base_url=self.typed(fields.get("base_url", "https://example.test/"), str, "base_url"),
            start=None if fields.get("start") is None else self.typed(fields["start"], str, "start"),
        )
        for index, host in enumerate(self.listing(fields.get("unreachable", []), "unreachable")):
            site.unreachable(self.typed(host, str, f"unreachable[{index}]"))
        for path, entry in self.typed(fields.get("pages", {}), dict, "pages").items():
            site.add(path, self.resource(entry, f"pages[{path!r}]"))
        return site

    def resource(self, entry: object, path: str) -> Resource:
        if isinstance(entry, dict) and "redirect" in entry:
            fields = self.options(entry, path, {"redirect": str, "status": int})
            return Redirect(fields["redirect"], fields.get("status", 302))
        if isinstance(entry, dict) and "file" in entry:
            self.mapping(entry, path, ("file",))
            return FileResponse(**self.options(entry["file"], f"{path}.file", _FILE_OPTIONS))
        fields = self.mapping(entry, path, ("title", "status", "elements", "on_load", "scripts"))
        scripts: dict[str, str | ScriptError] = {}
        for expression, result in self.typed(fields.get("scripts", {}), dict, f"{path}.scripts").items():
            where = f"{path}.scripts[{expression!r}]"
            if isinstance(result, dict):
                scripts[expression] = ScriptError(
                    self.typed(self.mapping(result, where, ("error",))["error"], str, where)
                )
            else:
                scripts[expression] = self.typed(result, str, where)
        return Page(
            title=self.typed(fields.get("title", ""), str, f"{path}.title"),
            elements=self.elements(fields.get("elements", []), f"{path}.elements"),
            status=self.typed(fields.get("status", 200), int, f"{path}.status"),
            on_load=self.behaviours(fields.get("on_load", []), f"{path}.on_load"),
            scripts=scripts,
        )

    def elements(self, value: object, path: str) -> list[Element]:
        return [self.element(item, f"{path}[{index}]") for index, item in enumerate(self.listing(value, path))]

    def element(self, value: object, path: str) -> Element:
        fields = dict(self.mapping(value, path, _ELEMENT_KEYS))
        if "role" not in fields:
            raise self.fail(path, "an element needs a role (button, link, textbox, heading, paragraph, ...)")
        for key, kind in _SCALAR_FIELDS.items():
            if fields.get(key) is not None:
                self.typed(fields[key], kind, f"{path}.{key}")
        if "states" in fields:
            for index, state in enumerate(self.listing(fields["states"], f"{path}.states")):
                self.typed(state, str, f"{path}.states[{index}]")
        if "children" in fields:
            fields["children"] = self.elements(fields["children"], f"{path}.children")
        for key in ("on_click", "on_hover", "on_submit"):
            if key in fields:
                fields[key] = self.behaviours(fields[key], f"{path}.{key}")
        if "options" in fields:
            fields["options"] = [
                self.option(item, f"{path}.options[{index}]")
                for index, item in enumerate(self.listing(fields["options"], f"{path}.options"))
            ]
        if "bounds" in fields:
            bounds = fields["bounds"]
            if isinstance(bounds, dict):
                box = self.mapping(bounds, f"{path}.bounds", ("x", "y", "width", "height"))
                bounds = [box.get(corner) for corner in ("x", "y", "width", "height")]
            numbers = isinstance(bounds, list) and all(type(item) in (int, float) for item in bounds)
            if not (numbers and len(bounds) == 4):
                raise self.fail(f"{path}.bounds", "expected [x, y, width, height]: CSS pixels from the page's top-left")
        try:
            return Element(**fields)
        except (TypeError, ValueError) as exc:
            raise self.fail(path, str(exc)) from exc

    def option(self, value: object, path: str) -> Option:
        if isinstance(value, str):
            return Option(value)
        fields = self.mapping(value, path, ("value", "text"))
        return Option(self.typed(fields["value"], str, f"{path}.value"), self.typed(fields.get("text", ""), str, path))

    def behaviours(self, value: object, path: str) -> list[Behaviour]:
        return [self.behaviour(item, f"{path}[{index}]") for index, item in enumerate(self.listing(value, path))]

    def behaviour(self, value: object, path: str) -> Behaviour:
        if isinstance(value, str):
            value = {value: None}
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a behaviour object such as {{'navigate': '/next'}}, got {value!r}")
        kinds = [key for key in value if key in _BEHAVIOUR_KINDS]
        if len(kinds) != 1:
            raise self.fail(
                path, f"a behaviour names exactly one of {', '.join(_BEHAVIOUR_KINDS)}; got {sorted(value)}"
            )
        kind = kinds[0]
        argument = value[kind]
        rest = {key: item for key, item in value.items() if key != kind}
        try:
            return self.make_behaviour(kind, argument, rest, path)
        except TypeError as exc:
            raise self.fail(path, str(exc)) from exc

    def make_behaviour(self, kind: str, argument: object, rest: dict[str, Any], path: str) -> Behaviour:
        def only(**types: type | tuple[type, ...]) -> dict[str, Any]:
            return self.options(rest, path, types)

        if kind in _DIALOG_KINDS:
            only()
            return Dialog(self.typed(argument, str, f"{path}.{kind}"), cast(DialogKind, kind))
        if kind == "navigate":
            only()
            return Navigate(self.typed(argument, str, f"{path}.navigate"))
        if kind == "open_tab":
            only()
            return OpenTab(self.typed(argument, str, f"{path}.open_tab"))
        if kind == "download":
            return Download(self.typed(argument, str, f"{path}.download"), **only(**_FILE_OPTIONS))
        if kind == "log":
            return Log(self.typed(argument, str, f"{path}.log"), **only(level=str))
        if kind == "request":
            fields = only(method=str, status=int, mime_type=str, error=str, duration_ms=(int, float))
            return Request(self.typed(argument, str, f"{path}.request"), **fields)
        if kind == "submit":
            only()
            return Submit(argument if isinstance(argument, str) else None)
        if kind == "close_tab":
            only()
            return CloseTab()
        only()
        target = None if argument is None or argument is True else self.typed(argument, str, f"{path}.{kind}")
        if kind == "toggle":
            return Toggle(target)
        if kind == "focus":
            return Focus(target)
        if target is None:
            raise self.fail(path, f"{kind} needs the id or name of the element to {kind}")
        return Show(target) if kind == "show" else Hide(target)


_BEHAVIOUR_KINDS = (
    "navigate",
    "open_tab",
    "download",
    *_DIALOG_KINDS,
    "log",
    "request",
    "submit",
    "toggle",
    "focus",
    "show",
    "hide",
    "close_tab",
)
