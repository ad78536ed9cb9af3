"""`find`: the page's elements ranked against a short natural-language description.

Claude asks for "search field", "add to cart button", "login link" instead of reading the whole tree, so this is
a cheap, predictable ranker rather than anything clever: the query's words are split into type words (button,
field, dropdown: they name roles) and content words (cart, email: they should appear in the element's name,
placeholder, value or description), matched with light normalisation, and scored. An element that matches no
content word is never returned just for being a button: for "add to cart button" on a page with no such thing,
"no match" is more useful than twenty unrelated buttons Claude might trust. Words that only say where or which
one ("second", "top") are not required to match, so "the second checkbox" lists the checkboxes in page order.
Ties keep document order, so the same page and query always give the same answer.

Only what `read_page` could show is searched: visible elements (with no hidden ancestor) that have a key.
"""

from __future__ import annotations

import collections
import functools
import itertools
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence

import attrs

from ..values import AXNode
from .tree_text import UNLABELLED_BY_TEXT, RefFor, fold, format_line, quote, text_label

__all__ = ["FIND_LIMIT", "ROLE_HINTS", "ROLE_WORDS", "find_matches", "no_match_text", "render_matches", "tokens"]

FIND_LIMIT = 20
"""The contract's cap on `find` results."""

QUERY_SHOWN_MAX = 100

ROLE_WORDS: dict[str, frozenset[str]] = {
    word: frozenset(roles)
    for words, roles in (
        (("field", "input", "box", "textbox", "textfield", "textarea", "entry"),
            ("textbox", "searchbox", "combobox", "spinbutton")),
        (("dropdown", "select", "picker", "combobox", "combo", "chooser", "selector"), ("combobox", "listbox")),
        (("listbox",), ("listbox",)),
        (("button", "btn"), ("button",)),
        (("link", "anchor", "hyperlink"), ("link",)),
        (("checkbox", "tick", "checkmark"), ("checkbox", "menuitemcheckbox")),
        (("toggle", "switch"), ("switch", "checkbox")),
        (("radio", "radiobutton"), ("radio", "menuitemradio")),
        (("option", "choice"), ("option", "radio", "menuitemradio")),
        (("image", "img", "picture", "photo", "icon", "logo", "graphic"), ("img", "image", "graphics-document")),
        (("heading", "headline", "title", "subtitle"), ("heading",)),
        (("header",), ("banner", "heading")),
        (("footer",), ("contentinfo",)),
        (("sidebar", "aside"), ("complementary",)),
        (("tab",), ("tab",)),
        (("tablist",), ("tablist",)),
        (("menu",), ("menu", "menubar", "menuitem")),
        (("menuitem",), ("menuitem", "menuitemcheckbox", "menuitemradio")),
        (("slider", "range", "scrubber"), ("slider",)),
        (("stepper", "spinbutton"), ("spinbutton",)),
        (("nav", "navbar", "navigation"), ("navigation",)),
        (("dialog", "modal", "popup"), ("dialog", "alertdialog")),
        (("alert", "toast"), ("alert", "alertdialog", "status")),
        (("table", "grid"), ("table", "grid", "treegrid")),
        (("row",), ("row",)),
        (("cell", "column"), ("cell", "gridcell", "columnheader")),
        (("list",), ("list", "listbox")),
        (("item",), ("listitem", "menuitem", "option", "treeitem")),
        (("tree",), ("tree", "treegrid")),
        (("form",), ("form",)),
        (("progress", "progressbar", "spinner"), ("progressbar",)),
        (("paragraph",), ("paragraph",)),
    )
    for word in words
}  # fmt: skip
"""Words that name an element's type, and the roles they stand for. A query word that is a role's own name
(`searchbox`, `main`, `article`) matches that role without a row here."""

ROLE_HINTS: dict[str, frozenset[str]] = {
    "search": frozenset({"searchbox", "search"}),
}
"""Content words that also suggest a role: "search" is usually in a search field's name, but an
`<input type=search>` labelled "Query" is still the search field. A hint counts as a weaker content match, so it
only suits roles as specific as the word (a hint from "email" to `textbox` would match every text field)."""

