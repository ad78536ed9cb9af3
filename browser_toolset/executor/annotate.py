"""Annotated screenshots: every visible interactive element's ref drawn on the screenshot, beside the element.

A screenshot shows where things are but not how to name them; `read_page` names them but shows nothing. Drawing
each element's ref next to it binds the two, so an agent that sees a button can act on it by the ref it reads
off the image, with no coordinate guessing. The refs are not invented here: they come from the tab's own ref
table (`ref_for`, the same callable `read_page` uses), so a mark is a ref the executor resolves like any other.

Marks are drawn on the image at the size the agent receives it (the `Frame`'s image size, after scaling to the
image limits), at a fixed size in image pixels: a label stays legible however large the viewport was, and its
position comes from the same `Frame` that maps the agent's coordinates back, so it sits where the element is in
the picture the agent actually sees.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence
from typing import Literal

import attrs
from anthropic.tools.browser import BetaScreenshotResult
from PIL import Image, ImageDraw, ImageFont

from ..values import AXNode, Capture, Rect, Size
from . import tree_text
from .errors import ActionError
from .images import Frame, ImageLimits, encode_image
from .tree_text import RefFor

__all__ = [
    "DEFAULT_STYLE",
    "PALETTE",
    "Annotated",
    "AnnotationStyle",
    "Mark",
    "PixelBox",
    "annotate",
    "annotate_capture",
    "element_box",
    "marked_nodes",
    "screenshot_result",
]

RGB = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

PALETTE: tuple[RGB, ...] = (
    (200, 0, 90),
    (0, 96, 176),
    (0, 122, 62),
    (128, 40, 170),
    (176, 72, 0),
    (0, 112, 122),
)
"""Label colours, used in turn so that neighbouring marks can be told apart. All are dark enough for white text
to read on them (contrast above 4.5:1) and none is a colour pages commonly use for text or links."""

FONT_FILES = ("DejaVuSansCondensed-Bold.ttf", "DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf")
"""Condensed bold first: labels must stay narrow (they sit beside small controls) yet read at 11-12 px."""

LabelText = Literal["ref", "number"]


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, not {value}")


@attrs.frozen
class AnnotationStyle:
    """How marks look. `label="ref"` draws the whole ref (`ref_7`), which is what Claude sends back in a ref
    target, so an annotated image is usable with no element map beside it; `"number"` draws only the number
    (`7`), narrower on crowded pages when an element map travels with the image. Sizes are image pixels."""

    label: LabelText = attrs.field(default="ref", validator=attrs.validators.in_(("ref", "number")))
    font_size: int = attrs.field(default=12, validator=[attrs.validators.ge(8), attrs.validators.le(48)])
    outline: int = attrs.field(default=2, validator=_positive)
    padding_x: int = attrs.field(default=3, validator=attrs.validators.ge(0))
    padding_y: int = attrs.field(default=2, validator=attrs.validators.ge(0))
    palette: tuple[RGB, ...] = attrs.field(default=PALETTE, validator=attrs.validators.min_len(1))
    text_colour: RGB = (255, 255, 255)

    def label_for(self, ref: str) -> str:
        if self.label == "number" and ref.startswith("ref_"):
            return ref[len("ref_") :]
        return ref


DEFAULT_STYLE = AnnotationStyle()


@attrs.frozen
class PixelBox:
    """A box of image pixels; `right` and `bottom` are exclusive, so `width` is `right - left`."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    def overlap(self, other: PixelBox) -> int:
        """The number of pixels the two boxes share."""
        width = min(self.right, other.right) - max(self.left, other.left)
        height = min(self.bottom, other.bottom) - max(self.top, other.top)
        return max(0, width) * max(0, height)

    def meets(self, other: PixelBox) -> bool:
        """Whether the boxes share any pixel: `overlap(other) > 0`, without the arithmetic."""
        return (
            self.left < other.right and other.left < self.right and self.top < other.bottom and other.top < self.bottom
        )

    def grown(self, by: int) -> PixelBox:
        return PixelBox(self.left - by, self.top - by, self.right + by, self.bottom + by)

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom


@attrs.frozen
class Mark:
    """One drawn mark: the element's ref, the text drawn for it, its element-map line, where the element is in the
    image (clipped to it), where its label was put, and the colour of both."""

    ref: str
    label: str
    line: str
    element: PixelBox
    label_box: PixelBox
    colour: RGB


