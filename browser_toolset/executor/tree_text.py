"""The text of `read_page` (and of `find`'s matches): one accessibility node per line, tagged with its ref.

The format is what Claude reads instead of a screenshot, so it has two jobs. It must be compact: every character
is an input token the user pays for (docs/contract.md §8), so wrapper nodes are collapsed, a link's own text is
not repeated under it, and each line carries only the state that tells Claude something. And it must be safe:
names, values and text come from the page, so each is folded to one line and quoted JSON-style, which leaves the
ref tag as the only `[...]` outside quotes on a line and makes a fake line or a fake ref impossible to forge.
What the page hides (`visible=False`) never reaches the text at all (docs/contract.md §6 item 3).

`docs/read-page-format.md` shows the format with examples.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Literal

import attrs

from ..values import STATE_TOKENS, AXNode

__all__ = [
    "DESCRIPTION_MAX",
    "FULL_VALUE_MAX",
    "INPUT_FORMATS",
    "INPUT_TYPES",
    "MIN_MAX_CHARS",
    "NAME_MAX",
    "PLACEHOLDER_MAX",
    "READ_PAGE_MAX_CHARS",
    "REF_MAX",
    "TEXT_MAX",
    "VALUE_MAX",
    "WRAPPER_ROLES",
    "Filter",
    "RefFor",
    "empty_text",
    "fold",
    "format_line",
    "labelled_by_text",
    "quote",
    "render_tree",
    "render_tree_prefix",
    "text_label",
    "truncation_note",
]

Filter = Literal["interactive", "all"]
RefFor = Callable[[AXNode], "str | None"]

NAME_MAX = 150
VALUE_MAX = 100
FULL_VALUE_MAX = 10_000
"""How much of a value a read scoped to its element (`read_page` with the element's ref) prints: a long text
field's whole content, bounded so one field cannot fill the result."""
PLACEHOLDER_MAX = 100
DESCRIPTION_MAX = 150
TEXT_MAX = 300
"""A text run longer than this is cut: `read_page` shows structure, `get_page_text` is the member for prose."""

INPUT_TYPES: frozenset[str] = frozenset(
    {"date", "time", "datetime-local", "month", "week", "number", "email", "tel", "url", "color", "range"}
)
"""The `AXNode.input_type`s a line shows as `type=...`; anything else a driver passes is not printed."""

INPUT_FORMATS: dict[str, str] = {
    "date": "yyyy-mm-dd",
    "time": "hh:mm",
    "datetime-local": "yyyy-mm-ddThh:mm",
    "month": "yyyy-mm",
    "week": "yyyy-Www",
    "color": "#rrggbb",
}
"""The value format `form_input` takes for the input types whose format is not obvious (the HTML value syntax,
whatever the browser displays): a line shows it as `format=...` after `type=`."""

READ_PAGE_MAX_CHARS = 50_000
"""The contract's cap on a `read_page` result."""

MIN_MAX_CHARS = 300
"""The smallest cap `render_tree` accepts: the truncation note alone must always fit."""

REF_MAX = 20
"""The longest ref `ref_for` may return. The cap is kept without asking for refs of lines that are not shown, so
a line's room is reserved before its ref is known; a longer ref would break that promise."""

WRAPPER_ROLES: frozenset[str] = frozenset({"generic", "none", "presentation"})
"""Roles that only group: an unnamed, stateless, non-interactive node of one of these is not printed, and its
children take its place."""

TEXT_LABEL_MAX = 80
"""The longest text excerpt that labels an element with no name of its own (see `text_label`)."""

UNLABELLED_BY_TEXT: frozenset[str] = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
"""Roles whose content is their value, never a label: an empty field is not named by whatever it contains."""

INDENT = "  "
STATE_ORDER: dict[str, int] = {state: i for i, state in enumerate(STATE_TOKENS)}

# Page text may carry characters that break a line (controls, U+2028/9, NEL), reorder what Claude reads (bidi
# controls), or hide text (zero-width and tag characters: "ASCII smuggling"). Controls become spaces, invisible
# format characters go, lone surrogates (which would fail UTF-8 encoding of the whole result) become U+FFFD.
_FOLD_TABLE: dict[int, str | None] = {
    **{c: " " for c in range(0x00, 0x20)},
    **{c: " " for c in range(0x7F, 0xA0)},
    0x2028: " ",
    0x2029: " ",
    **{c: None for c in (0x00AD, 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, 0xFEFF)},
    **{c: None for c in range(0x202A, 0x202F)},
    **{c: None for c in range(0x2060, 0x2065)},
    **{c: None for c in range(0x2066, 0x206A)},
    **{c: None for c in range(0xE0000, 0xE0080)},
    **{c: "\ufffd" for c in range(0xD800, 0xE000)},
}

_ROLE_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
_ROLE_JUNK_RE = re.compile(r"[^a-z0-9_-]+")

_JSON_QUOTE = json.JSONEncoder(ensure_ascii=False).encode
_NO_SPACE_BEFORE = frozenset(".,;:!?)]}%»”’…")
_NO_SPACE_AFTER = frozenset("([{«“‘")


def fold(text: str) -> str:
    """`text` on one line with runs of whitespace as single spaces and nothing that hides or reorders text."""
    if not text.isprintable():
        text = text.translate(_FOLD_TABLE)
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in `…` when cut, so Claude can tell it is incomplete."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def quote(text: str, limit: int) -> str:
    """Page text as a quoted token: folded, cut, then quoted JSON-style so `"` and `\\` cannot end it early."""
    return _JSON_QUOTE(cut(fold(text), limit))


def safe_role(role: str) -> str:
    """The role as one bare word. Roles are supposed to be ARIA tokens, but a driver may pass a page's `role`
    attribute through, and it is printed unquoted, so anything else is reduced to its word characters."""
    if _ROLE_RE.fullmatch(role):
        return role
    cleaned = _ROLE_JUNK_RE.sub("", role.lower())[:40]
    return cleaned or "generic"


def _states(node: AXNode) -> list[str]:
    known = {state for state in node.states if state in STATE_ORDER}
    return sorted(known, key=STATE_ORDER.__getitem__)


def _value_part(value: str, full: bool) -> str:
    """`value="..."`, cut at `VALUE_MAX` (at `FULL_VALUE_MAX` when `full`), with a note after a cut value that
    says how long it is and how to read the rest: a cut field's content is often what Claude came to check."""
    limit = FULL_VALUE_MAX if full else VALUE_MAX
    part = "value=" + quote(value, limit)
    if len(value) <= limit:
        return part
    if full:
        return f"{part} (value cut at {limit:,} of {len(value):,} characters)"
    whole = "in full" if len(value) <= FULL_VALUE_MAX else f"up to {FULL_VALUE_MAX:,} characters"
    return f"{part} (value cut, {len(value):,} characters: read_page with this ref shows it {whole})"


def _type_part(node: AXNode) -> str:
    """`type=date format=yyyy-mm-dd` for a typed field, `type=email` when the type says it all, or ""."""
    if node.input_type not in INPUT_TYPES:
        return ""
    form = INPUT_FORMATS.get(node.input_type)
    return f"type={node.input_type}" + (f" format={form}" if form else "")


def _body(node: AXNode, full_value: bool = False) -> str:
    """The line for `node` without indentation or ref; with `full_value`, its value up to `FULL_VALUE_MAX`."""
    role = safe_role(node.role)
    if role == "text":
        return "text " + quote(node.name, TEXT_MAX)
    parts = [role]
    name = fold(node.name)
    if name:
        parts.append(quote(name, NAME_MAX))
    if node.level is not None:
        parts.append(f"level={int(node.level)}")
    typed = _type_part(node)
    if typed:
        parts.append(typed)
    if node.value is not None:
        value = fold(node.value)
        # A value that repeats the name (an `<input type=submit>`, an option) says nothing new.
        if value and value.casefold() != name.casefold():
            parts.append(_value_part(value, full_value))
    placeholder = fold(node.placeholder)
    # A field with no label takes its name from its placeholder: printing both would say it twice.
    if placeholder and placeholder.casefold() != name.casefold():
        parts.append("placeholder=" + quote(placeholder, PLACEHOLDER_MAX))
    description = fold(node.description)
    if description and description.casefold() not in (name.casefold(), placeholder.casefold()):
        parts.append("description=" + quote(description, DESCRIPTION_MAX))
    parts.extend(_states(node))
    return " ".join(parts)


def format_line(node: AXNode, ref: str | None) -> str:
    """One node as `read_page` prints it: `role "name"`, then `level=`, `type=` (and `format=`), `value=`,
    `placeholder=`, `description=` and state words (in `STATE_TOKENS` order), then `[ref]`.

    Every page-supplied string is folded, cut and quoted, so the line is always one line and its ref tag is
    the only `[...]` outside quotes. A `text` node is a run of text with no element, so it never has a ref."""
    body = _body(node)
    if ref is None or safe_role(node.role) == "text":
        return body
    return f"{body} [{ref}]"


# --- elements named by their text ------------------------------------------------------------------------------


def text_label(node: AXNode, limit: int = TEXT_LABEL_MAX) -> str:
    """The visible text inside `node`, folded to one line and cut to about `limit` characters: what a sighted user
    reads on an element that has no accessible name (a clickable `<span>`, a `div` button)."""
    label = ""
    stack = list(reversed(node.children))
    while stack and len(label) <= limit:
        child = stack.pop()
        if not child.visible:
            continue
        if child.role == "text":
            piece = fold(child.name)
            if piece:
                label = _join(label, piece)
            continue
        stack.extend(reversed(child.children))
    return cut(label, limit)


def _plain_text_only(node: AXNode) -> bool:
    """Whether everything visible under `node` is text or an unnamed wrapper around text: then its text is all
    there is to say about it, and it can stand on the element's own line."""
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if not child.visible or child.role == "text":
            continue
        if not _is_wrapper(child):
            return False
        stack.extend(child.children)
    return True


def labelled_by_text(node: AXNode) -> AXNode:
    """`node` with its visible text as its printed name when it has no name but is something Claude can act on:
    `generic "Sign in" [ref_4]` rather than a bare `generic [ref_4]` with the text on a line of its own. Only
    the printed line changes; the element keeps its role, ref and states."""
    if node.name or not node.interactive or node.role in UNLABELLED_BY_TEXT or node.role == "text":
        return node
    label = text_label(node)
    return attrs.evolve(node, name=label) if label else node


# --- the tree --------------------------------------------------------------------------------------------------


def _included(node: AXNode, filter: Filter | None) -> bool:
    """Whether `node` itself passes the filter. Decided per node, never inherited: a tall container can start
    above the viewport while its children are in it, and an off-screen child can sit in an on-screen parent."""
    if filter is None:
        return node.in_viewport
    if filter == "interactive":
        return node.in_viewport and node.interactive and node.role != "text"
    return True


def _is_wrapper(node: AXNode) -> bool:
    return (
        node.role in WRAPPER_ROLES
        and not node.name
        and not node.interactive
        and not node.states
        and not node.value
        and not node.description
        and not node.placeholder
        and node.level is None
    )


# One line to print: its level (1 = top) and the element it shows; or, for a run of text, None, the text and
# the name of the nearest printed ancestor (to drop a link's own text).
_Row = tuple[int, "AXNode | None", str, str]


def _collect(root: AXNode, filter: Filter | None, depth: int, include_root: bool) -> list[_Row]:
    """The rows to print, in document order, before text runs are joined.

    Iterative, so a 2,000-deep tree cannot exhaust the recursion limit. An excluded node (filtered out, or a
    collapsed wrapper) passes its level and its parent's name on to its children, which is what promotes them.
    A hidden node is dropped with its whole subtree: hidden text must not reach Claude."""
    rows: list[_Row] = []
    # (node, level it would print at, name of the nearest printed ancestor)
    stack: list[tuple[AXNode, int, str]] = []
    if not root.visible:
        return rows
    if include_root:
        stack.append((root, 1, ""))
    else:
        stack.extend((child, 1, "") for child in reversed(root.children))
    while stack:
        node, level, parent_name = stack.pop()
        if not node.visible:
            continue
        if node.role == "text":
            if node.name and level <= depth and _included(node, filter):
                rows.append((level, None, node.name, parent_name))
            continue
        if _included(node, filter) and not _is_wrapper(node):
            if level > depth:
                continue  # every printed descendant would be deeper still
            labelled = labelled_by_text(node) if _plain_text_only(node) else node
            rows.append((level, labelled, "", ""))
            if labelled is not node:
                continue  # its text is on its own line now
            child_level, child_parent = level + 1, node.name
        else:
            child_level, child_parent = level, parent_name
        if node.children:
            stack.extend((child, child_level, child_parent) for child in reversed(node.children))
    return rows


def _join(left: str, right: str) -> str:
    if not left:
        return right
    if right[0] in _NO_SPACE_BEFORE or left[-1] in _NO_SPACE_AFTER:
        return left + right
    return f"{left} {right}"


def _merge_text(rows: list[_Row]) -> list[_Row]:
    """Join consecutive text runs under one parent into one line (up to `TEXT_MAX`), and drop runs that only
    repeat their parent's name (a link's or a heading's own text)."""
    out: list[_Row] = []
    i = 0
    n = len(rows)
    while i < n:
        level, node, _, parent_name = rows[i]
        if node is not None:
            out.append(rows[i])
            i += 1
            continue
        # Consecutive rows at one level are siblings in the printed tree (rows are in preorder).
        pieces: list[str] = []
        while i < n and rows[i][1] is None and rows[i][0] == level:
            piece = fold(rows[i][2])
            if piece:
                pieces.append(piece)
            i += 1
        joined = ""
        for piece in pieces:
            joined = _join(joined, piece)
        if not joined or _repeats(joined, parent_name):
            continue
        line = ""
        for piece in pieces:
            if line and len(_join(line, piece)) > TEXT_MAX:
                out.append((level, None, line, parent_name))
                line = piece
            else:
                line = _join(line, piece)
        if line:
            out.append((level, None, line, parent_name))
    return out


def _repeats(text: str, parent_name: str) -> bool:
    if not parent_name:
        return False
    text_cf = text.casefold()
    name_cf = fold(parent_name).casefold()
    # Contained text is only dropped when the name is printed whole, else the cut would lose it.
    return text_cf == name_cf or (len(name_cf) <= NAME_MAX and text_cf in name_cf)


def _row_body(row: _Row, full_value: str | None = None) -> str:
    level, node, text, _ = row
    indent = INDENT * (level - 1)
    if node is None:
        return indent + "text " + _JSON_QUOTE(cut(text, TEXT_MAX))
    return indent + _body(node, full_value is not None and node.key == full_value)


def _wants_ref(row: _Row) -> bool:
    node = row[1]
    return node is not None and node.key is not None


def truncation_note(max_chars: int, hidden_lines: int, *, at_least: bool = False) -> str:
    """The last line of a capped result: says that it was cut, how much is missing, and how to read the rest.
    `at_least` when only part of the page was read (`render_tree_prefix`): the count is then a lower bound."""
    more = "1 more line" if hidden_lines == 1 else f"{hidden_lines:,} more lines"
    if at_least:
        more = f"at least {more}"
    return (
        f"[Truncated at {max_chars:,} characters: {more} not shown. Narrow the read with a smaller depth, "
        'filter "interactive", or the ref of a container element.]'
    )


def empty_text(filter: Filter | None) -> str:
    """What `read_page` says when nothing passes the filter: why, and which read would show something."""
    if filter is None:
        return (
            'No visible elements in the viewport. Try filter "all" to include elements outside the viewport, or scroll.'
        )
    if filter == "interactive":
        return (
            "No visible interactive elements in the viewport. "
            'Try filter "all" to include elements outside the viewport, omit the filter to see other elements, '
            "or scroll."
        )
    return (
        "No visible elements. The page may still be loading, or draw its content without accessible elements "
        "(a canvas, an image): take a screenshot."
    )


def render_tree(
    root: AXNode,
    *,
    ref_for: RefFor,
    filter: Filter | None,
    depth: int,
    max_chars: int = READ_PAGE_MAX_CHARS,
    include_root: bool = False,
    full_value: str | None = None,
) -> str:
    """`read_page`'s text for the tree under `root`.

    Levels count printed lines, not raw tree levels: a top-level printed element is level 1 (no indentation),
    its printed children level 2, and `depth` keeps levels 1 to `depth`. Deep DOM nesting of wrappers thus does
    not eat the depth budget. `root` itself is printed only with `include_root` (a read of a `ref`'s subtree
    shows that element first; a whole-page read starts with the first element, not the document).

    `ref_for` is called once per printed node that has a key, in output order, and for no other node, so refs
    are handed out only for what Claude sees. The result never exceeds `max_chars`; when it would, it stops
    at a line boundary and its last line is `truncation_note`.

    `full_value` is the key of the element whose value prints up to `FULL_VALUE_MAX` characters rather than
    `VALUE_MAX`: the element a `ref` read is scoped to, so a long value cut on a page read can be read whole."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_MAX_CHARS}, got {max_chars}")
    rows = _merge_text(_collect(root, filter, depth, include_root))
    if not rows:
        return empty_text(filter)
    text = _emit(rows, ref_for, max_chars, full_value)
    assert text is not None  # only a prefix can leave the cut undecided
    return text


def render_tree_prefix(
    root: AXNode, *, ref_for: RefFor, filter: Filter | None, depth: int, max_chars: int = READ_PAGE_MAX_CHARS
) -> str | None:
    """`render_tree` for a tree that holds only the page's first elements (a read the driver stopped early,
    `AXSnapshot.truncated`): when the cap is reached within the prefix, the lines the whole tree would print, its
    note counting "at least" the lines left out (a note sized differently, so the cut may come a line earlier);
    None when the cap is not reached, since the lines after the prefix might then have been printed, and only a
    read of the whole page can tell."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_MAX_CHARS}, got {max_chars}")
    rows = _merge_text(_collect(root, filter, depth, False))
    if len(rows) < 2:
        return None
    # The last row may be a text run that the next, unread one would have joined: it is never printed.
    return _emit(rows, ref_for, max_chars, None, prefix=True)


