"""Egress control at the network layer: a filtering HTTP proxy the driver starts with a local browser.

The BiDi intercept (`guard.py`) sees every request a tab makes, but not everything a browser connects to:
preconnects, DNS prefetches, service-worker and shared-worker fetches on some versions, WebSocket handshakes on
others, and any request made while the intercept is not yet (or no longer) installed. So a local browser is started
with every connection routed through this proxy (Chromium: `--proxy-server` with loopback *not* bypassed; Firefox:
the manual proxy prefs with `allow_hijacking_localhost`), and the proxy applies the session's URL policy before it
opens a connection:

- the host (and scheme, for plain-HTTP requests) against the policy's allowlist and name rules, and
- every address the host resolves to against the private-range rules (unless private networks are allowed),

and then connects to the very address it checked, so a DNS answer that changes between the check and the
connection (DNS rebinding) cannot slip through. A refused request or tunnel is answered `403 Forbidden` with the
reason. A destination that cannot be reached gets no page standing in for the site: a plain-HTTP request gets no
answer, and a tunnel a status telling what happened (404 for a name that does not resolve, 503 for a refused
connection, 504 for one that timed out, 502 otherwise; Firefox reports these as such, Chromium reports any refused
tunnel as `ERR_TUNNEL_CONNECTION_FAILED`). Either way the proxy keeps what it met (`failures`), and `explain`
puts it into the error of the navigation it failed, so an unknown name, a refused connection and a policy
refusal each read as what they are.

A session behind this proxy holds no request in a BiDi intercept (Chromium can wedge when a held navigation
request meets a page's load event, see `SeleniumDriver._start`): the proxy is what refuses, and the BiDi guard,
watching the same requests, gives Claude the precise message. Connections to the proxy itself are always refused.

Why a small threaded proxy on the standard library rather than a library: the filter must run in this process with
the live policy object (the executor installs it after launch and may replace it), and must connect to the address
it checked. `proxy.py` (PyPI `proxy.py`) instantiates plugins itself from dotted paths per connection and runs its
own acceptor processes or event loop (more processes for the lifecycle code to track); `mitmproxy` and `pproxy` are
much larger than the ~250 lines needed for CONNECT tunnels plus absolute-form HTTP/1.1 forwarding with no TLS
interception. One thread per client connection is plenty for one browser.

Through a remote Grid the browser runs on another machine and cannot use this proxy: there only the BiDi intercept
holds, and the node needs egress rules of its own (a firewall or a filtering proxy configured on the node).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import select
import socket
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs
from ada_url import URL

from browser_toolset.safety import urls
from browser_toolset.safety.urls import URLPolicy, address_rule, parse_url

from .connection import BidiError

__all__ = ["EgressDecision", "EgressFailure", "EgressPolicy", "EgressProxy", "FailureKind"]

log = logging.getLogger(__name__)

HEAD_MAX = 64 * 1024
RELAY_CHUNK = 64 * 1024
_HOP_BY_HOP = frozenset({"connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate"})


FailureKind = Literal["policy", "unresolved", "refused", "timeout", "unreachable"]
"""Why the proxy did not connect: the URL policy refused, the name does not resolve, or the destination refused
the connection, did not answer in time, or could not be reached."""

_TUNNEL_STATUS: dict[FailureKind, int] = {"policy": 403, "unresolved": 404, "refused": 503, "timeout": 504}
"""The answer to a CONNECT that failed, by why (502 for the rest): what Firefox (and Squid) read these as."""

_MARKERS: dict[FailureKind, str] = {"policy": "refused", "refused": "connection-refused"}
"""The `X-Browser-Toolset-Egress` header of the proxy's own answers, by why (the kind itself for the rest)."""


@attrs.frozen
class EgressDecision:
    """The outcome for one request or tunnel: the address to connect to, or why not."""

    allowed: bool
    reason: str = ""
    address: tuple[str, int] | None = None
    kind: FailureKind = "policy"


