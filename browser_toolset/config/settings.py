"""The settings model: every key with its type, default, converter, accepted values and help, kept as data on
the attrs fields (`Meta`), and the `Key` table the other modules read it through."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, cast
from urllib.parse import urlsplit

import attrs

from ..agent.options import DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, DEFAULT_MODEL
from ..driver_options import finite_number
from ..executor.images import HARD_EDGE_MAX, MEDIA_TYPES
from ..safety.confirm import CATEGORIES, DECISIONS, Category, Decision
from ..safety.secrets import SecretDeclaration, declarations
from ..safety.uploads import DEFAULT_MAX_BYTES
from ..values import parse_viewport

DEFAULT_FILE: Final = "browser-toolset.toml"
ENV_PREFIX: Final = "BROWSER_TOOLSET_"
CONFIG_ENV: Final = "BROWSER_TOOLSET_CONFIG"
OPTION_ENV_PREFIX: Final = "BROWSER_TOOLSET_OPTION_"
OTHER_ENV_PREFIXES: Final = (
    "BROWSER_TOOLSET_CONFORMANCE_",
    "BROWSER_TOOLSET_WPT_",
    "BROWSER_TOOLSET_TEST_",
    "BROWSER_TOOLSET_BENCH",
    "BROWSER_TOOLSET_MCP_",
)
"""`BROWSER_TOOLSET_*` variables that belong to the test suite, the benchmarks and the MCP server's own options
(`browser_toolset.mcp.options`), not to the configuration."""
OPTIONAL_MEMBERS: Final = ("file_upload", "javascript_exec", "read_console", "read_network")
BROWSER_NAMES: Final = ("chromium", "chrome", "firefox")
DEFAULT_DRIVER: Final = "selenium"
DEFAULT_BROWSERS: Final = ("chromium", "firefox")
"""The browsers a configuration without `browser` (or `remote`) tries, in order (`config.browsers`)."""
IMAGE_FORMATS: Final = tuple(MEDIA_TYPES)
DRIVER_OPTIONS: Final = "driver_options"
SECRETS: Final = "secrets"
"""`[secrets.NAME]` tables: where each secret's value comes from and its hosts (`browser_toolset.safety.secrets`).
Not keys of their own: a TOML file declares them, never a variable or flag, and they are never recorded."""
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


def _secret_declarations(value: Mapping[str, object]) -> dict[str, SecretDeclaration]:
    return declarations(value)


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
    """Screenshot and zoom images (`browser_toolset.executor.images.ImageLimits`)."""

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
    """Which addresses the browser may load (`browser_toolset.safety.urls.URLPolicy`)."""

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
    """Where `file_upload` may read (paths from `upload_dir`, document ids from `documents_dir`) and where downloads
    go."""

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
    documents_dir: str | None = _setting(
        None,
        _optional_text,
        "a folder path",
        "a folder of prepared documents for file_upload's document_ids, each id a file name in it (default: none)",
    )
    download_dir: str | None = _setting(
        None,
        _optional_text,
        "a folder path",
        "where the browser saves downloads (driver option download_dir; default: a temporary folder)",
        "--download-dir",
    )


@attrs.frozen
class StorageSettings:
    """The browser's storage state (cookies and each origin's localStorage) in Playwright's storageState format:
    loaded before the first call, saved when the session closes (mode 0600), encrypted at rest when `key_env` names
    the variable holding the key (docs/sessions-and-secrets.md)."""

    load: str | None = _setting(
        None,
        _optional_text,
        "a file path",
        "a storage state file to load before the first call (default: none)",
        "--storage-state",
    )
    save: str | None = _setting(
        None,
        _optional_text,
        "a file path",
        "where to save the storage state when the session closes (default: none)",
        "--save-storage-state",
    )
    key_env: str | None = _setting(
        None,
        _optional_text,
        "an environment variable name",
        "the variable holding the base64 AES-256 key that encrypts the saved file and opens an encrypted one",
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
    "storage": StorageSettings,
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
        DEFAULT_DRIVER,
        _driver_name,
        "an installed driver name (selenium, mock, ...)",
        "the driver: selenium runs a real browser; mock is the in-memory test browser, whose pages are not real",
        "--driver",
    )
    browser: str | None = _setting(
        None,
        _optional_choice(BROWSER_NAMES),
        " or ".join(BROWSER_NAMES),
        f"selenium: the browser (default: the first of {' or '.join(DEFAULT_BROWSERS)} installed here)",
        "--browser",
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
    secrets: Mapping[str, SecretDeclaration] = attrs.field(factory=dict, converter=_secret_declarations)
    images: ImageSettings = attrs.field(factory=ImageSettings)
    urls: URLSettings = attrs.field(factory=URLSettings)
    files: FileSettings = attrs.field(factory=FileSettings)
    storage: StorageSettings = attrs.field(factory=StorageSettings)
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


def keys_by_name() -> dict[str, Key]:
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
RANK: Final = {"default": 0, "recording": 1, "file": 2, "env": 3, "flag": 4}
"""Which kind of source wins when two set the same driver option (`Settings.sources` starts with the kind)."""
