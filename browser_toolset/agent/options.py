"""The settings of one run of the agent loop as one value (`LoopOptions`), and their defaults.

`run_task` and `arun_task` take them as keywords and build this value, which is all the loop's core reads; the
configuration (`config.settings`) takes its defaults from here."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import attrs

from .trimming import KEEP_IMAGES, MAX_IMAGES

__all__ = ["DEFAULT_MAX_TOKENS", "DEFAULT_MAX_TURNS", "DEFAULT_MODEL", "LoopOptions"]

DEFAULT_MODEL: Final = "claude-opus-5-5"
DEFAULT_MAX_TOKENS: Final = 4096
DEFAULT_MAX_TURNS: Final = 50


def _read_only(params: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A copy the caller cannot change under a running loop."""
    return MappingProxyType(dict(params or {}))


def _at_least_one(instance: LoopOptions, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"max_turns must be at least 1, not {value}")


def _within_max_images(instance: LoopOptions, attribute: attrs.Attribute[int], value: int) -> None:
    if not 0 <= value <= instance.max_images:
        raise ValueError(f"keep_images must be between 0 and max_images ({instance.max_images}), not {value}")


@attrs.frozen
class LoopOptions:
    """How one run goes. Bad limits are refused here, so a run with them starts nothing.

    `max_turns` bounds Claude's replies; `start_url` is opened before the first request; `max_images` and
    `keep_images` say when older images are replaced (see `agent.trimming`); `threads=False` sends the whole history
    with every request; `cache` asks for prompt caching; `extra_params` go into every request (`thinking`, `betas`,
    `metadata`, ...)."""

    model: str = DEFAULT_MODEL
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_turns: int = attrs.field(default=DEFAULT_MAX_TURNS, validator=_at_least_one)
    start_url: str | None = None
    system: str | None = None
    max_images: int = MAX_IMAGES
    keep_images: int = attrs.field(default=KEEP_IMAGES, validator=_within_max_images)
    threads: bool = True
    cache: bool = True
    extra_params: Mapping[str, Any] = attrs.field(factory=dict, converter=_read_only)

    def request_fields(self, tools: Mapping[str, Any]) -> dict[str, Any]:
        """Every field of the first Messages request except `messages`: the extra params, overridden by the
        loop's own."""
        fields: dict[str, Any] = {
            **self.extra_params,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "tools": [dict(tools)],
        }
        if self.system is not None:
            fields["system"] = self.system
        if self.cache:
            fields.setdefault("cache_control", {"type": "ephemeral"})
        return fields
