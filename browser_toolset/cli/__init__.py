"""The `browser-toolset` command."""

from .commands import main

__all__ = ["main"]
