"""docs/contract.md §4, §6 on navigation: scheme-less addresses, refused schemes, the host and private-range policy,
with a corpus of hostile URLs and a fake resolver (no test here ever looks a name up on the network)."""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browser_toolset.executor.errors import ActionError
from browser_toolset.safety import urls
from browser_toolset.safety.urls import REFUSED_SCHEME, CachingResolver, URLPolicy, address_for_navigation


@pytest.mark.parametrize(
    ("written", "loaded"),
    [
        ("example.com", "https://example.com/"),
        ("example.com/docs?q=1", "https://example.com/docs?q=1"),
        ("localhost:8000/x", "https://localhost:8000/x"),
        ("example.com:8443", "https://example.com:8443/"),
        ("//cdn.example.com/a", "https://cdn.example.com/a"),
        ("  https://example.com/  ", "https://example.com/"),
        ("HTTP://EXAMPLE.com", "http://example.com/"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://0x7f.1/", "http://127.0.0.1/"),
        ("http://a@169.254.169.254\\@b/", "http://a@169.254.169.254/@b/"),
        ("https://Bücher.example/a b", "https://xn--bcher-kva.example/a%20b"),
        ("https://example.com:443/", "https://example.com/"),
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


@pytest.mark.parametrize(
    "written", ["", "   ", "http://", "http://[::1", "http://example.com:99999/", "http://1.2.3.4.5/"]
)
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
    policy = URLPolicy(allow_hosts=["example.com", "*.docs.org"])
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
    policy = URLPolicy(allow_hosts=["example.com"])
    with pytest.raises(ActionError, match="not on this session's list of allowed hosts"):
        policy.check_navigation("https://other.org/")
    with pytest.raises(ActionError) as caught:
        policy.check_navigation("ftp://example.com/")
    assert str(caught.value) == REFUSED_SCHEME


# --- the hostile corpus: every encoding of a local or private address, parsed as a browser parses it -------------

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "hostile_urls.json"
SECRET_IN_CORPUS = "hunter2"
EXPECTED_TEXT = {"scheme": REFUSED_SCHEME, "parse": "could not be parsed"}


def corpus() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CORPUS.read_text())
    return data


def corpus_resolver(table: Mapping[str, Sequence[str]]) -> Callable[[str], Sequence[str]]:
    def resolve(host: str) -> Sequence[str]:
        if host in table:
            return table[host]
        raise OSError(f"{host} does not resolve")

    return resolve


def verdict(policy: URLPolicy, url: str) -> str | None:
    """The refusal `navigate` gives for `url` (None when it loads)."""
    try:
        return policy.refusal(address_for_navigation(url))
    except ActionError as exc:
        return str(exc)


def test_the_hostile_url_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    data = corpus()
    policy = URLPolicy(resolver=corpus_resolver(data["resolver"]))
    refused = allowed = 0
    wrong: list[str] = []
    for case in data["cases"]:
        reason = verdict(policy, case["url"])
        got = "allowed" if reason is None else "refused"
        expected_text = EXPECTED_TEXT.get(case.get("rule", ""), case.get("rule", ""))
        if got != case["verdict"] or (reason is not None and expected_text not in reason):
            wrong.append(
                f"{case['url']!r} ({case['note']}): expected {case['verdict']} {expected_text!r}, got {reason}"
            )
            continue
        if reason is not None:
            assert SECRET_IN_CORPUS not in reason
            refused += 1
        else:
            allowed += 1
    assert not wrong, "\n".join(wrong)
    assert refused + allowed >= 300
    with capsys.disabled():
        print(f"\nhostile URLs: {refused} refused as expected, {allowed} allowed as expected")


def test_the_guard_agrees_with_navigate_on_every_absolute_corpus_url() -> None:
    data = corpus()
    policy = URLPolicy(resolver=corpus_resolver(data["resolver"]))
    for case in data["cases"]:
        url = case["url"]
        try:
            absolute = address_for_navigation(url)
        except ActionError:
            continue
        if url.strip().lower().startswith(("http:", "https:")):
            assert policy.allows(url) == (case["verdict"] == "allowed"), url
        assert policy.allows(absolute) == (case["verdict"] == "allowed"), url


def test_allow_private_admits_every_private_corpus_address() -> None:
    data = corpus()
    policy = URLPolicy(allow_private=True, resolver=corpus_resolver(data["resolver"]))
    for case in data["cases"]:
        if case.get("rule") in ("scheme", "parse"):
            continue
        assert verdict(policy, case["url"]) is None, case["url"]


# --- resolution ---------------------------------------------------------------------------------------------------


def test_names_resolving_to_private_addresses_are_refused_and_failures_let_through() -> None:
    looked_up: list[str] = []

    def resolve(host: str) -> Sequence[str]:
        looked_up.append(host)
        if host == "localtest.me":
            return ["127.0.0.1"]
        raise OSError("no such name")

    policy = URLPolicy(resolver=resolve)
    assert policy.refusal("http://localtest.me./x") == (
        "localtest.me resolves to 127.0.0.1, a loopback address (127.0.0.0/8); "
        "this session does not allow local or private-network addresses"
    )
    assert policy.allows("https://nowhere.example/")
    assert policy.allows("http://93.184.215.14/")  # an address is never looked up
    assert policy.allows("http://localtest.me.nip.example/")
    assert looked_up == ["localtest.me", "nowhere.example", "localtest.me.nip.example"]
    assert URLPolicy(resolver=resolve, resolve_names=False).allows("http://localtest.me/")
    assert URLPolicy(resolver=resolve, allow_private=True).allows("http://localtest.me/")


def test_the_default_resolver_is_the_module_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urls, "SYSTEM_RESOLVER", lambda host: ["10.1.2.3"])
    assert "resolves to 10.1.2.3" in (URLPolicy().refusal("https://intranet.example.com/") or "")


def test_the_caching_resolver_caches_bounds_time_and_forgets() -> None:
    now = [0.0]
    calls: list[str] = []
    released, finished = threading.Event(), threading.Event()

    def lookup(host: str) -> Sequence[str]:
        calls.append(host)
        if host == "slow.example":
            released.wait(30)  # hangs until the test lets it go
            finished.set()
            return ["127.0.0.1"]
        if host == "missing.example":
            raise socket.gaierror("no such name")
        return ["93.184.215.14"]

    resolver = CachingResolver(lookup=lookup, ttl=30, failure_ttl=5, timeout=0.05, clock=lambda: now[0])
    assert list(resolver("a.example")) == ["93.184.215.14"]
    assert list(resolver("a.example")) == ["93.184.215.14"]
    assert calls == ["a.example"]
    now[0] = 31
    resolver("a.example")
    assert calls == ["a.example", "a.example"]
    with pytest.raises(OSError):
        resolver("missing.example")
    with pytest.raises(OSError):
        resolver("missing.example")
    assert calls.count("missing.example") == 1
    with pytest.raises(OSError):
        resolver("slow.example")  # a hung lookup is a failed one, after the timeout
    assert not finished.is_set(), "the resolver gave up while the lookup still hung"
    released.set()
    policy = URLPolicy(resolver=resolver)
    assert policy.allows("https://slow.example/")  # failed lookups are cached: no second wait
    assert calls.count("slow.example") == 1


def test_the_cache_is_bounded() -> None:
    resolver = CachingResolver(lookup=lambda host: ["93.184.215.14"], max_entries=8)
    for number in range(100):
        resolver(f"host{number}.example")
    assert len(resolver._cache) <= 8


def test_system_addresses_reads_the_hosts_file_for_localhost() -> None:
    assert "127.0.0.1" in urls.system_addresses("localhost") or "::1" in urls.system_addresses("localhost")


# --- refusals: the rule, never the credentials ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://10.0.0.5/", "10.0.0.5 is a private-network address (10.0.0.0/8)"),
        ("http://100.100.100.200/", "100.100.100.200 is a carrier-grade NAT address (100.64.0.0/10)"),
        ("http://[fd00::1]/", "[fd00::1] is a unique-local (private) address (fc00::/7)"),
        ("http://[2002:a00:1::]/", "embedding 10.0.0.1 (6to4), a private-network address (10.0.0.0/8)"),
        ("http://[64:ff9b::a9fe:a9fe]/", "embedding 169.254.169.254 (NAT64), a link-local address"),
        ("http://printer.local/", "printer.local is a local-network (mDNS) name (*.local)"),
        ("http://metadata.google.internal/", "metadata.google.internal is a cloud metadata name"),
        ("http://intranet/", "intranet is an internal-network name"),
        ("http://jenkins/", "jenkins is a single-label name"),
    ],
)
def test_refusals_name_the_rule(url: str, rule: str) -> None:
    reason = URLPolicy(resolve_names=False).refusal(url)
    assert reason is not None and rule in reason
    assert reason.endswith("this session does not allow local or private-network addresses")


