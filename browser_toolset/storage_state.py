"""A browser's storage state (cookies, and each origin's `localStorage`) in Playwright's `storageState` shape, and
its file: written readable by its owner only, optionally encrypted at rest.

The shape is Playwright's exactly, so that a file Playwright saved loads here and ours loads there:
`{"cookies": [{name, value, domain, path, expires, httpOnly, secure, sameSite}], "origins": [{"origin",
"localStorage": [{name, value}]}]}`. `expires` is seconds since the epoch, -1 for a session cookie; `sameSite` is
`Strict`, `Lax` or `None`.

An encrypted file is a JSON envelope around AES-256-GCM ciphertext of that JSON, keyed by 32 random bytes given
base64-encoded in an environment variable the caller names: the key never sits next to the file, and a file
tampered with fails to open rather than loading altered cookies. Encryption needs the `cryptography` package
(the `encryption` extra).

A protocol-side module: the drivers' `storage_state` / `load_storage_state` speak these values, and nothing here
imports the executor.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol, cast
from urllib.parse import urlsplit

import attrs

__all__ = [
    "ENVELOPE",
    "Cookie",
    "OriginStorage",
    "StorageState",
    "StorageStateError",
    "canonical_origin",
    "load_storage_state",
    "merged_storage",
    "new_key",
    "read_storage_state",
    "save_storage_state",
    "write_storage_state",
]

SameSite = Literal["Strict", "Lax", "None"]
SAME_SITE: Final = ("Strict", "Lax", "None")
ENVELOPE: Final = "browser-toolset encrypted storage state"
_ALGORITHM: Final = "AES-256-GCM"
_KEY_BYTES: Final = 32
_NONCE_BYTES: Final = 12


class StorageStateError(ValueError):
    """A storage state file or value that cannot be used; the message says what is wrong and what to do."""


@attrs.frozen
class Cookie:
    """One cookie as Playwright writes it. `domain` keeps its leading dot for a domain cookie (sent to subdomains
    too) and has none for a host-only one."""

    name: str
    value: str
    domain: str
    path: str = "/"
    expires: float = -1
    http_only: bool = False
    secure: bool = False
    same_site: SameSite = "Lax"

    @property
    def session(self) -> bool:
        """A session cookie has no expiry: it lives until the browser closes."""
        return self.expires < 0

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "value": self.value,
            "domain": self.domain,
            "path": self.path,
            "expires": self.expires,
            "httpOnly": self.http_only,
            "secure": self.secure,
            "sameSite": self.same_site,
        }

    @classmethod
    def from_json(cls, data: object, where: str = "cookie") -> Cookie:
        item = _mapping(data, where)
        same_site = item.get("sameSite", "Lax")
        if same_site not in SAME_SITE:
            raise StorageStateError(f"{where}: sameSite must be one of {', '.join(SAME_SITE)}; got {same_site!r}")
        expires = item.get("expires", -1)
        if isinstance(expires, bool) or not isinstance(expires, int | float):
            raise StorageStateError(f"{where}: expires must be a number (-1 for a session cookie); got {expires!r}")
        return cls(
            name=_string(item, "name", where),
            value=_string(item, "value", where),
            domain=_string(item, "domain", where),
            path=_string(item, "path", where, "/"),
            expires=float(expires),
            http_only=_flag(item, "httpOnly", where),
            secure=_flag(item, "secure", where),
            same_site=same_site,
        )


def _pairs(items: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((str(name), str(value)) for name, value in items)


@attrs.frozen
class OriginStorage:
    """One origin's `localStorage`, its items in the order they were read."""

    origin: str
    local_storage: tuple[tuple[str, str], ...] = attrs.field(converter=_pairs, default=())

    def to_json(self) -> dict[str, object]:
        return {"origin": self.origin, "localStorage": [{"name": k, "value": v} for k, v in self.local_storage]}

    @classmethod
    def from_json(cls, data: object, where: str = "origin") -> OriginStorage:
        item = _mapping(data, where)
        origin = _string(item, "origin", where)
        if canonical_origin(origin) != origin:
            raise StorageStateError(
                f"{where}: origin must be a scheme, host and port such as https://example.com; got {origin!r}"
            )
        entries = item.get("localStorage", [])
        if not isinstance(entries, list):
            raise StorageStateError(f"{where}: localStorage must be a list of {{name, value}}")
        pairs = []
        for index, entry in enumerate(entries):
            at = f"{where}.localStorage[{index}]"
            pair = _mapping(entry, at)
            pairs.append((_string(pair, "name", at), _string(pair, "value", at)))
        return cls(origin, tuple(pairs))