@attrs.frozen(eq=False)
class Annotated:
    """An annotated screenshot and its marks, in the order their refs were handed out (document order)."""

    image: Image.Image
    marks: tuple[Mark, ...]

    @property
    def element_map(self) -> str:
        """One `[ref_N] role "name"` line per mark (with the value, placeholder and state words `read_page` prints),
        in mark order; empty when nothing interactive is visible."""
        return "\n".join(mark.line for mark in self.marks)


# --- which elements, and where ---------------------------------------------------------------------------------


def marked_nodes(root: AXNode, viewport: Size) -> list[AXNode]:
    """The elements worth a mark, in document order: interactive, visible, with a key to act on, and with a box
    that shows in the viewport. A hidden node hides its whole subtree, whatever its descendants claim, because an
    agent must never be shown a label for something the user cannot see."""
    found: list[AXNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.visible:
            continue
        if (
            node.interactive
            and node.in_viewport
            and node.key is not None
            and node.role != "text"
            and node.bounds is not None
            and node.bounds.intersects(viewport)
        ):
            found.append(node)
        stack.extend(reversed(node.children))
    return found


def element_box(frame: Frame, rect: Rect) -> PixelBox | None:
    """The image pixels that show any part of `rect` (CSS pixels), clipped to the image; None when none do.

    Rounds outwards (floor of the start, ceiling of the end), so a box never shrinks away from a thin element:
    the pixel that shows CSS x is `floor(x / scale_x)`, the rule `Frame.to_image` and `Frame.to_css` agree on."""
    width, height = frame.image.width, frame.image.height
    left = max(0, math.floor(rect.x / frame.scale_x))
    top = max(0, math.floor(rect.y / frame.scale_y))
    right = min(width, math.ceil((rect.x + rect.width) / frame.scale_x))
    bottom = min(height, math.ceil((rect.y + rect.height) / frame.scale_y))
    if right <= left or bottom <= top:
        return None
    return PixelBox(left, top, right, bottom)


# --- drawing -----------------------------------------------------------------------------------------------------


@functools.cache
def _font(size: int) -> Font:
    for name in FONT_FILES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)
    except (OSError, ValueError):  # a Pillow without FreeType has only its small bitmap font
        return ImageFont.load_default()


@functools.cache
def _text_rows(size: int) -> tuple[int, int]:
    """The top and bottom of the ink of any label in this font size, so every label has the same height and
    its text the same baseline: `ref_` reaches both the ascender line and the underscore's depth."""
    _, top, _, bottom = _font(size).getbbox("ref_0123456789")
    return int(top), int(bottom)


def _label_size(text: str, style: AnnotationStyle) -> tuple[int, int]:
    left, _, right, _ = _font(style.font_size).getbbox(text)
    top, bottom = _text_rows(style.font_size)
    return int(right - left) + 2 * style.padding_x, (bottom - top) + 2 * style.padding_y


def _candidates(element: PixelBox, size: tuple[int, int], image: Size, outline: int) -> list[PixelBox]:
    """Where a label may go, best first: above the element at its left edge (where the eye looks for a caption and
    where it hides nothing of the element), above at its right edge, below, beside it, and only last inside the
    element's top-left corner. Each touches the element's outline, so the label is next to what it names."""
    width, height = size
    ring = element.grown(outline)
    fits_x = max(0, image.width - width)
    boxes: list[PixelBox] = []

    def add(x: int, y: int, *, slide: bool) -> None:
        if slide:  # above or below, sliding along the edge keeps the label adjacent
            x = min(max(0, x), fits_x)
        if x >= 0 and x + width <= image.width and y >= 0 and y + height <= image.height:
            boxes.append(PixelBox(x, y, x + width, y + height))

    add(ring.left, ring.top - height, slide=True)
    add(ring.right - width, ring.top - height, slide=True)
    add(ring.left, ring.bottom, slide=True)
    add(ring.right - width, ring.bottom, slide=True)
    add(ring.left - width, ring.top, slide=False)
    add(ring.right, ring.top, slide=False)
    inside_x = min(max(0, element.left), fits_x)
    inside_y = min(max(0, element.top), max(0, image.height - height))
    boxes.append(PixelBox(inside_x, inside_y, inside_x + width, inside_y + height))
    return boxes