_CONNECTION_FAILURES = ("TUNNEL", "PROXY", "EMPTY_RESPONSE", "CONNECTION", "NET_RESET", "NET_INTERRUPT", "UNKNOWN_HOST")
"""Words of the browsers' errors for a connection the proxy did not make (Chromium's ERR_TUNNEL_CONNECTION_FAILED,
ERR_EMPTY_RESPONSE; Firefox's NS_ERROR_PROXY_*, NS_ERROR_NET_RESET ...): the errors `explain` may say more about."""


_BROWSER_SERVICES = ("mozilla.com", "mozilla.net", "mozilla.org", "firefox.com", "google.com", "googleapis.com",
                     "gvt1.com", "gstatic.com")  # fmt: skip
"""Domains of the services Firefox and Chromium call on their own (remote settings, updates, sign-in, autofill):
their refused connections happen at any moment, so none is taken for where a navigation's redirect led."""


def _browser_service(host: str) -> bool:
    return any(host == domain or host.endswith("." + domain) for domain in _BROWSER_SERVICES)


@attrs.frozen
class EgressFailure:
    """A connection the proxy did not make: where to, why (`kind`, and `reason` in words), and when (`seq`, counting
    up from 1 across the proxy's failures)."""

    seq: int
    host: str
    port: int
    kind: FailureKind
    reason: str

    def sentence(self) -> str:
        """What Claude reads about it."""
        if self.kind == "policy":
            return f"the egress proxy refused the connection to {self.host}: {self.reason}"
        if self.kind == "unresolved":
            return f"{self.host} does not resolve: no such host is known here (check the address for a typo)"
        if self.kind == "refused":
            return f"{self.host} refused the connection on port {self.port}: nothing listens there"
        if self.kind == "timeout":
            return f"{self.host} did not answer on port {self.port} in time"
        return f"{self.host} cannot be reached on port {self.port}: {self.reason}"


def _resolve(host: str, port: int) -> list[str]:
    """The addresses of `host`, from the resolver URL policies use (`urls.SYSTEM_RESOLVER`, looked up at each call:
    a cached lookup with a timeout, which a test suite replaces to resolve nothing)."""
    seen: list[str] = []
    for text in urls.SYSTEM_RESOLVER(host):
        address = str(text).partition("%")[0]
        if address not in seen:
            seen.append(address)
    return seen


def _loopback_only(url: str) -> str | None:
    """The policy before the executor installs its guard: nothing leaves the machine (and no name is looked up),
    which keeps the browser's own start-up traffic (update checks, sign-in, remote settings) from going anywhere."""
    try:
        parsed = parse_url(url)
    except ValueError:
        return "the URL could not be parsed"
    if parsed.name == "localhost" or (parsed.address is not None and parsed.address.is_loopback):
        return None
    return "no URL policy is installed yet, so only loopback addresses are reachable"


