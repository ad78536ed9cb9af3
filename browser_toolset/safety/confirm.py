"""Which calls need a person's go-ahead first: purchases, sent messages, deletions, account changes, accepted terms.

The contract's checklist asks that high-impact actions and anything needing affirmative consent be confirmed by a
human before each call, since one turn can carry several. The SDK gives every call to a `confirm` hook before it
runs; `ActionGate` is such a hook. It reads what the call is about to act on (the element's role and accessible
name from the ref Claude sent, the names of the form or dialog around it, the tab's URL) and sorts the call into a
category with `RULES`, a table of words; each category has a decision: `allow`, `deny`, or `ask` a person through
a callback. With nobody to ask (the `exec` CLI reads its calls from a pipe), `ask` is `deny`.

It is a heuristic on what the page calls things, so it errs towards asking: a page can name a "Pay" button
"Continue", which is why generic commit words count on checkout, account and consent pages and in dialogs whose
title names the action. A click by coordinate is judged by the element under that point, read from the page just
before the call (the executor maps the coordinate exactly as for the click), so a "Buy now" button is held the same
whether Claude clicks its ref or its pixels. An element inside a frame (a payment form embedded from another site) is
judged as on the page, by its name, the forms around it (in the frame and around the frame) and the page's address;
the reasons given name the origin the frame comes from, so the person asked knows whose button it is.

What commits is the click or key that submits, sends, buys, deletes or changes an account, judged by what the element
does as far as the gate can tell: its role and what activating it loads (`AXNode.action`: a link's address, the
method and address of the form a button submits), its name, and the form, dialog and page it is in. A link loads a
page: only rules a page load can perform count for it (deleting or unsubscribing by address), so a "Buy now" link to
a product page runs, while a link that only runs the page's script is judged as a button. A form submitted to a
checkout, deletion or account address gives a generic "Continue" or "OK" the weight of that address, and an address
that performs the action by itself (`/items/7/delete`) is held whatever the button's name; a GET form sent to
another page (a search form on a checkout page) is judged by its own address, not the page's. A field or container
commits nothing. A key call is judged by what its Enter or Space activates (`Driver.key_target`): a focused button
or link, or, for Enter in a single-line field, the form's default button, so Enter in a checkout form is its "Place
order". Filling a field, choosing an option or ticking a box commits nothing of itself; the one exception is a box
whose tick is the consent (terms, an authorisation), never a newsletter or marketing box. Names that use a
category's words for the page's own view ("Delete filter", "Clear search text") are spared.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Literal, Protocol, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import attrs
from anthropic.tools.browser import BetaConfirmContext
from anthropic.types.beta import (
    BetaBrowserCoordinateTarget,
    BetaBrowserDoubleClickInput,
    BetaBrowserFormInputInput,
    BetaBrowserHoldKeyInput,
    BetaBrowserKeyInput,
    BetaBrowserLeftClickInput,
    BetaBrowserNavigateInput,
    BetaBrowserRefTarget,
    BetaBrowserTripleClickInput,
)

from ..executor.errors import ActionError
from ..executor.keys import parse_sequence
from .sanitize import one_line
from .targets import Found, KeyPress

__all__ = [
    "CATEGORIES",
    "DECISIONS",
    "RULES",
    "ActionGate",
    "Ask",
    "Assessment",
    "Category",
    "Decision",
    "Found",
    "KeyPress",
    "Rule",
    "Target",
    "TargetLookup",
    "classify",
    "key_press",
    "parse_decisions",
]

log = logging.getLogger("browser_toolset")

Category: TypeAlias = Literal["purchase", "message", "delete", "account", "terms"]
Decision: TypeAlias = Literal["ask", "deny", "allow"]
CATEGORIES: tuple[Category, ...] = ("purchase", "message", "delete", "account", "terms")
DECISIONS: tuple[Decision, ...] = ("ask", "deny", "allow")
STRICTNESS: Mapping[Decision, int] = {"allow": 0, "ask": 1, "deny": 2}


@attrs.frozen
class Target:
    """What a call is about to act on, as far as the executor knows without reading the page again."""

    member: str
    role: str | None = None
    name: str | None = None
    context: tuple[str, ...] = ()
    """Accessible names of the form, dialog or region around the element, nearest first."""
    url: str | None = None
    """The tab's URL as Claude last saw it, or the URL a `navigate` is going to."""
    checks: bool = False
    """A `form_input` that turns a checkbox, radio or switch on."""
    frame: str | None = None
    """The origin of the frame the element is in (as its frame line names it); None on the page's own document."""
    action: str = ""
    """What activating the element loads (`browser_toolset.values.ACTION_FORMS`); empty when unknown."""