def _cookies(items: Sequence[Cookie]) -> tuple[Cookie, ...]:
    return tuple(items)


def _origins(items: Sequence[OriginStorage]) -> tuple[OriginStorage, ...]:
    return tuple(items)


@attrs.frozen
class StorageState:
    """Cookies and per-origin `localStorage`: what a signed-in session needs to be signed in again."""

    cookies: tuple[Cookie, ...] = attrs.field(converter=_cookies, default=())
    origins: tuple[OriginStorage, ...] = attrs.field(converter=_origins, default=())

    def to_json(self) -> dict[str, object]:
        return {"cookies": [c.to_json() for c in self.cookies], "origins": [o.to_json() for o in self.origins]}

    @classmethod
    def from_json(cls, data: object) -> StorageState:
        item = _mapping(data, "storage state")
        cookies, origins = item.get("cookies", []), item.get("origins", [])
        if not isinstance(cookies, list) or not isinstance(origins, list):
            raise StorageStateError("a storage state has a list of cookies and a list of origins")
        return cls(
            tuple(Cookie.from_json(c, f"cookies[{i}]") for i, c in enumerate(cookies)),
            tuple(OriginStorage.from_json(o, f"origins[{i}]") for i, o in enumerate(origins)),
        )

    def to_text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_text(cls, text: str | bytes) -> StorageState:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise StorageStateError(f"a storage state is JSON: {exc}") from exc
        return cls.from_json(data)


def canonical_origin(url: str) -> str:
    """`scheme://host[:port]` of an http(s) `url`, lower-cased, the default port left out (as `location.origin`
    shows it); empty for any other URL."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return ""
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + ("" if port in (None, default) else f":{port}")


def merged_storage(
    current: StorageState, loaded: StorageState, allows: Callable[[str], bool]
) -> tuple[StorageState, list[str]]:
    """`loaded` set over `current` as a browser sets it: a cookie replaces the one of the same name, domain and path,
    an item the one of the same name in its origin; origins `allows` refuses are left out and returned."""
    refused = [entry.origin for entry in loaded.origins if not allows(entry.origin + "/")]
    cookies = {(c.name, c.domain, c.path): c for c in current.cookies}
    cookies.update({(c.name, c.domain, c.path): c for c in loaded.cookies})
    origins = {entry.origin: dict(entry.local_storage) for entry in current.origins}
    for entry in loaded.origins:
        if entry.origin not in refused:
            origins.setdefault(entry.origin, {}).update(entry.local_storage)
    state = StorageState(
        tuple(cookies.values()), tuple(OriginStorage(o, tuple(items.items())) for o, items in origins.items())
    )
    return state, refused


# --- the file -------------------------------------------------------------------------------------------------------


def new_key() -> str:
    """A fresh key for `key_env`, as the variable holds it (base64 of 32 random bytes)."""
    return base64.b64encode(secrets.token_bytes(_KEY_BYTES)).decode("ascii")


def _key(key_env: str) -> bytes:
    text = os.environ.get(key_env)
    if not text:
        raise StorageStateError(
            f"the storage state key variable {key_env} is not set. Set it to base64 of 32 random bytes, e.g. "
            '`python -c "from browser_toolset.storage_state import new_key; print(new_key())"`.'
        )
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise StorageStateError(f"{key_env} must hold base64 of 32 random bytes: {exc}") from exc
    if len(key) != _KEY_BYTES:
        raise StorageStateError(f"{key_env} must hold base64 of {_KEY_BYTES} bytes (AES-256); it holds {len(key)}")
    return key


def _aesgcm(key: bytes) -> Any:
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError as exc:
        raise StorageStateError(
            "an encrypted storage state needs the cryptography package: pip install 'browser-toolset[encryption]'"
        ) from exc
    return AESGCM(key)


def encrypt(text: str, key_env: str) -> str:
    """`text` sealed with AES-256-GCM under the key in `key_env`, as the JSON envelope the file holds."""
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = _aesgcm(_key(key_env)).encrypt(nonce, text.encode("utf-8"), ENVELOPE.encode("ascii"))
    envelope = {
        "format": ENVELOPE,
        "algorithm": _ALGORITHM,
        "nonce": base64.b64encode(nonce).decode("ascii"),
        "ciphertext": base64.b64encode(sealed).decode("ascii"),
    }
    return json.dumps(envelope, indent=2) + "\n"


def decrypt(data: Mapping[str, object], key_env: str | None, where: str) -> str:
    """The text an envelope read from `where` seals; a wrong key or an altered file fails, naming the variable."""
    if key_env is None:
        raise StorageStateError(f"{where} is encrypted: name the variable that holds its key (storage.key_env)")
    if data.get("algorithm") != _ALGORITHM:
        raise StorageStateError(f"{where} is encrypted with {data.get('algorithm')!r}; only {_ALGORITHM} is read")
    try:
        nonce = base64.b64decode(str(data["nonce"]), validate=True)
        sealed = base64.b64decode(str(data["ciphertext"]), validate=True)
    except (KeyError, binascii.Error, ValueError) as exc:
        raise StorageStateError(f"{where} is not a well-formed encrypted storage state: {exc}") from exc
    cipher = _aesgcm(_key(key_env))
    from cryptography.exceptions import InvalidTag

    try:
        plain: bytes = cipher.decrypt(nonce, sealed, ENVELOPE.encode("ascii"))
    except InvalidTag as exc:
        raise StorageStateError(
            f"{where} does not open with the key in {key_env}: a different key, or the file was altered"
        ) from exc
    return plain.decode("utf-8")


def read_storage_state(path: str | os.PathLike[str], key_env: str | None = None) -> StorageState:
    """The storage state in the file at `path`: Playwright's JSON, or our encrypted envelope (opened with the key in
    the variable `key_env`). A plain file read while `key_env` is given is accepted: Playwright writes plain files."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StorageStateError(f"cannot read the storage state {where}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StorageStateError(f"{where} is not JSON: {exc}") from exc
    if isinstance(data, dict) and data.get("format") == ENVELOPE:
        return StorageState.from_text(decrypt(data, key_env, where))
    return StorageState.from_json(data)


