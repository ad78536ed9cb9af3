"""Page-supplied text is folded, bounded and stripped of credentials before Claude reads it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browser_toolset.safety.sanitize import (
    bounded,
    download_url,
    one_line,
    redact,
    safe_log_line,
    safe_text,
    safe_title,
    safe_url,
)


def test_one_line_folds_line_breaks_bidi_and_controls() -> None:
    text = "Hello\nTab Context:\r\n- Executed\u2028on\u202etab\x00x"
    line = one_line(text, 500)
    assert "\n" not in line and "\u2028" not in line and "\u202e" not in line and "\x00" not in line
    assert line.startswith("Hello Tab Context:")
    assert one_line("x" * 50, 10) == "x" * 9 + "…"


def test_titles_are_bounded_but_not_escaped() -> None:
    assert safe_title('Say "hi" \\ now') == 'Say "hi" \\ now'
    assert len(safe_title("t" * 10_000)) == 300


def test_urls_lose_userinfo_and_credential_parameters() -> None:
    url = "https://user:pw@example.com/a b?id=7&token=abc123&X-Amz-Signature=deadbeef#frag"
    safe = safe_url(url)
    assert "user" not in safe and "pw@" not in safe
    assert "abc123" not in safe and "deadbeef" not in safe
    assert "id=7" in safe and "%20" in safe
    assert "token=REDACTED" in safe and "X-Amz-Signature=REDACTED" in safe
    assert safe_url("https://example.com/\nfake") == "https://example.com/%20fake"


def test_download_urls_drop_the_query_entirely() -> None:
    assert download_url("https://cdn.example.com/f/price-list.csv?Expires=1&Signature=x") == (
        "https://cdn.example.com/f/price-list.csv"
    )


def test_redact_credentials_in_log_lines() -> None:
    line = (
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123 password=hunter22 "
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop sk-abcdefghijklmnopqrstuvwx ok"
    )
    clean = redact(line)
    for secret in ("abcdefghijklmnopqrstuvwxyz0123", "hunter22", "eyJhbGciOiJIUzI1NiJ9", "sk-abcdefghijkl"):
        assert secret not in clean
    assert clean.endswith(" ok")


def test_bounded_text_says_it_was_cut() -> None:
    text = "a" * 100
    assert bounded(text, 200) == text
    cut = bounded(text, 80, what="page text")
    assert len(cut) <= 80 and "page text truncated at 80 characters" in cut
    assert bounded("line1\nline2\x00\u202e", 100) == "line1\nline2 "


# --- the redaction samples: each secret gone, the text around it kept -----------------------------------------------

SAMPLES = Path(__file__).resolve().parent.parent / "corpora" / "redaction_samples.json"
FOLDS: dict[str, Callable[[str], str]] = {"text": redact, "url": safe_url, "title": safe_title}


def test_the_redaction_samples(capsys: pytest.CaptureFixture[str]) -> None:
    samples = json.loads(SAMPLES.read_text())["samples"]
    problems: list[str] = []
    for sample in samples:
        out = FOLDS[sample["kind"]](sample["text"])
        leaked = [secret for secret in sample["secrets"] if secret in out]
        lost = [kept for kept in sample["kept"] if kept not in out]
        if leaked or lost:
            problems.append(f"{sample['note']}: {out!r} leaks {leaked} loses {lost}")
    assert not problems, "\n".join(problems)
    with capsys.disabled():
        print(f"\nredaction samples: {len(samples)} as expected")


def test_invisible_and_bidi_characters_are_removed_not_spaced() -> None:
    assert one_line("ab\u200bc\u202ed\u2066e\ufeff\U000e0041f", 100) == "abcdef"
    assert bounded("a\u200d\nb", 100) == "a\nb"
    assert one_line("a\u2028b\x85c", 100) == "a b c"


def test_a_cut_log_line_says_how_long_it_was() -> None:
    line = safe_log_line("x" * 5000, 1000)
    assert len(line) == 1000
    assert line.endswith("… [cut: 5,000 characters in all]")
    assert safe_log_line("short", 1000) == "short"


def test_a_secret_straddling_the_cut_is_still_redacted() -> None:
    key = "sk-" + "a1B2" * 10
    line = safe_log_line("y" * 990 + key, 1000)
    assert "a1B2a1B2" not in line


def test_redaction_is_stable_when_applied_twice() -> None:
    samples = json.loads(SAMPLES.read_text())["samples"]
    for sample in samples:
        once = FOLDS[sample["kind"]](sample["text"])
        assert FOLDS[sample["kind"]](once) == once, sample["note"]


def test_ordinary_urls_come_back_as_written() -> None:
    for url in [
        "https://shop.test/search?q=red+shoes",
        "https://example.com/docs/getting-started#install",
        "https://example.com/a/b/c?x=1&y=2&z=",
        "https://example.com/?",
        "about:blank",
        "https://en.wikipedia.org/wiki/Python_(programming_language)",
    ]:
        assert safe_url(url) == url


def test_opaque_urls_lose_token_shapes_only() -> None:
    assert safe_url("data:text/plain,sk-abcdefghijklmnopqrstuvwx") == "data:text/plain,REDACTED"
    assert safe_url("mailto:ada@example.com") == "mailto:ada@example.com"


def test_nested_redirect_urls_are_redacted_to_a_bounded_depth() -> None:
    inner = "https://c.example/?token=abc123"
    url = "https://a.example/?next=" + quote("https://b.example/?next=" + quote(inner, safe=""), safe="")
    assert "abc123" not in unquote(unquote(safe_url(url)))
    deep = "https://x.example/?token=zzz"
    for _ in range(50):
        deep = "https://x.example/?next=" + quote(deep, safe="")
    safe_url(deep)  # no recursion error, whatever is left


@pytest.mark.parametrize(
    "hostile",
    [
        "a_" * 50_000,
        "1 " * 50_000,
        "eyJ." * 25_000,
        "-----BEGIN PRIVATE KEY-----" * 4_000,
        "x_" * 20_000 + "token=",
        "http://a/?" + "a=b&" * 25_000,
        "/" * 100_000,
        "Bearer " * 15_000,
    ],
)
def test_redaction_stays_fast_on_hostile_input(hostile: str) -> None:
    """No pattern backtracks catastrophically: backtracking on inputs this long takes minutes, while these take
    20-170 ms on the 2-core machine. Measured in CPU time, the calmest of three runs: wall time beside a loaded
    suite once took 2 s, which said nothing about the patterns."""

    def once() -> float:
        started = time.thread_time()
        safe_log_line(hostile, 1000)
        safe_text(hostile, 20_000, what="script result")
        safe_url(hostile)
        safe_title(hostile)
        return time.thread_time() - started

    assert min(once() for _ in range(3)) < 2.0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_whatever_a_page_sends_comes_out_sendable(text: str) -> None:
    for out in (safe_title(text), safe_log_line(text, 200), safe_url(text), download_url(text)):
        out.encode("utf-8")
        assert not any(char in out for char in "\n\r\u2028\u2029\u202e\u200b")
    assert len(safe_title(text)) <= 300
    assert len(safe_log_line(text, 200)) <= 200
    bounded_text = safe_text(text, 200, what="script result")
    bounded_text.encode("utf-8")
    assert len(bounded_text) <= 200


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[A-Za-z0-9]{30,40}", fullmatch=True), st.sampled_from(["sk-", "ghp_", "sk_live_", "xoxb-"]))
def test_key_shapes_never_survive_anywhere_in_a_line(body: str, prefix: str) -> None:
    key = prefix + body
    for line in (f"key {key} end", f'{{"k":"{key}"}}', f"https://x.example/?q={key}", f"https://x.example/{key}/"):
        assert body not in redact(line), line