def _place(
    element: PixelBox,
    size: tuple[int, int],
    image: Size,
    outline: int,
    placed: Sequence[PixelBox],
    others: Sequence[PixelBox],
) -> PixelBox:
    """The candidate that, in this order of importance, covers the fewest pixels of labels already placed (two
    overlapping labels are unreadable), of its own element (whose text it would hide), and of other marked
    elements; ties go to the earlier candidate."""
    candidates = _candidates(element, size, image, outline)
    # only boxes near the element can touch a candidate: filtering once keeps a page of hundreds of links fast
    reach = PixelBox(
        min(box.left for box in candidates),
        min(box.top for box in candidates),
        max(box.right for box in candidates),
        max(box.bottom for box in candidates),
    )
    near_labels = [box for box in placed if box.meets(reach)]
    near_elements = [box for box in others if box.meets(reach)]

    def cost(indexed: tuple[int, PixelBox]) -> tuple[int, int, int, int]:
        index, box = indexed
        return (
            sum(box.overlap(other) for other in near_labels),
            box.overlap(element),
            sum(box.overlap(other) for other in near_elements),
            index,
        )

    return min(enumerate(candidates), key=cost)[1]


def annotate(
    image: Image.Image, frame: Frame, root: AXNode, ref_for: RefFor, style: AnnotationStyle = DEFAULT_STYLE
) -> Annotated:
    """`image` (a screenshot of the viewport `frame` describes) with a mark on every element `marked_nodes` finds
    in `root`, and the matching element map.

    `image` is first brought to the frame's image size when it is not already there (a capture at a
    device-pixel-ratio of 2, say), so marks land on the pixels the agent's coordinates refer to; the caller's image
    is never modified. `ref_for` is called once per marked element, in document order, exactly as `read_page`
    calls it, so the tab's ref table hands out the same refs either way; an element it gives no ref gets no mark."""
    canvas = image.convert("RGB")  # a copy, even of an RGB image
    if canvas.size != (frame.image.width, frame.image.height):
        canvas = canvas.resize((frame.image.width, frame.image.height), Image.Resampling.LANCZOS)
    font = _font(style.font_size)
    text_top, _ = _text_rows(style.font_size)

    elements: list[tuple[str, AXNode, PixelBox]] = []
    for node in marked_nodes(root, frame.viewport):
        assert node.bounds is not None  # marked_nodes keeps only nodes with a box
        box = element_box(frame, node.bounds)
        if box is None:
            continue
        ref = ref_for(node)
        if ref is not None:
            elements.append((ref, node, box))

    draw = ImageDraw.Draw(canvas)
    marks: list[Mark] = []
    placed: list[PixelBox] = []
    rings = [box.grown(style.outline) for _, _, box in elements]
    for index, (ref, node, box) in enumerate(elements):
        colour = style.palette[index % len(style.palette)]
        ring = rings[index]
        # the outline goes just outside the element, so it never covers the element's own content
        draw.rectangle((ring.left, ring.top, ring.right - 1, ring.bottom - 1), outline=colour, width=style.outline)
        label = style.label_for(ref)
        others = rings[:index] + rings[index + 1 :]
        label_box = _place(box, _label_size(label, style), frame.image, style.outline, placed, others)
        placed.append(label_box)
        line = f"[{ref}] {tree_text.format_line(node, None)}"
        marks.append(Mark(ref=ref, label=label, line=line, element=box, label_box=label_box, colour=colour))
    # labels after every outline, so no outline crosses a label
    for mark in marks:
        box = mark.label_box
        draw.rectangle((box.left, box.top, box.right - 1, box.bottom - 1), fill=mark.colour)
        ink_left = font.getbbox(mark.label)[0]
        origin = (box.left + style.padding_x - ink_left, box.top + style.padding_y - text_top)
        draw.text(origin, mark.label, fill=style.text_colour, font=font)
    return Annotated(image=canvas, marks=tuple(marks))


def annotate_capture(
    capture: Capture, frame: Frame, root: AXNode, ref_for: RefFor, style: AnnotationStyle = DEFAULT_STYLE
) -> Annotated:
    """`annotate` on a driver's capture: what the executor's `screenshot` would call in an annotated mode, with
    the capture it already took and the snapshot its refs come from."""
    try:
        image = Image.open(io.BytesIO(capture.png))
        image.load()
    except Exception as exc:  # a driver handing us something that is not an image is reported, not crashed on
        raise ActionError(f"The browser returned an unreadable screenshot ({type(exc).__name__}).") from exc
    return annotate(image, frame, root, ref_for, style)


def screenshot_result(annotated: Annotated, limits: ImageLimits) -> BetaScreenshotResult:
    """The annotated image as the `screenshot` member's result, encoded as `limits` asks (the image is already
    at the frame's size, which fits them)."""
    return encode_image(annotated.image, limits)
