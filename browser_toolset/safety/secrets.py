"""Secrets by placeholder: credentials Claude asks for by name (`{{secret:NAME}}`) and never sees.

A secret is declared with where its value comes from (an environment variable or a file, never the configuration
file itself, which is copied, committed and recorded) and the hosts it may be typed on. Claude writes the
placeholder in `type` or `form_input`; the executor puts the value in only when the document that holds the target
is on one of those hosts (so an ad frame on the bank's page is not the bank), and everything that comes back from
the browser shows the placeholder wherever the value, or one of its common encodings, would appear.

This module is data and pure functions: `executor/secret_driver.py` applies it at the driver seam.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import quote, quote_plus, urlsplit

import attrs

from ..driver_errors import DriverError

__all__ = [
    "PLACEHOLDER_RE",
    "Secret",
    "SecretDeclaration",
    "SecretRefused",
    "Secrets",
    "SecretsConfigError",
    "declarations",
    "encodings",
    "missing_secrets",
    "placeholder",
    "with_secret_names",
]

PLACEHOLDER_RE = re.compile(r"\{\{secret:([A-Za-z0-9_.-]{1,64})\}\}")
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
PERCENT_RE = re.compile(r"%[0-9A-F]{2}")
MIN_VALUE = 4
"""A shorter value would match ordinary text everywhere it is redacted (a 2-letter password turns every "ok" into
a placeholder) and is no secret anyway."""
SOURCES = ("env", "file")


class SecretsConfigError(ValueError):
    """A `[secrets.NAME]` declaration that cannot be used; the message names the secret and says what would work."""


class SecretRefused(DriverError):
    """A placeholder the executor will not fill here: an unknown name, a host outside the secret's list, or a driver
    that cannot tell which document holds the target. Nothing was typed."""


def placeholder(name: str) -> str:
    return f"{{{{secret:{name}}}}}"


def encodings(value: str) -> tuple[str, ...]:
    """The forms a value takes on its way through a page, a request or a log: plain, percent-encoded (path and
    component rules), form-encoded, JSON-escaped (ASCII or not), HTML-escaped and base64 (standard and URL-safe,
    with and without padding). Longest first, so a longer form is replaced before a shorter one inside it."""
    raw = value.encode()
    forms = {
        value,
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        html.escape(value),
        html.escape(value, quote=False),
    }
    # percent-escapes are case-insensitive: a page or a browser may write %2f for %2F
    forms.update({PERCENT_RE.sub(lambda match: match.group(0).lower(), form) for form in forms})
    for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        forms.update((encoded, encoded.rstrip("=")))
    return tuple(sorted((form for form in forms if form), key=len, reverse=True))


@functools.lru_cache(maxsize=16)
def _forms(entries: tuple[Secret, ...]) -> tuple[tuple[str, str], ...]:
    """Every encoded form of every secret with its name, longest first: computed once per set of secrets, since
    every string of every result is scrubbed with it."""
    forms = [(form, secret.name) for secret in entries for form in encodings(secret.value)]
    return tuple(sorted(forms, key=lambda pair: len(pair[0]), reverse=True))


def _host_names(hosts: Iterable[str]) -> tuple[str, ...]:
    return tuple(host.strip().lower() for host in hosts)


def _entries(entries: Iterable[Secret]) -> tuple[Secret, ...]:
    return tuple(entries)


@attrs.frozen
class Secret:
    """One declared secret: its `name`, its `value` (never shown in a repr) and the `hosts` it may be typed on (a
    host name, or `*.example.com` for the subdomains of example.com)."""

    name: str = attrs.field()
    value: str = attrs.field(repr=False)
    hosts: tuple[str, ...] = attrs.field(converter=_host_names)

    @name.validator
    def _check_name(self, _: object, name: str) -> None:
        if not NAME_RE.match(name):
            raise SecretsConfigError(f"secret name {name!r}: use letters, digits, '_', '-' or '.' (at most 64)")

    @value.validator
    def _check_value(self, _: object, value: str) -> None:
        if len(value) < MIN_VALUE:
            raise SecretsConfigError(
                f"secret {self.name!r}: its value is shorter than {MIN_VALUE} characters, too short to hide from "
                "every output"
            )

    @hosts.validator
    def _check_hosts(self, _: object, hosts: tuple[str, ...]) -> None:
        if not hosts or not all(hosts):
            raise SecretsConfigError(
                f"secret {self.name!r} needs hosts = [...]: the host names it may be typed on (required, so a "
                "page on another site never receives it)"
            )

    def allowed_on(self, host: str) -> bool:
        host = host.lower()
        return any(
            host == allowed or (allowed.startswith("*.") and host.endswith(allowed[1:])) for allowed in self.hosts
        )


@attrs.frozen
class Secrets:
    """The secrets of a session. Empty means none: placeholders are then plain text."""

    entries: tuple[Secret, ...] = attrs.field(default=(), converter=_entries)

    @entries.validator
    def _check_unique(self, _: object, entries: tuple[Secret, ...]) -> None:
        names = [secret.name for secret in entries]
        if len(set(names)) != len(names):
            raise SecretsConfigError(f"secret names must be unique; got {names}")

    def __bool__(self) -> bool:
        return bool(self.entries)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(secret.name for secret in self.entries)

    def get(self, name: str) -> Secret | None:
        return next((secret for secret in self.entries if secret.name == name), None)

    @staticmethod
    def wanted(text: str) -> list[str]:
        """The names of the placeholders in `text`, in order."""
        return PLACEHOLDER_RE.findall(text)

    def fill(self, text: str, url: str | None) -> str:
        """`text` with each placeholder replaced by its value, when the document at `url` is on every named secret's
        hosts. Raises `SecretRefused` naming the secret (and the host) otherwise; `url` None means the driver could
        not say which document holds the target."""
        names = self.wanted(text)
        if not names:
            return text
        for name in dict.fromkeys(names):
            secret = self.get(name)
            if secret is None:
                known = ", ".join(self.names) or "none"
                raise SecretRefused(f"there is no secret named {name!r} (secrets: {known}); nothing was typed")
            if url is None:
                raise SecretRefused(
                    f"secret {name!r} was not typed: this driver cannot tell which page holds the target, so no "
                    "secret can be checked against its hosts"
                )
            host = urlsplit(url).hostname or ""
            if not host or not secret.allowed_on(host):
                shown = host or (url[:80] or "a page without an address")
                raise SecretRefused(
                    f"secret {name!r} may not be typed on {shown} (only on {', '.join(secret.hosts)}); nothing was "
                    "typed"
                )
        return PLACEHOLDER_RE.sub(lambda match: self._value(match.group(1)), text)

    def _value(self, name: str) -> str:
        secret = self.get(name)
        assert secret is not None  # fill checked every name first
        return secret.value

    def values(self) -> tuple[str, ...]:
        return tuple(secret.value for secret in self.entries)

    def scrub(self, text: str) -> str:
        """`text` with every secret's value, in each of its `encodings`, replaced by its placeholder."""
        if not self.entries:
            return text
        for form, name in _forms(self.entries):
            if form in text:
                text = text.replace(form, placeholder(name))
        return text

    def prompt_line(self) -> str:
        """What Claude is told: the names, never the values."""
        if not self.entries:
            return ""
        listed = ", ".join(f"{placeholder(s.name)} (on {', '.join(s.hosts)})" for s in self.entries)
        return (
            f"Secrets you may type without knowing them: {listed}. Write the placeholder as the text of type or the "
            "value of form_input; the browser fills it in only on those hosts, and results show the placeholder."
        )

    @classmethod
    def from_declarations(
        cls,
        tables: Mapping[str, object],
        *,
        environ: Mapping[str, str] | None = None,
        base_dir: str | Path | None = None,
    ) -> Secrets:
        """Secrets from `[secrets.NAME]` tables (or `SecretDeclaration`s): `env = "VAR"` or `file = "PATH"`
        (relative to `base_dir`), and `hosts = [...]`. A literal `value` is refused: the configuration file is
        copied, committed and recorded. The values are read now."""
        env = os.environ if environ is None else environ
        checked = declarations(tables)
        return cls(tuple(declared.resolve(name, env, base_dir) for name, declared in checked.items()))