@attrs.define
class EgressPolicy:
    """What the proxy lets through. `host_refusal(url)` judges the host (allowlist, names, scheme) of a URL built
    from the request; `check_addresses` says whether resolved addresses must also be public. Until the executor
    installs its guard only loopback destinations pass (a driver used on its own opens up with
    `set_url_guard(lambda url: True)`)."""

    host_refusal: Callable[[str], str | None] = _loopback_only
    check_addresses: bool = False
    resolver: Callable[[str, int], Sequence[str]] = _resolve

    @classmethod
    def from_guard(cls, allows: Callable[[str], bool]) -> EgressPolicy:
        """The policy for the executor's guard. When the guard is a `URLPolicy`'s `allows` (the executor passes
        `self.navigation.allows`), the policy itself is used: the host is judged without resolution and the proxy
        resolves and checks the addresses it then connects to. Any other callable judges the URL alone."""
        owner = getattr(allows, "__self__", None)
        if isinstance(owner, URLPolicy):
            return cls.from_url_policy(owner)

        def refusal(url: str) -> str | None:
            return None if allows(url) else "the session's URL guard refuses this host"

        return cls(host_refusal=refusal)

    @classmethod
    def from_url_policy(cls, policy: URLPolicy) -> EgressPolicy:
        unresolved = attrs.evolve(policy, resolve_names=False)
        own = policy.resolver
        resolver: Callable[[str, int], Sequence[str]] = _resolve if own is None else (lambda host, port: own(host))
        return cls(host_refusal=unresolved.refusal, check_addresses=not policy.allow_private, resolver=resolver)

    def decide(self, url: str, host: str, port: int, *, own: tuple[str, int] | None = None) -> EgressDecision:
        """Judge `url` (whose host is `host`, connected on `port`) and pick the checked address to connect to."""
        try:
            reason = self.host_refusal(url)
        except Exception:  # a policy that fails refuses
            log.exception("the egress policy raised on %.200s", url)
            reason = "the session's URL policy failed"
        if reason is not None:
            return EgressDecision(False, reason)
        bare = host.strip("[]")
        try:
            addresses = [str(ipaddress.ip_address(bare))]
        except ValueError:
            try:
                addresses = list(self.resolver(bare, port))
            except (OSError, UnicodeError, ValueError):
                return EgressDecision(False, f"{bare} does not resolve", kind="unresolved")
        if not addresses:
            return EgressDecision(False, f"{bare} does not resolve", kind="unresolved")
        for text in addresses:
            address = ipaddress.ip_address(text)
            if own is not None and port == own[1] and (address.is_loopback or address.is_unspecified):
                return EgressDecision(False, "the egress proxy does not connect to itself")
            if self.check_addresses:
                rule = address_rule(address)
                if rule is not None:
                    return EgressDecision(False, f"{bare} resolves to {address}, {rule}")
        return EgressDecision(True, address=(addresses[0], port))


