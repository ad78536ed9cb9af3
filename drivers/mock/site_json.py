"""The JSON site format (`docs/mock-driver.md`): parsed JSON to definitions, naming the path to whatever is wrong.

It produces a `_SiteData` rather than a `Site`, so that `Site` can offer `from_json` by importing this module
without this module importing `Site` back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast

import attrs

from .behaviours import (
    Behaviour,
    CloseTab,
    Dialog,
    DialogKind,
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
from .elements import Element, Option
from .resources import FileResponse, Page, Redirect, Resource, ScriptError


class SiteFormatError(ValueError):
    """A site description that cannot be read; the message names the offending entry, as in
    `shop.json: pages["/"].elements[2].on_click[0]: ...`."""


@attrs.frozen
class _SiteData:
    """A site as its description gives it: `pages` keeps the paths as written, in order, for `Site.add`."""

    base_url: str
    start: str | None
    unreachable: tuple[str, ...]
    pages: tuple[tuple[str, Resource], ...]


def _read_site_file(path: str | Path) -> _SiteData:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SiteFormatError(f"{path}: not valid JSON: {exc}") from exc
    return _read_site(data, where=str(path))


def _read_site(data: object, *, where: str) -> _SiteData:
    return _SiteReader(where).site(data)


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
    "src": str,
    **dict.fromkeys(("input_type", "concealed"), str),
    **dict.fromkeys(("checked", "visible", "new_tab", "multiline", "file_input"), bool),
    "level": int,
}
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

    def site(self, data: object) -> _SiteData:
        fields = self.mapping(data, "top level", ("base_url", "start", "unreachable", "pages"))
        base_url = self.typed(fields.get("base_url", "https://example.test/"), str, "base_url")
        start = None if fields.get("start") is None else self.typed(fields["start"], str, "start")
        unreachable = tuple(
            self.typed(host, str, f"unreachable[{index}]")
            for index, host in enumerate(self.listing(fields.get("unreachable", []), "unreachable"))
        )
        pages = tuple(
            (path, self.resource(entry, f"pages[{path!r}]"))
            for path, entry in self.typed(fields.get("pages", {}), dict, "pages").items()
        )
        return _SiteData(base_url, start, unreachable, pages)

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