@attrs.frozen
class SecretDeclaration:
    """Where a secret's value comes from (`env`, a variable's name, or `file`, a path) and the `hosts` it may be typed
    on: what a configuration file holds, never the value itself."""

    env: str | None
    file: str | None
    hosts: tuple[str, ...]

    def resolve(self, name: str, environ: Mapping[str, str], base_dir: str | Path | None) -> Secret:
        """The secret, its value read now. Raises `SecretsConfigError` when it cannot be read."""
        if self.env is not None:
            if self.env not in environ:
                raise SecretsConfigError(f"[secrets.{name}]: the environment variable {self.env} is not set")
            return Secret(name, environ[self.env], self.hosts)
        assert self.file is not None
        path = Path(self.file).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        try:
            value = path.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as error:
            raise SecretsConfigError(f"[secrets.{name}]: cannot read {path}: {error.strerror or error}") from None
        return Secret(name, value, self.hosts)


def declarations(tables: Mapping[str, object]) -> dict[str, SecretDeclaration]:
    """`[secrets.NAME]` tables checked (one of `env` or `file`, `hosts`, no `value`), values not read yet."""
    if not isinstance(tables, Mapping):
        raise SecretsConfigError(f"secrets must be [secrets.NAME] tables; got {tables!r}")
    return {str(name): _declared(str(name), table) for name, table in tables.items()}


