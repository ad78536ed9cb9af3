"""From settings to a started toolset: the driver from its entry point with its options, the URL policy, images,
uploads, confirmation."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ..safety.confirm import ActionGate, Ask
from .settings import DRIVER_OPTIONS, MASK, Settings, setting_keys

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass

if TYPE_CHECKING:
    from anthropic.tools.browser import BetaConfirmContext

    from ..executor.async_toolset import AsyncBrowserToolset
    from ..executor.toolset import BrowserToolset


# --- building the toolset -----------------------------------------------------------------------------------------


def upload_max_bytes(settings: Settings) -> int:
    return int(settings.files.upload_max_mib * 1024 * 1024)


def _toolset_options(
    settings: Settings, driver: Any, ask: Ask | None, then: Callable[[BetaConfirmContext], bool] | None
) -> tuple[dict[str, Any], ActionGate]:
    """The `BrowserToolset` keyword arguments for `settings` on a started `driver`, and its confirmation gate."""
    from ..executor.images import ImageLimits
    from ..safety.uploads import UploadPolicy
    from ..safety.urls import URLPolicy

    images = settings.images
    limits = ImageLimits(
        max_long_edge=images.max_long_edge,
        max_pixels=images.max_pixels,
        max_edge=images.max_edge,
        format=cast(Any, images.format),
        quality=images.quality,
    )
    file_policy = None
    if settings.files.upload_dir:
        found = getattr(driver, "download_dir", None)
        file_policy = UploadPolicy(
            settings.files.upload_dir,
            max_bytes=upload_max_bytes(settings),
            download_dir=settings.driver_options.get("download_dir") or (None if found is None else str(found)),
        )
    gate = ActionGate(decisions=settings.confirm.decisions(), default="deny", ask=ask, then=then)
    return {
        "navigation": URLPolicy(allowed_hosts=settings.urls.allow_hosts, allow_private=settings.urls.allow_private),
        "image_limits": limits,
        "configs": {name: {"enabled": True} for name in settings.enable} or None,
        "confirm": gate,
        "file_policy": file_policy,
    }, gate


def toolset_on(
    driver: Any,
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> BrowserToolset:
    """A `BrowserToolset` configured by `settings` on an already started `driver` (closed if this fails)."""
    from ..executor.toolset import BrowserToolset

    try:
        kwargs, gate = _toolset_options(settings, driver, ask, then)
        toolset = BrowserToolset(driver, **kwargs)
    except BaseException:
        driver.close()
        raise
    gate.lookup = toolset.describe_ref
    return toolset


def open_toolset(
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> BrowserToolset:
    """Start the configured driver and return a `BrowserToolset` on it (use it as a context manager, or close it).
    `ask` is the person asked about high-impact calls whose category is `ask` (without one they are refused);
    `then` is a further `confirm` hook for every call that passes (the CLI logs optional-member approvals there)."""
    from ..registry import load_driver

    return toolset_on(load_driver(settings.driver, settings.driver_options), settings, ask=ask, then=then)


def open_async_toolset(
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> AsyncBrowserToolset:
    """`open_toolset` for `AsyncAnthropic`: an `AsyncBrowserToolset` (use `async with`, or await its `close()`)."""
    from ..executor.async_toolset import AsyncBrowserToolset
    from ..registry import load_driver

    driver = load_driver(settings.driver, settings.driver_options)
    try:
        kwargs, gate = _toolset_options(settings, driver, ask, then)
        toolset = AsyncBrowserToolset(driver, **kwargs)
    except BaseException:
        driver.close()
        raise
    gate.lookup = toolset.sync.describe_ref
    return toolset


def as_mapping(settings: Settings) -> dict[str, object]:
    """The effective settings as plain values by dotted key (for a recording), secrets masked."""
    values: dict[str, object] = {}
    for key in setting_keys():
        value = settings.value(key.name)
        if key.meta.secret and value is not None:
            value = MASK
        values[key.name] = list(value) if isinstance(value, tuple) else value
    for option_key, text in settings.driver_options.items():
        values[f"{DRIVER_OPTIONS}.{option_key}"] = text
    return values
