"""One typed configuration for `browser-toolset` and for library users: which driver with which options, the
browser, the URL policy, images, uploads and downloads, confirmation, timeouts and the task loop.

Settings come from four layers, each overriding the one before: the defaults, a TOML file (`--config FILE`, else
`$BROWSER_TOOLSET_CONFIG`, else `./browser-toolset.toml` when it exists), `BROWSER_TOOLSET_*` environment variables,
and command-line flags. `load_settings` reads them into a frozen `Settings` whose every field converts and checks its
own value; an unknown key or a refused value is a `ConfigError` naming the key, where it came from, and what it
accepts. `open_toolset(settings)` starts the driver and returns a ready `BrowserToolset` (`open_async_toolset` an
`AsyncBrowserToolset`). Every key is documented in docs/configuration.md; `browser-toolset config init` writes an
example file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast
from urllib.parse import urlsplit

import attrs

from .confirm import CATEGORIES, DECISIONS, ActionGate, Ask, Category, Decision
from .driver_options import DriverOption, declared_options, finite_number
from .images import HARD_EDGE_MAX, MEDIA_TYPES
from .loop import DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, DEFAULT_MODEL
from .uploads import DEFAULT_MAX_BYTES
from .values import parse_viewport

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from anthropic.tools.browser import BetaConfirmContext

    from .async_toolset import AsyncBrowserToolset
    from .toolset import BrowserToolset

__all__ = [
    "DEFAULT_FILE",
    "ENV_PREFIX",
    "OPTIONAL_MEMBERS",
    "ConfigError",
    "ConfirmSettings",
    "FileSettings",
    "ImageSettings",
    "LoopSettings",
    "Settings",
    "TimeoutSettings",
    "URLSettings",
    "as_mapping",
    "example_toml",
    "find_config_file",
    "load_settings",
    "open_async_toolset",
    "open_toolset",
    "setting_keys",
    "show",
    "toolset_on",
]

DEFAULT_FILE: Final = "browser-toolset.toml"
ENV_PREFIX: Final = "BROWSER_TOOLSET_"
CONFIG_ENV: Final = "BROWSER_TOOLSET_CONFIG"
OPTION_ENV_PREFIX: Final = "BROWSER_TOOLSET_OPTION_"
OTHER_ENV_PREFIXES: Final = (
    "BROWSER_TOOLSET_CONFORMANCE_",
    "BROWSER_TOOLSET_WPT_",
    "BROWSER_TOOLSET_TEST_",
    "BROWSER_TOOLSET_BENCH",
)
"""`BROWSER_TOOLSET_*` variables that belong to the test suite and benchmarks, not to the configuration."""
OPTIONAL_MEMBERS: Final = ("file_upload", "javascript_exec", "read_console", "read_network")
BROWSER_NAMES: Final = ("chromium", "chrome", "firefox")
IMAGE_FORMATS: Final = tuple(MEDIA_TYPES)
DRIVER_OPTIONS: Final = "driver_options"
MASK: Final = "********"

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


class ConfigError(ValueError):
    """A configuration key that is unknown or whose value is refused; the message names the key, where the value
    came from, and what is accepted."""


# --- converters: each takes the TOML value or the text of a variable or flag, and refuses what it cannot use ----


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string; got {value!r}")
    return value


def _optional_text(value: object) -> str | None:
    if value is None:
        return None
    return _text(value).strip() or None


def _boolean(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise ValueError(f"expected true or false; got {value!r}")


def _optional_boolean(value: object) -> bool | None:
    return None if value is None else _boolean(value)


def _integer(minimum: int, maximum: int | None = None) -> Callable[[object], int]:
    def convert(value: object) -> int:
        if isinstance(value, bool):
            raise ValueError(f"expected a whole number; got {value!r}")
        if isinstance(value, int):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            number = int(value.strip())
        else:
            raise ValueError(f"expected a whole number; got {value!r}")
        if number < minimum or (maximum is not None and number > maximum):
            bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise ValueError(f"expected a whole number {bound}; got {value!r}")
        return number

    return convert


def _positive(value: object) -> float:
    number = finite_number(value, "a number above 0")
    if number <= 0:
        raise ValueError(f"expected a number above 0; got {value!r}")
    return number


def _optional_positive(value: object) -> float | None:
    return None if value is None else _positive(value)


def _choice(choices: Sequence[str]) -> Callable[[object], str]:
    def convert(value: object) -> str:
        word = _text(value).strip().lower()
        if word not in choices:
            raise ValueError(f"expected {' or '.join(choices)}; got {value!r}")
        return word

    return convert


def _optional_choice(choices: Sequence[str]) -> Callable[[object], str | None]:
    choose = _choice(choices)
    return lambda value: None if value is None else choose(value)


def _words(value: object) -> tuple[str, ...]:
    """A list of strings, or one string of comma-separated items (as an environment variable or flag gives it)."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    raise ValueError(f"expected a list of strings; got {value!r}")


