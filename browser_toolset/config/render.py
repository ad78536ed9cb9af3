"""Showing settings: `config show` (the effective values and their sources), `config init` (a commented example
file) and the Markdown key table of docs/configuration.md."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..driver_options import DriverOption, declared_options
from .browsers import uses_default_browser
from .settings import (
    CONFIG_ENV,
    DEFAULT_BROWSERS,
    DEFAULT_FILE,
    DRIVER_OPTIONS,
    ENV_PREFIX,
    MASK,
    OPTION_ENV_PREFIX,
    SECTIONS,
    SHORTCUTS,
    Key,
    Settings,
    setting_keys,
)
from .sources import driver_factory, installed_drivers

# --- showing and writing ------------------------------------------------------------------------------------------


def toml_value(value: object) -> str:
    """`value` written as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _shown(key: Key, value: Any) -> str:
    if value is None:
        return ""
    if key.meta.secret:
        return toml_value(MASK)
    return toml_value(value)


API_ENV: Final[Mapping[str, str]] = {"loop.api_key": "ANTHROPIC_API_KEY", "loop.base_url": "ANTHROPIC_BASE_URL"}
"""Settings the Anthropic client takes from its own environment variables when the configuration leaves them out."""


def show(
    settings: Settings,
    declared: Sequence[DriverOption] | None = None,
    env: Mapping[str, str] | None = None,
    default_browser: str | None = None,
) -> str:
    """The effective settings as TOML (dotted keys), each line followed by where its value came from. Keys without
    a value are shown commented out; secrets are masked. An API setting left to the client's environment (`env`)
    is shown as set from there; a browser left to the default shows `default_browser`, what runs here (when known)."""
    environ = {} if env is None else env
    lines = [f"# browser-toolset settings (config file: {settings.config_file or 'none'})"]
    rows: list[tuple[str, str]] = []
    for key in setting_keys():
        value = settings.value(key.name)
        shown = _shown(key, value)
        variable = API_ENV.get(key.name)
        if not shown and variable and environ.get(variable):
            value = MASK if key.meta.secret else environ[variable]
            # commented out: the client reads the variable itself, and a saved copy must not pin the mask
            rows.append((f"# {key.name} = {toml_value(value)}", f"set from the environment ({variable})"))
        elif not shown and key.name == "browser" and uses_default_browser(settings):
            here = f"; here: {default_browser}" if default_browser else ""
            rows.append((f"# {key.name} = (not set: the first installed of {', '.join(DEFAULT_BROWSERS)}{here})",
                         "default"))  # fmt: skip
        else:
            rows.append((f"{key.name} = {shown}" if shown else f"# {key.name} = (not set)", settings.source(key.name)))
    for option_key, text in settings.driver_options.items():
        name = f"{DRIVER_OPTIONS}.{option_key}"
        source = settings.sources.get(name) or _shortcut_source(settings, option_key)
        rows.append((f"{name} = {toml_value(text)}", source))
    for option in declared or ():
        if option.key not in settings.driver_options:
            default = "(driver default)" if option.default is None else f"(driver default {option.default!r})"
            rows.append((f"# {DRIVER_OPTIONS}.{option.key} = {default}", "default"))
    for name, declared_secret in settings.secrets.items():
        where = f"env = {declared_secret.env}" if declared_secret.env else f"file = {declared_secret.file}"
        hosts = ", ".join(declared_secret.hosts)
        # where the value comes from and its hosts, never the value: it is read when a session starts
        rows.append((f"# [secrets.{name}] {where}; hosts = {hosts}", f"file {settings.config_file}"))
    width = min(max(len(text) for text, _ in rows) + 2, 70)
    lines.extend(f"{(text + '  ').ljust(width)}# {source}" for text, source in rows)
    return "\n".join(lines) + "\n"


def _shortcut_source(settings: Settings, option_key: str) -> str:
    for name, key in SHORTCUTS.items():
        if key == option_key and name in settings.sources:
            return f"{settings.sources[name]} (as {name})"
    return "default"


def _comment(text: str, width: int = 116) -> list[str]:
    words, lines, line = text.split(), [], "#"
    for word in words:
        if len(line) + len(word) + 1 > width:
            lines.append(line)
            line = "#"
        line += " " + word
    lines.append(line)
    return lines


def example_toml(drivers: Mapping[str, Sequence[DriverOption] | None] | None = None) -> str:
    """A commented example configuration documenting every key: the ones with a default are set to it, the others
    are commented out. `drivers` (name -> declared options) adds commented driver options."""
    out = [
        "# browser-toolset configuration (see docs/configuration.md).",
        f"# Read from --config FILE, else ${CONFIG_ENV}, else ./{DEFAULT_FILE}. Environment variables",
        f"# ({ENV_PREFIX}<SECTION>_<KEY>) override this file, and command-line flags override both.",
        "",
    ]
    section = ""
    for key in setting_keys():
        head, _, name = key.name.rpartition(".")
        if head != section:
            out += ["", f"[{head}]"]
            doc = (SECTIONS[head].__doc__ or "").strip()
            out += _comment(" ".join(doc.split()))
            section = head
        flag = f"; flag {key.meta.flag}" if key.meta.flag else ""
        out += _comment(f"{key.meta.help[:1].upper()}{key.meta.help[1:]}. Use {key.meta.accepts}. Env {key.env}{flag}.")
        if key.default is None or key.meta.secret:
            out.append(f"# {name} =")
        else:
            out.append(f"{name} = {toml_value(key.default)}")
        if key.name == "enable":
            out += ["", f"[{DRIVER_OPTIONS}]", *_comment(
                f"The driver's own options (as -o KEY=VALUE; env {OPTION_ENV_PREFIX}<KEY>). Checked against the "
                "options the driver declares:"
            )]  # fmt: skip
            for driver, declared in (drivers or {}).items():
                for option in declared or ():
                    default = "" if option.default is None else f" (default {option.default})"
                    out += _comment(f"{driver}: {option.key}: {option.help}; use {option.describe()}{default}")
                    out.append(f"# {option.key} =")
            section = DRIVER_OPTIONS
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


def declared_for(driver: str) -> tuple[DriverOption, ...] | None:
    factory = driver_factory(driver)
    return None if factory is None else declared_options(factory)


def all_declared() -> dict[str, tuple[DriverOption, ...] | None]:
    return {name: declared_for(name) for name in installed_drivers()}


def markdown_table() -> str:
    """The key table of docs/configuration.md."""
    rows = ["| key | env var | flag | type / accepted values | default | meaning |", "|---|---|---|---|---|---|"]
    for key in setting_keys():
        default = "—" if key.default is None else f"`{toml_value(key.default)}`"
        if key.name.startswith("confirm."):
            flag = f"`--confirm {key.name.split('.')[1]}=…`"
        else:
            flag = f"`{key.meta.flag}`" if key.meta.flag else f"`--set {key.name}=…`"
        rows.append(f"| `{key.name}` | `{key.env}` | {flag} | {key.meta.accepts} | {default} | {key.meta.help} |")
    return "\n".join(rows) + "\n"
