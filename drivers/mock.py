"""An in-memory browser behind the `Driver` protocol, for the executor's tests and our users'.

`MockDriver` loads pages from a `Site` (see `mock_site`), keeps per-tab history, focus, scroll and form state,
draws real PNG captures with Pillow, and records every protocol call in `driver.calls`. A test can therefore run
`BrowserToolset` end to end, then assert both on what Claude would read and on what the browser was asked to do.
Nothing here touches the network or runs JavaScript; the only side effect is download files, written to a
temporary directory that `close()` removes.

`driver.page(handle)` is the test's back door into a loaded document (`LivePage`, `LiveElement`): change a name,
remove an element or run a behaviour as the page's own script would, to exercise ref staleness and events.
"""

from __future__ import annotations

import ast
import functools
import inspect
import io
import itertools
import math
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar
from urllib.parse import quote_plus, unquote, urljoin, urlsplit

import attrs
from PIL import Image, ImageDraw, ImageFont

from browser_toolset.driver import Driver
from browser_toolset.driver_errors import (
    DriverError,
    ElementGone,
    InvalidValue,
    NavigationFailed,
    NotSupported,
    TabGone,
)
from browser_toolset.key_names import MODIFIERS
from browser_toolset.values import (
    STATE_TOKENS,
    AXNode,
    AXSnapshot,
    Capture,
    ConsoleEntry,
    DialogHandled,
    DownloadCompleted,
    DownloadFailed,
    DownloadStarted,
    DriverEvent,
    FormValue,
    HistoryAction,
    HoldOutcome,
    MouseButton,
    NavigationBlocked,
    NavigationOutcome,
    NetworkEntry,
    Point,
    Rect,
    Size,
    TabClosed,
    TabInfo,
    TabOpened,
)

from .mock_site import (
    Behaviour,
    CloseTab,
    Dialog,
    Download,
    Element,
    FileResponse,
    Focus,
    Hide,
    Log,
    Navigate,
    OpenTab,
    Option,
    Page,
    Redirect,
    Request,
    ScriptError,
    Show,
    Site,
    SiteFormatError,
    Submit,
    Toggle,
    button,
    checkbox,
    file_input,
    form,
    group,
    heading,
    link,
    normalize_url,
    paragraph,
    radio,
    searchbox,
    select,
    text,
    textarea,
    textbox,
)

__all__ = [
    "Call",
    "CloseTab",
    "Dialog",
    "Download",
    "Element",
    "FileResponse",
    "Focus",
    "Hide",
    "LiveElement",
    "LivePage",
    "Log",
    "MockDriver",
    "Navigate",
    "OpenTab",
    "Option",
    "Page",
    "Redirect",
    "Request",
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
    "paragraph",
    "radio",
    "searchbox",
    "select",
    "text",
    "textarea",
    "textbox",
]

# --- what roles mean to the mock ------------------------------------------------------------------------------------

CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
TEXT_ENTRY = frozenset({"textbox", "searchbox", "spinbutton", "combobox"})
VALUE_ROLES = TEXT_ENTRY | {"slider", "progressbar", "meter", "scrollbar"}
INTERACTIVE = CHECKABLE | TEXT_ENTRY | {
    "button", "link", "listbox", "option", "slider", "menuitem", "tab", "treeitem",
}  # fmt: skip
NAME_FROM_CONTENT = frozenset({
    "link", "button", "heading", "cell", "columnheader", "rowheader", "option", "listitem", "menuitem", "tab",
    "treeitem", "tooltip", "caption", "label", "status", "alert", "term", "definition",
}) | CHECKABLE  # fmt: skip
MAIN_REGIONS = frozenset({"main", "article"})
PERIPHERAL_REGIONS = frozenset({"navigation", "banner", "contentinfo"})

# --- layout: 40 px rows for anything without explicit bounds -------------------------------------------------------

MARGIN = 16
ROW_HEIGHT = 32
GAP = 8
PAD = 8
INDENT = 16
CHAR_WIDTH = 8
LINE_HEIGHT = 20
FIELD_WIDTH = 320
TEXTAREA_HEIGHT = 80

DEFAULT_VIEWPORT = Size(1280, 800)
MAX_REDIRECTS = 20
MAX_SCRIPT_DEPTH = 10
MAX_REAL_SLEEP = 1.0
SCROLL_LINE = 40
SCROLL_PAGE_FRACTION = 0.875


def _capped_sleep(seconds: float) -> None:
    """A real sleep, capped: a mock has nothing to wait for, and a test holding a key for 30 s should not take 30 s."""
    time.sleep(min(max(seconds, 0.0), MAX_REAL_SLEEP))


def _allow_all(url: str) -> bool:
    return True


def _collapse(value: str) -> str:
    return " ".join(value.split())


# --- recorded calls -------------------------------------------------------------------------------------------------


def _frozen(value: object) -> object:
    """Lists and tuples compare equal once recorded, so a test need not care which one the executor passed."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    return value


@attrs.frozen(init=False, repr=False, eq=False)
class Call:
    """One protocol call the driver received, every argument by name with defaults filled in, so
    `Call("click", handle="mock-1", point=Point(10, 20), button="left", count=1, modifiers=())` equals the record
    of `driver.click("mock-1", Point(10, 20))`. Arguments also read as attributes (`call.point`); `matches`
    compares only the arguments a test cares about."""

    method: str
    args: tuple[tuple[str, Any], ...]

    def __init__(self, method: str, /, **args: Any) -> None:
        self.__attrs_init__(method, tuple((name, _frozen(value)) for name, value in args.items()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Call):
            return NotImplemented
        return self.method == other.method and self.kwargs == other.kwargs

    def __hash__(self) -> int:
        return hash((self.method, frozenset(self.args)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("method", "args"):
            raise AttributeError(name)
        for key, value in self.args:
            if key == name:
                return value
        raise AttributeError(f"{self.method}() has no argument {name!r}")

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.args)

    def matches(self, method: str, /, **args: Any) -> bool:
        """Whether this is a call to `method` with (at least) these argument values."""
        recorded = self.kwargs
        return self.method == method and all(
            name in recorded and recorded[name] == _frozen(value) for name, value in args.items()
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.args)
        return f"Call({self.method!r}, {shown})"


P = ParamSpec("P")
R = TypeVar("R")


def _recorded(method: Callable[Concatenate[MockDriver, P], R]) -> Callable[Concatenate[MockDriver, P], R]:
    """Append a `Call` before running the method, so calls that raise are recorded too."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def record(self: MockDriver, /, *args: P.args, **kwargs: P.kwargs) -> R:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        self.calls.append(Call(method.__name__, **{k: v for k, v in bound.arguments.items() if k != "self"}))
        return method(self, *args, **kwargs)

    return record


# --- live documents -------------------------------------------------------------------------------------------------

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


