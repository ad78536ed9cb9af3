"""`find`: ranking elements against natural-language queries, and the text of the matches."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browser_toolset.executor.finder import FIND_LIMIT, find_matches, no_match_text, render_matches, tokens
from browser_toolset.values import AXNode


def text(value: str) -> AXNode:
    return AXNode("text", value)


def el(role: str, name: str = "", key: str | None = None, **kw: object) -> AXNode:
    """An element; interactive by default for the roles people click or type into."""
    interactive = role in {"link", "button", "textbox", "searchbox", "combobox", "checkbox", "radio", "slider", "tab"}
    kw.setdefault("interactive", interactive)
    return AXNode(role, name, key=key or f"{role}:{name}", **kw)  # type: ignore[arg-type]


def doc(*children: AXNode) -> AXNode:
    return AXNode("document", children=children)


def shop() -> AXNode:
    return doc(
        el(
            "banner",
            key="banner",
            children=(
                el("link", "Acme home", key="home", children=(el("img", "Acme logo", key="logo"),)),
                el("searchbox", "Search products", key="search", placeholder="Search…"),
                el("button", "Search", key="search-go"),
                el(
                    "navigation",
                    "Main",
                    key="nav",
                    children=(
                        el("link", "Docs", key="docs"),
                        el("link", "Pricing", key="pricing"),
                        el("link", "Log in", key="login"),
                        el("link", "Sign up", key="signup"),
                        el("link", "Cart (2)", key="cart"),
                    ),
                ),
            ),
        ),
        el(
            "main",
            key="main",
            children=(
                el("heading", "Welcome back", key="welcome", level=1),
                el("heading", "Email", key="email-heading", level=2),
                el(
                    "article",
                    "Blue mug",
                    key="mug",
                    children=(
                        el("button", "Add to cart", key="add-mug"),
                        el("button", "Add to wishlist", key="wish-mug"),
                    ),
                ),
                el(
                    "article",
                    "Red kettle",
                    key="kettle",
                    children=(
                        el("button", "Add to cart", key="add-kettle"),
                        el("link", "Add to cart", key="add-kettle-link"),
                    ),
                ),
                el("generic", key="clickable", interactive=True, children=(text("Add to basket"),)),
                el(
                    "form",
                    "Account",
                    key="form",
                    children=(
                        el("textbox", "Email", key="email", placeholder="you@example.com"),
                        el("textbox", "Password", key="password"),
                        el("textbox", "", key="phone", placeholder="Phone number"),
                        el("checkbox", "Remember me", key="remember", states=("checked",)),
                        el("checkbox", "Subscribe to the newsletter", key="newsletter", states=("unchecked",)),
                        el("radio", "Standard shipping", key="standard"),
                        el("radio", "Express shipping", key="express"),
                        el("combobox", "Country", key="country", value="France"),
                        el("slider", "Volume", key="volume", value="40"),
                        el("button", "Sign in", key="signin"),
                        el("button", "Submit order", key="submit"),
                        el("textbox", "Café name", key="cafe"),
                    ),
                ),
                el(
                    "dialog",
                    "Promo",
                    key="promo",
                    visible=False,
                    children=(
                        el("button", "Add to cart", key="hidden-add"),
                        el("textbox", "Email", key="hidden-email"),
                    ),
                ),
            ),
        ),
        el(
            "contentinfo",
            key="footer",
            in_viewport=False,
            children=(el("link", "Terms of service", key="terms", in_viewport=False),),
        ),
    )


def keys(query: str, root: AXNode | None = None, **kw: int) -> list[str | None]:
    return [node.key for node in find_matches(root or shop(), query, **kw)]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("search field", "search"),
        ("search box", "search"),
        ("search bar", "search"),
        ("search", "search"),
        ("search button", "search-go"),
        ("add to cart button", "add-mug"),
        ("email", "email"),
        ("email field", "email"),
        ("E-mail input", "email"),
        ("login link", "login"),
        ("log in link", "login"),
        ("sign in button", "signin"),
        ("country dropdown", "country"),
        ("country select", "country"),
        ("France", "country"),
        ("submit", "submit"),
        ("submit button", "submit"),
        ("remember me checkbox", "remember"),
        ("remember me check box", "remember"),
        ("newsletter toggle", "newsletter"),
        ("express shipping radio button", "express"),
        ("express option", "express"),
        ("logo", "logo"),
        ("logo image", "logo"),
        ("volume slider", "volume"),
        ("welcome heading", "welcome"),
        ("password field", "password"),
        ("phone number field", "phone"),
        ("pricing link", "pricing"),
        ("sign up", "signup"),
        ("register link", "signup"),
        ("basket", "clickable"),
        ("shopping cart link", "cart"),
        ("wishlist", "wish-mug"),
        ("cafe", "cafe"),
        ("Café", "cafe"),
        ("terms", "terms"),
        ("main navigation", "nav"),
    ],
)
def test_best_match(query: str, first: str) -> None:
    found = keys(query)
    assert found, query
    assert found[0] == first, (query, found)


def test_add_to_cart_button_ranks_buttons_then_the_link_and_never_the_hidden_one() -> None:
    found = keys("add to cart button")
    assert found[:3] == ["add-mug", "add-kettle", "add-kettle-link"]
    assert "hidden-add" not in found
    assert "wish-mug" in found  # it matches "add" and is a button, but after every exact match
    assert found.index("wish-mug") > found.index("add-kettle-link")


def test_role_only_queries_list_that_role_in_document_order() -> None:
    assert keys("checkbox") == ["remember", "newsletter"]
    assert keys("checkboxes") == ["remember", "newsletter"]
    assert keys("the second checkbox") == ["remember", "newsletter"]
    assert keys("radio buttons") == ["standard", "express"]
    assert keys("heading")[:2] == ["welcome", "email-heading"]


def test_interactive_element_beats_a_heading_with_the_same_name() -> None:
    assert keys("email")[:2] == ["email", "email-heading"]


def test_unnamed_clickable_is_found_by_its_text() -> None:
    assert "clickable" in keys("add to basket")
    assert keys("add to basket")[0] == "clickable"


@pytest.mark.parametrize("query", ["", "   ", "?!", "zebra", "quantum button", "xylophone field"])
def test_nothing_matching_returns_nothing(query: str) -> None:
    assert find_matches(shop(), query) == []


def test_a_type_word_alone_does_not_qualify_when_content_words_miss() -> None:
    # "quantum button": there are buttons, but none about "quantum": no twenty random buttons
    assert keys("quantum button") == []
    assert keys("login button") == ["signin", "login"]  # the Sign in button, then the Log in link


def test_hidden_keyless_and_text_nodes_are_never_returned() -> None:
    root = doc(
        text("Add to cart"),
        el("button", "Add to cart", key=None, interactive=True),
        el("generic", "x", key="outer", visible=False, children=(el("button", "Add to cart", key="inner"),)),
    )
    keyless = AXNode("button", "Add to cart", interactive=True)
    root = doc(*root.children, keyless)
    assert find_matches(root, "add to cart") == [root.children[1]]


def test_in_viewport_breaks_a_tie_then_document_order() -> None:
    root = doc(
        el("button", "Next", key="far", in_viewport=False),
        el("button", "Next", key="near"),
        el("button", "Next", key="near2"),
    )
    assert keys("next button", root) == ["near", "near2", "far"]


def test_exact_phrase_beats_scattered_words() -> None:
    root = doc(
        el("button", "Cart: add this item to your order", key="scattered"),
        el("button", "Add to cart", key="phrase"),
    )
    assert keys("add to cart", root) == ["phrase", "scattered"]


def test_placeholder_value_and_description_are_searched() -> None:
    root = doc(
        el("textbox", "", key="by-placeholder", placeholder="Coupon code"),
        el("combobox", "Size", key="by-value", value="Extra large"),
        el("button", "?", key="by-description", description="Opens the help center"),
    )
    assert keys("coupon", root) == ["by-placeholder"]
    assert keys("extra large", root) == ["by-value"]
    assert keys("help", root) == ["by-description"]


def test_name_matches_outrank_description_matches() -> None:
    root = doc(
        el("button", "Delete", key="desc", description="Help for this page"),
        el("link", "Help", key="name"),
    )
    assert keys("help", root) == ["name", "desc"]


def test_limit() -> None:
    root = doc(*(el("button", f"Buy {i}", key=f"b{i}") for i in range(50)))
    assert len(find_matches(root, "buy button")) == FIND_LIMIT == 20
    assert keys("buy", root, limit=3) == ["b0", "b1", "b2"]
    assert find_matches(root, "buy", limit=0) == []


def test_ranking_is_deterministic() -> None:
    # The exact phrase in document order, then "Add to basket" (basket is the cart's synonym), the "Cart (2)" link
    # and "Add to wishlist" (one word of three); never the hidden dialog's button.
    ranked = ["add-mug", "add-kettle", "add-kettle-link", "clickable", "cart", "wish-mug"]
    for _ in range(3):
        assert keys("add to cart") == ranked
    assert keys("Add To Cart!!") == ranked


def test_deep_trees_do_not_hit_the_recursion_limit() -> None:
    node = el("button", "Bottom", key="bottom")
    for i in range(3000):
        node = AXNode("generic", key=f"g{i}", children=(node,))
    assert keys("bottom button", doc(node)) == ["bottom"]


def test_tokens() -> None:
    assert tokens("Add-to-Cart's BOXES, Categories & e-mail!") == ["add", "to", "cart", "box", "category", "e", "mail"]
    assert tokens("Café Déjà_vu") == ["cafe", "deja", "vu"]
    assert tokens("a\u202eb\u200bc") == ["abc"]


# --- render_matches ---------------------------------------------------------------------------------------------


def test_render_matches_uses_read_page_lines_best_first_and_asks_refs_in_that_order() -> None:
    counter = itertools.count(1)
    asked: list[str | None] = []

    def ref_for(node: AXNode) -> str | None:
        asked.append(node.key)
        return f"ref_{next(counter)}"

    matches = find_matches(shop(), "country dropdown")
    out = render_matches(matches, ref_for=ref_for, query="country dropdown")
    assert out.split("\n")[0] == 'combobox "Country" value="France" [ref_1]'
    assert asked == [node.key for node in matches]
    assert not out.startswith(" ")


def test_render_matches_multiple_lines() -> None:
    matches = find_matches(shop(), "checkbox")
    refs = iter(["ref_4", "ref_5"])
    out = render_matches(matches, ref_for=lambda node: next(refs), query="checkbox")
    assert out == ('checkbox "Remember me" checked [ref_4]\ncheckbox "Subscribe to the newsletter" unchecked [ref_5]')


def test_no_match_text() -> None:
    out = render_matches([], ref_for=lambda node: "ref_1", query="quantum button")
    assert out == 'No elements match "quantum button". Try other words, or use read_page to see the page\'s elements.'
    assert out == no_match_text("quantum button")


def test_no_match_text_folds_and_cuts_the_query() -> None:
    out = no_match_text('evil"\nquery\u202e' + "x" * 500)
    assert "\n" not in out and "\u202e" not in out
    assert out.startswith('No elements match "evil\\" query')
    quoted = out[len("No elements match ") : out.index(". Try other words")]
    assert len(quoted) <= 100 + 4 and quoted.endswith('…"')


# --- property ---------------------------------------------------------------------------------------------------

WORDS = st.sampled_from(["add", "cart", "email", "search", "Log in", "button", "field", "x", "the", "ünï", "🙂"])
ROLES = st.sampled_from(["button", "link", "textbox", "generic", "heading", "checkbox", "text", "combobox"])


@st.composite
def flat_pages(draw: st.DrawFn) -> AXNode:
    nodes = []
    for i in range(draw(st.integers(0, 30))):
        role = draw(ROLES)
        name = " ".join(draw(st.lists(WORDS, max_size=4)))
        nodes.append(
            AXNode(
                role,
                name,
                key=None if role == "text" else f"k{i}",
                visible=draw(st.booleans()),
                in_viewport=draw(st.booleans()),
                interactive=draw(st.booleans()),
            )
        )
    return doc(*nodes)


@settings(deadline=None)
@given(page=flat_pages(), query=st.lists(WORDS, max_size=4).map(" ".join), limit=st.integers(0, 25))
def test_any_page_and_query(page: AXNode, query: str, limit: int) -> None:
    found = find_matches(page, query, limit=limit)
    assert len(found) <= limit
    assert len({id(node) for node in found}) == len(found)
    for node in found:
        assert node.visible and node.key is not None and node.role != "text"
    assert find_matches(page, query, limit=limit) == found


def test_a_match_with_no_name_shows_an_excerpt_of_its_text() -> None:
    rows = [
        AXNode("option", key=f"o{i}", interactive=True, children=(text(name),))
        for i, name in enumerate(["Corrine Smith", "Corrine Jones"])
    ]
    root = doc(AXNode("listbox", "People", key="lb", interactive=True, children=tuple(rows)))
    out = render_matches(find_matches(root, "Corrine"), ref_for=lambda node: f"ref_{node.key}", query="Corrine")
    assert out.split("\n")[:2] == ['option "Corrine Smith" [ref_o0]', 'option "Corrine Jones" [ref_o1]']


_VOCABULARY = (
    *("log", "in", "login", "sign", "signin", "up", "signup", "cart", "basket", "bag", "checkout", "pay"),
    *("password", "pass", "search", "go", "submit", "email", "e-mail", "mail", "delete", "remove", "trash"),
    *("account", "profile", "settings", "next", "continue", "button", "field", "link", "box", "menu", "item"),
    *("the", "a", "of"),
)
_ROLES = ("button", "link", "textbox", "searchbox", "checkbox", "generic", "heading", "menuitem", "img", "search")


@st.composite
def _pages(draw: st.DrawFn) -> AXNode:
    words = st.lists(st.sampled_from(_VOCABULARY), max_size=4).map(" ".join)
    elements = st.builds(
        lambda role, name, placeholder, value, interactive, inside: AXNode(
            role,
            name,
            key=None,
            placeholder=placeholder,
            value=value or None,
            interactive=interactive,
            children=(text(inside),) if inside else (),
        ),
        st.sampled_from(_ROLES),
        words,
        words,
        words,
        st.booleans(),
        words,
    )
    nodes = draw(st.lists(elements, max_size=25))
    return doc(*(attrs_evolve_key(node, index) for index, node in enumerate(nodes)))


def attrs_evolve_key(node: AXNode, index: int) -> AXNode:
    return AXNode(
        node.role,
        node.name,
        key=f"k{index}",
        placeholder=node.placeholder,
        value=node.value,
        interactive=node.interactive,
        children=node.children,
    )


@settings(max_examples=300)
@given(page=_pages(), query=st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=4).map(" ".join))
def test_the_quick_reject_never_changes_an_answer(page: AXNode, query: str) -> None:
    """Scoring skips elements that no query word can match (set lookups, for speed on large pages): the answer
    must be exactly the one a full scoring of every element gives."""
    from browser_toolset.executor import finder

    quick = find_matches(page, query)
    original = finder._may_match_text
    finder._may_match_text = lambda candidate, parsed: True  # type: ignore[assignment]
    try:
        full = find_matches(page, query)
    finally:
        finder._may_match_text = original
    assert [node.key for node in quick] == [node.key for node in full]