class EgressProxy:
    """A CONNECT and absolute-form HTTP/1.1 proxy on 127.0.0.1 that applies an `EgressPolicy` to every connection.
    `start()` returns the port; `stop()` closes the listener and every open connection."""

    def __init__(self, *, connect_timeout: float = 10.0, idle_timeout: float = 300.0) -> None:
        self.policy = EgressPolicy()
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.allowed = 0
        self.refused = 0
        self.refusals: deque[tuple[str, str]] = deque(maxlen=200)
        """The last refusals by the policy, as (host:port, reason)."""
        self.failures: deque[EgressFailure] = deque(maxlen=200)
        """The last connections not made, for any reason (policy refusals included)."""
        self._failed = 0
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._stopped = threading.Event()
        self.port = 0

    def set_policy(self, policy: EgressPolicy) -> None:
        self.policy = policy

    def start(self) -> int:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        self._listener = listener
        self.port = listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, name="egress-proxy", daemon=True).start()
        return self.port

    def stop(self) -> None:
        self._stopped.set()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
        with self._lock:
            sockets, self._sockets = list(self._sockets), set()
        for sock in sockets:
            _close(sock)

    # --- connections ------------------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                self._track(client)
                threading.Thread(target=self._serve, args=(client,), name="egress-conn", daemon=True).start()
            except (OSError, RuntimeError):  # stopped meanwhile, or the interpreter is exiting: no thread to start
                self._forget(client)
                return

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            if self._stopped.is_set():
                _close(sock)
                raise OSError("the egress proxy has stopped")
            self._sockets.add(sock)

    def _forget(self, *socks: socket.socket | None) -> None:
        for sock in socks:
            if sock is None:
                continue
            with self._lock:
                self._sockets.discard(sock)
            _close(sock)

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(self.idle_timeout)
            head, rest = _read_head(client)
            if head is None:
                return
            request_line, _, header_text = head.partition(b"\r\n")
            parts = request_line.decode("latin-1").split()
            if len(parts) != 3:
                _answer(client, 400, "malformed request line")
                return
            method, target, version = parts
            if method.upper() == "CONNECT":
                upstream = self._connect_tunnel(client, target)
                if upstream is not None:
                    client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    self._relay(client, upstream, rest, rewrite_response=False)
                return
            upstream, outgoing, upgrade = self._forward_request(client, method, target, version, header_text)
            if upstream is not None:
                upstream.sendall(outgoing + rest)
                self._relay(client, upstream, b"", rewrite_response=not upgrade)
        except OSError:
            pass
        except Exception:
            log.exception("the egress proxy failed on a connection")
        finally:
            self._forget(client, upstream)

    def _check(self, client: socket.socket, url: str, host: str, port: int, *, tunnel: bool) -> socket.socket | None:
        """Judge the destination and connect to it: the connected upstream socket, or None once the failure is
        recorded and answered (see the module docstring)."""
        decision = self.policy.decide(url, host, port, own=("127.0.0.1", self.port))
        where = f"{host}:{port}"
        if not decision.allowed or decision.address is None:
            log.info("egress refused %s: %s", where, decision.reason)
            if decision.kind == "policy":
                with self._lock:
                    self.refused += 1
                    self.refusals.append((where, decision.reason))
            self._fail(client, host, port, decision.kind, decision.reason, tunnel=tunnel)
            return None
        try:
            upstream = socket.create_connection(decision.address, timeout=self.connect_timeout)
        except OSError as exc:
            log.info("egress could not connect to %s: %s", where, exc)
            kind: FailureKind = "unreachable"
            if isinstance(exc, ConnectionRefusedError):
                kind = "refused"
            elif isinstance(exc, TimeoutError):
                kind = "timeout"
            self._fail(client, host, port, kind, exc.strerror or str(exc), tunnel=tunnel)
            return None
        with self._lock:
            self.allowed += 1
        self._track(upstream)
        upstream.settimeout(self.idle_timeout)
        return upstream

    def _fail(
        self, client: socket.socket, host: str, port: int, kind: FailureKind, reason: str, *, tunnel: bool
    ) -> None:
        """Record a connection not made, then answer it: a policy refusal `403` with the reason; any other failure
        a tunnel's status saying what happened, and a plain request nothing (a page from the proxy would read as the
        site's answer). Recorded first: the browser's error for it may come back at once."""
        bare = host.strip("[]")
        with self._lock:
            self._failed += 1
            self.failures.append(EgressFailure(self._failed, bare, port, kind, reason))
        if kind == "policy":
            _answer(client, 403, f"egress refused: {reason}")
        elif tunnel:
            status = _TUNNEL_STATUS.get(kind, 502)
            _answer(client, status, f"egress: {bare}:{port}: {reason}", marker=_MARKERS.get(kind, kind))

    def explain(self, method: str, params: Mapping[str, Any]) -> Callable[[BidiError], BidiError] | None:
        """For `connection.BidiConnection`: a navigation that fails after the proxy failed to connect to its host
        says why the proxy did not (the browser's own error is a failed tunnel or an empty response). Failing that,
        the last failure since the navigation began, which is where a redirect led (each sentence names its
        host)."""
        if method != "browsingContext.navigate":
            return None
        try:
            parsed = parse_url(str(params.get("url", "")))
        except ValueError:
            return None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            return None
        host = parsed.host.strip("[]")
        port = int(URL(parsed.href).port or (443 if parsed.scheme == "https" else 80))
        with self._lock:
            since = self._failed

        def rewrite(error: BidiError) -> BidiError:
            with self._lock:
                met = [failure for failure in self.failures if failure.seq > since]
            here = [failure for failure in met if (failure.host, failure.port) == (host, port)]
            if not here:
                if not any(word in error.message.upper() for word in _CONNECTION_FAILURES):
                    # The browser failed the navigation for a reason of its own (a redirect to file:, corrupted
                    # content): a failure of some other connection meanwhile is not why.
                    return error
                # where a redirect led: the browser's own services (update checks, remote settings) call out
                # at any moment, and are never where a page leads
                met = [failure for failure in met if not _browser_service(failure.host)]
            if not (here or met):
                return error
            return BidiError(error.method, error.error, (here or met)[-1].sentence())

        return rewrite

    def _connect_tunnel(self, client: socket.socket, target: str) -> socket.socket | None:
        host, _, port_text = target.rpartition(":")
        if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            _answer(client, 400, "malformed CONNECT target")
            return None
        port = int(port_text)
        try:
            parsed = parse_url(f"https://{host}:{port}/")
        except ValueError:
            _answer(client, 400, "malformed CONNECT host")
            return None
        return self._check(client, parsed.href, parsed.host, port, tunnel=True)

    def _forward_request(
        self, client: socket.socket, method: str, target: str, version: str, header_text: bytes
    ) -> tuple[socket.socket | None, bytes, bool]:
        try:
            parsed = parse_url(target)
        except ValueError:
            _answer(client, 400, "the proxy takes absolute http:// URLs only")
            return None, b"", False
        if parsed.scheme != "http" or not parsed.host:
            _answer(client, 400, "the proxy takes absolute http:// URLs only")
            return None, b"", False
        url = URL(parsed.href)
        port = int(url.port) if url.port else 80
        upstream = self._check(client, parsed.href, parsed.host, port, tunnel=False)
        if upstream is None:
            return None, b"", False
        path = (url.pathname or "/") + (url.search or "")
        headers = [line for line in header_text.split(b"\r\n") if line]
        upgrade = any(line.lower().startswith(b"upgrade:") for line in headers)
        kept = [line for line in headers if line.split(b":", 1)[0].strip().lower().decode("latin-1") not in _HOP_BY_HOP]
        kept.append(b"Connection: upgrade" if upgrade else b"Connection: close")
        outgoing = f"{method} {path} {version}\r\n".encode("latin-1") + b"\r\n".join(kept) + b"\r\n\r\n"
        return upstream, outgoing, upgrade

    def _relay(self, client: socket.socket, upstream: socket.socket, pending: bytes, *, rewrite_response: bool) -> None:
        """Copy bytes both ways until either side closes. With `rewrite_response`, the response head gets
        `Connection: close`, so the browser sends its next request (maybe for another host) on a new connection."""
        if pending:
            upstream.sendall(pending)
        response_head = b"" if rewrite_response else None
        sockets = [client, upstream]
        while not self._stopped.is_set():
            readable, _, _ = select.select(sockets, [], [], self.idle_timeout)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(RELAY_CHUNK)
                if not data:
                    return
                if sock is client:
                    upstream.sendall(data)
                    continue
                if response_head is not None:
                    response_head += data
                    end = response_head.find(b"\r\n\r\n")
                    if end < 0 and len(response_head) < HEAD_MAX:
                        continue
                    data = _close_after(response_head, end) if end >= 0 else response_head
                    response_head = None
                client.sendall(data)


