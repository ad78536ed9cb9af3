"""The roles and names `read_page` gives, against the role corpus (web-platform-tests, Playwright's aria snapshots,
dom-accessibility-api), on Chromium and Firefox.

The corpus (`../shared/corpora/role-fidelity` beside the repository, or $BROWSER_TOOLSET_ROLE_CORPUS) holds 158
pages and 821 cases; its README gives the format. Each page is written to a temporary folder, served on 127.0.0.1,
loaded once per browser and read with the driver's own snapshot (the tree `read_page` prints):

- an `element` case names its element (`data-case`, or its page's `target`). The test marks every such element
  with an `aria-description` (and `aria-placeholder`) naming its case, reads the page and notes the key of each
  node that describes itself so; then it takes the marks off, reads again and judges the node of that key (a key
  lasts as long as its document). The mark never changes what is judged, which answers the README's
  "differential" cases (an `aria-description` would defeat role=none);
- a `node` case (Playwright) passes when the page's tree holds as many shown nodes of that role (and name) as the
  expected snapshot lists up to it, or exactly as many as Chromium's own tree;
- a `text` case passes when a `text` line of the page's `read_page` printout (filter "all") holds that text.

A role is right when it is the source's or Chromium's (the README counts either as a fair answer), with the README's
synonyms; a name, where the case checks one, likewise, both folded as `read_page` folds page text. Where our format
differs from a browser's tree on purpose, the rule is in docs/read-page-format.md ("How the tree differs from a
browser's") and is applied here before scoring (`ELEMENT_RULES`, `TEXT_RULES`); the test prints how many cases each
rule excuses, then the score and every miss, and fails below THRESHOLD.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.executor.tree_text import fold, render_tree
from browser_toolset.testing.plugin import unavailable
from browser_toolset.values import AXNode
from tests.support.server import PageServer

# the project's shared/ folder sits beside the repository (in CI too)
DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "corpora" / "role-fidelity"
CORPUS = Path(os.environ.get("BROWSER_TOOLSET_ROLE_CORPUS", str(DEFAULT_CORPUS)))
THRESHOLD = 0.995

Case = dict[str, Any]
Page = dict[str, Any]

SYNONYMS = {"image": "img", "presentation": "none", "directory": "list"}
MARK = re.compile(r"\bcase:(\S+)")

# Marks each case's element (`[data-case]`, and the targets given) with an aria-description and an aria-placeholder
# naming its case (the tree reports both; a frame's description is the driver's own), keeping what it had; or puts
# back what it had. Answers how many elements it marked.
MARK_SCRIPT = """((on, targets) => {
  const kept = window.__roleCorpusKept || (window.__roleCorpusKept = new Map());
  const found = Array.from(document.querySelectorAll("[data-case]"), (el) => [el, el.getAttribute("data-case")]);
  for (const [selector, id] of targets) {
    const el = document.querySelector(selector);
    if (el) found.push([el, id]);
  }
  const marks = ["aria-description", "aria-placeholder"];
  for (const [el, id] of found) {
    if (on) {
      kept.set(el, marks.map((name) => el.getAttribute(name)));
      for (const name of marks) el.setAttribute(name, "case:" + id);
    } else {
      kept.get(el).forEach((old, i) => {
        if (old === null) el.removeAttribute(marks[i]);
        else el.setAttribute(marks[i], old);
      });
    }
  }
  return found.length;
})(%s, %s)"""


def role_word(role: str | None) -> str | None:
    if role is None:
        return None
    word = role.strip().lower()
    return SYNONYMS.get(word, word)


def same_text(ours: str, theirs: str) -> bool:
    return fold(ours) == fold(theirs)


def counted(case: Case) -> bool:
    """The cases a score counts: elements the browser paints (text nodes have no `rendered`), but for the one whose
    expected role is not an ARIA role (`legend`)."""
    return case.get("rendered") is not False and role_word(case.get("role")) != "legend"


# --- the pages ----------------------------------------------------------------------------------------------------


def page_html(page: Page) -> str:
    """A corpus page as a document: whole (`html`), a body (`body_html`, its case's element found by `target`), or
    a list of `elements` (tag, attributes, text, case) each made by createElement and put in the body, as the
    source's table builds them (the parser would drop a <td> outside a table, or an <html> in a body)."""
    if "html" in page:
        return str(page["html"])
    head = f"<!doctype html><html><head><meta charset=utf-8><title>{page['id']}</title></head><body>"
    if "body_html" in page:
        return f"{head}{page['body_html']}</body></html>"
    build = (
        "for (const spec of ELEMENTS) {\n"
        "  const el = document.createElement(spec.tag);\n"
        "  for (const [name, value] of Object.entries(spec.attrs)) el.setAttribute(name, value);\n"
        "  if (spec.text) el.textContent = spec.text;\n"
        "  el.setAttribute('data-case', spec.case);\n"
        "  document.body.appendChild(el);\n"
        "}"
    )
    elements = json.dumps(page["elements"]).replace("</", "<\\/")
    return f"{head}<script>const ELEMENTS = {elements};\n{build}</script></body></html>"


def page_targets(page: Page) -> list[list[str]]:
    """[selector, case] for a case's element that carries no `data-case` (a `body_html` page's `target`)."""
    return [[page["target"], page["case"]]] if "target" in page else []


# --- what our tree says --------------------------------------------------------------------------------------------


def shown_nodes(root: AXNode) -> Iterator[AXNode]:
    """Every node read_page could print with filter "all": visible, under no hidden ancestor."""
    stack = list(reversed(root.children))
    while stack:
        node = stack.pop()
        if node.visible:
            yield node
            stack.extend(reversed(node.children))


def printed_texts(root: AXNode) -> list[str]:
    """The `text "…"` lines of the page's read_page printout (filter "all"), unquoted."""
    out = render_tree(root, ref_for=lambda key: "ref_1", filter="all", depth=10_000, max_chars=10_000_000)
    texts: list[str] = []
    for line in out.splitlines():
        stripped = line.strip()
        if stripped.startswith('text "'):
            texts.append(json.loads(stripped[len("text ") :]))
    return texts


def holds_text(texts: list[str], wanted: str) -> bool:
    folded = fold(wanted)
    return any(folded in fold(text) for text in texts)


# --- the rules of our format, applied before scoring ---------------------------------------------------------------

WRAPPERS = frozenset({"generic", "none", ""})

NEAREST_ARIA_ROLE = {
    "descriptionlist": "list",
    "figcaption": "caption",
    "date": "textbox",
    "datetime": "textbox",
    "inputtime": "textbox",
    "colorwell": "button",
}
"""Chromium's own roles for elements ARIA has no role for, and the ARIA role read_page gives them instead."""


def expected_roles(case: Case) -> set[str | None]:
    return {role_word(case.get("role")), role_word(case.get("chromium_role"))}


def rule_wrappers(case: Case, node: AXNode) -> bool:
    """generic, none and presentation (a source's "no role") are one kind of node to read_page: a wrapper."""
    return role_word(node.role) in WRAPPERS and bool(expected_roles(case) & WRAPPERS)


def rule_nearest_aria_role(case: Case, node: AXNode) -> bool:
    """Where ARIA has no role (the source expects none, Chromium names its own), read_page gives the nearest one."""
    chromium = role_word(case.get("chromium_role")) or ""
    return role_word(case.get("role")) == "" and NEAREST_ARIA_ROLE.get(chromium) == node.role


def rule_unnamed_forms(case: Case, node: AXNode) -> bool:
    """A <form> with no name reads as a wrapper: it says nothing its fields' lines do not."""
    return case.get("tag") == "form" and "form" in expected_roles(case) and node.role == "generic" and not node.name


ELEMENT_RULES: dict[str, Callable[[Case, AXNode], bool]] = {
    "wrappers": rule_wrappers,
    "nearest ARIA role": rule_nearest_aria_role,
    "unnamed forms": rule_unnamed_forms,
}
"""The rules of docs/read-page-format.md ("How the tree differs from a browser's") that account for an element's
node having another role than the case's."""


def rule_text_in_a_name(root: AXNode, wanted: str) -> bool:
    """Text that is (part of) its element's name prints as that name: a run repeating its parent's name is left
    out, and the children of buttons, tabs, images... are presentational."""
    folded = fold(wanted)
    return any(node.role != "text" and folded in fold(node.name) for node in shown_nodes(root))


def rule_values(root: AXNode, wanted: str) -> bool:
    """A field's value prints as `value="…"` on the field's line, not as a text line."""
    return any(node.value is not None and same_text(node.value, wanted) for node in shown_nodes(root))


def as_text(node: AXNode) -> AXNode:
    """`node` with every named, non-interactive generic read as the text it is named by."""
    if node.role == "generic" and node.name and not node.interactive:
        return AXNode("text", node.name, bounds=node.bounds, in_viewport=node.in_viewport)
    return attrs.evolve(node, children=tuple(as_text(child) for child in node.children))


def rule_named_wrappers(root: AXNode, wanted: str) -> bool:
    """A generic element with a name (a `title`) keeps a line of its own, where a browser's snapshot reads its
    text along with the text around it."""
    return holds_text(printed_texts(as_text(root)), wanted)


TEXT_RULES: dict[str, Callable[[AXNode, str], bool]] = {
    "values": rule_values,
    "text in a name": rule_text_in_a_name,
    "named wrappers": rule_named_wrappers,
}
"""The rules that account for text a browser's snapshot shows as a text node and read_page prints otherwise."""


@attrs.frozen
class Verdict:
    passed: bool
    got: str
    rule: str | None = None


def judge_element(case: Case, node: AXNode | None) -> Verdict:
    if node is None:
        return Verdict(False, "no node (hidden, or not in the tree)")
    got = f"{node.role} {node.name!r}"
    expected_name = case.get("name")
    if expected_name is not None and not any(
        same_text(node.name, name) for name in (expected_name, case.get("chromium_name")) if name is not None
    ):
        return Verdict(False, got)
    if case.get("role") is None or role_word(node.role) in expected_roles(case):
        return Verdict(True, got)
    for rule, applies in ELEMENT_RULES.items():
        if applies(case, node):
            return Verdict(True, got, rule)
    return Verdict(False, got)


def judge_node(case: Case, nodes: list[AXNode], wanted: int) -> Verdict:
    """`wanted`: how many nodes of this role and name the expected snapshot lists up to this case."""
    role, name = role_word(case["role"]), case.get("name")
    ours = sum(1 for n in nodes if role_word(n.role) == role and (name is None or same_text(n.name, name)))
    return Verdict(ours >= wanted or ours == case.get("chromium_matches"), f"{ours} such node(s)")


def judge_text(case: Case, root: AXNode, texts: list[str]) -> Verdict:
    wanted = case["name"]
    if holds_text(texts, wanted):
        return Verdict(True, "")
    for rule, applies in TEXT_RULES.items():
        if applies(root, wanted):
            return Verdict(True, "", rule)
    return Verdict(False, f"text lines {texts[:8]!r}")


# --- the test -----------------------------------------------------------------------------------------------------


@attrs.define
class Score:
    passed: int = 0
    total: int = 0
    misses: list[str] = attrs.Factory(list)
    excused: dict[str, list[str]] = attrs.Factory(dict)

    def add(self, case: Case, verdict: Verdict) -> None:
        self.total += 1
        if verdict.rule is not None:
            self.excused.setdefault(verdict.rule, []).append(case["id"])
        if verdict.passed:
            self.passed += 1
            return
        want = f"{case.get('role')} {case.get('name')!r}"
        chromium = f"{case.get('chromium_role')} {case.get('chromium_name')!r}"
        self.misses.append(
            f"{case['id']} ({case['page']} {case['label'][:60]!r}): want {want} (Chromium: {chromium}), got "
            f"{verdict.got}; {case.get('snippet', '')[:100]!r}"
        )


@pytest.fixture(scope="module")
def corpus() -> dict[str, Any]:
    cases_file = CORPUS / "cases.json"
    if not cases_file.is_file():
        unavailable(f"no role corpus at {CORPUS}")
    loaded: dict[str, Any] = json.loads(cases_file.read_text("utf-8"))
    return loaded


@pytest.fixture(scope="module")
def corpus_server(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageServer]:
    folder = tmp_path_factory.mktemp("role-corpus")
    for page in corpus["pages"]:
        # A byte order mark makes the browser read UTF-8 whatever the page declares (Playwright's fragments declare
        # nothing), and changes nothing else about the document.
        (folder / f"{page['id']}.html").write_text("\ufeff" + page_html(page), "utf-8")
    with PageServer(folder) as server:
        yield server


def read(driver: SeleniumDriver, tab: str, url: str, targets: list[list[str]]) -> tuple[AXNode, dict[str, str]]:
    """The page's tree, unmarked, and the key of each case's element in it."""
    driver.navigate(tab, url)
    keys: dict[str, str] = {}
    if driver.evaluate(tab, MARK_SCRIPT % ("true", json.dumps(targets))) != "0":
        for node in shown_nodes(driver.snapshot(tab).root):
            match = MARK.search(node.description) or MARK.search(node.placeholder)
            if match and node.key is not None:
                keys[match.group(1)] = node.key
        driver.evaluate(tab, MARK_SCRIPT % ("false", json.dumps(targets)))
    return driver.snapshot(tab).root, keys


def score_corpus(driver: SeleniumDriver, tab: str, server: PageServer, corpus: dict[str, Any]) -> Score:
    by_page: dict[str, list[Case]] = defaultdict(list)
    for case in corpus["cases"]:
        by_page[case["page"]].append(case)
    score = Score()
    for page in corpus["pages"]:
        cases = [case for case in by_page.get(page["id"], []) if counted(case)]
        if not cases:
            continue
        root, keys = read(driver, tab, server.url(f"{page['id']}.html"), page_targets(page))
        nodes = list(shown_nodes(root))
        by_key = {node.key: node for node in nodes if node.key is not None}
        texts = printed_texts(root)
        listed: Counter[tuple[str | None, str | None]] = Counter()
        for case in cases:
            if case["kind"] == "element":
                key = keys.get(case["id"])
                verdict = judge_element(case, by_key.get(key) if key is not None else None)
            elif case["kind"] == "node":
                listed[role_word(case["role"]), case.get("name")] += 1
                verdict = judge_node(case, nodes, listed[role_word(case["role"]), case.get("name")])
            else:
                verdict = judge_text(case, root, texts)
            score.add(case, verdict)
    return score


@pytest.mark.long(40)
def test_role_corpus(
    driver: SeleniumDriver, tab: str, browser_kind: str, corpus: dict[str, Any], corpus_server: PageServer
) -> None:
    score = score_corpus(driver, tab, corpus_server, corpus)
    print(f"\nrole corpus on {browser_kind}: {score.passed}/{score.total} ({score.passed / score.total:.1%})")
    for rule, ids in sorted(score.excused.items()):
        print(f"  rule {rule!r} excuses {len(ids)} case(s): {', '.join(ids)}")
    for miss in score.misses:
        print("  MISS", miss)
    assert score.passed >= THRESHOLD * score.total, (
        f"role corpus: {score.passed}/{score.total} is below {THRESHOLD:.1%}"
    )


def test_every_rule_is_a_rule_of_the_format() -> None:
    """The rules applied before scoring are exactly those docs/read-page-format.md gives."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "read-page-format.md").read_text("utf-8")
    section = doc.split("### How the tree differs from a browser's", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| \*\*(.+?)\*\* \|", section, flags=re.MULTILINE)
    assert sorted(documented) == sorted([*ELEMENT_RULES, *TEXT_RULES])
