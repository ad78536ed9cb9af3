"""Page-supplied text is folded, bounded and stripped of credentials before Claude reads it."""

from __future__ import annotations

from browser_toolset.sanitize import bounded, download_url, one_line, redact, safe_title, safe_url


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