@attrs.define(eq=False)
class _Tab:
    handle: str
    doc: _Document
    history: list[str]
    index: int = 0
    console: list[ConsoleEntry] = attrs.Factory(list)
    network: list[NetworkEntry] = attrs.Factory(list)


@attrs.define(eq=False)
class _Download:
    key: str
    url: str
    filename: str
    content: bytes
    error: str
    drains_left: int


_BLANK = Page()


def _not_found(url: str) -> Page:
    path = urlsplit(url).path or "/"
    return Page(
        "404 Not Found",
        (heading("Not Found"), paragraph(f"The requested URL {path} was not found on this server.")),
        status=404,
    )


def _error_page(url: str, reason: str) -> Page:
    host = urlsplit(url).hostname or url
    return Page(host, (heading("This site can't be reached"), paragraph(reason)))


# --- layout -------------------------------------------------------------------------------------------------------


@attrs.frozen
class _Layout:
    """Where every shown element sits, in page coordinates, and how big the page is."""

    boxes: Mapping[LiveElement, Rect]
    width: float
    height: float


def _rendered_text(element: LiveElement) -> str:
    """The text an element shows on the page itself (what `innerText` would hold for it alone)."""
    if element.spec.text:
        return _collapse(element.spec.text)
    return element.name if element.role in NAME_FROM_CONTENT else ""


def _natural_size(element: LiveElement, width: float) -> tuple[float, float]:
    role = element.role
    if element.spec.multiline:
        return min(FIELD_WIDTH, width), TEXTAREA_HEIGHT
    if role in TEXT_ENTRY:
        return min(FIELD_WIDTH, width), ROW_HEIGHT
    label = _label(element)
    if role in ("paragraph", "text") or len(label) * CHAR_WIDTH + 24 > width:
        lines = max(1, math.ceil(len(label) / _chars_per_line(width)))
        return width, max(ROW_HEIGHT, lines * LINE_HEIGHT + 12)
    if role in NAME_FROM_CONTENT or element.spec.file_input:
        return min(width, max(64, len(label) * CHAR_WIDTH + 24)), ROW_HEIGHT
    return width, ROW_HEIGHT


