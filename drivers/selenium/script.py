"""Running script in a tab through BiDi `script.*`: which realm to address, the page walker's call, and the conversion
between BiDi's wire values and Python's.

Scripts of the driver's own run in a sandbox realm (`SANDBOX`) so that pages can neither see them nor fake what they
read; `javascript_exec` runs in the page's realm, since it is the page Claude wants to talk to. BiDi wraps every
script value in a typed envelope (`{"type": "object", "value": [[key, value], ...]}`), so a result needs decoding
before use and an argument needs encoding.
"""

from __future__ import annotations

import base64
import functools
import importlib.resources
import json
import math
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from browser_toolset.driver_errors import DriverError

from .connection import JSON, BidiError, BidiTimeout
from .documents import Documents
from .errors import ContextGone, bidi_errors, context_lost

__all__ = [
    "MAX_RENDERED_CHARS",
    "SANDBOX",
    "WALKER_MISSING",
    "Scripts",
    "decode",
    "encode",
    "render",
    "walker_call_declaration",
    "walker_declaration",
    "walker_source",
    "walker_text",
]

SANDBOX = "browser-toolset"
"""The walker runs in its own realm, so its element registry survives page scripts and pages cannot see it."""

MAX_RENDERED_CHARS = 50_000
"""The longest `evaluate` result returned: a page can make a value of any size, and it all lands in Claude's
context."""


# --- the walker ---------------------------------------------------------------------------------------------------


@functools.cache
def walker_source() -> str:
    """The walker's JavaScript (`walker.js` beside this module), read once per process."""
    return (importlib.resources.files("browser_toolset.drivers.selenium") / "walker.js").read_text("utf-8")


WALKER_SLOT = "__browserToolsetWalkerCall"
"""Where the walker function is kept in a sandbox realm once installed (pages cannot see the sandbox's global)."""

WALKER_MISSING = "\u0000walker-missing"
"""What `walker_call_declaration` returns in a realm the walker was never installed in."""

COMPRESSED_PREFIX = "\u0001"
"""Starts a walker result sent gzipped and base64-encoded (see `_WALKER_RETURN`)."""

COMPRESS_FROM = 32_768
"""Results of at least this many characters are gzipped in the page."""

# Every op but `element` returns one JSON string. A long one is gzipped first (with the browser's native
# CompressionStream) and sent base64-encoded: the browser's side of BiDi moves big messages at roughly 3 MB/s in
# Chromium (ChromeDriver's BiDi mapper relays every byte through CDP and JSON twice), so 1.5 MB of snapshot costs
# ~0.5 s to send but ~10 ms to compress. Where compressing fails (no CompressionStream), the plain text goes.
_WALKER_RETURN = (
    "  if (op === 'element') return result;\n"
    # An op that waits in the page (center) answers with a promise.
    "  if (result && typeof result.then === 'function') return result.then(finish);\n"
    "  return finish(result);\n"
    "  function finish(result) {\n"
    "    const text = JSON.stringify(result === undefined ? null : result);\n"
    f"    if (text.length < {COMPRESS_FROM} || typeof CompressionStream !== 'function') return text;\n"
    "    try {\n"
    "      const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));\n"
    # A data URL does the base64 natively, and touches no typed array (Firefox's sandbox forbids reading those).
    "      return new Response(stream).blob().then((blob) => new Promise((resolve, reject) => {\n"
    "        const reader = new FileReader();\n"
    "        reader.onload = () => {\n"
    "          const url = String(reader.result);\n"
    f"          resolve({json.dumps(COMPRESSED_PREFIX)} + url.slice(url.indexOf(',') + 1));\n"
    "        };\n"
    "        reader.onerror = () => reject(reader.error);\n"
    "        reader.readAsDataURL(blob);\n"
    "      })).catch(() => text);\n"
    "    } catch (error) {\n"
    "      return text;\n"
    "    }\n"
    "  }\n"
)


def walker_text(value: str) -> str:
    """A walker result string as JSON text: decompressed when the page gzipped it (see `_WALKER_RETURN`)."""
    if not value.startswith(COMPRESSED_PREFIX):
        return value
    try:
        return zlib.decompress(base64.b64decode(value[len(COMPRESSED_PREFIX) :]), wbits=31).decode("utf-8")
    except zlib.error as exc:
        raise ValueError(f"a compressed walker result that does not decompress: {exc}") from exc


@functools.cache
def walker_declaration() -> str:
    """The walker wrapped so that every op but `element` returns one JSON string: a snapshot comes back several
    times faster as a string than as nested BiDi RemoteValues, and is parsed without recursing per DOM level.
    `element` must return the node itself, since acting on it needs the `sharedId` BiDi gives nodes.

    It also installs the walker in the realm (`WALKER_SLOT`), so that later calls there can send the short
    `walker_call_declaration` instead of the walker's ~74 KB source."""
    return (
        "function (op, arg) {\n"
        f"  let walker = globalThis[{json.dumps(WALKER_SLOT)}];\n"
        "  if (typeof walker !== 'function') {\n"
        f"    walker = ({walker_source().strip().rstrip(';')}\n);\n"
        f"    Object.defineProperty(globalThis, {json.dumps(WALKER_SLOT)}, "
        "{ value: walker, configurable: true, writable: true });\n"
        "  }\n"
        "  const result = walker(op, arg);\n" + _WALKER_RETURN + "}"
    )


