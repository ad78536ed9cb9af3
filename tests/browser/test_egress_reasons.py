"""Issue 16, item 11: behind the egress proxy, an unknown host name, a refused connection and a policy refusal each
read as what they are in the `navigate` error Claude sees (an unknown host read `net::ERR_TUNNEL_CONNECTION_FAILED`
on Chromium, a refused connection `ERR_EMPTY_RESPONSE`, and a plain-HTTP unknown host "loaded" the proxy's 403
page), on the session's shared Chromium and Firefox.

The suite resolves no names (tests/conftest.py's `_offline_dns`): the proxy asks the same resolver, so
`nosuch.invalid` is unknown to it as it would be to a name server. The proxy's own answers, which tell the three
apart where a browser shows them (Firefox does for tunnels), are checked on loopback sockets first.
"""

from __future__ import annotations

import socket
from urllib.parse import quote

import pytest

from browser_toolset import BrowserToolset, URLPolicy
from browser_toolset.driver_errors import NavigationFailed
from browser_toolset.drivers.selenium import SeleniumDriver
from browser_toolset.drivers.selenium.connection import BidiError
from browser_toolset.drivers.selenium.egress import EgressPolicy, EgressProxy
from browser_toolset.drivers.selenium.errors import reason
from tests.support.browsers import active_tab
from tests.support.polling import free_port
from tests.support.server import PageServer
from tests.support.session import Session, error

UNKNOWN = "nosuch.invalid"
POLICY = URLPolicy(allow_hosts=["127.0.0.1", UNKNOWN], allow_private=True)
"""The tests' policy: the page server and the unknown name are allowed, so that what stops them is the network."""


@pytest.fixture
def claude(driver: SeleniumDriver) -> Session:
    """The session's browser behind `POLICY`, as Claude drives it (not closed: the driver is shared)."""
    return Session(BrowserToolset(driver, navigation=POLICY))


def _navigate_error(claude: Session, url: str) -> str:
    message = error(claude.call("navigate", url=url))
    assert "ERR_" not in message and "NS_ERROR" not in message, message
    return message


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_16_11_an_unknown_name_reads_as_one(claude: Session, scheme: str) -> None:
    message = _navigate_error(claude, f"{scheme}://{UNKNOWN}/page")
    assert f"{UNKNOWN} does not resolve: no such host is known here (check the address for a typo)" in message


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_16_11_a_refused_connection_reads_as_one(claude: Session, scheme: str) -> None:
    port = free_port()
    message = _navigate_error(claude, f"{scheme}://127.0.0.1:{port}/")
    assert f"127.0.0.1 refused the connection on port {port}: nothing listens there" in message


def test_16_11_a_policy_refusal_reads_as_one(claude: Session, driver: SeleniumDriver, server: PageServer) -> None:
    # refused before the browser is asked
    assert "Navigation refused: blocked.example is not on this session's list of allowed hosts" in error(
        claude.call("navigate", url="https://blocked.example/")
    )
    # a redirect there, stopped by the BiDi guard
    redirect = server.url(f"/redirect?to={quote('https://blocked.example/landing', safe='')}")
    stopped = _navigate_error(claude, redirect)
    assert "it led to https://blocked.example/landing, which is not allowed" in stopped
    # the proxy alone (the BiDi guard opened up): its refusal is said in its words, naming the host
    driver.set_url_guard(lambda url: True)
    proxy = driver._session.proxy
    assert proxy is not None
    proxy.set_policy(EgressPolicy.from_url_policy(POLICY))
    handle = active_tab(driver)
    assert handle is not None
    with pytest.raises(NavigationFailed) as refused:
        driver.navigate(handle, redirect)
    assert (
        "the egress proxy refused the connection to blocked.example: blocked.example is not on this session's list "
        "of allowed hosts"
    ) in str(refused.value)


def test_16_11_the_proxy_answers_each_failure_distinctly() -> None:
    proxy = EgressProxy()
    proxy.start()
    proxy.set_policy(EgressPolicy.from_url_policy(URLPolicy(allow_hosts=["127.0.0.1", UNKNOWN], allow_private=True)))
    closed = free_port()
    try:
        answers = {
            "unknown": _exchange(proxy.port, f"CONNECT {UNKNOWN}:443 HTTP/1.1\r\n\r\n"),
            "refused": _exchange(proxy.port, f"CONNECT 127.0.0.1:{closed} HTTP/1.1\r\n\r\n"),
            "policy": _exchange(proxy.port, "CONNECT blocked.example:443 HTTP/1.1\r\n\r\n"),
            "plain unknown": _exchange(proxy.port, f"GET http://{UNKNOWN}/ HTTP/1.1\r\nHost: {UNKNOWN}\r\n\r\n"),
        }
    finally:
        proxy.stop()
    assert answers["unknown"].startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"X-Browser-Toolset-Egress: unresolved" in answers["unknown"]
    assert answers["refused"].startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert b"X-Browser-Toolset-Egress: connection-refused" in answers["refused"]
    assert answers["policy"].startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert answers["plain unknown"] == b"", "no page of the proxy's stands in for the site"
    assert [(failure.host, failure.kind) for failure in proxy.failures] == [
        (UNKNOWN, "unresolved"),
        ("127.0.0.1", "refused"),
        ("blocked.example", "policy"),
        (UNKNOWN, "unresolved"),
    ]
    assert proxy.refused == 1, "only the policy's refusal counts as a refusal"


def test_16_11_without_the_proxy_the_browsers_codes_are_said_in_words() -> None:
    for code, words in [
        ("net::ERR_NAME_NOT_RESOLVED", "its host name does not resolve"),
        ("Error: NS_ERROR_UNKNOWN_HOST", "its host name does not resolve"),
        ("net::ERR_CONNECTION_REFUSED", "the server refused the connection"),
        ("Error: NS_ERROR_CONNECTION_REFUSED", "the server refused the connection"),
    ]:
        said = reason(BidiError("browsingContext.navigate", "unknown error", code))
        assert said.startswith(words) and said.endswith(f"[{code.removeprefix('Error: ')}]"), said


def _exchange(port: int, request: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        chunks = []
        while data := sock.recv(65536):
            chunks.append(data)
        return b"".join(chunks)