@attrs.frozen
class Rule:
    """One category, as words. `names` are accessible names that do the thing on their own (`Place order`);
    `places` are URL paths and form or dialog names where a generic `COMMIT_WORDS` name (`Continue`, `Confirm`)
    does it; `checks` are the names of checkboxes whose checking does it; `navigations` are URL paths whose mere
    loading does it. Hosts are never matched: `accounts.example.com` is where people sign in, not a change.
    `spares` are names that use the category's words for something that commits nothing (`Delete filter` changes
    the page's view, `Subscribe to our newsletter` buys nothing); `by_link` says whether following a link can do
    it: a link loads a page, so a "Buy now" link only leads to the product or checkout page whose own button then
    commits, while a link can delete or unsubscribe (`GET /items/7/delete`, the link in a mail)."""

    category: Category
    label: str
    names: str
    places: str
    checks: str = r"(?!)"
    navigations: str = r"(?!)"
    spares: str = r"(?!)"
    by_link: bool = True

    def pattern(self, field: str) -> re.Pattern[str]:
        return re.compile(getattr(self, field), re.IGNORECASE)


COMMIT_WORDS = (
    r"^\s*(?:yes\b.*|ok(?:ay)?|continue|confirm|submit|next|proceed|done|finish|complete|save(?: changes)?|apply|"
    r"update|change|i'?m sure|i understand|agree|accept|go|send|do it)\s*[.!]?\s*$"
)
"""Names that commit whatever the form or dialog they sit in is about."""

RULES: tuple[Rule, ...] = (
    Rule(
        "purchase",
        "a purchase or payment",
        names=r"\b(?:buy|purchase|place (?:your |the )?order|pay|"
        r"complete (?:order|purchase|payment|booking)|confirm (?:order|purchase|payment|booking)|"
        r"submit (?:order|payment)|order now|subscribe|upgrade|start (?:free )?trial|donate|book now|reserve|"
        r"rent|place bid|bid now|top ?up|add funds|send money|transfer (?:money|funds)|withdraw|renew)\b",
        places=r"checkout|payment|billing|purchase|\bpay\b|/order|order summary|confirm (?:your )?order|"
        r"subscription|donat|booking",
        spares=r"\bsubscribe (?:to )?(?:our |the |my )?(?:newsletter|mailing list|updates|blog|channel|podcast|feed|"
        r"notifications|alerts)\b",
        by_link=False,
    ),
    Rule(
        "message",
        "sending a message or publishing",
        names=r"^(?:send|post|publish|tweet|submit (?:comment|review|post|message|reply|"
        r"feedback|application))\b|\b(?:send (?:message|email|mail|invite|invitation|now|reply)|post (?:comment|"
        r"reply|message|update|now)|publish (?:post|now|changes|article|story)|send to)\b",
        places=r"compose|/messages?\b|\bmessage\b|\bmail\b|chat|inbox|comment|reply|/post|new post|tweet|feedback|"
        r"contact us|/contact",
        by_link=False,
    ),
    Rule(
        "delete",
        "deleting something",
        names=r"\b(?:delete|remove|erase|destroy|discard|trash|wipe|purge|clear (?:all|history|data|cart)|"
        r"empty (?:trash|bin|cart)|permanently|cancel (?:order|subscription|membership|booking|reservation|"
        r"account)|close (?:my |your )?account)\b",
        places=r"delete|remove|destroy|discard|erase|close account|cancel (?:order|subscription)",
        navigations=r"/(?:delete|remove|destroy|erase)(?:[/?#._-]|$)",
        spares=r"\b(?:delete|remove|clear|discard|reset)(?: all| the| this| these| applied)? (?:filters?|search(?:es)? "
        r"(?:terms?|text|query|box)|sort(?:ing)?|columns? (?:filters?|sort(?:ing)?)|highlights?|"
        r"formatting)\b",
    ),
    Rule(
        "account",
        "an account or security change",
        names=r"\b(?:(?:change|reset|update|set|new) (?:your |my )?(?:password|passphrase|email|e-mail|phone|"
        r"username|pin)|(?:enable|disable|turn (?:on|off)|remove|set up|reset) (?:two-factor|2fa|mfa|two-step|"
        r"2-step|authenticator|passkey|security key)|sign out (?:of )?(?:all|everywhere|other)|log out "
        r"(?:of )?(?:all|everywhere|other)|revoke|deactivate|(?:generate|create|regenerate|rotate|delete) "
        r"(?:an? |new )?(?:api |access |personal access )?(?:key|token)|authori[sz]e|allow access|grant "
        r"(?:access|permission)|transfer ownership|make (?:owner|admin)|change role|unsubscribe|"
        r"link account|connect account|(?:delete|close|remove) (?:my |your |this )?account)\b",
        places=r"security|(?:change|reset|new|update)[-_ ]?(?:your )?password|two-factor|2fa|/admin|permission|"
        r"oauth|authori[sz]|/account/(?:settings|security|edit|delete|close|deactivate)|account settings",
        navigations=r"/(?:unsubscribe|deactivate|revoke|oauth2?/authori[sz]e)(?:[/?#._-]|$)",
    ),
    Rule(
        "terms",
        "accepting terms or giving consent",
        names=r"\b(?:i (?:agree|accept|consent)|agree(?: (?:to|and))?|accept(?: (?:all|terms|the terms|"
        r"cookies|and (?:continue|close)|invitation|offer|agreement))?|consent|allow all|(?:e-?)?sign "
        r"(?:the )?(?:contract|agreement|document|now))\b",
        places=r"terms|consent|agreement|contract|\btos\b|eula|privacy|cookie",
        checks=r"\b(?:agree|accept|consent|terms|conditions|privacy|policy|contract|agreement|eula|authori[sz]e)\b",
        # A box that only asks for mail (a newsletter, offers) accepts nothing, unless it also names terms.
        spares=r"^(?!.*\b(?:terms|conditions|contract|agreement|eula|authori[sz]e)\b).*\b(?:newsletters?|marketing|"
        r"promotions?|promotional|offers|mailing list|product updates|news and updates)\b|"
        r"\b(?:manage|customi[sz]e|review|read|view|learn more about) (?:my |your |the )?(?:consent|cookies|terms)\b",
    ),
)
"""The categories, each as words matched (case-insensitively) against accessible names, URLs and form names."""

