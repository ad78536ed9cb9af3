"""Which members a driver can serve, and what a toolset over one that lacks something does about it.

A driver without a required method of the protocol (`browser_toolset.driver.REQUIRED_METHODS`) cannot run the
browser toolset at all, so building a toolset over it fails at once, listing them, rather than answering `Clicked.`
for a click nobody made. A driver without an optional method loses the members that need it (`OPTIONAL_MEMBERS`),
which are then treated exactly as the SDK treats members a toolset does not implement: `enabled: false` in the
`tools[]` entry, so Claude is not offered them; the SDK's "not available in this environment" refusal if Claude
calls one anyway; and `ToolsetConfigError` if the application's `configs` enables one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from anthropic.tools import ToolsetConfigError, UnavailableMemberError
from anthropic.types.beta import BetaBrowserToolsetConfigsParam

from ..driver import REQUIRED_FEATURES, missing_methods

__all__ = ["OPTIONAL_MEMBERS", "check_driver", "member_configs", "refuse_unavailable", "unavailable_members"]

OPTIONAL_MEMBERS: Mapping[str, str] = {
    "read_console": "drain_console",
    "read_network": "drain_network",
    "javascript_exec": "evaluate",
    "file_upload": "set_files",
}
"""The members that need an optional driver method, and that method. Every other member needs only required ones
(`zoom` uses `capture_region`, whose protocol body is a fallback that captures the whole viewport)."""


def _driver_name(driver: object) -> str:
    name = getattr(driver, "name", None)
    return name if isinstance(name, str) and name else type(driver).__name__


def check_driver(driver: object) -> None:
    """Raise `TypeError` listing the required methods `driver` lacks, by feature, if it lacks any."""
    missing = set(missing_methods(driver))
    if not missing:
        return
    parts = []
    for feature in REQUIRED_FEATURES:
        lacking = [method for method in feature.methods if method in missing]
        if lacking:
            parts.append(f"{feature.name} ({', '.join(lacking)})")
    raise TypeError(
        f"The {_driver_name(driver)} driver cannot run the browser toolset: it does not implement "
        f"{'; '.join(parts)}. Every driver implements the required methods of browser_toolset.driver.Driver "
        "(see docs/writing-a-driver.md)."
    )


def unavailable_members(driver: object) -> dict[str, str]:
    """The members `driver` cannot serve, each with the optional method it lacks."""
    return {member: method for member, method in OPTIONAL_MEMBERS.items() if missing_methods(driver, [method])}


def member_configs(
    configs: BetaBrowserToolsetConfigsParam | None, unavailable: Mapping[str, str], driver: object
) -> tuple[BetaBrowserToolsetConfigsParam | None, frozenset[str]]:
    """The `configs` to give the SDK, with `enabled: false` for each unavailable member, and the unavailable members
    Claude is told are unavailable (the SDK calls a member the application's own `configs` names "disabled", so
    those keep that word). Raises `ToolsetConfigError` when `configs` enables an unavailable member."""
    given: Mapping[str, object] = configs or {}
    enabled = sorted(
        name for name in unavailable if isinstance(entry := given.get(name), Mapping) and entry.get("enabled") is True
    )
    if enabled:
        lacking = ", ".join(f"{name} needs {unavailable[name]}" for name in enabled)
        raise ToolsetConfigError(
            f"configs enables member(s) the {_driver_name(driver)} driver cannot serve: {enabled!r} ({lacking}, "
            "an optional method of the Driver protocol it does not implement). Disable them, or use a driver "
            "that implements those methods."
        )
    if not unavailable:
        return configs, frozenset()
    wire: dict[str, object] = dict(given)
    for name in unavailable:
        entry = given.get(name)
        wire[name] = {**(entry if isinstance(entry, Mapping) else {}), "enabled": False}
    return cast("BetaBrowserToolsetConfigsParam", wire), frozenset(name for name in unavailable if name not in given)


def refuse_unavailable(name: str, unavailable: frozenset[str]) -> None:
    """The SDK's own refusal for a member the toolset does not serve, for one the driver cannot."""
    if name in unavailable:
        raise UnavailableMemberError(name, family="browser")