def _members(value: object) -> tuple[str, ...]:
    members = _words(value)
    for member in members:
        if member not in OPTIONAL_MEMBERS:
            raise ValueError(f"{member!r} is not an optional member")
    return tuple(dict.fromkeys(members))


def _hosts(value: object) -> tuple[str, ...] | None:
    return None if value is None else _words(value)


def _url(value: object) -> str | None:
    text = _optional_text(value)
    if text is None:
        return None
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"expected an http:// or https:// URL with a host; got {value!r}")
    return text


def _viewport(value: object) -> str | None:
    text = _optional_text(value)
    if text is None:
        return None
    size = parse_viewport(text)
    return f"{size.width}x{size.height}"


def _driver_name(value: object) -> str:
    name = _text(value).strip()
    if not name:
        raise ValueError("expected a driver name")
    return name


def _option_values(value: object) -> dict[str, object]:
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a table of driver options; got {value!r}")
    return {str(key): item for key, item in value.items()}


def _text_mapping(value: Mapping[str, str]) -> dict[str, str]:
    return {str(key): str(item) for key, item in value.items()}


# --- the model -------------------------------------------------------------------------------------------------------

_META: Final = "browser_toolset.setting"


@attrs.frozen
class Meta:
    """How a setting is documented and given: what it `accepts`, its `help`, its command-line `flag` (every key
    also has `--set KEY=VALUE`), and whether it is a `secret` (masked when shown)."""

    accepts: str
    help: str
    flag: str | None = None
    secret: bool = False


def _setting(
    default: Any,
    converter: Callable[[Any], Any],
    accepts: str,
    help: str,
    flag: str | None = None,
    *,
    secret: bool = False,
) -> Any:
    return attrs.field(
        default=default,
        converter=converter,
        metadata={_META: Meta(accepts, help, flag, secret)},
        repr=not secret,
    )


@attrs.frozen
class ImageSettings:
    """Screenshot and zoom images (`browser_toolset.images.ImageLimits`)."""

    max_long_edge: int = _setting(1568, _integer(1), "a whole number of pixels, at least 1", "longest image edge")
    max_pixels: int = _setting(
        1_150_000, _integer(1), "a whole number of pixels, at least 1", "most pixels an image has"
    )
    max_edge: int = _setting(
        HARD_EDGE_MAX,
        _integer(1, HARD_EDGE_MAX),
        f"a whole number between 1 and {HARD_EDGE_MAX}",
        "hard cap on both edges",
    )
    format: str = _setting("png", _choice(IMAGE_FORMATS), " or ".join(IMAGE_FORMATS), "image format", "--image-format")
    quality: int = _setting(
        85, _integer(1, 100), "a whole number between 1 and 100", "JPEG / WebP quality", "--image-quality"
    )


@attrs.frozen
class URLSettings:
    """Which addresses the browser may load (`browser_toolset.urls.URLPolicy`)."""

    allow_private: bool = _setting(
        False, _boolean, "true or false", "admit localhost and private-network addresses", "--allow-private"
    )
    allow_hosts: tuple[str, ...] | None = _setting(
        None,
        _hosts,
        "a list of host names (env/flag: comma-separated; --allow-host repeats)",
        "only these hosts and their subdomains (default: any public host)",
        "--allow-host",
    )