CLICK_MEMBERS = frozenset({"left_click", "double_click", "triple_click"})
"""Members that activate what they hit (a right or middle click opens a menu or a tab, a hover nothing)."""
KEY_MEMBERS = frozenset({"key", "hold_key"})
"""Members whose Enter or Space activates the focused element (`KeyPress`), judged as a click on what it activates."""
ACTIVATING_KEYS = ("Enter", " ")
INERT_ROLES = frozenset(
    {"textbox", "searchbox", "combobox", "spinbutton", "slider", "scrollbar", "separator", "heading", "paragraph",
     "document", "main", "banner", "contentinfo", "navigation", "complementary", "region", "form", "search",
     "list", "table", "grid", "row", "rowgroup", "rowheader", "columnheader", "dialog", "alertdialog", "tablist",
     "toolbar", "menu", "menubar", "tree", "listbox", "radiogroup"}
)  # fmt: skip
"""Roles whose click commits nothing (focusing a field, clicking a container); pages put click handlers on
anything else, so every other role counts."""
CHECKABLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
LINK_ROLES = frozenset({"link"})
"""Roles whose click loads a page: judged only by the rules a navigation can perform (`Rule.by_link`)."""

_COMMIT_RE = re.compile(COMMIT_WORDS, re.IGNORECASE)


@attrs.frozen
class Assessment:
    """Why a call was sorted into its categories, for the refusal and for a person deciding."""

    target: Target
    categories: tuple[Category, ...]
    reasons: tuple[str, ...]

    def describe(self) -> str:
        labels = [rule.label for rule in RULES if rule.category in self.categories]
        return " and ".join(labels)


def _matches(rule: Rule, field: str, *texts: str | None) -> bool:
    pattern = rule.pattern(field)
    return any(text and pattern.search(text) for text in texts)