def write_storage_state(state: StorageState, path: str | os.PathLike[str], key_env: str | None = None) -> None:
    """Write `state` to `path`, readable and writable by its owner only (mode 0600 from the moment it exists: it
    holds sign-in cookies), encrypted with the key in `key_env` when one is named. Replaces the file atomically."""
    text = state.to_text() if key_env is None else encrypt(state.to_text(), key_env)
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o600)  # a filesystem may ignore the mode given at creation
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# --- on a toolset or driver ------------------------------------------------------------------------------------------


class _HasStorage(Protocol):
    def storage_state(self) -> StorageState: ...

    def load_storage_state(self, state: StorageState) -> list[str]: ...


def _driver_of(target: object) -> _HasStorage:
    """The driver of a toolset (through an async toolset's synchronous one), or `target` itself."""
    target = getattr(target, "sync", target)
    return cast(_HasStorage, getattr(target, "driver", target))


def load_storage_state(
    target: object, source: StorageState | str | os.PathLike[str], key_env: str | None = None
) -> list[str]:
    """Load a storage state (a value, or a file as `read_storage_state` reads it) into the browser of `target`, a
    toolset or a driver, before its first call. Returns the origins left out because the URL policy refuses them.
    A driver without storage state raises `NotImplementedError`."""
    state = source if isinstance(source, StorageState) else read_storage_state(source, key_env)
    return list(_driver_of(target).load_storage_state(state))


def save_storage_state(target: object, path: str | os.PathLike[str], key_env: str | None = None) -> StorageState:
    """Read the storage state of `target`'s browser (a toolset or a driver) and write it to `path`."""
    state = _driver_of(target).storage_state()
    write_storage_state(state, path, key_env)
    return state


# --- reading JSON ----------------------------------------------------------------------------------------------------


def _mapping(data: object, where: str) -> Mapping[str, object]:
    if not isinstance(data, dict):
        raise StorageStateError(f"{where}: expected a JSON object; got {type(data).__name__}")
    return cast(Mapping[str, object], data)


def _string(item: Mapping[str, object], key: str, where: str, default: str | None = None) -> str:
    value = item.get(key, default)
    if not isinstance(value, str):
        raise StorageStateError(f"{where}: {key} must be a string; got {value!r}")
    return value


def _flag(item: Mapping[str, object], key: str, where: str) -> bool:
    value = item.get(key, False)
    if not isinstance(value, bool):
        raise StorageStateError(f"{where}: {key} must be true or false; got {value!r}")
    return value
