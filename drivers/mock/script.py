"""`evaluate` without a JavaScript engine: a page's canned `scripts`, a handful of well-known properties, and
literals with arithmetic, each rendered as JavaScript would print it. Anything else is refused in words that list
what does work, so a test that needs more sees why at once instead of getting a wrong answer."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from urllib.parse import urlsplit

from browser_toolset.driver_errors import DriverError, NotSupported
from browser_toolset.values import Size

from .document import _Document
from .reading import _page_text
from .resources import ScriptError


class _Unsupported(Exception):
    pass


_UNDEFINED = object()
_JS_NAMES: dict[str, object] = {
    "true": True,
    "false": False,
    "null": None,
    "undefined": _UNDEFINED,
    "NaN": math.nan,
    "Infinity": math.inf,
}
_PROPERTY_NAMES = (
    "document.title, document.URL, location.href (also window.location / document.location), location.host, "
    "location.hostname, location.pathname, location.search, location.origin, document.readyState, "
    "document.body.innerText, window.innerWidth, window.innerHeight, window.scrollX, window.scrollY, "
    "navigator.userAgent"
)


def _evaluate(doc: _Document, viewport: Size, expression: str) -> str:
    source = expression.strip().rstrip(";").strip()
    if source in doc.scripts:
        result = doc.scripts[source]
        if isinstance(result, ScriptError):
            raise DriverError(result.message)
        return result
    properties = _properties(doc, viewport)
    if source in properties:
        return _js_text(properties[source]())
    try:
        return _js_text(_js_eval(ast.parse(source, mode="eval").body))
    except (SyntaxError, _Unsupported, RecursionError):
        shown = source if len(source) <= 80 else source[:80] + "…"
        raise NotSupported(
            f"the mock browser has no JavaScript engine and cannot evaluate {shown!r}. It knows {_PROPERTY_NAMES}; "
            "number and string literals with + - * / % **; and the expressions the page's `scripts` define."
        ) from None


def _properties(doc: _Document, viewport: Size) -> dict[str, Callable[[], object]]:
    parts = urlsplit(doc.url)
    href: Callable[[], object] = lambda: doc.url  # noqa: E731
    return {
        "document.title": lambda: doc.title,
        "document.URL": href,
        "location.href": href,
        "window.location.href": href,
        "document.location.href": href,
        "location.host": lambda: parts.netloc,
        "location.hostname": lambda: parts.hostname or "",
        "location.pathname": lambda: parts.path,
        "location.search": lambda: f"?{parts.query}" if parts.query else "",
        "location.origin": lambda: f"{parts.scheme}://{parts.netloc}" if parts.netloc else "null",
        "document.readyState": lambda: "complete",
        "document.body.innerText": lambda: _page_text(doc, viewport),
        "window.innerWidth": lambda: viewport.width,
        "window.innerHeight": lambda: viewport.height,
        "window.scrollX": lambda: doc.scroll_x,
        "window.scrollY": lambda: doc.scroll_y,
        "navigator.userAgent": lambda: "Mozilla/5.0 (browser-toolset mock driver)",
    }


def _js_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is _UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return str(int(number)) if number.is_integer() and abs(number) < 1e21 else repr(number)
    return str(value)


def _js_eval(node: ast.expr) -> object:
    """Literals and + - * / % ** with JavaScript's number semantics (all floats, division by zero is Infinity)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in _JS_NAMES:
        return _JS_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _js_eval(node.operand)
        if not isinstance(operand, float):
            raise _Unsupported
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _js_eval(node.left), _js_eval(node.right)
        if isinstance(node.op, ast.Add) and (isinstance(left, str) or isinstance(right, str)):
            return _js_text(left) + _js_text(right)
        if not (isinstance(left, float) and isinstance(right, float)):
            raise _Unsupported
        return _js_arithmetic(node.op, left, right)
    raise _Unsupported


def _js_arithmetic(op: ast.operator, left: float, right: float) -> float:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Mod):
            return math.fmod(left, right)
        if isinstance(op, ast.Pow):
            return float(left**right)
    except ZeroDivisionError:
        if isinstance(op, ast.Div) and left != 0 and not math.isnan(left):
            return math.copysign(math.inf, left) * math.copysign(1.0, right)
        return math.nan
    except (OverflowError, ValueError):
        return math.inf if isinstance(op, ast.Pow) else math.nan
    raise _Unsupported
