"""The record of protocol calls a `MockDriver` keeps, so a test can assert on what the browser was asked to do."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import attrs


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


class _Recording(Protocol):
    """Whatever keeps a call record: typed as a protocol so that this module need not import the driver."""

    calls: list[Call]


S = TypeVar("S", bound=_Recording)
P = ParamSpec("P")
R = TypeVar("R")


def _recorded(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Append a `Call` before running the method, so calls that raise are recorded too."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def record(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        self.calls.append(Call(method.__name__, **{k: v for k, v in bound.arguments.items() if k != "self"}))
        return method(self, *args, **kwargs)

    return record
