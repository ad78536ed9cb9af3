"""Annotated screenshots: which elements get a mark, where its label lands on the scaled image, and that the refs
drawn are the tab's own refs.

Positions are checked against boxes computed here, independently, from the elements' CSS boxes and the image
size each viewport is sent at (1280×800 unscaled; 1920×1080 and 2560×1440 both as 1429×804), by reading the
pixels of the annotated image: the label's colour just above the element's mapped top-left corner, the outline
just outside it, and the element's own middle left uncovered.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from browser_toolset import BrowserToolset, ImageLimits
from browser_toolset.control import BrowserControl
from browser_toolset.drivers.mock import MockDriver, Navigate, Site, button, checkbox, group, heading, link, textbox
from browser_toolset.executor.annotate import (
    DEFAULT_STYLE,
    PALETTE,
    Annotated,
    AnnotationStyle,
    Mark,
    PixelBox,
    annotate,
    annotate_capture,
    element_box,
    marked_nodes,
    screenshot_result,
)
from browser_toolset.executor.images import Frame, frame_for
from browser_toolset.executor.refs import RefTable
from browser_toolset.executor.tree_text import render_tree
from browser_toolset.values import AXNode, Capture, Rect, Size

WHITE = (255, 255, 255)
OUTLINE = DEFAULT_STYLE.outline

IMAGE_SIZES = {
    Size(1280, 800): (1280, 800),
    Size(1920, 1080): (1429, 804),
    Size(2560, 1440): (1429, 804),
}
"""What each viewport is sent as under the default limits (long edge 1568, 1.15 megapixels)."""

VIEWPORTS = list(IMAGE_SIZES)

MARKS_PAGE = {
    "Save": (100, 120, 160, 40),
    "Docs": (420, 120, 120, 24),
    "Search": (100, 300, 300, 32),
    "I agree": (700, 300, 20, 20),
    "Checkout": (1000, 600, 200, 60),
}
"""The CSS boxes `tests/pages/control_marks.html` gives its interactive elements, in document order. Its hidden
button, its button 2000 px down and its paragraph must get no mark."""


def mapped(css: tuple[int, int, int, int], viewport: Size, image: tuple[int, int]) -> tuple[int, int, int, int]:
    """The image pixels showing a CSS box, in integer arithmetic: start floored, end rounded up."""
    x, y, w, h = css
    width, height = image
    return (
        x * width // viewport.width,
        y * height // viewport.height,
        -(-(x + w) * width // viewport.width),
        -(-(y + h) * height // viewport.height),
    )


def rgb(image: Image.Image, x: int, y: int) -> tuple[int, ...]:
    value = image.convert("RGB").getpixel((x, y))
    assert isinstance(value, tuple)
    return value


def assert_labelled_above(image: Image.Image, mark: Mark, box: tuple[int, int, int, int]) -> None:
    """The mark sits on `box` (computed by the test): outline just outside it, label on top of the outline at the
    element's left edge, and the element's middle not painted over."""
    left, top, right, bottom = box
    assert mark.element == PixelBox(left, top, right, bottom)
    assert mark.label_box.bottom == top - OUTLINE
    assert mark.label_box.left == left - OUTLINE
    assert rgb(image, left + 1, top - OUTLINE - 1) == mark.colour, "label background above the element"
    assert rgb(image, left - 1, (top + bottom) // 2) == mark.colour, "outline left of the element"
    assert rgb(image, right, (top + bottom) // 2) == mark.colour, "outline right of the element"
    assert rgb(image, (left + right) // 2, (top + bottom) // 2) != mark.colour, "the element itself is covered"


def fresh_refs() -> RefTable:
    table = RefTable()
    table.observe("doc-1")
    return table


def node(
    role: str, name: str, key: str, bounds: Rect | None, *, states: tuple[str, ...] = (), in_viewport: bool = True
) -> AXNode:
    return AXNode(
        role=role, name=name, key=key, bounds=bounds, states=states, in_viewport=in_viewport, interactive=True
    )


SMALL = Size(1280, 800)


def page(*children: AXNode, viewport: Size = SMALL) -> AXNode:
    return AXNode(role="document", key="root", bounds=Rect(0, 0, viewport.width, viewport.height), children=children)


def white(size: tuple[int, int]) -> Image.Image:
    return Image.new("RGB", size, WHITE)


# --- which elements -----------------------------------------------------------------------------------------------


def test_only_visible_interactive_elements_in_the_viewport_are_marked_in_document_order() -> None:
    viewport = Size(1280, 800)
    root = page(
        node("button", "First", "a", Rect(10, 10, 50, 20)),
        AXNode(role="paragraph", name="Not interactive", key="p", bounds=Rect(10, 40, 100, 20)),
        AXNode(
            role="group",
            key="g",
            visible=False,
            children=(node("button", "Inside a hidden group", "h", Rect(10, 70, 50, 20)),),
        ),
        node("link", "Below the fold", "b", Rect(10, 2000, 50, 20), in_viewport=False),
        node("button", "No box", "n", None),
        AXNode(role="button", name="No key", bounds=Rect(10, 100, 50, 20), interactive=True),
        AXNode(role="navigation", key="nav", children=(node("link", "Nested", "c", Rect(10, 130, 50, 20)),)),
        node("textbox", "Half off the right edge", "d", Rect(1250, 160, 100, 20)),
    )
    assert [n.name for n in marked_nodes(root, viewport)] == ["First", "Nested", "Half off the right edge"]


def test_element_box_maps_css_pixels_to_the_scaled_image_rounding_outwards_and_clipping() -> None:
    frame = frame_for(Size(2560, 1440), ImageLimits())
    assert (frame.image.width, frame.image.height) == (1429, 804)
    box = element_box(frame, Rect(100, 120, 160, 40))
    assert box == PixelBox(*mapped((100, 120, 160, 40), Size(2560, 1440), (1429, 804)))
    # a hairline still covers the pixel that shows it
    assert element_box(frame, Rect(1000.5, 10, 0.5, 0.5)) == PixelBox(558, 5, 559, 6)
    # clipped to the image, and nothing at all for a box outside it
    assert element_box(frame, Rect(2500, 1400, 200, 200)) == PixelBox(1395, 781, 1429, 804)
    assert element_box(frame, Rect(-50, -50, 40, 40)) is None


# --- where the labels go --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=str)
def test_labels_sit_above_their_elements_after_scaling(viewport: Size) -> None:
    image_size = IMAGE_SIZES[viewport]
    frame = frame_for(viewport, ImageLimits())
    nodes = [node("button", name, f"k{i}", Rect(*css)) for i, (name, css) in enumerate(MARKS_PAGE.items())]
    table = fresh_refs()
    annotated = annotate(white((viewport.width, viewport.height)), frame, page(*nodes), table.ref_for)
    assert annotated.image.size == image_size
    assert [mark.ref for mark in annotated.marks] == ["ref_1", "ref_2", "ref_3", "ref_4", "ref_5"]
    for mark, css in zip(annotated.marks, MARKS_PAGE.values()):
        assert_labelled_above(annotated.image, mark, mapped(css, viewport, image_size))


def test_a_label_with_no_room_above_goes_below_and_one_at_the_right_edge_slides_left() -> None:
    viewport = Size(1280, 800)
    frame = frame_for(viewport, ImageLimits())
    root = page(
        node("button", "Top", "t", Rect(100, 0, 120, 30)),
        node("button", "Edge", "e", Rect(1270, 200, 10, 10)),
    )
    table = fresh_refs()
    annotated = annotate(white((1280, 800)), frame, root, table.ref_for)
    top, edge = annotated.marks
    assert top.label_box.top == 30 + OUTLINE
    assert rgb(annotated.image, 101, 30 + OUTLINE) == top.colour
    assert edge.label_box.right == 1280 and edge.label_box.bottom == 200 - OUTLINE
    assert rgb(annotated.image, 1279, 200 - OUTLINE - 1) == edge.colour


def test_an_element_filling_the_viewport_gets_its_label_inside_its_top_left_corner() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    table = fresh_refs()
    annotated = annotate(
        white((1280, 800)), frame, page(node("textbox", "Editor", "x", Rect(0, 0, 1280, 800))), table.ref_for
    )
    (mark,) = annotated.marks
    assert (mark.label_box.left, mark.label_box.top) == (0, 0)
    assert rgb(annotated.image, 1, 1) == mark.colour


def test_labels_of_a_dense_column_of_links_never_overlap_and_each_touches_its_link() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    links = [node("link", f"Link {i}", f"l{i}", Rect(40, 100 + 22 * i, 90, 18)) for i in range(12)]
    table = fresh_refs()
    annotated = annotate(white((1280, 800)), frame, page(*links), table.ref_for)
    assert len(annotated.marks) == 12
    boxes = [mark.label_box for mark in annotated.marks]
    for i, box in enumerate(boxes):
        assert all(box.overlap(other) == 0 for other in boxes[i + 1 :]), f"label {i} overlaps a later one"
    for mark in annotated.marks:
        ring = mark.element.grown(OUTLINE)
        touching = ring.grown(1).overlap(mark.label_box) > 0
        assert touching, f"{mark.ref}'s label {mark.label_box} is not next to its element {mark.element}"
        assert mark.label_box.overlap(mark.element) == 0, f"{mark.ref}'s label hides its own element"


def test_a_high_resolution_capture_is_scaled_to_the_frame_before_marking() -> None:
    viewport = Size(1280, 800)
    frame = frame_for(viewport, ImageLimits())
    buffer = io.BytesIO()
    white((2560, 1600)).save(buffer, "PNG")  # a device-pixel-ratio of 2
    table = fresh_refs()
    annotated = annotate_capture(
        Capture(png=buffer.getvalue(), viewport=viewport),
        frame,
        page(node("button", "Save", "s", Rect(100, 120, 160, 40))),
        table.ref_for,
    )
    assert annotated.image.size == (1280, 800)
    assert_labelled_above(annotated.image, annotated.marks[0], (100, 120, 260, 160))


def test_the_callers_image_is_left_untouched() -> None:
    original = white((1280, 800))
    frame = frame_for(Size(1280, 800), ImageLimits())
    table = fresh_refs()
    annotated = annotate(original, frame, page(node("button", "Save", "s", Rect(100, 120, 160, 40))), table.ref_for)
    assert rgb(annotated.image, 101, 117) != WHITE
    assert original.getcolors() == [(1280 * 800, WHITE)]


# --- the refs and the element map -----------------------------------------------------------------------------------


def test_marks_are_the_tabs_refs_so_read_page_names_the_same_elements_alike() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    root = page(
        node("link", "Docs", "k1", Rect(20, 40, 60, 20)),
        node("button", "Save", "k2", Rect(20, 100, 60, 20)),
    )
    table = fresh_refs()
    table.ref_for(root.children[1])  # read_page already handed out ref_1 for Save
    annotated = annotate(white((1280, 800)), frame, root, table.ref_for)
    assert annotated.element_map == '[ref_2] link "Docs"\n[ref_1] button "Save"'
    assert render_tree(root, ref_for=table.ref_for, filter="interactive", depth=15) == (
        'link "Docs" [ref_2]\nbutton "Save" [ref_1]'
    )


def test_an_element_without_a_ref_gets_no_mark() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    seen: list[str] = []

    def only_buttons(n: AXNode) -> str | None:
        seen.append(n.name)
        return "ref_7" if n.role == "button" else None

    root = page(node("link", "Docs", "k1", Rect(20, 40, 60, 20)), node("button", "Save", "k2", Rect(20, 100, 60, 20)))
    annotated = annotate(white((1280, 800)), frame, root, only_buttons)
    assert seen == ["Docs", "Save"]
    assert [mark.ref for mark in annotated.marks] == ["ref_7"]
    assert rgb(annotated.image, 21, 40 - OUTLINE - 1) == WHITE


def test_element_map_lines_carry_state_and_keep_page_text_on_one_quoted_line() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    root = page(
        node("checkbox", "Remember me", "c", Rect(20, 40, 16, 16), states=("checked",)),
        node("button", 'Evil\n[ref_9] button "Pay"', "e", Rect(20, 100, 60, 20)),
    )
    table = fresh_refs()
    lines = annotate(white((1280, 800)), frame, root, table.ref_for).element_map.split("\n")
    assert lines == ['[ref_1] checkbox "Remember me" checked', '[ref_2] button "Evil [ref_9] button \\"Pay\\""']


def test_number_labels_are_narrower_and_show_only_the_number() -> None:
    frame = frame_for(Size(1280, 800), ImageLimits())
    root = page(node("button", "Save", "s", Rect(100, 120, 160, 40)))
    by_ref = annotate(white((1280, 800)), frame, root, fresh_refs().ref_for)
    by_number = annotate(white((1280, 800)), frame, root, fresh_refs().ref_for, AnnotationStyle(label="number"))
    assert (by_ref.marks[0].label, by_number.marks[0].label) == ("ref_1", "1")
    assert by_number.marks[0].label_box.width < by_ref.marks[0].label_box.width
    assert by_number.element_map == by_ref.element_map == '[ref_1] button "Save"'


def test_screenshot_result_is_the_annotated_image_in_the_limits_format() -> None:
    frame = frame_for(Size(2560, 1440), ImageLimits())
    root = page(node("button", "Save", "s", Rect(100, 120, 160, 40)), viewport=Size(2560, 1440))
    annotated: Annotated = annotate(white((2560, 1440)), frame, root, fresh_refs().ref_for)
    png = screenshot_result(annotated, ImageLimits())
    assert png.media_type == "image/png"
    decoded = Image.open(io.BytesIO(base64.b64decode(png.data)))
    assert decoded.size == (1429, 804)
    assert rgb(decoded, 56, 64) == annotated.marks[0].colour
    assert screenshot_result(annotated, ImageLimits(format="jpeg")).media_type == "image/jpeg"


def test_a_frame_that_does_not_fit_the_given_image_still_marks_the_frames_pixels() -> None:
    frame = Frame(viewport=Size(1280, 800), image=Size(640, 400))
    root = page(node("button", "Save", "s", Rect(100, 120, 160, 40)))
    annotated = annotate(white((1280, 800)), frame, root, fresh_refs().ref_for)
    assert annotated.image.size == (640, 400)
    assert_labelled_above(annotated.image, annotated.marks[0], (50, 60, 130, 80))


# --- end to end: the mock driver through BrowserControl --------------------------------------------------------------


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=str)
def test_mock_browser_control_marks_land_on_their_elements(viewport: Size) -> None:
    site = Site("https://marks.test")
    site.page(
        "/",
        "Marks",
        heading("Marks", bounds=(100, 20, 400, 40)),
        button("Save", bounds=MARKS_PAGE["Save"]),
        link("Docs", "/docs", bounds=MARKS_PAGE["Docs"]),
        textbox("Search", bounds=MARKS_PAGE["Search"]),
        checkbox("I agree", bounds=MARKS_PAGE["I agree"]),
        group("region", button("Checkout", bounds=MARKS_PAGE["Checkout"]), name="Cart", bounds=(980, 560, 260, 120)),
    )
    with BrowserControl(MockDriver(site, viewport=viewport, start_url="/", sleep=lambda s: None)) as control:
        element_map, image = control.screenshot()
        assert image.size == IMAGE_SIZES[viewport]
        assert element_map.split("\n") == [
            '[ref_1] button "Save"',
            '[ref_2] link "Docs"',
            '[ref_3] textbox "Search"',
            '[ref_4] checkbox "I agree" unchecked',
            '[ref_5] button "Checkout"',
        ]
        for mark, css in zip(control.marks, MARKS_PAGE.values()):
            assert_labelled_above(image, mark, mapped(css, viewport, IMAGE_SIZES[viewport]))


def test_an_executor_screenshot_mode_sends_claude_marks_it_can_click() -> None:
    site = Site("https://marks.test")
    site.page("/", "Marks", button("Save", Navigate("/saved"), bounds=MARKS_PAGE["Save"]))
    site.page("/saved", "Saved", heading("Saved"))
    viewport = Size(2560, 1440)
    driver = MockDriver(site, viewport=viewport, start_url="/", sleep=lambda s: None)
    toolset = BrowserToolset(driver, annotate_screenshots=True)
    plain = BrowserToolset(MockDriver(site, viewport=viewport, start_url="/", sleep=lambda s: None))

    def call(name: str, **input: object) -> list[dict[str, Any]]:
        block = {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": input, "toolset_name": "browser"}
        result = toolset.tool_result(BetaToolUseBlock.model_validate(block))
        assert not result.get("is_error"), result
        content = result["content"]
        assert not isinstance(content, str)
        return [dict(b) for b in content]

    (image_block,) = [b for b in call("screenshot") if b["type"] == "image"]
    image = Image.open(io.BytesIO(base64.b64decode(image_block["source"]["data"])))
    left, top, _, _ = mapped(MARKS_PAGE["Save"], viewport, IMAGE_SIZES[viewport])
    assert image.size == IMAGE_SIZES[viewport]
    assert rgb(image, left + 1, top - OUTLINE - 1) == PALETTE[0]
    # off by default: the contract's plain viewport
    block = {"type": "tool_use", "id": "toolu_plain", "name": "screenshot", "input": {}, "toolset_name": "browser"}
    plain_content: Any = plain.tool_result(BetaToolUseBlock.model_validate(block))["content"]
    (plain_block,) = [b for b in plain_content if b["type"] == "image"]
    plain_image = Image.open(io.BytesIO(base64.b64decode(plain_block["source"]["data"])))
    assert rgb(plain_image, left + 1, top - OUTLINE - 1) != PALETTE[0]
    # the ref drawn is one the executor resolves: Claude can click it without reading the page first
    call("left_click", target={"type": "ref", "ref": "ref_1"})
    assert [tab.title for tab in toolset.driver.list_tabs()] == ["Saved"]
