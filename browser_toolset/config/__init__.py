"""One typed configuration for `browser-toolset` and for library users: which driver with which options, the
browser, the URL policy, images, uploads and downloads, confirmation, timeouts and the task loop.

Settings come from four layers, each overriding the one before: the defaults, a TOML file (`--config FILE`, else
`$BROWSER_TOOLSET_CONFIG`, else `./browser-toolset.toml` when it exists), `BROWSER_TOOLSET_*` environment variables,
and command-line flags. `load_settings` reads them into a frozen `Settings` whose every field converts and checks its
own value; an unknown key or a refused value is a `ConfigError` naming the key, where it came from, and what it
accepts. `open_toolset(settings)` starts the driver and returns a ready `BrowserToolset` (`await
open_async_toolset(settings)` an `AsyncBrowserToolset`, its driver started off the event loop); settings that name no
driver and no browser run the first browser installed here (Chromium, else Firefox). Every key is documented in
docs/configuration.md; `browser-toolset config init` writes an example file.

The modules: `settings` (the model and its keys, as data), `sources` (reading the layers), `browsers` (the default
browser), `render` (`config show`, `config init`, the docs' key table), `toolsets` (opening a toolset from settings).
"""

from __future__ import annotations

from .browsers import BrowserNotFound, with_default_browser
from .render import all_declared, declared_for, example_toml, markdown_table, show
from .settings import (
    DEFAULT_FILE,
    ENV_PREFIX,
    OPTIONAL_MEMBERS,
    ConfigError,
    ConfirmSettings,
    FileSettings,
    ImageSettings,
    Key,
    LoopSettings,
    Settings,
    TimeoutSettings,
    URLSettings,
    setting_keys,
)
from .sources import find_config_file, load_settings
from .toolsets import (
    as_mapping,
    open_async_toolset,
    open_toolset,
    start_driver,
    toolset_on,
    upload_max_bytes,
    url_policy,
)

__all__ = [
    "DEFAULT_FILE",
    "ENV_PREFIX",
    "OPTIONAL_MEMBERS",
    "BrowserNotFound",
    "ConfigError",
    "ConfirmSettings",
    "FileSettings",
    "ImageSettings",
    "Key",
    "LoopSettings",
    "Settings",
    "TimeoutSettings",
    "URLSettings",
    "all_declared",
    "as_mapping",
    "declared_for",
    "example_toml",
    "find_config_file",
    "load_settings",
    "markdown_table",
    "open_async_toolset",
    "open_toolset",
    "setting_keys",
    "show",
    "start_driver",
    "toolset_on",
    "upload_max_bytes",
    "url_policy",
    "with_default_browser",
]
