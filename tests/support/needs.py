"""The plugin's `unavailable` (skip, saying why, on a developer's machine; fail under CI, where a skip would hide
a broken install), under the name some support modules import it by here: new code imports it from
`browser_toolset.testing.plugin`."""

from __future__ import annotations

from browser_toolset.testing.plugin import unavailable

__all__ = ["unavailable"]