@functools.cache
def walker_call_declaration() -> str:
    """A call of the walker `walker_declaration` installed in the realm; `WALKER_MISSING` where it is not."""
    return (
        "function (op, arg) {\n"
        f"  const walker = globalThis[{json.dumps(WALKER_SLOT)}];\n"
        f"  if (typeof walker !== 'function') return {json.dumps(WALKER_MISSING)};\n"
        "  const result = walker(op, arg);\n" + _WALKER_RETURN + "}"
    )


# --- calls --------------------------------------------------------------------------------------------------------


class Scripts:
    """`script.evaluate` and `script.callFunction` in a tab, addressed to the realm of the tab's document where it is
    known. Chromium never answers a script command that targets a `window.open` popup by context until the popup
    navigates again, while the same command targeting the realm works."""

    def __init__(self, documents: Documents) -> None:
        self._documents = documents

    def run(
        self,
        handle: str,
        method: str,
        params: Mapping[str, Any],
        *,
        sandbox: bool,
        timeout: float | None = None,
        realm: str | None = None,
    ) -> JSON:
        """`method` in the tab's page realm or the driver's sandbox, targeting the realm by id when the tab's document
        knows it (`Document.realm`) or the caller names it (`realm`), else by context. Raises `BidiError`."""
        if realm is None:
            document = self._documents.for_context(handle)
            realm = document.realm(SANDBOX if sandbox else "") if document is not None else None
        if realm is not None:
            try:
                return self._documents.command(handle, method, {**params, "target": {"realm": realm}}, timeout=timeout)
            except (BidiTimeout, ContextGone):
                raise
            except BidiError:
                # The document (and its realm) went away between the announcement and the call.
                self._documents.forget_realm(realm)
        target = {"context": handle, "sandbox": SANDBOX} if sandbox else {"context": handle}
        return self._documents.command(handle, method, {**params, "target": target}, timeout=timeout)

    def peek(
        self, handle: str, expression: str, *, timeout: float, await_promise: bool = False, sandbox: bool = True
    ) -> Any:
        """A value read from the tab's document (in the driver's sandbox by default, where page scripts cannot fake
        it), or None when the tab cannot answer right now (navigating, closing)."""
        params = {"expression": expression, "awaitPromise": await_promise, "resultOwnership": "none"}
        try:
            reply = self.run(handle, "script.evaluate", params, sandbox=sandbox, timeout=timeout)
        except BidiError:
            return None
        return decode(reply.get("result")) if reply.get("type") == "success" else None

    def title(self, handle: str) -> str:
        for _ in range(3):
            # The page's own realm: a title is the page's to set anyway, and that realm is announced (so addressable
            # by id) even in a popup Chromium has not yet made answer by context.
            value = self.peek(handle, "document.title", timeout=3, sandbox=False)
            if isinstance(value, str):
                return value
            if not self._documents.is_tab(handle):
                break
            time.sleep(0.05)
        return ""

    def evaluate(self, handle: str, expression: str, *, timeout: float) -> str:
        """`javascript_exec`: the completion value of `expression` in the page's realm, rendered as text."""
        params = {
            "expression": expression,
            "awaitPromise": True,
            "resultOwnership": "none",
            "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 4},
        }
        with bidi_errors("finish the script"):
            try:
                reply = self.run(handle, "script.evaluate", params, sandbox=False, timeout=timeout)
            except BidiError as exc:
                if not context_lost(exc):
                    raise
                return "undefined (the page navigated while the script ran)"
        if reply.get("type") == "exception":
            details = reply.get("exceptionDetails") or {}
            text = str(details.get("text") or "")
            exception = details.get("exception")
            if not text and isinstance(exception, dict):
                text = render(exception)
            raise DriverError(f"the script threw: {text or 'an exception'}")
        return render(reply.get("result"))


# --- wire values --------------------------------------------------------------------------------------------------