PHRASES: dict[tuple[str, str], str] = {
    ("check", "box"): "checkbox",
    ("tick", "box"): "checkbox",
    ("text", "box"): "field",
    ("text", "field"): "field",
    ("text", "area"): "field",
    ("input", "field"): "field",
    ("input", "box"): "field",
    ("text", "input"): "field",
    ("combo", "box"): "combobox",
    ("drop", "down"): "dropdown",
    ("list", "box"): "listbox",
    ("radio", "button"): "radio",
    ("menu", "item"): "menuitem",
    ("tab", "list"): "tablist",
    ("nav", "bar"): "navbar",
    ("search", "bar"): "search field",
    ("search", "box"): "search field",
    ("sign", "in"): "signin",
    ("log", "in"): "login",
    ("sign", "up"): "signup",
    ("sign", "out"): "signout",
    ("log", "out"): "logout",
    ("e", "mail"): "email",
}
"""Two-word query phrases read as other words, so that "radio button" asks for a radio, not a button."""

SYNONYM_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"login", "signin", "logon"}),
    frozenset({"logout", "signout", "logoff"}),
    frozenset({"signup", "register", "join"}),
    frozenset({"cart", "basket", "bag"}),
    frozenset({"close", "dismiss"}),
    frozenset({"settings", "preferences"}),
    frozenset({"account", "profile"}),
    frozenset({"username", "login"}),
    frozenset({"next", "continue"}),
    frozenset({"previous", "prev", "back"}),
    frozenset({"delete", "remove"}),
)
"""Words a page may use for what the query says differently. Stemmed on load."""

STOPWORDS: frozenset[str] = frozenset(
    {
        "a", "an", "the", "to", "for", "of", "on", "in", "at", "by", "with", "and", "or", "my", "your", "our",
        "its", "it", "this", "that", "these", "those", "is", "are", "be", "which", "where", "named", "called",
        "labeled", "labelled", "label", "says", "saying", "element", "elements", "thing", "please", "me", "i",
    }
)  # fmt: skip
"""Query words that say nothing about which element is meant."""

VAGUE_WORDS: frozenset[str] = frozenset(
    {
        "first", "second", "third", "fourth", "fifth", "last", "1st", "2nd", "3rd", "4th", "5th", "one", "two",
        "three", "top", "bottom", "upper", "lower", "left", "right", "main", "big", "small", "large", "little",
        "blue", "red", "green", "grey", "gray", "white", "black", "primary", "secondary", "visible", "another",
    }
)  # fmt: skip
"""Content words that may describe an element's position or look, which the tree does not say: they score when
they match but are not required to."""

# field weights: where a query word is found matters (a name is what the element says it is)
NAME_WEIGHT = 1.0
PLACEHOLDER_WEIGHT = 0.9
CONTENT_WEIGHT = 0.9
VALUE_WEIGHT = 0.6
DESCRIPTION_WEIGHT = 0.5
# match strengths
EXACT = 1.0
JOINED = 0.9  # "login" against "Log in"
SYNONYM = 0.85  # "basket" against "Cart": the page's own word, when present, should win
HINT = 0.8
PREFIX = 0.6  # "pass" against "password"
PREFIX_MIN = 4
ROLE_TOKEN_TEXT_FACTOR = 0.5
# score parts
TEXT_POINTS = 10.0
ROLE_POINTS = 6.0
PHRASE_POINTS = 5.0
EXACT_NAME_POINTS = 4.0
PRECISION_POINTS = 2.0
INTERACTIVE_POINTS = 1.0
IN_VIEWPORT_POINTS = 0.5

CONTENT_TEXT_MAX = 200
CONTENT_NODES_MAX = 200

_WORD_RE = re.compile(r"[^\W_]+")
_APOSTROPHES_RE = re.compile(r"['’]")


def _stem(word: str) -> str:
    """A light plural stemmer: both sides go through it, so over-stemming ("status" -> "statu") is harmless."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _normalise(text: str) -> str:
    text = fold(text).casefold()
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _APOSTROPHES_RE.sub("", text)


def tokens(text: str) -> list[str]:
    """Lowercased, accent-free, plural-stripped words of `text`, punctuation dropped."""
    return [_stem(word) for word in _WORD_RE.findall(_normalise(text))]


@functools.lru_cache(maxsize=65_536)
def _field_tokens(text: str) -> tuple[str, ...]:
    """`tokens`, remembered: a page's names repeat between finds (the same tree is often searched again), and
    splitting them is most of a search's cost."""
    return tuple(tokens(text))


