"""A mock `Site`'s pages as real HTML, for `SiteServer` to serve: one site description, two kinds of browser.

How a site becomes pages:

- Elements become the native HTML element of their role (`heading` -> `<hN>`, `textbox` -> `<input>`, `combobox`
  with options -> `<select>`, `main` -> `<main>`, ...) or a `<div role=...>`, with `aria-label` where the accessible
  name is not the element's own text, `aria-description`, the native or ARIA attribute of each state, `hidden` for
  `visible=False`, and absolute positioning for `bounds`. A named checkbox or radio is wrapped in a `<label>` with
  its name, since the mock shows that name as page text.
- Behaviours run in the page's script with the mock's semantics: a click runs `on_click` of the nearest element
  that handles clicks, and of that one only; Enter in a single-line field submits its form (`on_submit`, else a
  click on its first button); `{field}` placeholders are filled from the field the mock would pick; a behaviour
  after a `Navigate` does not run. The script is `site_behaviours.js` beside this module; the behaviours are data
  on the elements (`data-on-click` and friends). A `Download` or `Request` also needs a route on the server, which
  `_Renderer.routes()` names.

What HTML cannot express as the mock behaves is refused with `UnrenderableSite`, naming the feature and the page.
The role tables that decide what a role shows (`NAME_FROM_CONTENT`, `CHECKABLE`) are the mock's own, so that a fix
to the mock reaches the served pages too.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import attrs

from browser_toolset.drivers.mock import (
    CHECKABLE,
    NAME_FROM_CONTENT,
    TYPED_FIELD_ROLES,
    Behaviour,
    CloseTab,
    Dialog,
    Download,
    Element,
    Focus,
    Hide,
    Log,
    Navigate,
    OpenTab,
    Option,
    Page,
    Request,
    Show,
    Site,
    Submit,
    Toggle,
    heading,
    paragraph,
)

__all__ = ["UnrenderableSite", "render_page"]

UNRENDERED_ROLES: Mapping[str, str] = {
    "switch": "a switch toggles on click in the mock; HTML has no native switch",
    "menuitemcheckbox": "it toggles on click in the mock; HTML has no native element for it",
    "menuitemradio": "it toggles on click in the mock; HTML has no native element for it",
    "spinbutton": "the mock types any text into it; a native number field refuses text",
    "slider": "the mock sets its value as text; a native range input moves in steps",
    "option": "options are rendered only inside a select (a combobox with options)",
    "listbox": "the mock's listbox options are clicked to choose; HTML has no native single-click listbox",
}
"""Roles whose mock behaviour no HTML element has, with the reason."""

NATIVE_TAGS: Mapping[str, str] = {
    "paragraph": "p",
    "main": "main",
    "navigation": "nav",
    "banner": "header",
    "contentinfo": "footer",
    "article": "article",
    "list": "ul",
    "listitem": "li",
    "blockquote": "blockquote",
    "figure": "figure",
    "text": "span",
}
"""Roles whose HTML element has exactly that role where the renderer puts it (a header or footer at the top of
the body is a banner or contentinfo)."""

ARIA_STATES: Mapping[str, tuple[str, str]] = {
    "expanded": ("aria-expanded", "true"),
    "collapsed": ("aria-expanded", "false"),
    "pressed": ("aria-pressed", "true"),
    "selected": ("aria-selected", "true"),
    "mixed": ("aria-checked", "mixed"),
    "invalid": ("aria-invalid", "true"),
    "modal": ("aria-modal", "true"),
    "multiselectable": ("aria-multiselectable", "true"),
    "disabled": ("aria-disabled", "true"),
    "readonly": ("aria-readonly", "true"),
    "required": ("aria-required", "true"),
}
NATIVE_STATES: Mapping[str, frozenset[str]] = {
    "disabled": frozenset({"button", "input", "select", "textarea"}),
    "readonly": frozenset({"input", "textarea"}),
    "required": frozenset({"input", "select", "textarea"}),
}
"""States a form control carries as its own attribute, so the browser enforces them as the mock does."""
COMPUTED_STATES = frozenset({"checked", "unchecked", "focused", "multiline"})
"""States the mock computes itself and ignores in a definition."""

STYLE = """
html { font: 14px/20px sans-serif; }
body { margin: 0; padding: 16px; }
[data-m] { display: block; box-sizing: border-box; margin: 0 0 8px 0; min-height: 32px; }
[data-m] [data-m] { margin-left: 16px; }
a[data-m], button[data-m], label > input[data-m], input[type=file][data-m] { width: fit-content; }
label[data-m-label] { display: block; min-height: 32px; margin: 0 0 8px 0; }
label > input[data-m] { display: inline-block; min-height: 0; margin: 0 8px 0 0; }
input[data-m]:not([type=checkbox]):not([type=radio]):not([type=file]), select[data-m] { width: 320px; }
textarea[data-m] { width: 320px; height: 80px; }
iframe[data-m] { width: calc(100% - 16px); height: 320px; border: 1px solid #999; }
[data-m][data-bounds] { position: absolute; margin: 0; }
[hidden] { display: none !important; }
"""
"""The mock's flow, roughly: one element per 40 px row, containers indenting theirs. Tests compare trees and text,
not pixels, but a page that fits the viewport in the mock should fit it in a browser too."""


@functools.cache
def _behaviours_script() -> str:
    """The interpreter of the behaviours each page carries as data (`data-on-click` and friends): `site_behaviours.js`
    beside this module, read once per process."""
    return (importlib.resources.files("browser_toolset.testing") / "site_behaviours.js").read_text("utf-8")


class UnrenderableSite(ValueError):
    """A site uses something a real browser cannot reproduce as the mock does; the message names it and where."""


def _collapse(value: str) -> str:
    return " ".join(value.split())


def _normalized(url: str) -> str:
    """The URL as the mock keys it: lower-case scheme and host, `/` for an empty path."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, parts.fragment))


def _origin(url: str) -> str:
    parts = urlsplit(_normalized(url))
    return f"{parts.scheme}://{parts.netloc}"


def _path_of(url: str) -> str:
    """Everything of an absolute URL after its origin."""
    parts = urlsplit(url)
    return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))


