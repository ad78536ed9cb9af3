"""The egress proxy without a browser: what its policy decides (allowlist, private ranges, names resolved once and
connected to as checked), and the proxy itself on loopback sockets (plain HTTP, CONNECT tunnels, 403 refusals).
Only loopback addresses are contacted; names are resolved by fake resolvers."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser_toolset.drivers.selenium.egress import EgressPolicy, EgressProxy
from browser_toolset.safety.urls import URLPolicy

# --- the policy -------------------------------------------------------------------------------------------------


def test_the_executors_url_policy_is_used_whole() -> None:
    policy = URLPolicy(allow_hosts=["example.com"])
    egress = EgressPolicy.from_guard(policy.allows)
    assert egress.check_addresses is True
    assert egress.host_refusal("https://evil.test/") == "evil.test is not on this session's list of allowed hosts"
    assert egress.host_refusal("https://docs.example.com/") is None


def test_a_plain_guard_judges_the_url_alone() -> None:
    egress = EgressPolicy.from_guard(lambda url: "evil" not in url)
    assert egress.check_addresses is False
    assert egress.host_refusal("https://evil.test/") is not None
    assert egress.host_refusal("https://fine.test/") is None


def test_before_a_guard_only_loopback_is_reachable_and_nothing_is_resolved() -> None:
    looked_up: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        looked_up.append(host)
        return ["127.0.0.1"]

    egress = EgressPolicy(resolver=resolver)
    assert egress.decide("https://update.example/", "update.example", 443).allowed is False
    assert looked_up == []
    assert egress.decide("http://127.0.0.1:8000/", "127.0.0.1", 8000).allowed is True


def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    egress = EgressPolicy.from_url_policy(URLPolicy())
    egress.resolver = lambda host, port: ["93.184.216.34", "10.0.0.5"]
    decision = egress.decide("https://mixed.example/", "mixed.example", 443)
    assert not decision.allowed
    assert decision.reason == "mixed.example resolves to 10.0.0.5, a private-network address (10.0.0.0/8)"


def test_dns_rebinding_is_caught_and_the_checked_address_is_the_one_connected_to() -> None:
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    egress = EgressPolicy.from_url_policy(URLPolicy(allow_hosts=["rebind.example"]))
    egress.resolver = lambda host, port: next(answers)
    first = egress.decide("https://rebind.example/", "rebind.example", 443)
    assert first.allowed and first.address == ("93.184.216.34", 443)
    second = egress.decide("https://rebind.example/", "rebind.example", 443)
    assert not second.allowed and "127.0.0.1, a loopback address" in second.reason


def test_private_literals_and_embedded_addresses_are_refused() -> None:
    egress = EgressPolicy.from_url_policy(URLPolicy())
    for url, host in [
        ("http://[::ffff:169.254.169.254]/", "[::ffff:a9fe:a9fe]"),
        ("http://192.168.1.1/", "192.168.1.1"),
        ("http://localhost/", "localhost"),
    ]:
        assert not egress.decide(url, host, 80).allowed, url


def test_the_proxy_never_connects_to_itself() -> None:
    egress = EgressPolicy.from_url_policy(URLPolicy(allow_private=True))
    assert not egress.decide("http://127.0.0.1:9/", "127.0.0.1", 9, own=("127.0.0.1", 9)).allowed


# --- the proxy on loopback sockets ------------------------------------------------------------------------------


class _Hello(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        body = f"hello {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def upstream() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def internal() -> Iterator[tuple[int, list[bytes]]]:
    listener = socket.socket()
    listener.bind(("127.0.0.2", 0))
    listener.listen(8)
    seen: list[bytes] = []

    def run() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            seen.append(conn.recv(100))
            conn.close()

    threading.Thread(target=run, daemon=True).start()
    yield listener.getsockname()[1], seen
    listener.close()


@pytest.fixture
def proxy() -> Iterator[EgressProxy]:
    proxy = EgressProxy()
    proxy.start()
    proxy.set_policy(EgressPolicy.from_url_policy(URLPolicy(allow_hosts=["127.0.0.1"], allow_private=True)))
    yield proxy
    proxy.stop()


def _exchange(port: int, request: bytes, *, then: bytes = b"") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        if then:
            head = sock.recv(4096)
            sock.sendall(then)
            return head + b"||" + _read_all(sock)
        return _read_all(sock)


def _read_all(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        data = sock.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)


def test_plain_http_to_an_allowed_host_is_forwarded(proxy: EgressProxy, upstream: int) -> None:
    answer = _exchange(proxy.port, f"GET http://127.0.0.1:{upstream}/page HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b"hello /page")
    assert b"Connection: close" in answer
    assert proxy.allowed == 1


def test_plain_http_and_connect_to_a_refused_host_get_403_and_connect_nothing(
    proxy: EgressProxy, internal: tuple[int, list[bytes]]
) -> None:
    port, seen = internal
    answer = _exchange(proxy.port, f"GET http://127.0.0.2:{port}/x HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 403 Forbidden")
    assert b"127.0.0.2 is not on this session's list of allowed hosts" in answer
    tunnel = _exchange(proxy.port, f"CONNECT 127.0.0.2:{port} HTTP/1.1\r\nHost: 127.0.0.2:{port}\r\n\r\n".encode())
    assert tunnel.startswith(b"HTTP/1.1 403 Forbidden")
    assert seen == []
    assert proxy.refused == 2
    assert [where for where, _ in proxy.refusals] == [f"127.0.0.2:{port}", f"127.0.0.2:{port}"]


def test_a_tunnel_to_an_allowed_host_carries_bytes_both_ways(proxy: EgressProxy, upstream: int) -> None:
    answer = _exchange(
        proxy.port,
        f"CONNECT 127.0.0.1:{upstream} HTTP/1.1\r\n\r\n".encode(),
        then=b"GET /tunnelled HTTP/1.0\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 200 Connection Established")
    assert answer.endswith(b"hello /tunnelled")


def test_a_name_is_connected_to_at_the_address_checked(upstream: int) -> None:
    """`rebind.test` does not resolve on this machine: the proxy's own (fake) answer is what it connects to."""
    proxy = EgressProxy()
    proxy.start()
    policy = EgressPolicy.from_url_policy(URLPolicy(allow_hosts=["rebind.test"], allow_private=True))
    policy.resolver = lambda host, port: ["127.0.0.1"]
    proxy.set_policy(policy)
    try:
        answer = _exchange(proxy.port, f"GET http://rebind.test:{upstream}/named HTTP/1.1\r\n\r\n".encode())
    finally:
        proxy.stop()
    assert answer.endswith(b"hello /named")


def test_requests_to_the_proxy_itself_are_refused(proxy: EgressProxy) -> None:
    answer = _exchange(proxy.port, f"GET http://127.0.0.1:{proxy.port}/ HTTP/1.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 403")


def test_a_local_browser_is_pointed_at_the_proxy_with_loopback_included() -> None:
    from browser_toolset.drivers.selenium import SeleniumConfig
    from browser_toolset.drivers.selenium.launch import _options

    chromium = _options(SeleniumConfig(browser="chromium"), None, None, 4321).arguments
    assert "--proxy-server=http://127.0.0.1:4321" in chromium and "--proxy-bypass-list=<-loopback>" in chromium
    firefox = _options(SeleniumConfig(browser="firefox"), None, None, 4321).preferences
    assert firefox["network.proxy.type"] == 1 and firefox["network.proxy.ssl_port"] == 4321
    assert firefox["network.proxy.allow_hijacking_localhost"] is True and firefox["network.proxy.no_proxies_on"] == ""
    assert not any(arg.startswith("--proxy-server") for arg in _options(SeleniumConfig(), None, None).arguments)
