"""Reading the layers: defaults, a TOML file, `BROWSER_TOOLSET_*` variables and flags, each overriding the one
before, into a `Settings` that remembers where each value came from."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

import attrs

from ..driver_options import DriverOption, declared_options
from ..safety.secrets import SecretDeclaration, SecretsConfigError, declarations
from .settings import (
    CONFIG_ENV,
    DEFAULT_FILE,
    DRIVER_OPTIONS,
    ENV_PREFIX,
    OPTION_ENV_PREFIX,
    OTHER_ENV_PREFIXES,
    QUIET_SHORTCUTS,
    RANK,
    SECRETS,
    SECTIONS,
    SHORTCUTS,
    ConfigError,
    Settings,
    keys_by_name,
    setting_keys,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


# --- reading the layers -------------------------------------------------------------------------------------------


Raw = dict[str, tuple[object, str]]
"""Dotted key -> (value as given, where it came from)."""


def find_config_file(given: str | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The file to read: `given`, else `$BROWSER_TOOLSET_CONFIG`, else `./browser-toolset.toml` when it exists."""
    environ = os.environ if env is None else env
    if given:
        return Path(given)
    if environ.get(CONFIG_ENV):
        return Path(environ[CONFIG_ENV])
    default = Path(DEFAULT_FILE)
    return default if default.is_file() else None


def _accepted_keys() -> str:
    return ", ".join([*keys_by_name(), f"{DRIVER_OPTIONS}.<option>"])


def read_file(path: Path) -> Raw:
    where = f"file {path}"
    try:
        with path.open("rb") as stream:
            document = tomllib.load(stream)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    known = keys_by_name()
    raw: Raw = {}
    for name, value in document.items():
        if name in SECTIONS or name == DRIVER_OPTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: [{name}] must be a table of keys, not {value!r}")
            for inner, item in value.items():
                dotted = f"{name}.{inner}"
                if name != DRIVER_OPTIONS and dotted not in known:
                    accepted = ", ".join(k for k in known if k.startswith(name + "."))
                    raise ConfigError(f"{path}: unknown key {dotted!r}; the keys of [{name}] are {accepted}")
                raw[dotted] = (item, where)
        elif name == SECRETS:
            raw[SECRETS] = (value, where)
        elif name in known:
            raw[name] = (value, where)
        else:
            raise ConfigError(f"{path}: unknown key {name!r}; accepted keys: {_accepted_keys()}")
    return raw


def read_env(env: Mapping[str, str]) -> Raw:
    by_env = {key.env: key.name for key in setting_keys()}
    raw: Raw = {}
    for name, value in sorted(env.items()):
        if not name.startswith(ENV_PREFIX) or name == CONFIG_ENV or name.startswith(OTHER_ENV_PREFIXES):
            continue
        if name.startswith(OPTION_ENV_PREFIX) and len(name) > len(OPTION_ENV_PREFIX):
            raw[f"{DRIVER_OPTIONS}.{name[len(OPTION_ENV_PREFIX) :].lower()}"] = (value, f"env {name}")
        elif name in by_env:
            raw[by_env[name]] = (value, f"env {name}")
        else:
            accepted = ", ".join([*by_env, OPTION_ENV_PREFIX + "<OPTION>", CONFIG_ENV])
            raise ConfigError(f"environment variable {name} is not a browser-toolset setting; accepted: {accepted}")
    return raw


def _kind(source: str) -> str:
    return source.split(" ", 1)[0]


def _describe_source(source: str) -> str:
    kind, _, where = source.partition(" ")
    described = {
        "recording": f"from the recording {where}",
        "file": f"from {where}",
        "env": f"from environment variable {where}",
        "flag": f"from flag {where}",
    }
    return described.get(kind, "by default")


def _refused(key: str, value: object, source: str, problem: str, accepts: str) -> ConfigError:
    return ConfigError(f"{key} = {value!r} ({_describe_source(source)}) is not valid: {problem}; use {accepts}")


def driver_factory(name: str) -> Callable[..., Any] | None:
    from ..registry import GROUP

    for entry in entry_points(group=GROUP):
        if entry.name == name:
            return cast(Callable[..., Any], entry.load())
    return None


def installed_drivers() -> list[str]:
    from ..registry import driver_names

    return driver_names()


def load_settings(
    config_file: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | Iterable[tuple[str, object, str]] = (),
    use_default_file: bool = True,
    check_driver: bool = True,
    recorded: Mapping[str, object] | None = None,
    recorded_in: str = "",
) -> Settings:
    """Read the settings: defaults, then `recorded` (dotted key -> value: a recorded session's settings, which
    `replay` starts from; `recorded_in` names the recording), then the TOML file (`config_file`, else
    `$BROWSER_TOOLSET_CONFIG`, else `./browser-toolset.toml` when present and `use_default_file`), then `env`
    (default `os.environ`), then `flags` (dotted key -> value, or `(key, value, flag name)` triples, as the CLI gives
    them). With `check_driver`, the driver must be installed and its declared options are checked. Raises
    `ConfigError`."""
    environ = dict(os.environ if env is None else env)
    path: Path | None
    if config_file is not None:
        path = Path(config_file)
    elif environ.get(CONFIG_ENV):
        path = Path(environ[CONFIG_ENV])
    elif use_default_file and Path(DEFAULT_FILE).is_file():
        path = Path(DEFAULT_FILE)
    else:
        path = None
    layers: list[Raw] = [{key: (value, f"recording {recorded_in}") for key, value in (recorded or {}).items()}]
    if path is not None:
        layers.append(read_file(path))
    layers.append(read_env(environ))
    flag_layer: Raw = {}
    items = flags.items() if isinstance(flags, Mapping) else flags
    for item in cast(Iterable[tuple[Any, ...]], items):
        if len(item) == 3:
            key, value, flag = item
        else:
            key, value = cast(tuple[str, object], item)
            flag = "--set"
        flag_layer[key] = (value, f"flag {flag}")
    layers.append(flag_layer)
    raw: Raw = {}
    for layer in layers:
        raw.update(layer)
    return _build(raw, path, check_driver)


