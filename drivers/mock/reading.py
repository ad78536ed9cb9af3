"""What reading a page gives: the accessibility tree `snapshot` reports and the visible text `page_text` returns.

Both come from the same layout a capture draws, so an element is in the tree as visible exactly when a capture
shows it, and its bounds are where the capture drew its box.
"""

from __future__ import annotations

from collections.abc import Iterator

from browser_toolset.values import STATE_TOKENS, AXNode, AXSnapshot, Rect, Size

from .actions import action_of
from .document import (
    CHECKABLE,
    MAIN_REGIONS,
    PERIPHERAL_REGIONS,
    TEXT_ENTRY,
    LiveElement,
    _collapse,
    _Document,
    _interactive,
)
from .layout import _Layout, _layout, _rendered_text
from .roles import shown_interactive, shown_name, shown_role


def _snapshot(doc: _Document, viewport: Size) -> AXSnapshot:
    return AXSnapshot(doc.id, _ax(doc, doc.root, _layout(doc.root, viewport), viewport), viewport)


def _ax(doc: _Document, element: LiveElement, layout: _Layout, viewport: Size) -> AXNode:
    box = layout.boxes.get(element)
    bounds = None if box is None else Rect(box.x - doc.scroll_x, box.y - doc.scroll_y, box.width, box.height)
    visible = box is not None and box.width > 0 and box.height > 0
    in_viewport = bounds is not None and visible and bounds.intersects(viewport)
    if element.role == "text":
        name = _collapse(element.spec.text or element.spec.name)
        return AXNode("text", name, bounds=bounds, visible=visible, in_viewport=in_viewport)
    role = element.role if element is doc.root else shown_role(element)
    name = _collapse(doc.title) if element is doc.root else shown_name(element, role)
    children: list[AXNode] = []
    own_text = _collapse(element.spec.text)
    if own_text and own_text != name:
        children.append(AXNode("text", own_text, bounds=bounds, visible=visible, in_viewport=in_viewport))
    children.extend(_ax(doc, child, layout, viewport) for child in element.children)
    value = element.value
    return AXNode(
        role=role,
        name=name,
        key=element.key,
        value=None if value is None else _collapse(value),
        description=_collapse(element.spec.description),
        placeholder=_collapse(element.spec.placeholder),
        states=_states(element, doc),
        level=element.spec.level,
        bounds=bounds,
        visible=visible,
        in_viewport=in_viewport,
        interactive=shown_interactive(element, role, _interactive(element)),
        input_type=element.spec.input_type,
        action=action_of(doc, element),
        children=tuple(children),
    )


def _states(element: LiveElement, doc: _Document) -> tuple[str, ...]:
    states = set(element.spec.states)
    if element.role in CHECKABLE:
        states -= {"checked", "unchecked"}
        if "mixed" not in states:
            states.add("checked" if element.checked else "unchecked")
    if doc.focused is element:
        states.add("focused")
    # A multi-line text field is a textarea: the state follows from the definition, never from its state list.
    states.discard("multiline")
    if element.spec.multiline and element.role in ("textbox", "searchbox"):
        states.add("multiline")
    return tuple(token for token in STATE_TOKENS if token in states)


def _page_text(doc: _Document, viewport: Size) -> str:
    """Visible text, main content first; navigation, banners and footers are left out when there is a main.

    The same rules as a browser's page text where the mock has the notion: a form field shows its value (a text
    field's text, a text area's lines, a select's chosen option), and an element whose box lies wholly above or
    left of the page (no scrolling reaches it, as with text parked at left:-9999px) shows no text of its own."""
    shown = _layout(doc.root, viewport).boxes

    def lines(element: LiveElement, skip: set[LiveElement]) -> Iterator[str]:
        box = shown.get(element)
        if box is None or element in skip:
            return
        if box.x + box.width > 0 and box.y + box.height > 0:
            yield from _shown_text(element)
        for child in element.children:
            yield from lines(child, skip)

    mains = [
        e
        for e in doc.root.walk()
        if e.role in MAIN_REGIONS and e in shown and not any(a.role in MAIN_REGIONS for a in list(e.ancestors())[1:])
    ]
    if not mains:
        return "\n".join(lines(doc.root, set()))
    first = [line for main in mains for line in lines(main, set())]
    skip = set(mains) | {e for e in doc.root.walk() if e.role in PERIPHERAL_REGIONS}
    rest = list(lines(doc.root, skip))
    return "\n".join([*first, "", *rest] if rest else first)


def _shown_text(element: LiveElement) -> Iterator[str]:
    """The lines an element shows itself: its text, or a form field's value (a text area's one line per line). A
    select (role combobox) shows its chosen option; a list box's options are elements with lines of their own."""
    if element.role in TEXT_ENTRY:
        value = element.value or ""
        lines = value.split("\n") if element.spec.multiline else [value]
        yield from (line for line in map(_collapse, lines) if line)
        return
    own = _rendered_text(element)
    if own:
        yield own