def _chars_per_line(width: float) -> int:
    """Text wraps at a fixed character count (no word wrap), so a paragraph's height is known without laying
    out its words, and a capture can draw just the lines that are on screen."""
    return max(1, int((width - 12) // CHAR_WIDTH))


def _layout(root: LiveElement, viewport: Size) -> _Layout:
    """Explicit bounds where given; otherwise a vertical flow of 40 px rows, containers wrapping their children."""
    boxes: dict[LiveElement, Rect] = {}

    def flow(children: Sequence[LiveElement], x: float, y: float, width: float) -> float:
        for element in children:
            if not element.spec.visible:
                continue
            bounds = element.spec.bounds
            if bounds is not None:
                boxes[element] = bounds
                flow(element.children, bounds.x + PAD, bounds.y + PAD, bounds.width - 2 * PAD)
                continue
            shown = [child for child in element.children if child.spec.visible]
            if shown and element.role != "combobox":
                top = y
                inner = y + PAD + (ROW_HEIGHT + GAP if _rendered_text(element) else 0)
                end = flow(element.children, x + INDENT, inner, width - 2 * INDENT)
                boxes[element] = Rect(x, top, width, end - top)
                y = end + GAP
            else:
                w, h = _natural_size(element, width)
                boxes[element] = Rect(x, y, w, h)
                y += h + GAP
        return y

    flow(root.children, MARGIN, MARGIN, viewport.width - 2 * MARGIN)
    right = max((box.x + box.width for box in boxes.values()), default=0.0)
    bottom = max((box.y + box.height for box in boxes.values()), default=0.0)
    width, height = max(float(viewport.width), right + MARGIN), max(float(viewport.height), bottom + MARGIN)
    boxes[root] = Rect(0, 0, width, height)
    return _Layout(boxes, width, height)


# --- drawing ------------------------------------------------------------------------------------------------------

_BLACK = (0, 0, 0)
_INK = (60, 60, 60)
_FAINT = (200, 200, 200)
_GREY_TEXT = (117, 117, 117)
_LINK_BLUE = (0, 0, 238)
_FOCUS_BLUE = (0, 95, 204)
_BUTTON_FILL = (233, 233, 237)


@functools.cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=14)
    except (OSError, ValueError):  # a Pillow without FreeType has only its bitmap font
        return ImageFont.load_default()


def _label(element: LiveElement) -> str:
    """What a capture writes inside an element's box."""
    role, name = element.role, element.name
    if role in ("checkbox", "switch", "menuitemcheckbox"):
        return f"[{'x' if element.checked else ' '}] {name}"
    if role in ("radio", "menuitemradio"):
        return f"({'o' if element.checked else ' '}) {name}"
    if element.options and role == "combobox":
        return f"{element.value} v"
    if element.spec.file_input:
        return f"{name}: {element.value or 'No file chosen'}"
    if role in TEXT_ENTRY:
        return element.spec.value or element.spec.placeholder or name
    return _rendered_text(element) or name


def _render(doc: _Document, layout: _Layout, viewport: Size) -> bytes:
    image = Image.new("RGB", (viewport.width, viewport.height), "white")
    draw = ImageDraw.Draw(image)
    for element in doc.root.walk():
        box = layout.boxes.get(element)
        if element is doc.root or box is None:
            continue
        rect = Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
        if rect.intersects(viewport):
            _draw(draw, element, rect, viewport, focused=element is doc.focused)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _draw(draw: ImageDraw.ImageDraw, element: LiveElement, rect: Rect, viewport: Size, *, focused: bool) -> None:
    x0, y0 = rect.x, rect.y
    x1, y1 = rect.x + max(rect.width - 1, 0), rect.y + max(rect.height - 1, 0)
    container = element.role != "combobox" and any(child.spec.visible for child in element.children)
    if element.role != "text":
        outline = _FOCUS_BLUE if focused else (_FAINT if container else _INK)
        fill = _BUTTON_FILL if element.role == "button" else None
        draw.rectangle((x0, y0, x1, y1), fill=fill, outline=outline, width=2 if focused else 1)
    label = _rendered_text(element) if container else _label(element)
    if not label:
        return
    colour = _LINK_BLUE if element.role == "link" else _BLACK
    if element.role in TEXT_ENTRY and not element.spec.value:
        colour = _GREY_TEXT
    wraps = element.role in ("paragraph", "text") or len(label) * CHAR_WIDTH + 24 > rect.width
    if not wraps:
        top = y0 + 6 if container else y0 + (rect.height - LINE_HEIGHT) / 2 + 2
        draw.text((x0 + 6, top), label[: 4 * viewport.width // CHAR_WIDTH], fill=colour, font=_font())
        return
    per_line = _chars_per_line(rect.width)
    first = max(0, int(-(y0 + 6) // LINE_HEIGHT))
    last = min(math.ceil(len(label) / per_line), first + viewport.height // LINE_HEIGHT + 2)
    for number in range(first, last):
        line = label[number * per_line : (number + 1) * per_line]
        draw.text((x0 + 6, y0 + 6 + number * LINE_HEIGHT), line, fill=colour, font=_font())


# --- evaluate: no JavaScript engine, a handful of properties and arithmetic ---------------------------------------


class _Unsupported(Exception):
    pass


_UNDEFINED = object()
_JS_NAMES: dict[str, object] = {
    "true": True,
    "false": False,
    "null": None,
    "undefined": _UNDEFINED,
    "NaN": math.nan,
    "Infinity": math.inf,
}


def _js_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is _UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return str(int(number)) if number.is_integer() and abs(number) < 1e21 else repr(number)
    return str(value)


def _js_eval(node: ast.expr) -> object:
    """Literals and + - * / % ** with JavaScript's number semantics (all floats, division by zero is Infinity)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in _JS_NAMES:
        return _JS_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _js_eval(node.operand)
        if not isinstance(operand, float):
            raise _Unsupported
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _js_eval(node.left), _js_eval(node.right)
        if isinstance(node.op, ast.Add) and (isinstance(left, str) or isinstance(right, str)):
            return _js_text(left) + _js_text(right)
        if not (isinstance(left, float) and isinstance(right, float)):
            raise _Unsupported
        return _js_arithmetic(node.op, left, right)
    raise _Unsupported


def _js_arithmetic(op: ast.operator, left: float, right: float) -> float:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Mod):
            return math.fmod(left, right)
        if isinstance(op, ast.Pow):
            return float(left**right)
    except ZeroDivisionError:
        if isinstance(op, ast.Div) and left != 0 and not math.isnan(left):
            return math.copysign(math.inf, left) * math.copysign(1.0, right)
        return math.nan
    except (OverflowError, ValueError):
        return math.inf if isinstance(op, ast.Pow) else math.nan
    raise _Unsupported


_PROPERTY_NAMES = (
    "document.title, document.URL, location.href (also window.location / document.location), location.host, "
    "location.hostname, location.pathname, location.search, location.origin, document.readyState, "
    "document.body.innerText, window.innerWidth, window.innerHeight, window.scrollX, window.scrollY, "
    "navigator.userAgent"
)


# --- the test's handle on a tab's document -------------------------------------------------------------------------


class LivePage:
    """Whatever document a tab shows at the moment each method is called (so it follows navigations).

    Find elements to inspect or change (`element("Save").set(name="Saved")`, `.remove()`), add new ones, or `run`
    behaviours as the page's own script would (`page.run(OpenTab("/help"), Log("ready"))`): events they cause
    reach the next `drain_events`. `center(...)` gives the viewport point to click an element at.
    """

    def __init__(self, driver: MockDriver, handle: str) -> None:
        self._driver = driver
        self.handle = handle

    @property
    def _doc(self) -> _Document:
        return self._driver._tab(self.handle).doc

    @property
    def url(self) -> str:
        return self._doc.url

    @property
    def title(self) -> str:
        return self._doc.title

    @title.setter
    def title(self, title: str) -> None:
        self._doc.title = title

    @property
    def status(self) -> int | None:
        return self._doc.status

    @property
    def document(self) -> str:
        """The id `snapshot` reports; it changes on every load."""
        return self._doc.id

    @property
    def root(self) -> LiveElement:
        return self._doc.root

    @property
    def focused(self) -> LiveElement | None:
        return self._doc.focused

    @property
    def scroll(self) -> Point:
        return Point(self._doc.scroll_x, self._doc.scroll_y)

    def element(self, ref: str, *, role: str | None = None) -> LiveElement:
        """The first element whose id, else name, is `ref` (and whose role is `role`, if given)."""
        candidates = [e for e in self.root.walk() if role is None or e.role == role]
        found = next((e for e in candidates if e.spec.id == ref), None) or next(
            (e for e in candidates if e.name == ref), None
        )
        if found is None:
            names = sorted({e.name for e in candidates if e.name})
            raise LookupError(f"no element with id or name {ref!r} on {self.url}; names here: {names}")
        return found

    def elements(self, *, role: str | None = None, name: str | None = None) -> list[LiveElement]:
        return [e for e in self.root.walk() if (role is None or e.role == role) and (name is None or e.name == name)]

    def by_key(self, key: str) -> LiveElement:
        element = self._doc.by_key.get(key)
        if element is None:
            raise ElementGone(key)
        return element

    def add(self, *elements: Element, parent: LiveElement | str | None = None) -> list[LiveElement]:
        """Append new elements to `parent` (an element, or its id or name), else to the end of the page."""
        owner = self.root if parent is None else parent if isinstance(parent, LiveElement) else self.element(parent)
        return owner.append(*elements)

    def run(self, *behaviours: Behaviour) -> None:
        tab = self._driver._tab(self.handle)
        self._driver._run(tab, behaviours, None, depth=0)

    def box(self, target: LiveElement | str) -> Rect | None:
        """The element's border box in viewport CSS pixels at the current scroll, or None when it is not shown."""
        element = target if isinstance(target, LiveElement) else self.element(target)
        box = self._driver._layout(self._doc).boxes.get(element)
        return (
            None if box is None else Rect(box.x - self._doc.scroll_x, box.y - self._doc.scroll_y, box.width, box.height)
        )

    def center(self, target: LiveElement | str) -> Point:
        """The viewport point at the element's centre (no scrolling; see `MockDriver.element_center`)."""
        box = self.box(target)
        if box is None:
            raise LookupError(f"{target!r} is not shown, so it has no centre")
        return box.center


# --- the driver ---------------------------------------------------------------------------------------------------


class MockDriver(Driver):
    """A deterministic, in-memory `Driver`. See the module docstring and `docs/mock-driver.md`.

    `sleep` is what `hold_keys` waits with (a real sleep capped at one second by default; pass `lambda s: None` in
    tests), `clock` the epoch-seconds clock console and network timestamps come from, and `download_dir` where
    downloads land (a temporary directory, removed on `close()`, by default).
    """

    name = "mock"

    def __init__(
        self,
        site: Site | None = None,
        *,
        viewport: Size = DEFAULT_VIEWPORT,
        start_url: str | None = None,
        sleep: Callable[[float], None] = _capped_sleep,
        clock: Callable[[], float] = time.time,
        download_dir: str | Path | None = None,
    ) -> None:
        self.site = site if site is not None else Site()
        self.calls: list[Call] = []
        self._viewport = viewport
        self._sleep = sleep
        self._clock = clock
        self._tabs: dict[str, _Tab] = {}
        self._active: str | None = None
        self._events: list[DriverEvent] = []
        self._downloads: list[_Download] = []
        self._allows: Callable[[str], bool] = _allow_all
        self._counters: dict[str, Iterator[int]] = {}
        self._download_dir = None if download_dir is None else Path(download_dir)
        self._owns_download_dir = False
        self._closed = False
        tab = self._new_tab()
        self._active = tab.handle
        start = start_url if start_url is not None else self.site.start
        if start is not None:
            self._load(tab, self._absolute(start), by_page=True, entry="replace")

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> MockDriver:
        """The `browser_toolset.drivers` entry point: `site` (a JSON site file), `viewport` (`1280x800`),
        `start_url`."""
        unknown = sorted(set(options) - {"site", "viewport", "start_url"})
        if unknown:
            raise ValueError(f"unknown mock driver option {unknown[0]!r}; it takes site, viewport and start_url")
        site = Site.from_json(options["site"]) if "site" in options else None
        viewport = _parse_size(options.get("viewport", "1280x800"))
        return cls(site, viewport=viewport, start_url=options.get("start_url"))

    @classmethod
    def from_json(cls, path: str | Path, **kwargs: Any) -> MockDriver:
        """A driver on the site in a JSON file; `kwargs` as for the constructor."""
        return cls(Site.from_json(path), **kwargs)

    def __enter__(self) -> MockDriver:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- test helpers (not recorded) -----------------------------------------------------------------------------

    def page(self, handle: str | None = None) -> LivePage:
        """The document `handle` (else the active tab) shows; see `LivePage`."""
        target = handle if handle is not None else self._active
        if target is None:
            raise TabGone("(none: no tab is open)")
        self._tab(target)
        return LivePage(self, target)

    def calls_to(self, *methods: str) -> list[Call]:
        """The recorded calls to any of `methods`, oldest first."""
        return [call for call in self.calls if call.method in methods]

    @property
    def handles(self) -> list[str]:
        return list(self._tabs)

    @property
    def download_dir(self) -> Path:
        if self._download_dir is None:
            self._download_dir = Path(tempfile.mkdtemp(prefix="browser-toolset-mock-"))
            self._owns_download_dir = True
        return self._download_dir

    def complete_downloads(self) -> None:
        """Finish every pending download now; their events reach the next `drain_events`."""
        for download in self._downloads:
            self._events.append(self._finish(download))
        self._downloads.clear()

    # --- tabs ----------------------------------------------------------------------------------------------------

    @_recorded
    def list_tabs(self) -> list[TabInfo]:
        return [
            TabInfo(tab.handle, tab.doc.url, tab.doc.title, active=tab.handle == self._active)
            for tab in self._tabs.values()
        ]

    @_recorded
    def open_tab(self) -> str:
        if self._closed:
            raise DriverError("the mock browser is closed")
        tab = self._new_tab()
        self._active = tab.handle
        return tab.handle

    @_recorded
    def activate_tab(self, handle: str) -> None:
        self._active = self._tab(handle).handle

    @_recorded
    def close_tab(self, handle: str) -> None:
        self._remove_tab(self._tab(handle))

    # --- navigation ----------------------------------------------------------------------------------------------

    @_recorded
    def set_url_guard(self, allows: Callable[[str], bool]) -> None:
        self._allows = allows

    @_recorded
    def navigate(self, handle: str, url: str) -> NavigationOutcome:
        tab = self._tab(handle)
        self._load(tab, self._absolute(url), by_page=False, entry="push")
        return self._outcome(tab)

    @_recorded
    def history(self, handle: str, action: HistoryAction) -> NavigationOutcome:
        tab = self._tab(handle)
        step = {"back": -1, "forward": 1, "reload": 0}[action]
        index = tab.index + step
        if 0 <= index < len(tab.history):
            self._load(tab, tab.history[index], by_page=False, entry=index)
        return self._outcome(tab)

    # --- capture -------------------------------------------------------------------------------------------------

    @_recorded
    def viewport(self, handle: str) -> Size:
        self._tab(handle)
        return self._viewport

    @_recorded
    def capture(self, handle: str) -> Capture:
        doc = self._tab(handle).doc
        return Capture(png=_render(doc, self._layout(doc), self._viewport), viewport=self._viewport)

    # --- pointer -------------------------------------------------------------------------------------------------

    @_recorded
    def click(
        self, handle: str, point: Point, *, button: MouseButton = "left", count: int = 1, modifiers: Sequence[str] = ()
    ) -> None:
        tab = self._tab(handle)
        self._check_point(point)
        doc = tab.doc
        for _ in range(max(count, 1)):
            if tab.doc is not doc or handle not in self._tabs:
                return
            self._press(tab, point, button)
            self._release(tab, point, button, frozenset(modifiers))
        focused = doc.focused
        if count >= 3 and focused is not None and _editable(focused):
            doc.select_all = True

    @_recorded
    def move(self, handle: str, point: Point) -> None:
        tab = self._tab(handle)
        self._check_point(point)
        self._hover(tab, point)

    @_recorded
    def mouse_down(self, handle: str, point: Point) -> None:
        tab = self._tab(handle)
        self._check_point(point)
        self._press(tab, point, "left")

    @_recorded
    def mouse_up(self, handle: str, point: Point) -> None:
        tab = self._tab(handle)
        self._check_point(point)
        self._release(tab, point, "left", frozenset())

    @_recorded
    def drag(self, handle: str, start: Point, end: Point) -> None:
        tab = self._tab(handle)
        self._check_point(start)
        self._check_point(end)
        self._press(tab, start, "left")
        self._hover(tab, Point((start.x + end.x) / 2, (start.y + end.y) / 2))
        self._release(tab, end, "left", frozenset())

    @_recorded
    def wheel(self, handle: str, point: Point, delta_x: float, delta_y: float) -> None:
        tab = self._tab(handle)
        self._check_point(point)
        self._hover(tab, point)
        self._scroll_by(tab.doc, delta_x, delta_y)

    # --- keyboard ------------------------------------------------------------------------------------------------

    @_recorded
    def type_text(self, handle: str, text: str) -> None:
        tab = self._tab(handle)
        for char in text:
            if char != "\r":
                self._key(tab, {"\n": "Enter", "\t": "Tab"}.get(char, char), frozenset())

    @_recorded
    def press_keys(self, handle: str, chord: Sequence[str]) -> None:
        self._chord(self._tab(handle), chord)

    @_recorded
    def hold_keys(self, handle: str, chord: Sequence[str], seconds: float) -> HoldOutcome:
        self._chord(self._tab(handle), chord)
        self._sleep(seconds)
        return HoldOutcome(repeated=False)

    # --- accessibility tree and elements -------------------------------------------------------------------------

    @_recorded
    def snapshot(self, handle: str) -> AXSnapshot:
        doc = self._tab(handle).doc
        return AXSnapshot(doc.id, self._ax(doc, doc.root, self._layout(doc)), self._viewport)

    @_recorded
    def element_center(self, handle: str, key: str) -> Point:
        tab, element = self._element(handle, key)
        box = self._scroll_into_view(tab.doc, element)
        left, top = max(box.x, 0.0), max(box.y, 0.0)
        right, bottom = min(box.x + box.width, self._viewport.width), min(box.y + box.height, self._viewport.height)
        return Point((left + right) / 2, (top + bottom) / 2)

    @_recorded
    def scroll_into_view(self, handle: str, key: str) -> None:
        tab, element = self._element(handle, key)
        self._scroll_into_view(tab.doc, element)

    @_recorded
    def set_value(self, handle: str, key: str, value: FormValue) -> str:
        _, element = self._element(handle, key)
        described = _describe(element)
        if element.disabled or "readonly" in element.spec.states:
            raise InvalidValue(f"{described} is {'disabled' if element.disabled else 'read-only'}")
        if element.spec.file_input:
            raise InvalidValue(f"{described} is a file input: upload files to it rather than setting a value")
        if element.role in CHECKABLE:
            if not isinstance(value, bool):
                raise InvalidValue(f"{described} takes true or false, not {value!r}")
            _set_checked(element, value)
            return "true" if value else "false"
        if isinstance(value, bool):
            raise InvalidValue(f"{described} is not a checkbox or radio button, so it takes text, not {value}")
        text = _js_text(value)
        if element.options:
            return _choose_option(element, text).name
        if element.role in TEXT_ENTRY | {"slider"}:
            element.spec = attrs.evolve(element.spec, value=text)
            return text
        raise InvalidValue(
            f"{described} is not a form control (a text field, checkbox, radio button or select), so it has no value"
        )

    @_recorded
    def set_files(self, handle: str, key: str, paths: Sequence[str]) -> None:
        _, element = self._element(handle, key)
        if not element.spec.file_input:
            raise InvalidValue(f"{_describe(element)} is not a file input")
        if element.disabled:
            raise InvalidValue(f"{_describe(element)} is disabled")
        element.files = tuple(paths)

    # --- page content, diagnostics, scripting --------------------------------------------------------------------

    @_recorded
    def page_text(self, handle: str) -> str:
        return self._page_text(self._tab(handle).doc)

    @_recorded
    def drain_console(self, handle: str) -> list[ConsoleEntry]:
        tab = self._tab(handle)
        entries, tab.console = tab.console, []
        return entries

    @_recorded
    def drain_network(self, handle: str) -> list[NetworkEntry]:
        tab = self._tab(handle)
        entries, tab.network = tab.network, []
        return entries

    @_recorded
    def evaluate(self, handle: str, expression: str) -> str:
        doc = self._tab(handle).doc
        source = expression.strip().rstrip(";").strip()
        if source in doc.scripts:
            result = doc.scripts[source]
            if isinstance(result, ScriptError):
                raise DriverError(result.message)
            return result
        properties = self._properties(doc)
        if source in properties:
            return _js_text(properties[source]())
        try:
            return _js_text(_js_eval(ast.parse(source, mode="eval").body))
        except (SyntaxError, _Unsupported, RecursionError):
            shown = source if len(source) <= 80 else source[:80] + "…"
            raise NotSupported(
                f"the mock browser has no JavaScript engine and cannot evaluate {shown!r}. It knows {_PROPERTY_NAMES}; "
                "number and string literals with + - * / % **; and the expressions the page's `scripts` define."
            ) from None

    # --- events --------------------------------------------------------------------------------------------------

    @_recorded
    def drain_events(self) -> list[DriverEvent]:
        for download in [d for d in self._downloads if d.drains_left <= 0]:
            self._downloads.remove(download)
            self._events.append(self._finish(download))
        events, self._events = self._events, []
        for download in self._downloads:
            download.drains_left -= 1
        return events

    @_recorded
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._tabs.clear()
        self._active = None
        self._downloads.clear()
        if self._owns_download_dir and self._download_dir is not None:
            shutil.rmtree(self._download_dir, ignore_errors=True)

    # --- internals: tabs and loading -----------------------------------------------------------------------------

    def _next(self, kind: str) -> int:
        return next(self._counters.setdefault(kind, itertools.count(1)))

    def _new_key(self) -> str:
        return f"e{self._next('element')}"

    def _tab(self, handle: str) -> _Tab:
        tab = self._tabs.get(handle)
        if tab is None:
            raise TabGone(handle)
        return tab

    def _element(self, handle: str, key: str) -> tuple[_Tab, LiveElement]:
        tab = self._tab(handle)
        element = tab.doc.by_key.get(key)
        if element is None:
            raise ElementGone(key)
        return tab, element

    def _new_tab(self) -> _Tab:
        tab = _Tab(f"mock-{self._next('tab')}", self._document("about:blank", _BLANK, None), ["about:blank"])
        self._tabs[tab.handle] = tab
        return tab

    def _remove_tab(self, tab: _Tab) -> None:
        handles = list(self._tabs)
        position = handles.index(tab.handle)
        del self._tabs[tab.handle]
        if self._active == tab.handle:
            rest = handles[position + 1 :] + handles[:position][::-1]
            self._active = rest[0] if rest else None

    def _document(self, url: str, page: Page, status: int | None) -> _Document:
        doc = _Document(f"doc-{self._next('document')}", url, page.title, status, self._new_key, page.scripts)
        doc.root = doc.instantiate(Element("document", page.title, children=page.elements), None)
        return doc

    def _absolute(self, url: str) -> str:
        return url if urlsplit(url).scheme else self.site.url(url)

    def _outcome(self, tab: _Tab) -> NavigationOutcome:
        return NavigationOutcome(tab.doc.url, tab.doc.status, tab.doc.title)

    def _load(
        self, tab: _Tab, url: str, *, by_page: bool, entry: Literal["push", "replace"] | int, depth: int = 0
    ) -> None:
        """Fetch `url`, following redirects under the guard, and commit what it serves to `tab`. A failure
        raises `NavigationFailed` for the executor's own navigations and shows an error page for the page's."""
        current = normalize_url(url)
        if _same_document(tab.doc.url, current, traversal=isinstance(entry, int) and entry != tab.index):
            self._scroll_to_fragment(tab.doc, current)
            self._enter_history(tab, current, entry)
            return
        for _ in range(MAX_REDIRECTS + 1):
            if current == "about:blank":
                self._commit(tab, current, _BLANK, None, entry)
                return
            if not self._allows(current):
                self._events.append(NavigationBlocked(current, tab.handle))
                return
            parts = urlsplit(current)
            if parts.scheme not in ("http", "https"):
                self._fail(tab, current, f"the mock browser cannot load {parts.scheme}: URLs", by_page, entry)
                return
            host = parts.hostname or ""
            if host in self.site.unreachable_hosts:
                self._log_request(tab, "GET", current, None, error="net::ERR_NAME_NOT_RESOLVED")
                self._fail(tab, current, f"{host} is unreachable (its name did not resolve)", by_page, entry)
                return
            resource = self.site.resolve(current)
            if isinstance(resource, Redirect):
                self._log_request(tab, "GET", current, resource.status, "text/html")
                current = normalize_url(urljoin(current, resource.to))
                continue
            if isinstance(resource, FileResponse):
                self._log_request(tab, "GET", current, 200, "application/octet-stream")
                file = resource
                self._start_download(tab, current, file.filename, file.content, file.error, file.completes_after)
                return
            page = resource if resource is not None else _not_found(current)
            self._log_request(tab, "GET", current, page.status, "text/html")
            self._commit(tab, current, page, page.status, entry)
            self._run(tab, page.on_load, None, depth + 1)
            return
        self._fail(tab, url, f"it redirected more than {MAX_REDIRECTS} times", by_page, entry)

    def _scroll_to_fragment(self, doc: _Document, url: str) -> None:
        """A fragment navigation keeps the document (and its keys) and scrolls to the element with that id."""
        doc.url = url
        fragment = unquote(urlsplit(url).fragment)
        target = next((e for e in doc.root.walk() if fragment and e.spec.id == fragment), None)
        if target is not None and target in self._layout(doc).boxes:
            self._scroll_into_view(doc, target)

    def _fail(self, tab: _Tab, url: str, reason: str, by_page: bool, entry: Literal["push", "replace"] | int) -> None:
        if not by_page:
            raise NavigationFailed(f"Navigation to {url} failed: {reason}.")
        self._commit(tab, url, _error_page(url, reason), None, entry)

    def _commit(
        self, tab: _Tab, url: str, page: Page, status: int | None, entry: Literal["push", "replace"] | int
    ) -> None:
        tab.doc = self._document(url, page, status)
        self._enter_history(tab, url, entry)

    def _enter_history(self, tab: _Tab, url: str, entry: Literal["push", "replace"] | int) -> None:
        if entry == "push":
            del tab.history[tab.index + 1 :]
            tab.history.append(url)
            tab.index = len(tab.history) - 1
        elif entry == "replace":
            tab.history[tab.index] = url
        else:
            tab.index = entry
            tab.history[entry] = url

    def _log_request(
        self, tab: _Tab, method: str, url: str, status: int | None, mime_type: str = "", *, error: str = ""
    ) -> None:
        tab.network.append(NetworkEntry(method, url, status, mime_type, None, error, self._clock() * 1000))

    # --- internals: downloads ------------------------------------------------------------------------------------

    def _start_download(
        self, tab: _Tab, url: str, filename: str, content: str | bytes, error: str, completes_after: int
    ) -> None:
        if not self._allows(url):
            self._events.append(NavigationBlocked(url, tab.handle))
            return
        name = _safe_filename(filename or unquote(PurePosixPath(urlsplit(url).path).name))
        key = f"download-{self._next('download')}"
        data = content.encode() if isinstance(content, str) else content
        self._events.append(DownloadStarted(key, url, name))
        self._downloads.append(_Download(key, url, name, data, error, completes_after))

    def _finish(self, download: _Download) -> DriverEvent:
        if download.error:
            return DownloadFailed(download.key, download.url, download.error)
        path = _unused_path(self.download_dir, download.filename)
        path.write_bytes(download.content)
        return DownloadCompleted(download.key, download.url, str(path), len(download.content))

    # --- internals: behaviours -----------------------------------------------------------------------------------

    def _run(self, tab: _Tab, behaviours: Sequence[Behaviour], source: LiveElement | None, depth: int) -> None:
        """Run behaviours in order, stopping when one unloads the document (as a script's page would be gone)."""
        doc = tab.doc
        if depth > MAX_SCRIPT_DEPTH:
            tab.console.append(ConsoleEntry("error", "mock: too many chained page navigations", self._clock() * 1000))
            return
        for behaviour in behaviours:
            if tab.doc is not doc or tab.handle not in self._tabs:
                return
            self._perform(tab, behaviour, source, depth)

    def _perform(self, tab: _Tab, behaviour: Behaviour, source: LiveElement | None, depth: int) -> None:
        doc = tab.doc
        match behaviour:
            case Navigate(url):
                self._load(tab, self._resolve(doc, source, url), by_page=True, entry="push", depth=depth)
            case OpenTab(url):
                self._open_from_page(tab, self._resolve(doc, source, url), depth)
            case Download(url, filename, content, error, completes_after):
                self._start_download(tab, self._resolve(doc, source, url), filename, content, error, completes_after)
            case Dialog(message, kind):
                self._events.append(DialogHandled(kind, message, accepted=False))
            case Log(message, level):
                text = self._fill(doc, source, message, quote=False)
                tab.console.append(ConsoleEntry(level, text, self._clock() * 1000, doc.url))
            case Request():
                self._request(tab, behaviour, self._resolve(doc, source, behaviour.url))
            case Submit(form_id):
                owner = doc.find(form_id) if form_id else _enclosing_form(source)
                if owner is not None:
                    self._run(tab, owner.spec.on_submit, owner, depth)
            case Toggle(target):
                element = doc.find(target) if target else source
                if element is not None and element.role in CHECKABLE:
                    _set_checked(element, element.role in ("radio", "menuitemradio") or not element.checked)
            case Focus(target):
                element = doc.find(target) if target else source
                if element is not None:
                    doc.focused, doc.select_all = element, False
            case Show(target) | Hide(target):
                element = doc.find(target)
                if element is not None:
                    element.set(visible=isinstance(behaviour, Show))
            case CloseTab():
                self._remove_tab(tab)
                self._events.append(TabClosed(tab.handle))

    def _open_from_page(self, opener: _Tab, url: str, depth: int) -> None:
        if url != "about:blank" and not self._allows(url):
            self._events.append(NavigationBlocked(url, opener.handle))
            return
        tab = self._new_tab()
        self._events.append(TabOpened(tab.handle, opener.handle))
        self._load(tab, url, by_page=True, entry="replace", depth=depth)

    def _request(self, tab: _Tab, request: Request, url: str) -> None:
        host = urlsplit(url).hostname or ""
        error = request.error
        if not self._allows(url):
            error = "blocked by the URL guard"
        elif host in self.site.unreachable_hosts:
            error = "net::ERR_NAME_NOT_RESOLVED"
        tab.network.append(
            NetworkEntry(
                request.method,
                url,
                None if error else request.status,
                "" if error else request.mime_type,
                request.duration_ms,
                error,
                self._clock() * 1000,
            )
        )

    def _resolve(self, doc: _Document, source: LiveElement | None, url: str) -> str:
        filled = self._fill(doc, source, url, quote=True)
        base = doc.url if doc.url.startswith(("http://", "https://")) else self.site.base_url
        return normalize_url(urljoin(base, filled))

    def _fill(self, doc: _Document, source: LiveElement | None, template: str, *, quote: bool) -> str:
        """Replace `{field}` with that form field's value, looking in the source's form first."""
        scope = _enclosing_form(source)

        def value(match: re.Match[str]) -> str:
            field = (doc.find(match.group(1), scope) if scope else None) or doc.find(match.group(1))
            if field is None:
                return match.group(0)
            current = _form_value(field)
            return quote_plus(current) if quote else current

        return re.sub(r"\{([^{}]+)\}", value, template)

    def _properties(self, doc: _Document) -> dict[str, Callable[[], object]]:
        parts = urlsplit(doc.url)
        href: Callable[[], object] = lambda: doc.url  # noqa: E731
        return {
            "document.title": lambda: doc.title,
            "document.URL": href,
            "location.href": href,
            "window.location.href": href,
            "document.location.href": href,
            "location.host": lambda: parts.netloc,
            "location.hostname": lambda: parts.hostname or "",
            "location.pathname": lambda: parts.path,
            "location.search": lambda: f"?{parts.query}" if parts.query else "",
            "location.origin": lambda: f"{parts.scheme}://{parts.netloc}" if parts.netloc else "null",
            "document.readyState": lambda: "complete",
            "document.body.innerText": lambda: self._page_text(doc),
            "window.innerWidth": lambda: self._viewport.width,
            "window.innerHeight": lambda: self._viewport.height,
            "window.scrollX": lambda: doc.scroll_x,
            "window.scrollY": lambda: doc.scroll_y,
            "navigator.userAgent": lambda: "Mozilla/5.0 (browser-toolset mock driver)",
        }

    # --- internals: geometry, pointer and keys -------------------------------------------------------------------

    def _layout(self, doc: _Document) -> _Layout:
        return _layout(doc.root, self._viewport)

    def _check_point(self, point: Point) -> None:
        width, height = self._viewport.width, self._viewport.height
        if not (0 <= point.x < width and 0 <= point.y < height):
            raise DriverError(f"point ({point.x:g}, {point.y:g}) is outside the {width}x{height} viewport")

    def _hit(self, doc: _Document, point: Point) -> LiveElement:
        """The topmost shown element under a viewport point: the last in document order whose box holds it."""
        boxes = self._layout(doc).boxes
        x, y = point.x + doc.scroll_x, point.y + doc.scroll_y
        hit = doc.root
        for element in doc.root.walk():
            box = boxes.get(element)
            if box is not None and box.x <= x < box.x + box.width and box.y <= y < box.y + box.height:
                hit = element
        return hit

    def _hover(self, tab: _Tab, point: Point) -> LiveElement:
        """Move the pointer, running `on_hover` of each element the pointer newly entered, outermost first."""
        doc = tab.doc
        target = self._hit(doc, point)
        if target is not doc.hovered:
            before = set(doc.hovered.ancestors()) if doc.hovered is not None else set()
            doc.hovered = target
            for element in reversed(list(target.ancestors())):
                if element not in before and element.spec.on_hover:
                    self._run(tab, element.spec.on_hover, element, depth=0)
        return target

    def _press(self, tab: _Tab, point: Point, button: MouseButton) -> None:
        target = self._hover(tab, point)
        doc = tab.doc
        if target.document is not doc:
            return
        doc.pressed = (target, button)
        doc.focused = next((e for e in target.ancestors() if _focusable(e)), None)
        doc.select_all = False

    def _release(self, tab: _Tab, point: Point, button: MouseButton, modifiers: frozenset[str]) -> None:
        target = self._hover(tab, point)
        doc = tab.doc
        pressed, doc.pressed = doc.pressed, None
        if pressed == (target, button):
            self._activate(tab, target, button, modifiers)

    def _activate(self, tab: _Tab, target: LiveElement, button: MouseButton, modifiers: frozenset[str]) -> None:
        """What a click on `target` does: the nearest element that handles clicks gets it (it bubbles)."""
        handler = next((e for e in target.ancestors() if _handles_click(e)), None)
        if handler is None or handler.disabled or button == "right":
            return
        doc = tab.doc
        if button == "left":
            if handler.role in CHECKABLE:
                _set_checked(handler, handler.role in ("radio", "menuitemradio") or not handler.checked)
            elif handler.role == "option" and handler.parent is not None:
                _choose_option(handler.parent, handler.spec.value or handler.name)
            self._run(tab, handler.spec.on_click, handler, depth=0)
        href = handler.spec.href
        if href is None or tab.doc is not doc or tab.handle not in self._tabs:
            return
        url = self._resolve(doc, handler, href)
        if handler.spec.new_tab or button == "middle" or modifiers & {"Control", "Meta", "Shift"}:
            self._open_from_page(tab, url, depth=0)
        elif button == "left":
            self._load(tab, url, by_page=True, entry="push")

    def _scroll_by(self, doc: _Document, delta_x: float, delta_y: float) -> None:
        layout = self._layout(doc)
        limit_x = max(0.0, layout.width - self._viewport.width)
        limit_y = max(0.0, layout.height - self._viewport.height)
        doc.scroll_x = min(max(doc.scroll_x + delta_x, 0.0), limit_x)
        doc.scroll_y = min(max(doc.scroll_y + delta_y, 0.0), limit_y)

    def _scroll_into_view(self, doc: _Document, element: LiveElement) -> Rect:
        """Scroll (if needed) so the element is in view, centred when it fits; return its viewport box."""
        layout = self._layout(doc)
        box = layout.boxes.get(element)
        if box is None or box.width <= 0 or box.height <= 0:
            raise DriverError(f"element {element.key} ({_describe(element)}) is hidden, so it has no box on screen")

        def axis(start: float, size: float, scroll: float, view: float, page: float) -> float:
            if start >= scroll and start + size <= scroll + view:
                return scroll
            wanted = start + size / 2 - view / 2 if size <= view else start
            return min(max(wanted, 0.0), max(0.0, page - view))

        doc.scroll_x = axis(box.x, box.width, doc.scroll_x, self._viewport.width, layout.width)
        doc.scroll_y = axis(box.y, box.height, doc.scroll_y, self._viewport.height, layout.height)
        return Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)

    def _chord(self, tab: _Tab, chord: Sequence[str]) -> None:
        modifiers = frozenset(key for key in chord if key in MODIFIERS)
        for key in chord:
            if key not in MODIFIERS and tab.handle in self._tabs:
                self._key(tab, key, modifiers)

    def _key(self, tab: _Tab, key: str, modifiers: frozenset[str]) -> None:
        """One key press at the focused element, with the browser's default actions for it."""
        doc = tab.doc
        focused = doc.focused
        command = bool(modifiers & {"Control", "Meta"})
        if key == "Tab":
            self._move_focus(doc, backwards="Shift" in modifiers)
        elif focused is not None and _editable(focused):
            self._edit(tab, focused, key, modifiers, command)
        elif focused is not None and _activated_by(focused, key):
            self._activate(tab, focused, "left", modifiers)
        else:
            self._scroll_key(doc, key, modifiers)

    def _edit(self, tab: _Tab, field: LiveElement, key: str, modifiers: frozenset[str], command: bool) -> None:
        doc = tab.doc
        if command and key.lower() == "a":
            doc.select_all = True
            return
        current = "" if doc.select_all else field.spec.value or ""
        if key in ("Backspace", "Delete"):
            updated = current if key == "Delete" and not doc.select_all else current[:-1] if key == "Backspace" else ""
        elif key == "Enter" and not field.spec.multiline:
            doc.select_all = False
            self._implicit_submit(tab, field)
            return
        elif key == "Enter" or (len(key) == 1 and not command and "Alt" not in modifiers):
            char = "\n" if key == "Enter" else key.upper() if "Shift" in modifiers else key
            updated = current + char
        else:
            if key.startswith("Arrow") or key in ("Home", "End"):
                doc.select_all = False
            return
        if not field.disabled and "readonly" not in field.spec.states:
            field.spec = attrs.evolve(field.spec, value=updated)
        doc.select_all = False

    def _implicit_submit(self, tab: _Tab, field: LiveElement) -> None:
        """Enter in a single-line field submits its form: its `on_submit`, else a click on its first button."""
        form = _enclosing_form(field)
        if form is None:
            return
        if form.spec.on_submit:
            self._run(tab, form.spec.on_submit, field, depth=0)
            return
        default = next((e for e in form.walk() if e.role == "button" and not e.spec.file_input), None)
        if default is not None:
            self._activate(tab, default, "left", frozenset())

    def _move_focus(self, doc: _Document, *, backwards: bool) -> None:
        order = [e for e in doc.root.walk() if _focusable(e) and e.visible]
        if not order:
            return
        if doc.focused in order:
            position = order.index(doc.focused) + (-1 if backwards else 1)
        else:
            position = -1 if backwards else 0
        doc.focused = order[position % len(order)]
        doc.select_all = _editable(doc.focused)
        if doc.focused in self._layout(doc).boxes:
            self._scroll_into_view(doc, doc.focused)

    def _scroll_key(self, doc: _Document, key: str, modifiers: frozenset[str]) -> None:
        page = self._viewport.height * SCROLL_PAGE_FRACTION
        if key == " ":
            key = "PageUp" if "Shift" in modifiers else "PageDown"
        deltas = {
            "ArrowDown": (0.0, SCROLL_LINE),
            "ArrowUp": (0.0, -SCROLL_LINE),
            "ArrowRight": (SCROLL_LINE, 0.0),
            "ArrowLeft": (-SCROLL_LINE, 0.0),
            "PageDown": (0.0, page),
            "PageUp": (0.0, -page),
            "Home": (0.0, -math.inf),
            "End": (0.0, math.inf),
        }
        if key in deltas:
            self._scroll_by(doc, *deltas[key])

    # --- internals: reading ----------------------------------------------------------------------------------------

    def _ax(self, doc: _Document, element: LiveElement, layout: _Layout) -> AXNode:
        box = layout.boxes.get(element)
        bounds = None if box is None else Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
        visible = box is not None and box.width > 0 and box.height > 0
        in_viewport = bounds is not None and visible and bounds.intersects(self._viewport)
        if element.role == "text":
            name = _collapse(element.spec.text or element.spec.name)
            return AXNode("text", name, bounds=bounds, visible=visible, in_viewport=in_viewport)
        name = _collapse(doc.title) if element is doc.root else element.name
        children: list[AXNode] = []
        own_text = _collapse(element.spec.text)
        if own_text and own_text != name:
            children.append(AXNode("text", own_text, bounds=bounds, visible=visible, in_viewport=in_viewport))
        children.extend(self._ax(doc, child, layout) for child in element.children)
        value = element.value
        return AXNode(
            role=element.role,
            name=name,
            key=element.key,
            value=None if value is None else _collapse(value),
            description=_collapse(element.spec.description),
            placeholder=_collapse(element.spec.placeholder),
            states=_states(element, doc),
            level=element.spec.level,
            bounds=bounds,
            visible=visible,
            in_viewport=in_viewport,
            interactive=_interactive(element),
            children=tuple(children),
        )

    def _page_text(self, doc: _Document) -> str:
        """Visible text, main content first; navigation, banners and footers are left out when there is a main."""
        shown = self._layout(doc).boxes

        def lines(element: LiveElement, skip: set[LiveElement]) -> Iterator[str]:
            if element not in shown or element in skip:
                return
            own = _rendered_text(element)
            if own:
                yield own
            for child in element.children:
                yield from lines(child, skip)

        mains = [
            e
            for e in doc.root.walk()
            if e.role in MAIN_REGIONS
            and e in shown
            and not any(a.role in MAIN_REGIONS for a in list(e.ancestors())[1:])
        ]
        if not mains:
            return "\n".join(lines(doc.root, set()))
        first = [line for main in mains for line in lines(main, set())]
        skip = set(mains) | {e for e in doc.root.walk() if e.role in PERIPHERAL_REGIONS}
        rest = list(lines(doc.root, skip))
        return "\n".join([*first, "", *rest] if rest else first)


# --- small helpers on elements ------------------------------------------------------------------------------------


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


def _states(element: LiveElement, doc: _Document) -> tuple[str, ...]:
    states = set(element.spec.states)
    if element.role in CHECKABLE:
        states -= {"checked", "unchecked"}
        if "mixed" not in states:
            states.add("checked" if element.checked else "unchecked")
    if doc.focused is element:
        states.add("focused")
    return tuple(token for token in STATE_TOKENS if token in states)


def _same_document(here: str, there: str, *, traversal: bool) -> bool:
    """Whether going from `here` to `there` only moves to a fragment: a new `#fragment` on the same URL, or a
    history step between entries of one page that differ only in their fragments."""
    if not here.startswith(("http://", "https://")) or here.split("#", 1)[0] != there.split("#", 1)[0]:
        return False
    return "#" in there or (traversal and "#" in here)


def _safe_filename(name: str) -> str:
    """The last path segment, without control or reserved characters, so a page cannot pick where a file lands."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = re.sub(r'[\x00-\x1f\x7f<>:"|?*]', "_", base).strip(" .")
    return cleaned[:200] or "download"


def _unused_path(directory: Path, filename: str) -> Path:
    path = directory / filename
    stem, suffix = path.stem, path.suffix
    for number in itertools.count(1):
        if not path.exists():
            return path
        path = directory / f"{stem} ({number}){suffix}"
    raise AssertionError("unreachable")


def _parse_size(text: str) -> Size:
    match = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text)
    if match is None or int(match.group(1)) == 0 or int(match.group(2)) == 0:
        raise ValueError(f"viewport {text!r} is not WIDTHxHEIGHT in CSS pixels, as in 1280x800")
    return Size(int(match.group(1)), int(match.group(2)))
