"""What activating an element loads (`AXNode.action`), and what Enter or Space at the focused element activates
(`Driver.key_target`): the facts the confirmation gate judges a click or a key press by, as a browser's driver
reports them.

A mock form submits through its `on_submit` behaviours, so what it loads is the first of those that loads
something: a `Navigate` is a GET of its URL, a `Request` its method and URL. A link loads its `href`; a button
submits its form when its `on_click` holds a `Submit`. Enter in a single-line field runs its form's submission
(`interaction._implicit_submit`), which the gate sees as the form's first button, or as a `Submit` button when the
form has none.
"""

from __future__ import annotations

from urllib.parse import urljoin

from browser_toolset.values import CONTEXT_ROLES, ElementAtPoint

from .behaviours import Navigate, Request, Submit
from .document import CHECKABLE, TEXT_ENTRY, LiveElement, _Document, _enclosing_form, _handles_click
from .site import normalize_url

__all__ = ["action_of", "context_of", "key_target"]


def _absolute(doc: _Document, url: str) -> str:
    if doc.url.startswith(("http://", "https://")):
        return normalize_url(urljoin(doc.url, url))
    return url


def _submission(doc: _Document, form: LiveElement) -> str:
    """What submitting `form` loads: its first `Navigate` or `Request` behaviour, else nothing known."""
    for behaviour in form.spec.on_submit:
        if isinstance(behaviour, Navigate):
            return f"GET {_absolute(doc, behaviour.url)}"
        if isinstance(behaviour, Request):
            return f"{behaviour.method.upper()} {_absolute(doc, behaviour.url)}"
    return ""


def action_of(doc: _Document, element: LiveElement) -> str:
    """`AXNode.action` for `element` (see `browser_toolset.values.ACTION_FORMS`)."""
    href = element.spec.href
    if href is not None:
        if href.lower().startswith("javascript:") or href.startswith("#"):
            return "SCRIPT"
        return f"GET {_absolute(doc, href)}"
    for behaviour in element.spec.on_click:
        if isinstance(behaviour, Submit):
            form = doc.find(behaviour.form) if behaviour.form else _enclosing_form(element)
            return "" if form is None else _submission(doc, form)
    return ""


def context_of(element: LiveElement) -> tuple[str, ...]:
    """The names of the named forms, dialogs and regions around `element`, nearest first."""
    return tuple(a.name for a in list(element.ancestors())[1:] if a.role in CONTEXT_ROLES and a.name)


def _described(doc: _Document, element: LiveElement) -> ElementAtPoint:
    return ElementAtPoint(element.key, element.role, element.name, None, context_of(element), action_of(doc, element))


def key_target(doc: _Document, key: str, moved: bool) -> ElementAtPoint | None:
    """What Enter or Space (`" "`) at the focused element activates (see `Driver.key_target`)."""
    focused = doc.focused
    if focused is None:
        return None
    form = _enclosing_form(focused)
    field = focused.role in TEXT_ENTRY and not focused.spec.multiline and not focused.options
    if key == "Enter" and (field or moved) and form is not None:
        default = next((e for e in form.walk() if e.role == "button" and not e.spec.file_input), None)
        if default is not None:
            if default.disabled:
                return None
            described = _described(doc, default)
            return (
                described
                if described.action
                else ElementAtPoint(
                    default.key, default.role, default.name, None, described.context, _submission(doc, form)
                )
            )
        if not form.spec.on_submit:
            return None
        return ElementAtPoint(focused.key, "button", "Submit", None, context_of(focused), _submission(doc, form))
    if moved or focused.role in TEXT_ENTRY:
        return None
    if key == "Enter" and _handles_click(focused) and focused.role not in CHECKABLE:
        return _described(doc, focused)
    if key == " " and (focused.role in CHECKABLE or focused.role == "button"):
        return _described(doc, focused)
    return None
