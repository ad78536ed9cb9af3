"""The driver a toolset with secrets drives: the real one behind a guard that fills placeholders and hides values.

Everything the executor knows about the browser comes through the `Driver` seam, so guarding it there covers every
output at once: tree values, `find` candidates, page text, console and network entries, dialog texts, titles, URLs,
event fields and driver error messages all come back with each secret's value (in each of its encodings) replaced
by its placeholder, and every capture comes back with the elements that hold a secret painted over. The real value
exists only inside `type_text` and `set_value`, after the document that holds the target was checked against the
secret's hosts.

A secret with `javascript_exec` is refused outright (a script could read the value in any encoding), and the guard
does not offer `evaluate` at all, so the member is unavailable even to a caller who skips that check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import attrs

from ..driver import OPTIONAL_METHODS, REQUIRED_METHODS, Driver, implements
from ..driver_errors import DriverError
from ..safety.secrets import Secrets, SecretsConfigError
from ..values import Capture, FormValue, Rect
from .secret_masks import masked

__all__ = ["check_secrets_and_configs", "guard_secrets", "scrubbed"]

WITHHELD = ("evaluate",)
"""Driver methods a guarded driver does not offer: scripts read anything, in any encoding."""


def scrubbed(value: Any, secrets: Secrets) -> Any:
    """`value` (a string, a driver value type, or lists, tuples and dicts of them) with every secret's value in
    each of its encodings replaced by its placeholder; the same object when nothing changed."""
    if isinstance(value, str):
        return secrets.scrub(value)
    if isinstance(value, list):
        return [scrubbed(item, secrets) for item in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        items = tuple(scrubbed(item, secrets) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        return {key: scrubbed(item, secrets) for key, item in value.items()}
    if attrs.has(type(value)):
        changes = {}
        for field in attrs.fields(type(value)):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = scrubbed(old, secrets)
            if new is not old:
                changes[field.alias or field.name] = new
        return attrs.evolve(value, **changes) if changes else value
    return value


def javascript_enabled(configs: Mapping[str, Any] | None) -> bool:
    entry = (configs or {}).get("javascript_exec")
    return isinstance(entry, Mapping) and entry.get("enabled") is True


def check_secrets_and_configs(secrets: Secrets | None, configs: Mapping[str, Any] | None) -> None:
    """Raise `SecretsConfigError` when there are secrets and `configs` enables `javascript_exec`."""
    if secrets and javascript_enabled(configs):
        raise SecretsConfigError(
            f"secrets ({', '.join(secrets.names)}) cannot be declared while javascript_exec is enabled: a script "
            "could read a typed secret in any encoding. Disable javascript_exec, or remove the secrets."
        )


def guard_secrets(driver: Driver, secrets: Secrets | None) -> Driver:
    """`driver` itself when there are no secrets, else the guard around it."""
    if not secrets:
        return driver
    if isinstance(driver, SecretGuard):
        return driver
    methods = [m for m in (*REQUIRED_METHODS, *OPTIONAL_METHODS) if m not in WITHHELD and implements(driver, m)]
    namespace: dict[str, object] = {m: _OWN.get(m) or _delegate(m) for m in methods}
    guard_class = type(f"SecretGuard[{type(driver).__name__}]", (SecretGuard,), namespace)
    return cast(Driver, guard_class(driver, secrets))


class SecretGuard(Driver):
    """The guard around a driver (see the module docstring); built by `guard_secrets`, with exactly the methods the
    driver it wraps implements, `evaluate` aside."""

    def __init__(self, inner: Driver, secrets: Secrets) -> None:
        self.inner = inner
        self.secrets = secrets
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        # a driver's own extras (the mock's `page()`, options...) read through, scrubbed like everything else
        if name in ("inner", "secrets") or name in WITHHELD:
            raise AttributeError(name)
        return scrubbed(getattr(self.inner, name), self.secrets)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            result = getattr(self.inner, method)(*args, **kwargs)
        except Exception as error:
            # a driver's message may quote what the page holds: the value goes before the message leaves
            error.args = tuple(scrubbed(arg, self.secrets) for arg in error.args)
            raise
        return scrubbed(result, self.secrets)

    def _document_url(self, handle: str, key: str | None) -> str | None:
        if not implements(self.inner, "document_url"):
            return None
        return cast(str, self._raw("document_url", handle, key))

    def _raw(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.inner, method)(*args)
        except Exception as error:
            error.args = tuple(scrubbed(arg, self.secrets) for arg in error.args)
            raise

    def _boxes(self, handle: str) -> list[Rect]:
        if not implements(self.inner, "secret_boxes"):
            raise DriverError(
                f"captures are off while secrets are declared: the {self.inner.name} driver cannot find the "
                "elements that hold them to paint over"
            )
        return cast("list[Rect]", self._raw("secret_boxes", handle, list(self.secrets.values())))


def _delegate(method: str) -> Callable[..., Any]:
    def call(self: SecretGuard, *args: Any, **kwargs: Any) -> Any:
        return self._call(method, *args, **kwargs)

    call.__name__ = method
    return call


def _type_text(self: SecretGuard, handle: str, text: str) -> None:
    if self.secrets.wanted(text):
        text = self.secrets.fill(text, self._document_url(handle, None))
    self._call("type_text", handle, text)


def _set_value(self: SecretGuard, handle: str, key: str, value: FormValue) -> str:
    if isinstance(value, str) and self.secrets.wanted(value):
        value = self.secrets.fill(value, self._document_url(handle, key))
    return cast(str, self._call("set_value", handle, key, value))


def _capture(self: SecretGuard, handle: str) -> Capture:
    boxes = self._boxes(handle)
    return masked(cast(Capture, self._raw("capture", handle)), boxes)


def _capture_region(self: SecretGuard, handle: str, clip: Rect, scale: float) -> Capture:
    boxes = self._boxes(handle)
    return masked(cast(Capture, self._raw("capture_region", handle, clip, scale)), boxes)


_OWN: Mapping[str, Callable[..., Any]] = {
    "type_text": _type_text,
    "set_value": _set_value,
    "capture": _capture,
    "capture_region": _capture_region,
}
"""The methods the guard does more than scrub for."""
