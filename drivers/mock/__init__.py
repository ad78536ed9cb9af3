"""An in-memory browser behind the `Driver` protocol, for the executor's tests and our users'.

`MockDriver` loads pages from a `Site` (pages, elements and behaviours as plain data, written in Python or JSON),
keeps per-tab history, focus, scroll and form state, draws real PNG captures with Pillow, and records every
protocol call in `driver.calls`. A test can therefore run `BrowserToolset` end to end, then assert both on what
Claude would read and on what the browser was asked to do. Nothing here touches the network or runs JavaScript;
the only side effect is download files, written to a temporary directory that `close()` removes.

`driver.page(handle)` is the test's back door into a loaded document (`LivePage`, `LiveElement`): change a name,
remove an element or run a behaviour as the page's own script would, to exercise ref staleness and events.

This module is the mock's public API: import from here, not from its submodules, whose layout may change.

- `site`, `site_json`, `resources`, `elements`, `behaviours`: what a site is, as immutable definitions
- `document`: the live document a load makes of a page; `live_page`: the test's handle on it
- `browser`: tabs, history, loading, behaviours, downloads, events; `interaction`: the pointer and keys
- `layout`, `paint`, `reading`, `script`: boxes, captures, the accessibility tree and text, `evaluate`
- `driver`: `MockDriver`, the protocol over all of that; `recording`: the record of its calls
"""

from __future__ import annotations

from .behaviours import (
    Behaviour,
    CloseTab,
    Dialog,
    Download,
    Focus,
    Hide,
    Log,
    Navigate,
    OpenTab,
    Request,
    Show,
    Submit,
    Toggle,
)
from .document import CHECKABLE, NAME_FROM_CONTENT, LiveElement
from .driver import MockDriver
from .elements import (
    TYPED_FIELD_ROLES,
    Element,
    Option,
    button,
    checkbox,
    file_input,
    form,
    frame,
    group,
    heading,
    link,
    paragraph,
    radio,
    searchbox,
    select,
    text,
    textarea,
    textbox,
    typed_field,
)
from .live_page import LivePage
from .recording import Call
from .resources import FileResponse, Page, Redirect, Resource, ScriptError
from .site import Site, normalize_url
from .site_json import SiteFormatError

__all__ = [
    "CHECKABLE",
    "NAME_FROM_CONTENT",
    "TYPED_FIELD_ROLES",
    "Behaviour",
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
    "frame",
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
    "typed_field",
]