@attrs.frozen
class FileSettings:
    """Where `file_upload` may read and where downloads go."""

    upload_dir: str | None = _setting(
        None,
        _optional_text,
        "a folder path",
        "the one folder file_upload may read (default: uploads off)",
        "--upload-dir",
    )
    upload_max_mib: float = _setting(
        DEFAULT_MAX_BYTES / (1024 * 1024),
        _positive,
        "a number of MiB above 0",
        "the largest file that may be uploaded",
        "--upload-max-mib",
    )
    download_dir: str | None = _setting(
        None,
        _optional_text,
        "a folder path",
        "where the browser saves downloads (driver option download_dir; default: a temporary folder)",
        "--download-dir",
    )


def _decision(help: str) -> Any:
    return _setting("ask", _choice(DECISIONS), " or ".join(DECISIONS), help, "--confirm")


@attrs.frozen
class ConfirmSettings:
    """What happens to a high-impact call, per category: `ask` a person on the terminal (deny when there is none),
    `deny`, or `allow`. `--confirm CATEGORY=DECISION` (or `all=DECISION`) sets them from the command line."""

    purchase: str = _decision("purchases and payments")
    message: str = _decision("sending messages, posting, publishing")
    delete: str = _decision("deleting things")
    account: str = _decision("account, security and permission changes")
    terms: str = _decision("accepting terms, agreements, consent")

    def decisions(self) -> dict[Category, Decision]:
        return {category: cast(Decision, getattr(self, category)) for category in CATEGORIES}


@attrs.frozen
class TimeoutSettings:
    """Timeouts in seconds. The browser ones go to drivers that declare them (`navigation_timeout`,
    `command_timeout`, `script_timeout`) and are ignored by others, such as the mock."""

    navigation: float | None = _setting(
        None, _optional_positive, "a number of seconds above 0", "how long a navigation may take (driver default: 30)"
    )
    command: float | None = _setting(
        None, _optional_positive, "a number of seconds above 0", "how long any other browser command may take (30)"
    )
    script: float | None = _setting(
        None, _optional_positive, "a number of seconds above 0", "how long javascript_exec and page reads take (30)"
    )
    api: float | None = _setting(
        None, _optional_positive, "a number of seconds above 0", "run: how long one Messages API request may take"
    )
    grid_start: float = _setting(
        90.0, _positive, "a number of seconds above 0", "grid: how long the Selenium Grid may take to become ready"
    )


@attrs.frozen
class LoopSettings:
    """`browser-toolset run`: Claude and the conversation."""

    model: str = _setting(DEFAULT_MODEL, _driver_name, "a model name", "the model that does the task", "--model")
    max_tokens: int = _setting(
        DEFAULT_MAX_TOKENS, _integer(1), "a whole number, at least 1", "tokens per reply", "--max-tokens"
    )
    max_turns: int = _setting(
        DEFAULT_MAX_TURNS, _integer(1), "a whole number, at least 1", "Claude's replies at most", "--max-turns"
    )
    record_dir: str | None = _setting(
        None, _optional_text, "a folder path", "record every exchange there (exec and run)", "--record"
    )
    api_key: str | None = _setting(
        None,
        _optional_text,
        "an Anthropic API key",
        "the API key (default: $ANTHROPIC_API_KEY); shown masked",
        secret=True,
    )
    base_url: str | None = _setting(
        None,
        _url,
        "an http:// or https:// URL",
        "the Messages API address (default: $ANTHROPIC_BASE_URL or Anthropic's)",
    )


SECTIONS: Final[Mapping[str, type]] = {
    "images": ImageSettings,
    "urls": URLSettings,
    "files": FileSettings,
    "confirm": ConfirmSettings,
    "timeouts": TimeoutSettings,
    "loop": LoopSettings,
}