def _stemmed_table(rows: Iterable[tuple[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    """`rows` keyed by stemmed words; rows whose words stem alike (or repeat) pool their values."""
    out: dict[str, frozenset[str]] = {}
    for word, values in rows:
        out[_stem(word)] = out.get(_stem(word), frozenset()) | values
    return out


_SYNONYMS = _stemmed_table(
    (word, frozenset(_stem(other) for other in group if _stem(other) != _stem(word)))
    for group in SYNONYM_GROUPS
    for word in group
)
_ROLE_WORDS = _stemmed_table(ROLE_WORDS.items())
_ROLE_HINTS = _stemmed_table(ROLE_HINTS.items())
_PHRASES: dict[tuple[str, ...], list[str]] = {
    tuple(_stem(w) for w in key): [_stem(w) for w in value.split()] for key, value in PHRASES.items()
}
_STOPWORDS = STOPWORDS | {_stem(word) for word in STOPWORDS}
_VAGUE_WORDS = VAGUE_WORDS | {_stem(word) for word in VAGUE_WORDS}


class _Query:
    """A query split once into what each element is scored against."""

    def __init__(self, text: str) -> None:
        words = _merge_phrases(tokens(text))
        kept = [word for word in words if word not in _STOPWORDS]
        if not kept:  # "on", "in": a query of stopwords is still a query
            kept = words
        self.role_words = [word for word in kept if word in _ROLE_WORDS]
        self.content = [word for word in kept if word not in _ROLE_WORDS]
        # the words an element must match one of; none means the asked-for type is enough
        self.required = [word for word in self.content if word not in _VAGUE_WORDS]
        self.roles: frozenset[str] = frozenset().union(*(_ROLE_WORDS[word] for word in self.role_words))
        self.hinted_roles: frozenset[str] = frozenset().union(*(_ROLE_HINTS.get(word, ()) for word in self.content))
        # the phrase an exact name would say: content words in order, with their stopwords; else the whole query
        self.phrase = [word for word in words if word not in _ROLE_WORDS] or words
        self.phrase_content = [word for word in self.phrase if word not in _STOPWORDS] or self.phrase
        # What `_may_match_text` and `_Candidate.strengths` look for: every scored word and its synonyms, the query
        # words each page word is a synonym of, and the words long enough to match as a prefix, by length. All of
        # it is looked up from the element's side, so a search costs the element's words, not the query's.
        scored = set(self.content) | set(self.role_words)
        self.scored = frozenset(scored)
        self.triggers = frozenset(scored.union(*(_SYNONYMS.get(word, frozenset()) for word in scored)))
        synonym_of: dict[str, set[str]] = {}
        for word in scored:
            for other in _SYNONYMS.get(word, ()):
                synonym_of.setdefault(other, set()).add(word)
        self.synonym_of = {other: frozenset(words) for other, words in synonym_of.items()}
        by_size: dict[int, set[str]] = {}
        for word in scored:
            if len(word) >= PREFIX_MIN:
                by_size.setdefault(len(word), set()).add(word)
        self.prefixes = tuple((size, frozenset(words)) for size, words in sorted(by_size.items()))
        self.hint_targets: frozenset[str] = frozenset().union(*(_ROLE_HINTS.get(word, ()) for word in scored))
        self.hinted = tuple(word for word in sorted(scored) if word in _ROLE_HINTS)
        # the order words are summed in (a float sum depends on it), and how often each role word was said
        self.order = {word: index for index, word in enumerate(dict.fromkeys([*self.content, *self.role_words]))}
        self.content_words = frozenset(self.content)
        self.role_counts = collections.Counter(self.role_words)
        self.required_words = frozenset(self.required)
        self.field_memo: dict[Sequence[str], dict[str, float]] = {}
        """`_field_strengths` of the fields seen so far: a page repeats its names ("Add to cart" on every card)."""


def _merge_phrases(words: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words):
        merged = _PHRASES.get(tuple(words[i : i + 2]))
        if merged is not None:
            out.extend(merged)
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def _strength(word: str, field: Sequence[str]) -> float:
    """How well one query word matches one field's words: exactly, as two field words run together ("login"
    against "Log in"), as a synonym (also run together: "login" against "Sign in"), or as a prefix. The rule
    `_field_strengths` applies to every query word at once."""
    if not field:
        return 0.0
    if word in field:
        return EXACT
    synonyms = _SYNONYMS.get(word, frozenset())
    if not synonyms.isdisjoint(field):
        return SYNONYM
    if any(a + b == word or a + b in synonyms for a, b in itertools.pairwise(field)):
        return JOINED
    if len(word) >= PREFIX_MIN and any(w.startswith(word) for w in field):
        return PREFIX
    return 0.0


def _field_strengths(field: Sequence[str], query: _Query) -> dict[str, float]:
    """`_strength` of every query word against one field, for the words that match at all, found from the field's
    side: each field word is looked up in the query's tables, so the work is the field's length (times the few
    prefix lengths), whatever the query's. The kinds of match are tried in `_strength`'s order, so a word gets
    the strength `_strength` gives it."""
    found: dict[str, float] = {}
    scored, synonym_of = query.scored, query.synonym_of
    for word in field:
        if word in scored:
            found[word] = EXACT  # the strongest kind: it replaces a synonym match found earlier in the field
        if word in synonym_of:
            for asked in synonym_of[word]:
                found.setdefault(asked, SYNONYM)
    for a, b in itertools.pairwise(field):
        joined = a + b
        if joined in scored:
            found.setdefault(joined, JOINED)
        if joined in synonym_of:
            for asked in synonym_of[joined]:
                found.setdefault(asked, JOINED)
    if query.prefixes:
        for word in field:
            for size, starts in query.prefixes:
                if size > len(word):
                    break
                if word[:size] in starts:
                    found.setdefault(word[:size], PREFIX)
    return found


def _content_text(node: AXNode) -> str:
    """The visible text inside an element with no name (a clickable `div`), which is what its user reads."""
    parts: list[str] = []
    size = 0
    stack = list(reversed(node.children))
    visited = 0
    while stack and size < CONTENT_TEXT_MAX and visited < CONTENT_NODES_MAX:
        child = stack.pop()
        visited += 1
        if not child.visible:
            continue
        if child.role == "text" and child.name:
            parts.append(child.name)
            size += len(child.name) + 1
        stack.extend(reversed(child.children))
    return " ".join(parts)[:CONTENT_TEXT_MAX]


class _Candidate:
    __slots__ = ("fields", "joined", "name", "node", "order", "words")

    def __init__(self, node: AXNode, order: int) -> None:
        self.node = node
        self.order = order
        self.name: Sequence[str] = _field_tokens(node.name)
        weight = NAME_WEIGHT
        if not self.name and node.interactive:
            # An unnamed clickable element (a `div` with a click handler) is known by the text inside it.
            self.name = _field_tokens(_content_text(node))
            weight = CONTENT_WEIGHT
        fields: list[tuple[float, Sequence[str]]] = [(weight, self.name)]
        if node.placeholder:
            fields.append((PLACEHOLDER_WEIGHT, _field_tokens(node.placeholder)))
        if node.value:
            fields.append((VALUE_WEIGHT, _field_tokens(node.value)))
        if node.description:
            fields.append((DESCRIPTION_WEIGHT, _field_tokens(node.description)))
        self.fields = fields
        self.words = frozenset(word for _, field in fields for word in field)
        self.joined = frozenset(a + b for _, field in fields for a, b in itertools.pairwise(field))

    def word_score(self, word: str) -> float:
        best = max((weight * _strength(word, field) for weight, field in self.fields), default=0.0)
        hinted = _ROLE_HINTS.get(word)
        if hinted and self.node.role in hinted:
            best = max(best, HINT)
        return best

    def strengths(self, query: _Query) -> dict[str, float]:
        """`word_score` of every scored query word that scores above 0."""
        best: dict[str, float] = {}
        memo = query.field_memo
        for weight, field in self.fields:
            found = memo.get(field)
            if found is None:
                found = memo[field] = _field_strengths(field, query)
            for word, strength in found.items():
                score = weight * strength
                if score > best.get(word, 0.0):
                    best[word] = score
        for word in query.hinted:
            if self.node.role in _ROLE_HINTS[word]:
                best[word] = max(best.get(word, 0.0), HINT)
        return best


def _may_match_text(candidate: _Candidate, query: _Query) -> bool:
    """False only when no query word can match any of the element's words (`_strength` would be 0 for every pair),
    checked with set lookups: most of a page's elements fail this, and scoring them fully is what makes a search of
    a large page slow. Every way `_strength` matches has its test here: a word or synonym present (`triggers`), two
    field words run together, a query word as a field word's prefix."""
    words = candidate.words
    if not words:
        return False
    if not words.isdisjoint(query.triggers) or not candidate.joined.isdisjoint(query.triggers):
        return True
    return any(word[:size] in starts for size, starts in query.prefixes for word in words if len(word) > size)


def _score(candidate: _Candidate, query: _Query) -> float:
    """The element's score, 0 for an element that does not qualify: one that misses every required word, or,
    for a query with none, has neither an asked-for role nor a query word in its text. A content word counts once
    however often the query says it; a type word counts as often as it is said."""
    node = candidate.node
    role_match = node.role in query.roles or node.role in query.content_words or node.role in query.hinted_roles
    if not role_match and node.role not in query.hint_targets and not _may_match_text(candidate, query):
        return 0.0
    scores = candidate.strengths(query)
    if query.required_words and not (
        node.role in query.required_words or any(word in query.required_words for word in scores)
    ):
        return 0.0
    # summed in the query's order, as a float sum depends on it (a word that scores 0 adds nothing)
    hits = sorted(scores, key=query.order.__getitem__)
    text = sum(scores[word] for word in hits if word in query.content_words)
    text += ROLE_TOKEN_TEXT_FACTOR * sum(
        query.role_counts[word] * scores[word] for word in hits if word in query.role_counts
    )
    if text == 0 and not role_match:
        return 0.0
    score = TEXT_POINTS * text + (ROLE_POINTS if role_match else 0.0)
    name = candidate.name
    if name:
        if len(query.phrase) > 1 and _contains(name, query.phrase):
            score += PHRASE_POINTS
        if name == query.phrase or name == query.phrase_content:
            score += EXACT_NAME_POINTS
        wanted = query.scored
        matched = sum(1 for w in name if w in wanted or not _SYNONYMS.get(w, frozenset()).isdisjoint(wanted))
        score += PRECISION_POINTS * matched / len(name)
    if node.interactive:
        score += INTERACTIVE_POINTS
    if node.in_viewport:
        score += IN_VIEWPORT_POINTS
    return score


def _contains(words: Sequence[str], phrase: Sequence[str]) -> bool:
    size = len(phrase)
    if size == 0 or size > len(words):
        return False
    first, wanted = phrase[0], list(phrase)
    return any(words[i] == first and list(words[i : i + size]) == wanted for i in range(len(words) - size + 1))


def _candidates(root: AXNode) -> Iterable[_Candidate]:
    """Visible keyed elements in document order; a hidden node hides its whole subtree."""
    stack = [root]
    order = 0
    while stack:
        node = stack.pop()
        if not node.visible:
            continue
        if node.key is not None and node.role != "text":
            yield _Candidate(node, order)
            order += 1
        stack.extend(reversed(node.children))


_last_candidates: tuple[AXNode, list[_Candidate]] | None = None
_last_lock = threading.Lock()


def _candidates_of(root: AXNode) -> list[_Candidate]:
    """`_candidates`, remembered for the last tree searched: a driver answers a read of an unchanged page with
    the same tree object, so a second `find` on it skips the walk and the word splitting."""
    global _last_candidates
    with _last_lock:
        last = _last_candidates
    if last is not None and last[0] is root:
        return last[1]
    candidates = list(_candidates(root))
    with _last_lock:
        _last_candidates = (root, candidates)
    return candidates


def find_matches(root: AXNode, query: str, *, limit: int = FIND_LIMIT) -> list[AXNode]:
    """The elements under `root` that best match `query`, best first, at most `limit`; never one scoring 0."""
    parsed = _Query(query)
    if limit <= 0 or not (parsed.content or parsed.role_words):
        return []
    scored: list[tuple[float, int, AXNode]] = []
    for candidate in _candidates_of(root):
        score = _score(candidate, parsed)
        if score > 0:
            scored.append((-score, candidate.order, candidate.node))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [node for _, _, node in scored[:limit]]


def no_match_text(query: str) -> str:
    """What `find` says when nothing matched: the query as understood, and what to try next."""
    return (
        f"No elements match {quote(query, QUERY_SHOWN_MAX)}. "
        "Try other words, or use read_page to see the page's elements."
    )


def render_matches(matches: Sequence[AXNode], *, ref_for: RefFor, query: str) -> str:
    """`find`'s text: one `read_page` line per match, best first, unindented; refs handed out in that order."""
    if not matches:
        return no_match_text(query)
    return "\n".join(_match_line(node, ref_for) for node in matches)


def _match_line(node: AXNode, ref_for: RefFor) -> str:
    """A match with no name of its own shows a bounded excerpt of its visible text in the name's place, so Claude
    can tell several nameless matches apart (`generic "Corrine Smith" [ref_7]`, not three bare `generic`s)."""
    if not node.name and node.role not in UNLABELLED_BY_TEXT and node.role != "text":
        label = text_label(node)
        if label:
            node = attrs.evolve(node, name=label)
    return format_line(node, ref_for(node) if node.key is not None else None)
