"""The settings flags of `browser-toolset mcp`: the same configuration keys, spelled the same, as `exec` and `run`
take (docs/configuration.md), read with the same layers (the settings file, `BROWSER_TOOLSET_*` variables, flags).

The MCP server's own settings are flags and `BROWSER_TOOLSET_MCP_*` variables (`mcp_env`); they are kept out of
what the configuration reads, which knows nothing of them."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping

from ..config import DEFAULT_FILE, OPTIONAL_MEMBERS, ConfigError, Settings, load_settings
from ..safety.confirm import CATEGORIES, DECISIONS, parse_decisions

__all__ = ["MCP_ENV_PREFIX", "add_settings_arguments", "mcp_env", "settings_from"]

MCP_ENV_PREFIX = "BROWSER_TOOLSET_MCP_"


def add_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """Every flag defaults to "not given", so that the file and the environment show through."""
    group = parser.add_argument_group("browser settings (as for exec; see docs/configuration.md)")
    group.add_argument("--config", metavar="FILE", help=f"a TOML settings file (default: ./{DEFAULT_FILE} if present)")
    group.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="any configuration key, e.g. images.quality=70"
    )
    group.add_argument("--driver", help="driver name (default mock; selenium for a real browser)")
    group.add_argument("--site", help="mock driver: a JSON site file")
    group.add_argument("--browser", help="selenium driver: chromium, chrome or firefox")
    group.add_argument("--remote", help="selenium driver: a Selenium Grid URL; each client gets a Grid session")
    group.add_argument("--viewport", help="viewport in CSS pixels, WIDTHxHEIGHT (default 1280x800)")
    group.add_argument("--headed", action="store_true", default=None, help="selenium driver: show the browser window")
    group.add_argument("--profile-dir", metavar="DIR", help="selenium driver: a persistent browser profile")
    group.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a driver option")
    group.add_argument(
        "--enable", action="append", default=None, choices=OPTIONAL_MEMBERS, metavar="MEMBER",
        help=f"offer an optional member ({', '.join(OPTIONAL_MEMBERS)}); its calls are approved unattended",
    )  # fmt: skip
    group.add_argument("--allow-host", action="append", default=None, metavar="HOST", help="restrict to these hosts")
    group.add_argument(
        "--allow-private", action="store_true", default=None, help="allow localhost and private-network addresses"
    )
    group.add_argument("--upload-dir", help="file_upload: the one directory uploads may come from")
    group.add_argument("--download-dir", metavar="DIR", help="where the browser saves downloads")
    group.add_argument("--upload-max-mib", type=float, default=None, metavar="MIB", help="the largest upload")
    group.add_argument(
        "--confirm", action="append", default=[], metavar="CATEGORY=DECISION",
        help=f"a high-impact call: CATEGORY is {', '.join(CATEGORIES)} or all; DECISION is {', '.join(DECISIONS)} "
        "(ask asks the person through the MCP client, when it can). Default: all=ask",
    )  # fmt: skip
    group.add_argument("--image-format", choices=("png", "jpeg", "webp"), default=None)
    group.add_argument("--image-quality", type=int, default=None, help="JPEG / WebP quality, 1-100")


def _flag_values(args: argparse.Namespace) -> list[tuple[str, object, str]]:
    """The configuration keys the flags set, as (key, value, flag), a later one winning."""
    flags: list[tuple[str, object, str]] = []
    for key, value, flag in (
        ("driver", args.driver, "--driver"),
        ("driver_options.site", args.site, "--site"),
        ("browser", args.browser, "--browser"),
        ("remote", args.remote, "--remote"),
        ("viewport", args.viewport, "--viewport"),
        ("headless", False if args.headed else None, "--headed"),
        ("profile_dir", args.profile_dir, "--profile-dir"),
        ("enable", args.enable, "--enable"),
        ("urls.allow_hosts", args.allow_host, "--allow-host"),
        ("urls.allow_private", args.allow_private, "--allow-private"),
        ("files.upload_dir", args.upload_dir, "--upload-dir"),
        ("files.download_dir", args.download_dir, "--download-dir"),
        ("files.upload_max_mib", args.upload_max_mib, "--upload-max-mib"),
        ("images.format", args.image_format, "--image-format"),
        ("images.quality", args.image_quality, "--image-quality"),
    ):
        if value is not None:
            flags.append((key, value, flag))
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"-o takes KEY=VALUE, not {item!r}")
        flags.append((f"driver_options.{key}", value, "-o"))
    try:
        decisions = parse_decisions(args.confirm)
    except ValueError as exc:
        raise ConfigError(f"--confirm: {exc}") from exc
    flags.extend((f"confirm.{category}", decision, "--confirm") for category, decision in decisions.items())
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set takes KEY=VALUE, not {item!r}")
        flags.append((key.strip(), value, "--set"))
    return flags


def mcp_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `BROWSER_TOOLSET_MCP_*` variables, by the rest of their name in lower case (`token`, `max_sessions`)."""
    environ = os.environ if env is None else env
    return {
        name[len(MCP_ENV_PREFIX) :].lower(): value for name, value in environ.items() if name.startswith(MCP_ENV_PREFIX)
    }


def settings_from(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> Settings:
    """The browser settings for the flags in `args`. Raises `ConfigError`."""
    environ = os.environ if env is None else env
    rest = {name: value for name, value in environ.items() if not name.startswith(MCP_ENV_PREFIX)}
    return load_settings(args.config, env=rest, flags=_flag_values(args))
