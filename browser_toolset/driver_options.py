"""How a driver declares its options: `DriverOption`, one per key that its factory `(options: Mapping[str, str])`
accepts, with the option's type, default and help.

A driver makes its declarations known by a callable `options()` returning them, found next to the factory its
entry point names: on the class whose classmethod the factory is (`MockDriver.options()`), as an attribute of the
factory function itself, or in the factory's module. A driver that declares nothing still works; its options are
then passed through as text, unchecked (`declared_options` returns None).

This module is on the protocol side: it imports nothing of the executor.
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import attrs

__all__ = ["OPTION_TYPES", "DriverOption", "OptionType", "declared_options", "finite_number"]

OptionType = Literal["text", "bool", "number", "integer", "choice", "path", "url", "viewport", "list"]
OPTION_TYPES: tuple[OptionType, ...] = (
    "text",
    "bool",
    "number",
    "integer",
    "choice",
    "path",
    "url",
    "viewport",
    "list",
)

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


def finite_number(value: object, expected: str) -> float:
    """`value` (a number, or its text as an option string or environment variable gives it) as a finite float;
    `ValueError` saying `expected` otherwise. Booleans are not numbers here, whatever Python says."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected {expected}; got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"expected {expected}; got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"expected {expected}; got {value!r}")
    return number


@attrs.frozen
class DriverOption:
    """One driver option: its `key` (as in `-o key=value`), its `type` (one of `OPTION_TYPES`), its `default` as
    the text the driver would be given (None: no value, the driver decides), `help`, and `accepts` (the values it
    takes, in words that follow "use"). A `choice` lists its `choices`."""

    key: str
    type: OptionType = "text"
    default: str | None = None
    help: str = ""
    accepts: str = ""
    choices: tuple[str, ...] = attrs.field(default=(), converter=_strings)

    def describe(self) -> str:
        """The accepted values in words."""
        if self.accepts:
            return self.accepts
        if self.type == "choice" and self.choices:
            return " or ".join(self.choices)
        return {
            "bool": "true or false",
            "number": "a number",
            "integer": "a whole number",
            "path": "a file or folder path",
            "url": "a URL",
            "viewport": "WIDTHxHEIGHT, such as 1280x800",
            "list": "a list of strings (or one string, separated by spaces)",
        }.get(self.type, "text")

    def to_text(self, value: object) -> str:
        """`value` (from a TOML file, an environment variable or a flag) as the option string the driver's factory
        takes. Raises `ValueError` when its type is plainly wrong; the driver checks the rest when it starts."""
        if self.type == "bool":
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
                return "true" if value.strip().lower() in _TRUE else "false"
            raise ValueError(f"expected {self.describe()}; got {value!r}")
        if self.type in ("number", "integer"):
            number = finite_number(value, self.describe())
            if self.type == "integer" and number != int(number):
                raise ValueError(f"expected {self.describe()}; got {value!r}")
            return str(value).strip() if isinstance(value, str) else repr(value)
        if self.type == "list":
            if isinstance(value, str):
                return value
            if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
                return " ".join(value)
            raise ValueError(f"expected {self.describe()}; got {value!r}")
        if not isinstance(value, str):
            raise ValueError(f"expected {self.describe()}; got {value!r}")
        if self.type == "choice" and self.choices and value.strip().lower() not in self.choices:
            raise ValueError(f"expected {self.describe()}; got {value!r}")
        return value


def declared_options(factory: Callable[..., Any]) -> tuple[DriverOption, ...] | None:
    """The options the driver behind an entry point's `factory` declares, or None when it declares none (or its
    declaration cannot be read)."""
    candidates: list[Any] = [getattr(factory, "options", None)]
    owner = getattr(factory, "__self__", None)
    if inspect.isclass(owner):
        candidates.append(getattr(owner, "options", None))
    if inspect.isclass(factory):
        candidates.append(getattr(factory, "options", None))
    module = sys.modules.get(getattr(factory, "__module__", "") or "")
    if module is not None:
        candidates.append(getattr(module, "options", None))
        package = sys.modules.get(module.__name__.rpartition(".")[0])
        if package is not None:
            candidates.append(getattr(package, "options", None))
    for candidate in candidates:
        if not callable(candidate):
            continue
        try:
            found = candidate()
        except Exception:
            continue
        if isinstance(found, Sequence) and all(isinstance(option, DriverOption) for option in found):
            return tuple(found)
    return None
