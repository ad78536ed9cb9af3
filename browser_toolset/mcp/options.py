"""What `browser-toolset mcp` serves and how, beyond the browser settings: the transport, where HTTP listens and who
may call it, and how long and how many browser sessions stay open. Each comes from its flag, else its
`BROWSER_TOOLSET_MCP_*` variable (the token, the idle timeout, the session limit), else the default.

Plain values, without the `mcp` package, so that the command line (`browser_toolset.cli.parsers`) shows the
defaults and checks the options whether or not the extra is installed. The configuration ignores the
`BROWSER_TOOLSET_MCP_*` variables (`config.settings.OTHER_ENV_PREFIXES`): they are read here only.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from typing import Any, Final

import attrs

from ..config import ConfigError

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PORT",
    "MCP_ENV_PREFIX",
    "TRANSPORTS",
    "ServerOptions",
    "is_loopback",
    "mcp_env",
]

MCP_ENV_PREFIX: Final = "BROWSER_TOOLSET_MCP_"
TRANSPORTS: Final = ("stdio", "http")
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8931
DEFAULT_IDLE_TIMEOUT: Final = 600.0
DEFAULT_MAX_SESSIONS: Final = 4


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def mcp_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `BROWSER_TOOLSET_MCP_*` variables, by the rest of their name in lower case (`token`, `max_sessions`)."""
    environ = os.environ if env is None else env
    return {
        name[len(MCP_ENV_PREFIX) :].lower(): value for name, value in environ.items() if name.startswith(MCP_ENV_PREFIX)
    }


def _number(given: float | None, env: Mapping[str, str], name: str, default: float) -> float:
    if given is not None:
        return given
    text = env.get(name)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{MCP_ENV_PREFIX}{name.upper()} = {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{MCP_ENV_PREFIX}{name.upper()} = {text!r} is not a finite number")
    return value


@attrs.frozen
class ServerOptions:
    """How the MCP server serves. `idle_timeout` is in seconds, 0 for never; `server_names` are further `Host`
    names (`name` or `name:port`) HTTP clients reach it by, `origins` further browser origins allowed to call it.
    A value that cannot be served (a listening address other machines reach without `allow_non_loopback` and a
    token, a negative timeout, no session) is a `ConfigError` saying what to change."""

    transport: str = "stdio"
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = attrs.field(default=None, repr=False)
    allow_non_loopback: bool = False
    server_names: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    max_sessions: int = DEFAULT_MAX_SESSIONS
    json_response: bool = False
    print_tools: bool = False

    def __attrs_post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ConfigError(f"the transport is {' or '.join(TRANSPORTS)}, not {self.transport!r}")
        if not math.isfinite(self.idle_timeout) or self.idle_timeout < 0:
            raise ConfigError(f"the idle timeout must be 0 (never) or a number of seconds, not {self.idle_timeout:g}")
        if self.max_sessions < 1:
            raise ConfigError(f"--max-sessions must be a whole number, at least 1, not {self.max_sessions}")
        if self.transport == "http" and not is_loopback(self.host):
            if not self.allow_non_loopback:
                raise ConfigError(
                    f"--host {self.host} is not a loopback address: other machines could reach the browser. Add "
                    f"--allow-non-loopback and a token (--token or ${MCP_ENV_PREFIX}TOKEN) to serve it there"
                )
            if not self.token:
                raise ConfigError(
                    f"--host {self.host} needs a bearer token: set --token or ${MCP_ENV_PREFIX}TOKEN (a long random "
                    "string)"
                )

    @classmethod
    def from_flags(
        cls,
        *,
        token: str | None = None,
        idle_timeout: float | None = None,
        max_sessions: int | None = None,
        env: Mapping[str, str] | None = None,
        **flags: Any,
    ) -> ServerOptions:
        """The options the command's flags give; a token, idle timeout or session limit not given (None) comes
        from `BROWSER_TOOLSET_MCP_TOKEN`, `_IDLE_TIMEOUT` or `_MAX_SESSIONS` in `env` (the process's environment),
        else the default. Raises `ConfigError`."""
        found = mcp_env(env)
        sessions = _number(max_sessions, found, "max_sessions", DEFAULT_MAX_SESSIONS)
        if sessions != int(sessions):
            raise ConfigError(f"--max-sessions must be a whole number, at least 1, not {sessions:g}")
        return cls(
            token=token or found.get("token") or None,
            idle_timeout=_number(idle_timeout, found, "idle_timeout", DEFAULT_IDLE_TIMEOUT),
            max_sessions=int(sessions),
            **flags,
        )

    @property
    def session_limit(self) -> int:
        """Browser sessions open at once: stdio serves one client, whose browser lives as long as the process."""
        return 1 if self.transport == "stdio" else self.max_sessions

    @property
    def idle_seconds(self) -> float | None:
        """How long a browser may go without a call before it is closed; None for never (always on stdio)."""
        return None if self.transport == "stdio" or self.idle_timeout == 0 else self.idle_timeout
