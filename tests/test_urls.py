"""The navigation rules of §4 and §6: scheme-less addresses, refused schemes, the host and private-range policy."""

from __future__ import annotations

import pytest

from browser_toolset.errors import ActionError
from browser_toolset.urls import REFUSED_SCHEME, URLPolicy, address_for_navigation


@pytest.mark.parametrize(
    ("written", "loaded"),
    [
        ("example.com", "https://example.com"),
        ("example.com/docs?q=1", "https://example.com/docs?q=1"),
        ("localhost:8000/x", "https://localhost:8000/x"),
        ("example.com:8443", "https://example.com:8443"),
        ("//cdn.example.com/a", "https://cdn.example.com/a"),
        ("  https://example.com/  ", "https://example.com/"),
        ("HTTP://EXAMPLE.com", "HTTP://EXAMPLE.com"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
    ],
)
def test_addresses_claude_writes_become_absolute_web_urls(written: str, loaded: str) -> None:
    assert address_for_navigation(written) == loaded


@pytest.mark.parametrize(
    "written",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "  javascript:alert(1)",
        "java\nscript:alert(1)",
        "java\tscript:alert(1)",
        "\x01javascript:alert(1)",
        "javascript:1",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "chrome://settings",
        "view-source:https://example.com",
        "ftp://example.com/",
        "about:blank",
        "blob:https://example.com/x",
        "mailto:a@example.com",
    ],
)
def test_every_other_scheme_gets_the_canonical_refusal(written: str) -> None:
    with pytest.raises(ActionError) as caught:
        address_for_navigation(written)
    assert str(caught.value) == REFUSED_SCHEME == "Error: Navigation refused. Only http and https URLs are allowed."


@pytest.mark.parametrize("written", ["", "   ", "http://", "https:///path", "http://example.com:99999/"])
def test_addresses_without_a_host_or_port_are_specific_errors(written: str) -> None:
    with pytest.raises(ActionError) as caught:
        address_for_navigation(written)
    assert str(caught.value).startswith("Error: ")
    assert str(caught.value) != REFUSED_SCHEME


def test_private_and_loopback_addresses_are_refused_by_default() -> None:
    policy = URLPolicy()
    for url in [
        "http://127.0.0.1/",
        "http://localhost:8000/",
        "http://app.localhost/",
        "http://10.0.0.5/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
    ]:
        assert policy.refusal(url) is not None, url
    assert policy.allows("https://example.com/")
    assert URLPolicy(allow_private=True).allows("http://127.0.0.1:8000/")


def test_host_allowlist_admits_subdomains_and_refuses_the_rest() -> None:
    policy = URLPolicy(allowed_hosts=["example.com", "*.docs.org"])
    assert policy.allows("https://example.com/a")
    assert policy.allows("https://shop.example.com/a")
    assert not policy.allows("https://example.com.evil.net/")
    assert not policy.allows("https://notexample.com/")
    assert policy.allows("https://api.docs.org/")
    assert not policy.allows("https://docs.org/")
    reason = policy.refusal("https://evil.net/")
    assert reason is not None and "evil.net" in reason


def test_guard_lets_blank_pages_through_and_refuses_other_schemes() -> None:
    policy = URLPolicy()
    assert policy.allows("about:blank")
    for url in ["data:text/html,hi", "file:///etc/passwd", "javascript:alert(1)", "chrome://version"]:
        assert not policy.allows(url)


def test_check_navigation_words_refusals_for_claude() -> None:
    policy = URLPolicy(allowed_hosts=["example.com"])
    with pytest.raises(ActionError, match="not on this session's list of allowed hosts"):
        policy.check_navigation("https://other.org/")
    with pytest.raises(ActionError) as caught:
        policy.check_navigation("ftp://example.com/")
    assert str(caught.value) == REFUSED_SCHEME