def test_refusals_never_echo_credentials() -> None:
    policy = URLPolicy(allow_hosts=["example.com"], resolve_names=False)
    for url in [
        "http://admin:hunter2@10.0.0.1/",
        "http://hunter2@evil.example/",
        "http://user:hunter2@localhost/",
        "https://example.com:hunter2@127.0.0.1/",
    ]:
        reason = policy.refusal(url)
        assert reason is not None and "hunter2" not in reason, url
        with pytest.raises(ActionError) as caught:
            policy.check_navigation(address_for_navigation(url))
        assert "hunter2" not in str(caught.value)


def test_allowlist_entries_are_canonicalised_like_hosts() -> None:
    policy = URLPolicy(allow_hosts=["Bücher.Example.", "*.Docs.Org", " "], resolve_names=False)
    assert policy.allow_hosts == ("xn--bcher-kva.example", "*.docs.org")
    assert policy.allows("https://bücher.example/")
    assert policy.allows("https://XN--BCHER-KVA.EXAMPLE./x")
    assert policy.allows("https://a.docs.org./")
    assert not policy.allows("https://docs.org/")
    assert not policy.allows("https://bücher.example.evil/")


def test_allowlisted_private_hosts_still_need_allow_private() -> None:
    assert not URLPolicy(allow_hosts=["localhost"]).allows("http://localhost:8000/")
    assert URLPolicy(allow_hosts=["localhost"], allow_private=True).allows("http://localhost:8000/")
    assert not URLPolicy(allow_hosts=["localhost"], allow_private=True).allows("http://127.0.0.1:8000/")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gets_a_verdict_and_never_an_exception(text: str) -> None:
    policy = URLPolicy(resolver=corpus_resolver({}))
    try:
        address = address_for_navigation(text)
    except ActionError:
        return
    assert address.startswith(("http://", "https://"))
    assert address_for_navigation(address) == address  # the canonical form is a fixed point
    policy.refusal(address)
    policy.refusal(text)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["{}", "{:#x}", "0{:o}"]))
def test_every_ipv4_number_is_judged_by_the_address_it_means(value: int, spelling: str) -> None:
    address = ipaddress.IPv4Address(value)
    url = f"http://{spelling.format(value) if value else '0'}/"
    reason = URLPolicy(resolver=corpus_resolver({})).refusal(url)
    assert (reason is None) == (address.is_global and not address.is_multicast), (url, address, reason)