def _close_after(buffer: bytes, end: int) -> bytes:
    head, body = buffer[:end], buffer[end:]
    lines = head.split(b"\r\n")
    kept = [lines[0]] + [
        line for line in lines[1:] if line.split(b":", 1)[0].strip().lower().decode("latin-1") not in _HOP_BY_HOP
    ]
    kept.append(b"Connection: close")
    return b"\r\n".join(kept) + body


def _read_head(sock: socket.socket) -> tuple[bytes | None, bytes]:
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > HEAD_MAX:
            _answer(sock, 431, "request head too large")
            return None, b""
        data = sock.recv(RELAY_CHUNK)
        if not data:
            return None, b""
        buffer += data
    head, _, rest = buffer.partition(b"\r\n\r\n")
    return head, rest


_PHRASES = {
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _answer(sock: socket.socket, status: int, text: str, *, marker: str = "refused") -> None:
    """An answer of the proxy's own: `X-Browser-Toolset-Egress` says why (`_MARKERS`), the body in words."""
    body = (text + "\n").encode("utf-8", "replace")
    head = (
        f"HTTP/1.1 {status} {_PHRASES.get(status, 'Error')}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nX-Browser-Toolset-Egress: {marker}\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        sock.sendall(head.encode("latin-1") + body)


def _close(sock: Any) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