def _emit(
    rows: list[_Row], ref_for: RefFor, max_chars: int, full_value: str | None = None, *, prefix: bool = False
) -> str | None:
    """Print rows until the cap, asking for a ref only once its line is sure to be printed.

    A line is printed when, with its ref taken at the longest allowed, either a truncation note still fits after
    it or every remaining line fits with no note. Each printed line adds at least as much as the note can shrink
    (two characters, from "1,000 more" to "999 more"), so the lines that can be printed form a prefix, and this
    finds it, short by at most one line's unused ref reserve. Lines past the cap are never formatted, so a huge
    tree costs little more than its walk.

    With `prefix` the rows are the start of a longer list: "every remaining line fits" cannot be known, so where
    the answer would decide, or where every row would be printed, the result is None."""
    n = len(rows)
    bodies: list[str | None] = [None] * n
    reserve = len(" []") + REF_MAX

    def body_of(j: int) -> str:
        body = bodies[j]
        if body is None:
            body = bodies[j] = _row_body(rows[j], full_value)
        return body

    def room(j: int) -> int:
        """The most line `j` can take, its leading newline included."""
        return len(body_of(j)) + (reserve if _wants_ref(rows[j]) else 0) + (1 if j else 0)

    def rest_fits(start: int, budget: int) -> bool:
        for j in range(start, n):
            budget -= room(j)
            if budget < 0:
                return False
        return True

    longest_note = len(truncation_note(max_chars, n, at_least=prefix))  # a note for fewer lines is never longer
    lines: list[str] = []
    used = 0
    all_fit = False
    for i in range(n):
        if prefix and i == n - 1:
            return None
        if not all_fit:
            rest = n - i - 1
            needed = used + room(i) + 1
            note_fits = rest > 0 and (
                needed + longest_note <= max_chars
                or needed + len(truncation_note(max_chars, rest, at_least=prefix)) <= max_chars
            )
            if not note_fits:
                all_fit = rest_fits(i, max_chars - used)
                if all_fit and prefix:
                    return None
                if not all_fit:
                    break
        line = body_of(i)
        node = rows[i][1]
        if node is not None and node.key is not None:
            ref = ref_for(node)
            if ref is not None:
                if len(ref) > REF_MAX:
                    raise ValueError(f"ref_for returned a ref longer than {REF_MAX} characters: {ref[:40]!r}")
                line = f"{line} [{ref}]"
        lines.append(line)
        used += len(line) + (1 if i else 0)
    if len(lines) < n:
        lines.append(truncation_note(max_chars, n - len(lines), at_least=prefix))
    return "\n".join(lines)