@attrs.frozen
class Settings:
    """Everything `browser-toolset` is configured with. `driver_options` are the driver's own options as the text
    its factory takes, after the shortcuts (`browser`, `remote`, `headless`, `viewport`, `profile_dir`,
    `files.download_dir`, the browser timeouts) were merged in; `sources` says where each key's value came from
    (`default`, `file PATH`, `env NAME`, `flag --NAME`)."""

    driver: str = _setting(
        "mock", _driver_name, "an installed driver name (mock, selenium, ...)", "the driver", "--driver"
    )
    browser: str | None = _setting(
        None, _optional_choice(BROWSER_NAMES), " or ".join(BROWSER_NAMES), "selenium: the browser", "--browser"
    )
    remote: str | None = _setting(
        None,
        _url,
        "an http:// or https:// URL, such as http://127.0.0.1:4444",
        "selenium: a Selenium Grid or remote WebDriver to run the browser on",
        "--remote",
    )
    headless: bool | None = _setting(
        None, _optional_boolean, "true or false", "selenium: run without a window (driver default: true)", "--headed"
    )
    viewport: str | None = _setting(
        None, _viewport, "WIDTHxHEIGHT in CSS pixels, such as 1280x800", "every tab's viewport (1280x800)", "--viewport"
    )
    profile_dir: str | None = _setting(
        None,
        _optional_text,
        "a folder path",
        "selenium: a persistent browser profile, kept after close (default: a fresh temporary one)",
        "--profile-dir",
    )
    enable: tuple[str, ...] = _setting(
        (),
        _members,
        f"a list of {', '.join(OPTIONAL_MEMBERS)} (env: comma-separated)",
        "optional members to turn on; their calls are approved unattended",
        "--enable",
    )
    driver_options: Mapping[str, str] = attrs.field(factory=dict, converter=_text_mapping)
    images: ImageSettings = attrs.field(factory=ImageSettings)
    urls: URLSettings = attrs.field(factory=URLSettings)
    files: FileSettings = attrs.field(factory=FileSettings)
    confirm: ConfirmSettings = attrs.field(factory=ConfirmSettings)
    timeouts: TimeoutSettings = attrs.field(factory=TimeoutSettings)
    loop: LoopSettings = attrs.field(factory=LoopSettings)
    config_file: str | None = attrs.field(default=None, eq=False)
    sources: Mapping[str, str] = attrs.field(factory=dict, eq=False, repr=False)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    def value(self, key: str) -> Any:
        """The value of a dotted key (`images.format`, `driver_options.site`)."""
        section, _, name = key.rpartition(".")
        if section == DRIVER_OPTIONS:
            return self.driver_options.get(name)
        owner: Any = getattr(self, section) if section else self
        return getattr(owner, name)


# --- the keys ------------------------------------------------------------------------------------------------------


@attrs.frozen
class Key:
    """One configuration key: its dotted `name`, the attrs field behind it, and its environment variable."""

    name: str
    field: attrs.Attribute[Any]

    @property
    def meta(self) -> Meta:
        return cast(Meta, self.field.metadata[_META])

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace(".", "_")

    @property
    def default(self) -> Any:
        return self.field.default

    def convert(self, value: object) -> Any:
        assert self.field.converter is not None
        return cast(Callable[[object], Any], self.field.converter)(value)


def setting_keys() -> tuple[Key, ...]:
    """Every configuration key except the driver's own options, in documentation order."""
    found = [Key(field.name, field) for field in attrs.fields(Settings) if _META in field.metadata]
    for section, cls in SECTIONS.items():
        found.extend(Key(f"{section}.{field.name}", field) for field in attrs.fields(cls))
    return tuple(found)


def _keys_by_name() -> dict[str, Key]:
    return {key.name: key for key in setting_keys()}


SHORTCUTS: Final[Mapping[str, str]] = {
    "browser": "browser",
    "remote": "remote",
    "headless": "headless",
    "viewport": "viewport",
    "profile_dir": "profile_dir",
    "files.download_dir": "download_dir",
    "timeouts.navigation": "navigation_timeout",
    "timeouts.command": "command_timeout",
    "timeouts.script": "script_timeout",
}
"""Settings that are driver options under another name: key -> driver option key."""
QUIET_SHORTCUTS: Final = ("timeouts.navigation", "timeouts.command", "timeouts.script")
"""Shortcuts a driver without that option ignores rather than refuses."""
RANK: Final = {"default": 0, "file": 1, "env": 2, "flag": 3}


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
    return ", ".join([*_keys_by_name(), f"{DRIVER_OPTIONS}.<option>"])


def read_file(path: Path) -> Raw:
    where = f"file {path}"
    try:
        with path.open("rb") as stream:
            document = tomllib.load(stream)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    known = _keys_by_name()
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
    return {"file": f"from {where}", "env": f"from environment variable {where}", "flag": f"from flag {where}"}.get(
        kind, "by default"
    )


def _refused(key: str, value: object, source: str, problem: str, accepts: str) -> ConfigError:
    return ConfigError(f"{key} = {value!r} ({_describe_source(source)}) is not valid: {problem}; use {accepts}")