def _last_segment(url: str) -> str:
    return urlsplit(url).path.rsplit("/", 1)[-1] or "download"


def _attachment(filename: str) -> dict[str, str]:
    return {
        "Content-Type": "application/octet-stream",
        "Content-Disposition": f"attachment; filename*=UTF-8''{quote(filename)}",
    }


def _chosen(options: Sequence[Option], wanted: str | None) -> int | None:
    """The index of the option the mock picks for a select's `value`: exact value or text, then the same ignoring
    case and spacing; the first option when there is no value; None when nothing matches."""
    if wanted is None:
        return 0 if options else None
    for index, option in enumerate(options):
        if wanted in (option.value, _collapse(option.label)):
            return index
    folded = _collapse(wanted).casefold()
    for index, option in enumerate(options):
        if folded in (_collapse(option.value).casefold(), _collapse(option.label).casefold()):
            return index
    return None


@attrs.frozen
class _Route:
    """What a URL that is no page serves: a `Download`'s content, or a `Request`'s answer."""

    status: int
    headers: Mapping[str, str]
    body: bytes


@attrs.define
class _Node:
    """An element of the page being rendered, with what behaviours need to find it."""

    index: int
    spec: Element
    parent: _Node | None
    children: list[_Node] = attrs.Factory(list)

    @property
    def name(self) -> str:
        if self.spec.name or self.spec.role not in NAME_FROM_CONTENT:
            return _collapse(self.spec.name)
        return _collapse(self.spec.text)

    def walk(self) -> Iterator[_Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def form(self) -> _Node | None:
        node: _Node | None = self
        while node is not None and node.spec.role != "form":
            node = node.parent
        return node


class _Renderer:
    """One page of a site as HTML, with URLs on the site's host moved to `served` (an origin), and those on the other
    hosts `others` serves (site origin -> served origin) moved there."""

    def __init__(self, site: Site, url: str, page: Page, served: str, others: Mapping[str, str] | None = None) -> None:
        self.url = url
        self.page = page
        self.base = _origin(site.url("/"))
        self.served = served
        self.others = dict(others or {})
        self.counter = itertools.count(1)
        self.roots = [self.build(element, None) for element in page.elements]
        self.nodes = [node for root in self.roots for node in root.walk()]

    def fail(self, what: str) -> UnrenderableSite:
        return UnrenderableSite(f"{self.url}: {what}")

    def build(self, spec: Element, parent: _Node | None) -> _Node:
        node = _Node(next(self.counter), spec, parent)
        node.children = [self.build(child, node) for child in spec.children]
        return node

    def served_url(self, url: str) -> str:
        """`url` with the site's origin swapped for the served one, when it is on the site's host (or on another host
        the server serves)."""
        if url.split(":", 1)[0].lower() in ("http", "https") and _origin(url) == self.base:
            return self.served + _path_of(url)
        if url.split(":", 1)[0].lower() in ("http", "https") and _origin(url) in self.others:
            return self.others[_origin(url)] + _path_of(url)
        return url

    # --- finding elements as the mock does: by id, then by name; a placeholder in the source's form first ---------

    def find(self, ref: str, within: _Node | None = None) -> _Node | None:
        nodes = list(within.walk()) if within is not None else self.nodes
        return next((n for n in nodes if n.spec.id == ref), None) or next((n for n in nodes if n.name == ref), None)

    def target(self, ref: str | None, what: str) -> int | None:
        if ref is None:
            return None
        found = self.find(ref)
        if found is None:
            raise self.fail(f"{what}({ref!r}) names no element of the page")
        return found.index

    def fields(self, template: str, source: _Node | None) -> dict[str, int]:
        scope = source.form() if source is not None else None
        found: dict[str, int] = {}
        for name in re.findall(r"\{([^{}]+)\}", template):
            field = (self.find(name, scope) if scope is not None else None) or self.find(name)
            if field is not None:
                found[name] = field.index
        return found

    def located(self, url: str, source: _Node | None) -> dict[str, Any]:
        return {"url": self.served_url(url), "fields": self.fields(url, source)}

    # --- behaviours ----------------------------------------------------------------------------------------------

    def behaviour(self, behaviour: Behaviour, source: _Node | None) -> dict[str, Any]:
        match behaviour:
            case Navigate(url):
                return {"kind": "navigate", **self.located(url, source)}
            case OpenTab(url):
                return {"kind": "open_tab", **self.located(url, source)}
            case Download(url, filename):
                return {"kind": "download", "filename": filename, **self.located(url, source)}
            case Dialog(message, kind):
                if kind not in ("alert", "confirm", "prompt"):
                    raise self.fail(f"a {kind} dialog: a page cannot raise one at once, as the mock does")
                return {"kind": "dialog", "dialog": kind, "message": message}
            case Log(text, level):
                if level not in ("log", "info", "warn", "error", "debug"):
                    raise self.fail(f"Log level {level!r}: the console has log, info, warn, error and debug")
                return {"kind": "log", "text": text, "level": level, "fields": self.fields(text, source)}
            case Request(url, method):
                return {"kind": "request", "method": method.upper(), **self.located(url, source)}
            case Submit(form):
                if form is not None:
                    return {"kind": "submit", "target": self.target(form, "Submit")}
                owner = source.form() if source is not None else None
                return {"kind": "submit", "target": None if owner is None else owner.index}
            case Toggle(target):
                return {"kind": "toggle", "target": self.target(target, "Toggle")}
            case Focus(target):
                return {"kind": "focus", "target": self.target(target, "Focus")}
            case Show(target):
                return {"kind": "show", "target": self.target(target, "Show")}
            case Hide(target):
                return {"kind": "hide", "target": self.target(target, "Hide")}
            case CloseTab():
                return {"kind": "close_tab"}
        raise self.fail(f"{behaviour!r} is no behaviour the site server knows")

    def behaviours(self, behaviours: Sequence[Behaviour], source: _Node | None) -> str:
        return json.dumps([self.behaviour(b, source) for b in behaviours], separators=(",", ":"))

    # --- elements ------------------------------------------------------------------------------------------------

    def tag(self, node: _Node) -> tuple[str, dict[str, str | None]]:
        """The HTML element for a node, and the attributes that give it its role."""
        spec = node.spec
        role = spec.role
        if spec.input_type:
            # a typed field is that <input>, whatever its role's usual rendering (typed_field)
            if TYPED_FIELD_ROLES.get(spec.input_type) != role:
                raise self.fail(f"{role} with input_type {spec.input_type!r}: no <input> of that type has that role")
            return "input", {"type": spec.input_type}
        if role in UNRENDERED_ROLES:
            raise self.fail(f"role {role}: {UNRENDERED_ROLES[role]}")
        if spec.file_input:
            return "input", {"type": "file"}
        if role == "heading":
            level = spec.level or 1
            return (f"h{level}", {}) if 1 <= level <= 6 else ("div", {"role": "heading", "aria-level": str(level)})
        if role == "link":
            if spec.href is None:
                return "a", {"role": "link", "tabindex": "0"}
            attributes: dict[str, str | None] = {"href": self.served_url(spec.href)}
            if spec.new_tab:
                attributes["target"] = "_blank"
            return "a", attributes
        if role == "button":
            return "button", {"type": "button"}
        if role == "iframe":
            # a frame (`frame`): its content is the page at its address, relative ones staying relative
            return "iframe", {} if spec.src is None else {"src": self.served_url(spec.src)}
        if role in ("textbox", "searchbox") and spec.multiline:
            return "textarea", {} if role == "textbox" else {"role": role}
        if role in ("textbox", "searchbox"):
            return "input", {"type": "text" if role == "textbox" else "search"}
        if role == "combobox":
            return ("select", {}) if spec.options else ("input", {"type": "text", "role": "combobox"})
        if role == "checkbox":
            return "input", {"type": "checkbox"}
        if role == "radio":
            # the mock groups radios by `group`, else by parent
            group = spec.group or f"radios-{node.parent.index if node.parent else 0}"
            return "input", {"type": "radio", "name": group}
        if role == "form":
            # an unnamed <form> has no role of its own; the mock shows every form as one
            return "form", {} if spec.name else {"role": "form"}
        if role in NATIVE_TAGS:
            return NATIVE_TAGS[role], {}
        return "div", {"role": role}

    def element(self, node: _Node, offset: tuple[float, float]) -> str:
        spec = node.spec
        tag, attributes = self.tag(node)
        what = f"{spec.role} {node.name!r}" if node.name else spec.role
        attributes["data-m"] = str(node.index)
        if spec.id is not None:
            attributes["id"] = spec.id
        control = tag in ("input", "select", "textarea")
        label = (_collapse(spec.text) or node.name) if spec.role in CHECKABLE else ""
        content = "" if control else (_collapse(spec.text) or (node.name if spec.role in NAME_FROM_CONTENT else ""))
        if node.name and node.name != (label if control else content):
            attributes["aria-label"] = node.name
        if spec.description:
            attributes["aria-description"] = spec.description
        if spec.placeholder:
            if tag not in ("input", "textarea"):
                raise self.fail(f"{what} has a placeholder, which only text fields show")
            attributes["placeholder"] = spec.placeholder
        self.states(spec, tag, what, attributes)
        if spec.value is not None and tag not in ("select", "textarea"):
            if tag != "input" or spec.role in CHECKABLE or spec.file_input:
                raise self.fail(f"{what} has a value, which only text fields and selects hold")
            attributes["value"] = spec.value
        if not spec.visible:
            attributes["hidden"] = None
        inner_offset = offset
        if spec.bounds is not None:
            box = spec.bounds
            attributes["data-bounds"] = None
            attributes["style"] = (
                f"left:{box.x - offset[0]:g}px;top:{box.y - offset[1]:g}px;"
                f"width:{box.width:g}px;height:{box.height:g}px"
            )
            inner_offset = (box.x, box.y)
        if spec.on_click:
            attributes["data-on-click"] = self.behaviours(spec.on_click, node)
            if tag not in ("a", "button", "input", "select", "textarea"):
                # focusable and with the pointer cursor, as a page makes a clickable element
                attributes.setdefault("tabindex", "0")
                attributes["style"] = f"{attributes.get('style') or ''};cursor:pointer".lstrip(";")
        if spec.on_hover:
            attributes["data-on-hover"] = self.behaviours(spec.on_hover, node)
        if spec.on_submit:
            if spec.role != "form":
                raise self.fail(f"{what} has on_submit, which only a form runs")
            attributes["data-on-submit"] = self.behaviours(spec.on_submit, node)
        if spec.options and tag != "select":
            raise self.fail(f"{what} has options, which only a combobox (a <select>) is rendered with")
        if control and node.children:
            raise self.fail(f"{what} has children, which a form control cannot hold")
        if tag == "iframe" and (node.children or content):
            raise self.fail(f"{what} has children or text: a frame shows the page at its src")
        opening = f"<{tag}{_attributes(attributes)}>"
        if tag == "input":
            return f"<label data-m-label>{opening}{html.escape(label)}</label>" if label else opening
        if tag == "select":
            chosen = _chosen(spec.options, spec.value)
            if chosen is None:
                raise self.fail(f"{what} has the value {spec.value!r}, which none of its options has")
            inner = "".join(
                f"<option value={_quoted(option.value)}{' selected' if index == chosen else ''}>"
                f"{html.escape(option.label)}</option>"
                for index, option in enumerate(spec.options)
            )
        elif tag == "textarea":
            inner = html.escape(spec.value or "")
        else:
            inner = html.escape(content) + "".join(self.element(child, inner_offset) for child in node.children)
        return f"{opening}{inner}</{tag}>"

    def states(self, spec: Element, tag: str, what: str, attributes: dict[str, str | None]) -> None:
        for state in spec.states:
            if state in COMPUTED_STATES:
                continue
            if state not in ARIA_STATES:
                raise self.fail(f"{what} has the state {state!r}, which no HTML attribute expresses")
            if tag in NATIVE_STATES.get(state, frozenset()):
                attributes[state] = None
            elif state == "mixed" and spec.role == "checkbox":
                attributes["data-mixed"] = None
            else:
                key, value = ARIA_STATES[state]
                attributes[key] = value
        if spec.role in CHECKABLE and spec.checked and "mixed" not in spec.states:
            attributes["checked"] = None

    def document(self) -> str:
        if self.page.scripts:
            raise self.fail("Page.scripts holds canned evaluate results; a real browser evaluates the page itself")
        if self.page.status < 200 or self.page.status in (204, 205, 304):
            raise self.fail(f"status {self.page.status}: a real browser shows no page for it")
        body: dict[str, str | None] = {}
        if self.page.on_load:
            body["data-on-load"] = self.behaviours(self.page.on_load, None)
        elements = "".join(self.element(node, (0.0, 0.0)) for node in self.roots)
        return (
            "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>{html.escape(self.page.title)}</title><style>{STYLE}</style></head>"
            f"<body{_attributes(body)}>{elements}<script>{_behaviours_script()}</script></body></html>"
        )

    def routes(self) -> Iterator[tuple[str, str, _Route]]:
        """(method, site URL, route) for every download and request the page's behaviours make."""
        lists: list[Sequence[Behaviour]] = [self.page.on_load]
        for node in self.nodes:
            lists += [node.spec.on_click, node.spec.on_hover, node.spec.on_submit]
        for behaviour in (b for found in lists for b in found):
            if isinstance(behaviour, Download):
                url = self.route_url("Download", behaviour.url)
                if behaviour.error:
                    raise self.fail(f"Download({behaviour.url!r}) fails: a served file cannot fail as the mock's does")
                content = behaviour.content.encode() if isinstance(behaviour.content, str) else behaviour.content
                filename = behaviour.filename or _last_segment(url)
                yield "GET", url, _Route(200, _attachment(filename), content)
            elif isinstance(behaviour, Request):
                url = self.route_url("Request", behaviour.url)
                if behaviour.error or behaviour.duration_ms is not None:
                    raise self.fail(
                        f"Request({behaviour.url!r}) sets error or duration_ms: a served request fails and takes "
                        "as long as it really does"
                    )
                body = b"{}" if "json" in behaviour.mime_type else b""
                route = _Route(behaviour.status, {"Content-Type": behaviour.mime_type}, body)
                yield behaviour.method.upper(), url, route

    def route_url(self, what: str, url: str) -> str:
        if "{" in url:
            raise self.fail(f"{what}({url!r}) has placeholders: the server answers fixed URLs only")
        absolute = _normalized(urljoin(self.url, url)).split("#", 1)[0]
        if _origin(absolute) != self.base:
            raise self.fail(f"{what}({url!r}) goes to another host, which the server cannot answer for")
        return absolute


def _quoted(value: str) -> str:
    return f'"{html.escape(value, quote=True)}"'


def _attributes(attributes: Mapping[str, str | None]) -> str:
    return "".join(f" {key}" if value is None else f" {key}={_quoted(value)}" for key, value in attributes.items())


def render_page(site: Site, url: str, page: Page, *, served_origin: str = "") -> str:
    """The HTML of `page` as served at the site URL `url`: URLs on the site's host are moved to `served_origin`
    (made origin-relative when it is empty). Raises `UnrenderableSite`."""
    return _Renderer(site, _normalized(site.url(url)), page, served_origin).document()


def _not_found(path: str) -> Page:
    """The mock's own 404 page, so that a test sees the same page on either driver."""
    return Page(
        "404 Not Found",
        (heading("Not Found"), paragraph(f"The requested URL {path} was not found on this server.")),
        status=404,
    )