def encode(value: Any) -> dict[str, Any]:
    """A Python value as a BiDi `LocalValue` argument (mappings become objects, sequences arrays)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        number = float(value)
        if math.isnan(number):
            return {"type": "number", "value": "NaN"}
        if math.isinf(number):
            return {"type": "number", "value": "Infinity" if number > 0 else "-Infinity"}
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, Mapping):
        return {"type": "object", "value": [[str(key), encode(item)] for key, item in value.items()]}
    if isinstance(value, Sequence):
        return {"type": "array", "value": [encode(item) for item in value]}
    raise TypeError(f"cannot pass a {type(value).__name__} to a script")


_SPECIAL_NUMBERS = {"NaN": math.nan, "-0": -0.0, "Infinity": math.inf, "-Infinity": -math.inf}


def decode(remote: Any) -> Any:
    """A BiDi `RemoteValue` as plain Python: objects and maps become dicts, arrays and sets lists, `null` and
    `undefined` None. Nodes stay as their remote value (a dict with `sharedId`), since acting on a node needs
    that id. Anything else (functions, promises, windows) becomes its type name."""
    if not isinstance(remote, Mapping):
        return remote
    kind = remote.get("type")
    value = remote.get("value")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value
    if kind == "number":
        return _SPECIAL_NUMBERS.get(value, value) if isinstance(value, str) else value
    if kind == "bigint":
        return int(value) if isinstance(value, str) else value
    if kind in ("array", "set", "nodelist", "htmlcollection"):
        return [decode(item) for item in value] if isinstance(value, list) else []
    if kind in ("object", "map"):
        out: dict[str, Any] = {}
        for pair in value if isinstance(value, list) else []:
            if isinstance(pair, list) and len(pair) == 2:
                key = pair[0] if isinstance(pair[0], str) else render(pair[0])
                out[key] = decode(pair[1])
        return out
    if kind == "node":
        return dict(remote)
    if kind == "date":
        return value
    if kind == "regexp" and isinstance(value, Mapping):
        return f"/{value.get('pattern', '')}/{value.get('flags', '')}"
    return kind


def render(remote: Any) -> str:
    """A `RemoteValue` as the text `javascript_exec` returns: a string as it is, everything else JSON-like, nodes
    as a short tag, capped at `MAX_RENDERED_CHARS`."""
    if isinstance(remote, Mapping) and remote.get("type") == "string" and isinstance(remote.get("value"), str):
        text = str(remote["value"])
    else:
        parts: list[str] = []
        _render_into(remote, parts, budget=[MAX_RENDERED_CHARS + 1])
        text = "".join(parts)
    if len(text) > MAX_RENDERED_CHARS:
        return text[:MAX_RENDERED_CHARS] + f"… [truncated: the value is longer than {MAX_RENDERED_CHARS} characters]"
    return text


def _render_into(remote: Any, parts: list[str], budget: list[int]) -> None:
    """Appends the rendering to `parts`; stops early once `budget` characters have been produced, so a huge array
    costs no more than the text that is kept."""
    if budget[0] <= 0:
        return
    piece = _scalar(remote)
    if piece is not None:
        parts.append(piece)
        budget[0] -= len(piece)
        return
    kind = remote.get("type")
    value = remote.get("value")
    if kind in ("array", "set", "nodelist", "htmlcollection"):
        prefix = {"set": "Set ", "nodelist": "NodeList ", "htmlcollection": "HTMLCollection "}.get(str(kind), "")
        if not isinstance(value, list):
            parts.append(prefix + "[…]")
            return
        parts.append(prefix + "[")
        for index, item in enumerate(value):
            if index:
                parts.append(", ")
            _render_into(item, parts, budget)
            if budget[0] <= 0:
                return
        parts.append("]")
    elif kind in ("object", "map"):
        prefix = "Map " if kind == "map" else ""
        if not isinstance(value, list):
            parts.append(prefix + "{…}")
            return
        parts.append(prefix + "{")
        for index, pair in enumerate(value):
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            if index:
                parts.append(", ")
            key = pair[0] if isinstance(pair[0], str) else render(pair[0])
            parts.append(json.dumps(key, ensure_ascii=False) + ": ")
            _render_into(pair[1], parts, budget)
            if budget[0] <= 0:
                return
        parts.append("}")
    else:
        parts.append(str(kind))
    budget[0] -= 2


def _scalar(remote: Any) -> str | None:
    """The rendering of a value that has no parts, or None for arrays and objects."""
    if not isinstance(remote, Mapping):
        return json.dumps(remote, ensure_ascii=False, default=str)
    kind = remote.get("type")
    value = remote.get("value")
    if kind == "string":
        return json.dumps(value, ensure_ascii=False)
    if kind == "number":
        if isinstance(value, str):
            return value
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return json.dumps(value)
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("null", "undefined"):
        return str(kind)
    if kind == "bigint":
        return f"{value}n"
    if kind == "date":
        return json.dumps(value)
    if kind == "regexp" and isinstance(value, Mapping):
        return f"/{value.get('pattern', '')}/{value.get('flags', '')}"
    if kind == "node":
        return _describe_node(value if isinstance(value, Mapping) else {})
    if kind in ("array", "set", "nodelist", "htmlcollection", "object", "map"):
        return None
    return {"function": "function", "window": "Window", "promise": "Promise", "error": "Error"}.get(
        str(kind), str(kind)
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _describe_node(node: Mapping[str, Any]) -> str:
    node_type = node.get("nodeType")
    if node_type == 1:
        tag = str(node.get("localName") or "element")
        attributes = _mapping(node.get("attributes"))
        shown = "".join(
            f' {name}="{str(attributes[name])[:80]}"' for name in ("id", "class", "name", "type") if name in attributes
        )
        return f"<{tag}{shown}>"
    if node_type == 3:
        text = str(node.get("nodeValue") or "")
        return f"#text {json.dumps(text[:200], ensure_ascii=False)}"
    if node_type == 9:
        return "#document"
    if node_type == 11:
        return "#document-fragment"
    if node_type == 8:
        return "#comment"
    return "node"
