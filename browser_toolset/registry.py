"""Finding a driver by name: the `browser_toolset.drivers` entry-point group.

Our own drivers register there too (see setup.cfg), so `--driver NAME` and `load_driver(NAME, options)` treat a
third-party driver exactly like ours. An entry point names a factory `(options: Mapping[str, str]) -> Driver`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import cast

from .driver import Driver

__all__ = ["GROUP", "driver_names", "load_driver"]

GROUP = "browser_toolset.drivers"

DriverFactory = Callable[[Mapping[str, str]], Driver]


def driver_names() -> list[str]:
    return sorted({entry.name for entry in entry_points(group=GROUP)})


def load_driver(name: str, options: Mapping[str, str] | None = None) -> Driver:
    """Start the driver registered as `name` with string `options` (what `--driver NAME -o key=value` passes)."""
    for entry in entry_points(group=GROUP):
        if entry.name == name:
            factory = cast(DriverFactory, entry.load())
            return factory(dict(options or {}))
    known = ", ".join(driver_names()) or "none (is browser-toolset installed?)"
    raise LookupError(f"no driver named {name!r}; installed drivers: {known}")
