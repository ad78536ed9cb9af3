"""What the confirmation gate learns about the element a call is about to act on (`BrowserToolset.describe_ref`).

A ref is described from what Claude was shown (no page read); a coordinate by the element under that point now,
and a key press by what the key activates at the focused element now (one page read each), so a button is judged
the same whether Claude clicks its ref, clicks its pixels or presses Enter in its form.
"""

from __future__ import annotations

from collections.abc import Callable

from anthropic.types.beta import BetaBrowserCoordinateTarget

from ..driver import Driver, implements
from ..frame_notes import frame_around
from ..safety.targets import Found, KeyPress
from ..values import Point
from .tabs import Tab, find_node, named_context

__all__ = ["describe_target"]


def describe_target(
    driver: Driver,
    tab: Tab,
    ref: str | BetaBrowserCoordinateTarget | KeyPress,
    to_css: Callable[[BetaBrowserCoordinateTarget], Point],
) -> Found | None:
    """`ref` in `tab` as a `Found`, or None when the element is unknown (a driver without `key_target` knows no key
    press). `to_css` maps a coordinate exactly as the click does. Raises what the ref table and the driver raise."""
    if isinstance(ref, KeyPress):
        if not implements(driver, "key_target"):
            return None
        hit = driver.key_target(tab.handle, ref.key, ref.moved)
    elif isinstance(ref, BetaBrowserCoordinateTarget):
        hit = driver.element_at(tab.handle, to_css(ref))
    else:
        entry = tab.refs.entry(ref)
        node = find_node(tab.tree, entry.key)
        return Found(
            entry.role,
            entry.name,
            named_context(tab.tree, entry.key),
            frame_around(tab.tree, entry.key),
            "" if node is None else node.action,
        )
    if hit is None:
        return None
    return Found(hit.role, hit.name, hit.context, frame_around(tab.tree, hit.key), hit.action)