def _build(raw: Raw, path: Path | None, check_driver: bool) -> Settings:
    known = keys_by_name()
    converted: dict[str, Any] = {}
    sources: dict[str, str] = {}
    options_raw: dict[str, tuple[object, str]] = {}
    secrets = _secrets(raw.pop(SECRETS, None))
    for name, (value, source) in raw.items():
        if name.startswith(DRIVER_OPTIONS + "."):
            options_raw[name.split(".", 1)[1]] = (value, source)
            continue
        key = known.get(name)
        if key is None:
            raise ConfigError(f"unknown key {name!r} ({_describe_source(source)}); accepted keys: {_accepted_keys()}")
        try:
            converted[name] = key.convert(value)
        except (ValueError, TypeError) as exc:
            raise _refused(name, value, source, str(exc), key.meta.accepts) from None
        sources[name] = source
    driver = cast(str, converted.get("driver", known["driver"].default))
    declared: tuple[DriverOption, ...] | None = None
    if check_driver:
        factory = driver_factory(driver)
        if factory is None:
            source = sources.get("driver", "default")
            installed = ", ".join(installed_drivers()) or "none (is browser-toolset installed?)"
            raise ConfigError(
                f"driver = {driver!r} ({_describe_source(source)}) is not an installed driver; use one of {installed}"
            )
        declared = declared_options(factory)
    by_key = {option.key: option for option in declared or ()}
    options: dict[str, tuple[str, str]] = {}  # option key -> (text, source)
    for option_key, (value, source) in options_raw.items():
        name = f"{DRIVER_OPTIONS}.{option_key}"
        if declared is not None and option_key not in by_key:
            accepted = ", ".join(by_key) or "none"
            raise ConfigError(
                f"unknown driver option {name!r} ({_describe_source(source)}) for the {driver} driver; "
                f"its options are {accepted}{_default_driver_hint(sources)}"
            )
        option = by_key.get(option_key)
        try:
            text = option.to_text(value) if option is not None else _scalar_text(value)
        except ValueError as exc:
            accepts = option.describe() if option is not None else "a string, number or boolean"
            raise _refused(name, value, source, str(exc), accepts) from None
        options[option_key] = (text, source)
        sources[name] = source
    for name, option_key in SHORTCUTS.items():
        if name not in converted or converted[name] is None:
            continue
        source = sources[name]
        if declared is not None and option_key not in by_key:
            if name in QUIET_SHORTCUTS:
                continue
            accepted = ", ".join(by_key) or "none"
            raise ConfigError(
                f"{name} ({_describe_source(source)}) does not apply to the {driver} driver, whose options are "
                f"{accepted}{_default_driver_hint(sources)}"
            )
        earlier = options.get(option_key)
        if earlier is not None and RANK[_kind(earlier[1])] > RANK[_kind(source)]:
            continue
        options[option_key] = (_scalar_text(converted[name]), source)
    sections: dict[str, Any] = {}
    for section, cls in SECTIONS.items():
        values = {
            field.name: converted[f"{section}.{field.name}"]
            for field in attrs.fields(cls)
            if f"{section}.{field.name}" in converted
        }
        sections[section] = cls(**values)
    top = {name: value for name, value in converted.items() if "." not in name}
    if secrets and "javascript_exec" in top.get("enable", ()):
        raise ConfigError(
            f"secrets ({', '.join(secrets)}) cannot be declared while javascript_exec is enabled "
            f"({_describe_source(sources['enable'])}): a script could read a typed secret in any encoding; remove "
            "javascript_exec from enable, or the secrets"
        )
    return Settings(
        **top,
        driver_options={key: text for key, (text, _) in options.items()},
        secrets=secrets,
        **sections,
        config_file=None if path is None else str(path),
        sources=sources,
    )


def _secrets(given: tuple[object, str] | None) -> dict[str, SecretDeclaration]:
    if given is None:
        return {}
    value, source = given
    if not isinstance(value, Mapping):
        raise ConfigError(f"[secrets] ({_describe_source(source)}) must hold [secrets.NAME] tables, not {value!r}")
    try:
        return declarations(value)
    except SecretsConfigError as exc:
        raise ConfigError(f"{exc} ({_describe_source(source)})") from None


def _default_driver_hint(sources: Mapping[str, str]) -> str:
    """A hint for an option meant for another driver than the default one, which nothing named."""
    if "driver" in sources:
        return ""
    return " (no driver was named, so it is the default, selenium; name another with --driver, such as --driver mock)"


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return " ".join(value)
    raise ValueError(f"expected a string, number or boolean; got {value!r}")
