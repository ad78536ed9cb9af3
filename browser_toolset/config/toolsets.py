"""From settings to a started toolset: the driver from its entry point with its options, the URL policy, images,
uploads, confirmation."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from ..safety.confirm import ActionGate, Ask
from .browsers import with_default_browser
from .settings import DRIVER_OPTIONS, MASK, ConfigError, Settings, setting_keys

if TYPE_CHECKING:
    from anthropic.tools.browser import BetaConfirmContext

    from ..driver import Driver
    from ..executor.async_toolset import AsyncBrowserToolset
    from ..executor.toolset import BrowserToolset
    from ..safety.secrets import Secrets
    from ..safety.urls import URLPolicy


# --- building the toolset -----------------------------------------------------------------------------------------


def upload_max_bytes(settings: Settings) -> int:
    return int(settings.files.upload_max_mib * 1024 * 1024)


def url_policy(settings: Settings) -> URLPolicy:
    """The URL policy `settings` ask for (`urls.*`)."""
    from ..safety.urls import URLPolicy

    return URLPolicy(allow_hosts=settings.urls.allow_hosts, allow_private=settings.urls.allow_private)


def start_driver(settings: Settings) -> Any:
    """Start the configured driver; with no browser named, the first one installed (`config.browsers`)."""
    from ..registry import load_driver

    chosen = with_default_browser(settings)
    return load_driver(chosen.driver, chosen.driver_options)


def _toolset_options(
    settings: Settings, driver: Any, ask: Ask | None, then: Callable[[BetaConfirmContext], bool] | None
) -> tuple[dict[str, Any], ActionGate]:
    """The `BrowserToolset` keyword arguments for `settings` on a started `driver`, and its confirmation gate."""
    from ..executor.document_store import FolderDocuments
    from ..executor.images import ImageLimits
    from ..safety.uploads import UploadPolicy

    images = settings.images
    limits = ImageLimits(
        max_long_edge=images.max_long_edge,
        max_pixels=images.max_pixels,
        max_edge=images.max_edge,
        format=cast(Any, images.format),
        quality=images.quality,
    )
    files = settings.files
    found = getattr(driver, "download_dir", None)
    download_dir = settings.driver_options.get("download_dir") or (None if found is None else str(found))
    max_bytes = upload_max_bytes(settings)
    documents = None
    if files.documents_dir:
        documents = FolderDocuments(files.documents_dir, max_bytes=max_bytes, download_dir=download_dir)
    file_policy = None
    if files.upload_dir or documents is not None:
        file_policy = UploadPolicy(
            files.upload_dir or None,
            max_bytes=max_bytes,
            download_dir=download_dir,
            documents=documents is not None,
        )
    gate = ActionGate(decisions=settings.confirm.decisions(), default="deny", ask=ask, then=then)
    return {
        "secrets": configured_secrets(settings),
        "navigation": url_policy(settings),
        "image_limits": limits,
        "configs": {name: {"enabled": True} for name in settings.enable} or None,
        "confirm": gate,
        "file_policy": file_policy,
        "documents": documents,
    }, gate


def configured_secrets(settings: Settings) -> Secrets | None:
    """The secrets `[secrets.NAME]` declares, their values read now (a file path relative to the configuration
    file's folder); None when there are none. Raises `ConfigError` for a value that cannot be read."""
    from ..safety.secrets import Secrets, SecretsConfigError

    if not settings.secrets:
        return None
    base = None if settings.config_file is None else Path(settings.config_file).parent
    try:
        return Secrets.from_declarations(settings.secrets, base_dir=base)
    except SecretsConfigError as exc:
        raise ConfigError(str(exc)) from None


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
    try:
        load_configured_storage(toolset, settings)
    except BaseException:
        toolset.close()
        raise
    return toolset


def load_configured_storage(toolset: object, settings: Settings) -> list[str]:
    """Load `storage.load` into the toolset's browser (before its first call); the origins the URL policy refused."""
    if settings.storage.load is None:
        return []
    from ..storage_state import load_storage_state

    return load_storage_state(toolset, settings.storage.load, settings.storage.key_env)


def save_configured_storage(toolset: object, settings: Settings) -> None:
    """Write the browser's storage state to `storage.save`, if set: call it when the session closes, before the
    toolset does (the browser must still be running to be read)."""
    if settings.storage.save is not None:
        from ..storage_state import save_storage_state

        save_storage_state(toolset, settings.storage.save, settings.storage.key_env)


def save_storage_on_close(toolset: BrowserToolset, settings: Settings, errors: TextIO | None = None) -> None:
    """Make closing `toolset` first save `storage.save`, when it is set (the commands' sessions: `exec`, `run`, each
    MCP browser). Part of `close` itself because whoever ends the session closes the toolset (`run_task` does),
    and once, because a browser closed cannot be read. A save that fails is one line on `errors` (standard error)
    and the browser still closes: the end of a session is no place for a traceback."""
    if settings.storage.save is None:
        return
    close = toolset.close
    tried = False

    def saving_close() -> None:
        nonlocal tried
        if not tried:
            tried = True
            try:
                save_configured_storage(toolset, settings)
            except Exception as exc:
                print(
                    f"browser-toolset: the storage state was not saved to {settings.storage.save}: "
                    f"{type(exc).__name__}: {exc}",
                    file=errors if errors is not None else sys.stderr,
                    flush=True,
                )
        close()

    setattr(toolset, "close", saving_close)  # noqa: B010 (an instance attribute shadowing the method)


def open_toolset(
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> BrowserToolset:
    """Start the configured driver and return a `BrowserToolset` on it (use it as a context manager, or close it).
    `ask` is the person asked about high-impact calls whose category is `ask` (without one they are refused);
    `then` is a further `confirm` hook for every call that passes (the CLI logs optional-member approvals there).
    Settings that name no browser get the first one installed; `BrowserNotFound` says what to install when none
    is."""
    return toolset_on(start_driver(settings), settings, ask=ask, then=then)


async def open_async_toolset(
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> AsyncBrowserToolset:
    """`open_toolset` for `AsyncAnthropic`: `await` it for an `AsyncBrowserToolset` (use `async with`, or await its
    `close()`). The browser starts on the toolset's worker thread, so the event loop goes on meanwhile."""
    from ..executor.async_toolset import AsyncBrowserToolset
    from ..executor.options import ToolsetOptions

    def options_for(driver: Driver) -> ToolsetOptions:
        kwargs, _ = _toolset_options(settings, driver, ask, then)
        return ToolsetOptions(**kwargs)

    toolset = await AsyncBrowserToolset.open(lambda: start_driver(settings), options_for)
    gate = toolset.options.confirm
    if isinstance(gate, ActionGate):
        gate.lookup = toolset.sync.describe_ref
    if settings.storage.load is not None:
        try:
            # on the toolset's worker thread, where all of its browser work runs, before its first call
            await toolset._on_worker(load_configured_storage, toolset.sync, settings)
        except BaseException:
            await toolset.close()
            raise
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