def _declared(name: str, table: object) -> SecretDeclaration:
    if isinstance(table, SecretDeclaration):
        return table
    if not NAME_RE.match(name):
        raise SecretsConfigError(f"secret name {name!r}: use letters, digits, '_', '-' or '.' (at most 64)")
    if not isinstance(table, Mapping):
        raise SecretsConfigError(f"[secrets.{name}] must be a table with env or file, and hosts")
    if "value" in table:
        raise SecretsConfigError(
            f"[secrets.{name}] holds its value in the configuration, which is copied, committed and recorded: put "
            f'it in an environment variable (env = "VAR") or a file readable only by you (file = "PATH")'
        )
    unknown = sorted(set(table) - {"env", "file", "hosts"})
    if unknown:
        raise SecretsConfigError(f"[secrets.{name}] has unknown keys {unknown}; it takes env or file, and hosts")
    given = [source for source in SOURCES if source in table]
    if len(given) != 1:
        raise SecretsConfigError(f'[secrets.{name}] needs exactly one of env = "VAR" or file = "PATH"')
    hosts = table.get("hosts")
    if not _strings(hosts):
        raise SecretsConfigError(
            f'[secrets.{name}] needs hosts = ["example.com", ...]: the hosts it may be typed on (required)'
        )
    where = table[given[0]]
    if not isinstance(where, str) or not where:
        raise SecretsConfigError(f"[secrets.{name}] {given[0]} must be a non-empty string")
    assert isinstance(hosts, list | tuple)
    return SecretDeclaration(
        env=where if given[0] == "env" else None, file=where if given[0] == "file" else None, hosts=tuple(hosts)
    )


def _strings(value: object) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(item, str) and item for item in value)


def with_secret_names(system: str | None, secrets: Secrets | None) -> str | None:
    """`system` (a run's system prompt, or none) with a line naming the secrets Claude may type, when there are
    any: their names and hosts, never their values."""
    if not secrets:
        return system
    return secrets.prompt_line() if system is None else f"{system}\n\n{secrets.prompt_line()}"


def missing_secrets(inputs: Iterable[object], declared: Iterable[str]) -> list[str]:
    """The secret names the placeholders in `inputs` (recorded call inputs, any nesting) ask for that are not in
    `declared`, in first-seen order: what a replay cannot type."""
    known = set(declared)
    found: dict[str, None] = {}
    pending = list(inputs)
    while pending:
        item = pending.pop(0)
        if isinstance(item, str):
            found.update(dict.fromkeys(name for name in PLACEHOLDER_RE.findall(item) if name not in known))
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return list(found)