def _where(url: str | None) -> str | None:
    """The part of a URL that says what a page is for: its path, query and fragment, not its host."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return urlunsplit(("", "", parts.path, parts.query, parts.fragment))


@attrs.frozen
class _Load:
    """What activating an element loads, read from `Target.action`: `method` and `url`, `script` for a link that
    runs the page's script, neither when unknown or a dialog closes."""

    method: str = ""
    url: str = ""
    script: bool = False

    @classmethod
    def of(cls, action: str) -> _Load:
        if action == "SCRIPT":
            return cls(script=True)
        method, _, url = action.partition(" ")
        return cls(method.upper(), url.strip()) if url.strip() and method.isalpha() else cls()


def _page(url: str | None) -> str:
    """A URL without its query and fragment: the page it names."""
    return (url or "").split("#", 1)[0].split("?", 1)[0].rstrip("/")


def _places(target: Target, load: _Load) -> tuple[str | None, ...]:
    """The addresses that say what a generic "Continue" commits: the page's and the one the element sends a form
    to; only the latter for a GET form sent to another page (a search form on a checkout page searches)."""
    if load.method == "GET" and target.role not in LINK_ROLES and _page(load.url) != _page(target.url):
        return (_where(load.url),)
    return (_where(target.url), _where(load.url))


def _loads_a_page(target: Target, load: _Load) -> bool:
    """Whether activating the element only loads a page: a link, unless it runs the page's script. A button that
    submits a GET form is not taken for one: its name still counts in full (a site may take an order by GET)."""
    return target.role in LINK_ROLES and not load.script


def classify(target: Target) -> Assessment:
    """The categories `target` falls into (none for an ordinary call)."""
    found: list[Category] = []
    reasons: list[str] = []
    name = (target.name or "").strip()
    shown = one_line(name, 80)
    load = _Load.of(target.action)
    page_load = _loads_a_page(target, load)
    for rule in RULES:
        why: str | None = None
        if target.member == "navigate":
            if _matches(rule, "navigations", _where(target.url)):
                why = "the address itself performs it"
        elif _matches(rule, "spares", name):
            # The category's words for something that commits nothing (a view filter, a newsletter).
            pass
        elif (target.member in CLICK_MEMBERS or target.member in KEY_MEMBERS) and target.role not in INERT_ROLES:
            if load.url and _matches(rule, "navigations", _where(load.url)):
                why = "the address it " + ("loads" if page_load else "submits to") + " performs it"
            elif not name or (page_load and not rule.by_link):
                pass
            elif _matches(rule, "names", name):
                why = f"the element is named {shown!r}"
            elif _COMMIT_RE.search(name) and (
                _matches(rule, "places", *_places(target, load), *target.context)
                or _matches(rule, "names", *target.context)
            ):
                why = f"{shown!r} commits a form, dialog or page about it"
        elif target.member == "form_input" and target.checks and name and _matches(rule, "checks", name):
            # Filling a field commits nothing (the click or key that submits the form does); ticking a box
            # counts only where the tick itself is the consent (terms, an authorisation), by the rule's `checks`.
            why = f"it checks {shown!r}"
        if why is not None:
            found.append(rule.category)
            reasons.append(why if target.frame is None else f"{why}, in a frame from {one_line(target.frame, 120)}")
    return Assessment(target=target, categories=tuple(found), reasons=tuple(reasons))


class TargetLookup(Protocol):
    """What the toolset knows about the element a call names: role, name and surrounding context of a ref, read
    from the refs Claude was shown (no page read), of the element under a click's coordinate (in screenshot
    pixels, as the call gives it), read from the page, or of what a key press activates (`KeyPress`), read from
    the page (`BrowserToolset.describe_ref`). None when unknown."""

    def __call__(self, tab_id: str | None, ref: str | BetaBrowserCoordinateTarget | KeyPress) -> Found | None: ...


Ask: TypeAlias = Callable[[Assessment], bool]
"""Asks a person about one call; True lets it run."""


