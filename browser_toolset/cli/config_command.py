"""`browser-toolset config show|init`: the effective settings and where each came from, or a commented example
file documenting every key (docs/configuration.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..config import Settings, all_declared, declared_for, example_toml, show
from ..config.browsers import default_browser, uses_default_browser

__all__ = ["init_config", "show_config"]


def show_config(settings: Settings) -> int:
    """Print `settings` with their sources, the driver's undeclared options, the API settings the Anthropic client
    takes from the environment, and the browser a configuration without one would run."""
    found = None
    if uses_default_browser(settings):
        found = default_browser(settings.driver_options) or "none of them is installed"
    sys.stdout.write(show(settings, declared_for(settings.driver), env=os.environ, default_browser=found))
    return 0


def init_config(path: str | Path, *, force: bool = False) -> int:
    """Write the example file to `path`; 1 when it exists and `force` is not given."""
    target = Path(path)
    if target.exists() and not force:
        print(f"browser-toolset: {target} exists (use --force to overwrite it)", file=sys.stderr)
        return 1
    target.write_text(example_toml(all_declared()), encoding="utf-8")
    print(f"browser-toolset: wrote {target}", file=sys.stderr)
    return 0