def _driver_factory(name: str) -> Callable[..., Any] | None:
    from .registry import GROUP

    for entry in entry_points(group=GROUP):
        if entry.name == name:
            return cast(Callable[..., Any], entry.load())
    return None


def _installed_drivers() -> list[str]:
    from .registry import driver_names

    return driver_names()


def load_settings(
    config_file: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, object] | Iterable[tuple[str, object, str]] = (),
    use_default_file: bool = True,
    check_driver: bool = True,
) -> Settings:
    """Read the settings: defaults, then the TOML file (`config_file`, else `$BROWSER_TOOLSET_CONFIG`, else
    `./browser-toolset.toml` when present and `use_default_file`), then `env` (default `os.environ`), then `flags`
    (dotted key -> value, or `(key, value, flag name)` triples, as the CLI gives them). With `check_driver`, the
    driver must be installed and its declared options are checked. Raises `ConfigError`."""
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
    layers: list[Raw] = []
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
    known = _keys_by_name()
    converted: dict[str, Any] = {}
    sources: dict[str, str] = {}
    options_raw: dict[str, tuple[object, str]] = {}
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
        factory = _driver_factory(driver)
        if factory is None:
            source = sources.get("driver", "default")
            installed = ", ".join(_installed_drivers()) or "none (is browser-toolset installed?)"
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
                f"its options are {accepted}"
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
                f"{accepted}"
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
    return Settings(
        **top,
        driver_options={key: text for key, (text, _) in options.items()},
        **sections,
        config_file=None if path is None else str(path),
        sources=sources,
    )


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return " ".join(value)
    raise ValueError(f"expected a string, number or boolean; got {value!r}")


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


def show(settings: Settings, declared: Sequence[DriverOption] | None = None) -> str:
    """The effective settings as TOML (dotted keys), each line followed by where its value came from. Keys without
    a value are shown commented out; secrets are masked."""
    lines = [f"# browser-toolset settings (config file: {settings.config_file or 'none'})"]
    rows: list[tuple[str, str]] = []
    for key in setting_keys():
        value = settings.value(key.name)
        shown = _shown(key, value)
        rows.append((f"{key.name} = {shown}" if shown else f"# {key.name} = (not set)", settings.source(key.name)))
    for option_key, text in settings.driver_options.items():
        name = f"{DRIVER_OPTIONS}.{option_key}"
        source = settings.sources.get(name) or _shortcut_source(settings, option_key)
        rows.append((f"{name} = {toml_value(text)}", source))
    for option in declared or ():
        if option.key not in settings.driver_options:
            default = "(driver default)" if option.default is None else f"(driver default {option.default!r})"
            rows.append((f"# {DRIVER_OPTIONS}.{option.key} = {default}", "default"))
    width = min(max(len(text) for text, _ in rows) + 2, 70)
    lines.extend(f"{text.ljust(width)}# {source}" for text, source in rows)
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
    factory = _driver_factory(driver)
    return None if factory is None else declared_options(factory)


def all_declared() -> dict[str, tuple[DriverOption, ...] | None]:
    return {name: declared_for(name) for name in _installed_drivers()}


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


# --- building the toolset -----------------------------------------------------------------------------------------


def upload_max_bytes(settings: Settings) -> int:
    return int(settings.files.upload_max_mib * 1024 * 1024)


def _toolset_options(
    settings: Settings, driver: Any, ask: Ask | None, then: Callable[[BetaConfirmContext], bool] | None
) -> tuple[dict[str, Any], ActionGate]:
    """The `BrowserToolset` keyword arguments for `settings` on a started `driver`, and its confirmation gate."""
    from .images import ImageLimits
    from .uploads import UploadPolicy
    from .urls import URLPolicy

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
    from .toolset import BrowserToolset

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
    from .registry import load_driver

    return toolset_on(load_driver(settings.driver, settings.driver_options), settings, ask=ask, then=then)


def open_async_toolset(
    settings: Settings,
    *,
    ask: Ask | None = None,
    then: Callable[[BetaConfirmContext], bool] | None = None,
) -> AsyncBrowserToolset:
    """`open_toolset` for `AsyncAnthropic`: an `AsyncBrowserToolset` (use `async with`, or await its `close()`)."""
    from .async_toolset import AsyncBrowserToolset
    from .registry import load_driver

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
