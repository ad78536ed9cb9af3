"""Resources: what a URL serves (a page, a redirect or a file to download), as immutable definitions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

import attrs

from .behaviours import Behaviour
from .elements import Element, _behaviours, _elements


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