def target_of(context: BetaConfirmContext, lookup: TargetLookup | None) -> Target:
    """The `Target` a confirm context describes."""
    member = str(context.member)
    call = context.input
    if isinstance(call, BetaBrowserNavigateInput):
        return Target(member=member, url=call.url)
    ref: str | BetaBrowserCoordinateTarget | KeyPress | None = None
    checks = False
    if isinstance(call, BetaBrowserLeftClickInput | BetaBrowserDoubleClickInput | BetaBrowserTripleClickInput):
        # A ref names the element; a coordinate hits whatever is under it, which the lookup reads.
        ref = call.target.ref if isinstance(call.target, BetaBrowserRefTarget) else call.target
    elif isinstance(call, BetaBrowserFormInputInput):
        ref = call.target.ref
        checks = call.value is True or (isinstance(call.value, str) and call.value.strip().lower() in ("true", "on"))
    elif isinstance(call, BetaBrowserKeyInput | BetaBrowserHoldKeyInput):
        ref = key_press(call.text)
    if ref is None or lookup is None:
        return Target(member=member, url=context.tab_url)
    found = lookup(context.tab_id, ref)
    if found is None:
        return Target(member=member, url=context.tab_url)
    if member == "form_input" and found.role not in CHECKABLE_ROLES:
        checks = False
    return Target(
        member=member,
        role=found.role,
        name=found.name,
        context=found.context,
        url=context.tab_url,
        checks=checks,
        frame=found.frame,
        action=found.action,
    )


def key_press(text: str) -> KeyPress | None:
    """The first Enter or Space of a key call's `text` (as `key` and `hold_key` take it), or None when it has
    neither (or a key the executor will refuse anyway)."""
    try:
        chords = parse_sequence(text)
    except ActionError:
        return None
    moved = False
    for chord in chords:
        pressed = next((key for key in chord if key in ACTIVATING_KEYS), None)
        if pressed is not None:
            return KeyPress(pressed, moved)
        moved = moved or "Tab" in chord
    return None


def parse_decisions(items: Iterable[str]) -> dict[Category, Decision]:
    """`CATEGORY=DECISION` strings (as `--confirm` takes them; `all=…` sets every category) as a mapping. Raises
    `ValueError` naming what is wrong."""
    decisions: dict[Category, Decision] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip().lower(), value.strip().lower()
        if not sep or value not in DECISIONS:
            raise ValueError(f"expected CATEGORY={'|'.join(DECISIONS)}, not {item!r}")
        if key == "all":
            decisions.update(dict.fromkeys(CATEGORIES, value))
            continue
        if key not in CATEGORIES:
            raise ValueError(f"unknown category {key!r}; the categories are {', '.join(CATEGORIES)} (or all)")
        decisions[key] = value
    return decisions


@attrs.define
class ActionGate:
    """A `confirm` hook that holds high-impact calls: each category's decision comes from `decisions` (missing
    ones are `default`); `ask` is the person to ask, and without one `ask` means `deny`. `lookup` tells it what a
    ref names (`BrowserToolset.describe_ref`); `then` is a further hook every call that passes goes on to (the
    approval of optional members, for example)."""

    decisions: Mapping[Category, Decision] = attrs.field(factory=dict)
    default: Decision = "ask"
    ask: Ask | None = None
    lookup: TargetLookup | None = None
    then: Callable[[BetaConfirmContext], bool] | None = None

    def decision(self, category: Category) -> Decision:
        return self.decisions.get(category, self.default)

    def __call__(self, context: BetaConfirmContext) -> bool:
        assessment = classify(target_of(context, self.lookup))
        if assessment.categories:
            decision = max((self.decision(c) for c in assessment.categories), key=STRICTNESS.__getitem__)
            if decision == "ask" and self.ask is not None:
                log.info("asking about %s: %s", context.member, assessment.describe())
                if not self.ask(assessment):
                    raise ActionError(self._refusal(assessment, "the user declined it"))
            elif decision != "allow":
                log.info("refused %s: %s", context.member, assessment.describe())
                raise ActionError(
                    self._refusal(assessment, "this session refuses such actions without a person to confirm them")
                )
        return True if self.then is None else self.then(context)

    @staticmethod
    def _refusal(assessment: Assessment, outcome: str) -> str:
        target = assessment.target
        what = target.member
        if target.role and target.name is not None:
            what += f" on {target.role} {one_line(target.name, 80)!r}"
        elif target.member == "navigate" and target.url:
            what += " to this address"
        return (
            f"{what} was not run: it looks like {assessment.describe()} ({'; '.join(assessment.reasons)}), and "
            f"{outcome}. Do not retry it or work around it; tell the user what you were about to do so they can do "
            "it themselves or allow it."
        )
