"""The Selenium driver's configuration, from Python values or from the strings of `--driver selenium -o key=value`.

Every field converts and checks its own value, so `SeleniumConfig(headless="no")` and the option `headless=no`
mean the same and a bad value is refused in the same place, before any browser starts. `from_options` adds the
option names (some differ from the field names: `remote` is `remote_url`) and one wording for what it refuses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

import attrs

from browser_toolset.driver_options import DriverOption, OptionType
from browser_toolset.values import Size, parse_viewport

__all__ = [
    "BROWSERS",
    "DIALOG_POLICIES",
    "Browser",
    "DialogPolicy",
    "DriverOption",
    "Option",
    "SeleniumConfig",
    "options",
]

Browser = Literal["chromium", "chrome", "firefox"]
DialogPolicy = Literal["dismiss", "accept"]
BROWSERS: tuple[Browser, ...] = ("chromium", "chrome", "firefox")
DIALOG_POLICIES: tuple[DialogPolicy, ...] = ("dismiss", "accept")

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


@attrs.frozen
class Option:
    """How a config field is written as a driver option: its `key` in `-o key=value`, the values it `accepts`
    (words that follow "use"), and what it is for (`help`)."""

    key: str
    accepts: str
    help: str


_OPTION = "browser_toolset.option"
"""The field metadata key holding a field's `Option`."""


def _option(key: str, accepts: str, help: str) -> dict[str, Option]:
    return {_OPTION: Option(key, accepts, help)}


# --- converters: each takes the Python value or the option string, and refuses what it cannot use -----------------


def _browser(value: str) -> Browser:
    name = value.strip().lower()
    for browser in BROWSERS:
        if name == browser:
            return browser
    raise ValueError(f"browser must be one of {', '.join(BROWSERS)}; got {value!r}")


def _dialog_policy(value: str) -> DialogPolicy:
    name = value.strip().lower()
    for policy in DIALOG_POLICIES:
        if name == policy:
            return policy
    raise ValueError(f"dialogs must be dismiss or accept; got {value!r}")


