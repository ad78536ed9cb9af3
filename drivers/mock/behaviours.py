"""Behaviours: what happens when an element is clicked, hovered or submitted, or when a page loads.

They are plain immutable data rather than callbacks, so a site written in JSON can say everything one written in
Python can, and the driver alone decides what each one does to the browser's state.

URLs may be relative to the page, and may name form fields in braces (`/search?q={q}`): the driver fills in the
field's current value (by element id, then by name), URL-encoded, when the behaviour runs.
"""

from __future__ import annotations

from typing import Literal, Union

import attrs


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
