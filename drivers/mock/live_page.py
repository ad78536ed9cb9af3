"""`LivePage`: a test's handle on whatever document a tab shows, to inspect or change it as the page's own script
would."""

from __future__ import annotations

from browser_toolset.driver_errors import ElementGone
from browser_toolset.values import Point, Rect

from .behaviours import Behaviour
from .browser import _Browser
from .document import LiveElement, _Document
from .elements import Element


class LivePage:
    """Whatever document a tab shows at the moment each method is called (so it follows navigations).

    Find elements to inspect or change (`element("Save").set(name="Saved")`, `.remove()`), add new ones, or `run`
    behaviours as the page's own script would (`page.run(OpenTab("/help"), Log("ready"))`): events they cause
    reach the next `drain_events`. `center(...)` gives the viewport point to click an element at.
    """

    def __init__(self, browser: _Browser, handle: str) -> None:
        self._browser = browser
        self.handle = handle

    @property
    def _doc(self) -> _Document:
        return self._browser.tab(self.handle).doc

    @property
    def url(self) -> str:
        return self._doc.url

    @property
    def title(self) -> str:
        return self._doc.title

    @title.setter
    def title(self, title: str) -> None:
        self._doc.title = title

    @property
    def status(self) -> int | None:
        return self._doc.status

    @property
    def document(self) -> str:
        """The id `snapshot` reports; it changes on every load."""
        return self._doc.id

    @property
    def root(self) -> LiveElement:
        return self._doc.root

    @property
    def focused(self) -> LiveElement | None:
        return self._doc.focused

    @property
    def scroll(self) -> Point:
        return Point(self._doc.scroll_x, self._doc.scroll_y)

    def element(self, ref: str, *, role: str | None = None) -> LiveElement:
        """The first element whose id, else name, is `ref` (and whose role is `role`, if given)."""
        candidates = [e for e in self.root.walk() if role is None or e.role == role]
        found = next((e for e in candidates if e.spec.id == ref), None) or next(
            (e for e in candidates if e.name == ref), None
        )
        if found is None:
            names = sorted({e.name for e in candidates if e.name})
            raise LookupError(f"no element with id or name {ref!r} on {self.url}; names here: {names}")
        return found

    def elements(self, *, role: str | None = None, name: str | None = None) -> list[LiveElement]:
        return [e for e in self.root.walk() if (role is None or e.role == role) and (name is None or e.name == name)]

    def by_key(self, key: str) -> LiveElement:
        element = self._doc.by_key.get(key)
        if element is None:
            raise ElementGone(key)
        return element

    def add(self, *elements: Element, parent: LiveElement | str | None = None) -> list[LiveElement]:
        """Append new elements to `parent` (an element, or its id or name), else to the end of the page."""
        owner = self.root if parent is None else parent if isinstance(parent, LiveElement) else self.element(parent)
        return owner.append(*elements)

    def run(self, *behaviours: Behaviour) -> None:
        tab = self._browser.tab(self.handle)
        self._browser.run(tab, behaviours, None, depth=0)

    def box(self, target: LiveElement | str) -> Rect | None:
        """The element's border box in viewport CSS pixels at the current scroll, or None when it is not shown."""
        element = target if isinstance(target, LiveElement) else self.element(target)
        box = self._browser.layout(self._doc).boxes.get(element)
        return (
            None if box is None else Rect(box.x - self._doc.scroll_x, box.y - self._doc.scroll_y, box.width, box.height)
        )

    def center(self, target: LiveElement | str) -> Point:
        """The viewport point at the element's centre (no scrolling; see `MockDriver.element_center`)."""
        box = self.box(target)
        if box is None:
            raise LookupError(f"{target!r} is not shown, so it has no centre")
        return box.center