def _flag(value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    raise ValueError(f"expected true or false; got {value!r}")


def _seconds(value: float | str) -> float:
    if isinstance(value, bool):
        raise TypeError(f"expected a number of seconds; got {value!r}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"expected a positive number of seconds; got {value!r}")
    return seconds


def _viewport(value: Size | str) -> Size:
    """Through the one shared parser, for a `Size` too, so that every driver takes the same sizes."""
    return parse_viewport(f"{value.width}x{value.height}" if isinstance(value, Size) else value)


def _optional_text(value: str | None) -> str | None:
    """An empty string is no value, as an option left empty (`-o browser_binary=`) means the default."""
    return value or None


def _remote_url(value: str | None) -> str | None:
    url = (value or "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the remote WebDriver URL must be http:// or https:// with a host; got {value!r}")
    return url


def _args(value: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(value.split()) if isinstance(value, str) else tuple(str(arg) for arg in value)


@attrs.frozen
class SeleniumConfig:
    """How to start the browser. `browser` picks the family; `remote_url` (a Selenium Grid or any remote WebDriver
    endpoint) runs it there instead of locally, in which case the binary paths are ignored, uploads are sent to the
    Grid's node, and downloads are fetched back into `download_dir` where the Grid offers managed downloads."""

    browser: Browser = attrs.field(
        default="chromium",
        converter=_browser,
        metadata=_option("browser", "chromium, chrome or firefox", "the browser to start"),
    )
    remote_url: str | None = attrs.field(
        default=None,
        converter=_remote_url,
        metadata=_option(
            "remote",
            "an http:// or https:// URL, such as http://127.0.0.1:4444",
            "a Selenium Grid or remote WebDriver to run the browser on instead of this machine",
        ),
    )
    headless: bool = attrs.field(
        default=True,
        converter=_flag,
        metadata=_option("headless", "true or false (or yes/no, on/off, 1/0)", "run the browser without a window"),
    )
    viewport: Size = attrs.field(
        default=Size(1280, 800),
        converter=_viewport,
        metadata=_option(
            "viewport",
            "WIDTHxHEIGHT in CSS pixels, each between 100 and 10000, such as 1280x800",
            "the size of every tab's viewport",
        ),
    )
    browser_binary: str | None = attrs.field(
        default=None,
        converter=_optional_text,
        metadata=_option(
            "browser_binary", "a file path", "the browser executable (default: the environment, then the usual places)"
        ),
    )
    driver_binary: str | None = attrs.field(
        default=None,
        converter=_optional_text,
        metadata=_option(
            "driver_binary", "a file path", "chromedriver or geckodriver (default: the environment, then PATH)"
        ),
    )
    profile_dir: str | None = attrs.field(
        default=None,
        converter=_optional_text,
        metadata=_option(
            "profile_dir",
            "a folder path",
            "a persistent browser profile (Chromium user-data-dir, Firefox profile), kept after close; created if "
            "missing (default: a fresh temporary profile)",
        ),
    )
    download_dir: str | None = attrs.field(
        default=None,
        converter=_optional_text,
        metadata=_option(
            "download_dir", "a folder path", "where downloads go (default: a temporary folder removed on close)"
        ),
    )
    dialog_policy: DialogPolicy = attrs.field(
        default="dismiss",
        converter=_dialog_policy,
        metadata=_option("dialogs", "dismiss or accept", "how native dialogs are answered"),
    )
    navigation_timeout: float = attrs.field(
        default=30.0,
        converter=_seconds,
        metadata=_option("navigation_timeout", "a number of seconds above 0", "how long a navigation may take"),
    )
    command_timeout: float = attrs.field(
        default=30.0,
        converter=_seconds,
        metadata=_option(
            "command_timeout", "a number of seconds above 0", "how long any other browser command may take"
        ),
    )
    script_timeout: float = attrs.field(
        default=30.0,
        converter=_seconds,
        metadata=_option(
            "script_timeout", "a number of seconds above 0", "how long javascript_exec and page reads may take"
        ),
    )
    session_timeout: float = attrs.field(
        default=120.0,
        converter=_seconds,
        metadata=_option(
            "session_timeout",
            "a number of seconds above 0",
            "how long a Selenium Grid (remote) may take to create the session; a Grid with no free slot holds the "
            "request until one frees up",
        ),
    )
    keepalive: float = attrs.field(
        default=60.0,
        converter=_seconds,
        metadata=_option(
            "keepalive",
            "a number of seconds above 0",
            "how often a remote session sends a small command, so that a Selenium Grid does not end it as idle "
            "(a Grid's session timeout is 300 s unless set otherwise); keep it below the Grid's",
        ),
    )
    egress: bool = attrs.field(
        default=True,
        converter=_flag,
        metadata=_option(
            "egress",
            "true or false (or yes/no, on/off, 1/0)",
            "send every connection of a local browser through a proxy that applies the URL policy (remote: no effect)",
        ),
    )
    restart: bool = attrs.field(
        default=False,
        converter=_flag,
        metadata=_option(
            "restart",
            "true or false (or yes/no, on/off, 1/0)",
            "start a fresh browser on the next call after the browser or its WebDriver died",
        ),
    )
    extra_args: tuple[str, ...] = attrs.field(
        default=(),
        converter=_args,
        metadata=_option(
            "args", "arguments separated by spaces", "more browser command-line arguments, after the driver's own"
        ),
    )
    managed_downloads: bool = attrs.field(default=False, converter=_flag)
    """Whether a remote session asks the Grid for managed downloads (`se:downloadsEnabled`). No driver option: the
    driver sets it when the Grid's status says a node offers them, since a Grid refuses a session asking for them
    where none does (`remote_files.grid_offers_downloads`)."""

    @property
    def family(self) -> Literal["chromium", "firefox"]:
        return "firefox" if self.browser == "firefox" else "chromium"

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> SeleniumConfig:
        """The config for driver option strings (see `options()`). Raises `ValueError` naming the first unknown
        key, or the first key whose value is refused, with the values it accepts."""
        fields = {option.key: name for name, option in options_by_field().items()}
        unknown = sorted(set(options) - set(fields))
        if unknown:
            key = unknown[0]
            raise ValueError(
                f"selenium driver option {key}={options[key]!r} is unknown: use one of {', '.join(fields)}"
            )
        values: dict[str, Any] = {}
        for key, text in options.items():
            name = fields[key]
            try:
                cls(**{name: text})  # the option alone first, so that a refused value is blamed on its own key
            except (ValueError, TypeError) as exc:
                accepts = options_by_field()[name].accepts
                raise ValueError(f"selenium driver option {key}={text!r} is not valid: use {accepts}") from exc
            values[name] = text
        return cls(**values)


def options_by_field() -> dict[str, Option]:
    """Field name -> how it is written as a driver option, in field order."""
    return {field.name: field.metadata[_OPTION] for field in attrs.fields(SeleniumConfig) if _OPTION in field.metadata}


def _declared_type(field: attrs.Attribute[Any]) -> tuple[OptionType, tuple[str, ...]]:
    converter: Any = field.converter
    if converter is _browser:
        return "choice", BROWSERS
    if converter is _dialog_policy:
        return "choice", DIALOG_POLICIES
    kinds: dict[Any, OptionType] = {_flag: "bool", _seconds: "number", _viewport: "viewport", _remote_url: "url"}
    if converter in kinds:
        return kinds[converter], ()
    if converter is _args:
        return "list", ()
    if field.name.endswith(("_dir", "_binary")):
        return "path", ()
    return "text", ()


def _default_text(value: object) -> str | None:
    if value is None or isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Size):
        return f"{value.width}x{value.height}"
    if isinstance(value, tuple):
        return " ".join(str(item) for item in value)
    return str(value)


def options() -> tuple[DriverOption, ...]:
    """Every driver option `from_options` understands (what `--driver selenium -o key=value` passes), declared with
    its type, default and help (`browser_toolset.driver_options`)."""
    declared = []
    for field in attrs.fields(SeleniumConfig):
        option = field.metadata.get(_OPTION)
        if option is None:
            continue
        kind, choices = _declared_type(field)
        declared.append(
            DriverOption(
                key=option.key,
                type=kind,
                default=_default_text(field.default),
                help=option.help,
                accepts=option.accepts,
                choices=choices,
            )
        )
    return tuple(declared)
