"""The walker's accessible names against the W3C accname tests of web-platform-tests.

The corpus (`../shared/corpora/wpt-accname` beside the repository, or $BROWSER_TOOLSET_WPT_ACCNAME) holds the
unchanged WPT pages and `cases.json`, one (page, element, expected name) per case. Each page is served over http
on 127.0.0.1 in place, loaded once in one headless Chromium, and the walker's `inspect` op (the same role and name
code the snapshot runs) names every case element. Chromium's own accessibility tree agrees with the expectations
on 508 of the 523 cases; FLOOR is what the walker measured when this test was written, so a change that loses a
case fails here.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from browser_toolset.testing.plugin import unavailable
from tests.support.server import serve
from tests.support.walker import WalkerBrowser

# the project's shared/ folder sits beside the repository (in CI too)
DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "corpora" / "wpt-accname"
CORPUS = Path(os.environ.get("BROWSER_TOOLSET_WPT_ACCNAME", str(DEFAULT_CORPUS)))
CHROMIUM_SCORE = 508
FLOOR = 520

_ASCII_WHITESPACE = re.compile(r"[ \t\n\f\r]+")


def normalise(name: str) -> str:
    """The corpus README's comparison: ASCII whitespace runs collapse to one space, then trim (U+00A0 stays)."""
    return _ASCII_WHITESPACE.sub(" ", name).strip(" ")


def _find(results: list[dict[str, Any]], case: dict[str, Any]) -> dict[str, Any] | None:
    if case["testname"] is not None:
        for result in results:
            if result["testname"] == case["testname"]:
                return result
        return None
    nth = int(case["nth"])
    return results[nth] if nth < len(results) else None


@pytest.mark.long(25)
def test_accname_wpt(walker_browser: WalkerBrowser) -> None:
    cases_file = CORPUS / "cases.json"
    if not cases_file.is_file():
        unavailable(f"no accname corpus at {CORPUS}")
    cases: list[dict[str, Any]] = json.loads(cases_file.read_text("utf-8"))
    by_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        by_page[case["file"]].append(case)

    passed = 0
    failures: list[str] = []
    with serve(CORPUS) as server:
        base = server.base
        for page, page_cases in by_page.items():
            walker_browser.get(f"{base}/{page}")
            found: dict[str, list[dict[str, Any]]] = {}
            for case in page_cases:
                selector = case["selector"]
                if selector not in found:
                    found[selector] = walker_browser.call("inspect", {"selector": selector})
                result = _find(found[selector], case)
                got = None if result is None else normalise(result["name"])
                expected = normalise(case["expected"])
                if got == expected:
                    passed += 1
                else:
                    label = case["testname"] or case["selector"]
                    role = None if result is None else result["role"]
                    failures.append(
                        f"{page} [{label}]: expected {expected!r}, got {got!r} (role {role}; "
                        f"Chromium: {normalise(case['chromium_156_name'])!r})"
                    )

    print(f"\naccname (WPT): {passed}/{len(cases)} (Chromium's own tree: {CHROMIUM_SCORE}/{len(cases)})")
    for failure in failures:
        print("  FAIL", failure)
    assert passed >= FLOOR, f"accname score {passed} fell below the floor {FLOOR}"
