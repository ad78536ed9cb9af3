"""Which URLs the browser may load, and how a URL Claude wrote becomes one to load.

The executor applies one `URLPolicy` in two places: to every address Claude asks `navigate` for (after turning a
scheme-less address into `https://`), and, through the driver's guard, to everything the browser itself is about
to load (redirects, page-started navigations, popups, subresources).

A check is only as good as its agreement with the browser about what a URL means: `http://0x7f.1/`,
`http://a@169.254.169.254\\@b/` and `http://ｌｏｃａｌｈｏｓｔ/` all reach local machines in a browser, while a
string prefix or `urllib.parse` sees something else. So every URL is read with the WHATWG URL parser browsers
implement (`ada-url`, the parser Node.js uses), and the URL handed to the browser is that parse's own
serialization, so the address that was checked is the address that loads. Host names are also resolved (briefly
cached, with a short timeout), so a public name pointing at a private address is refused too; a name that does
not resolve is let through, since the browser cannot reach it either. What this cannot see (DNS answers that
change between our lookup and the browser's) needs the network-layer egress rules the contract also asks for.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

import attrs
from ada_url import URL, HostType

__all__ = [
    "REFUSED_SCHEME",
    "CachingResolver",
    "ParsedURL",
    "Resolver",
    "URLPolicy",
    "address_for_navigation",
    "parse_url",
    "system_addresses",
]

IPAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

REFUSED_SCHEME = "Error: Navigation refused. Only http and https URLs are allowed."
"""The contract's canonical text (docs/contract.md §7) for a refused scheme."""

WEB_SCHEMES = frozenset({"http", "https"})
INNOCUOUS_PAGES = frozenset({"about:blank", "about:srcdoc"})
"""Pages that load nothing and that browsers use for new tabs and empty frames."""

KNOWN_SCHEMES = frozenset(
    {"http", "https", "javascript", "data", "file", "vbscript", "blob", "about", "chrome", "chrome-extension",
     "view-source", "ftp", "mailto", "tel", "sms", "ws", "wss", "filesystem", "intent", "resource",
     "moz-extension", "edge", "devtools", "jar", "ms-settings"}
)  # fmt: skip
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
PORT_AFTER_HOST_RE = re.compile(r"^\d+(?:[/?#\\]|$)")
AROUND_TRIM = "".join(chr(c) for c in range(0x21)) + "\x7f"
HOST_SHOWN_MAX = 255

PRIVATE_TAIL = "this session does not allow local or private-network addresses"
"""How every private-address refusal ends, so Claude knows the rule and that `--allow-private` is the way round."""

# --- the refused ranges and names, as data ----------------------------------------------------------------------

REFUSED_NETWORKS: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "an unspecified ('this network') address"),
    ("10.0.0.0/8", "a private-network address"),
    ("100.64.0.0/10", "a carrier-grade NAT address"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address"),
    ("172.16.0.0/12", "a private-network address"),
    ("192.0.0.0/24", "an IETF protocol-assignment address"),
    ("192.0.2.0/24", "a documentation address"),
    ("192.88.99.0/24", "a 6to4 relay address"),
    ("192.168.0.0/16", "a private-network address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("224.0.0.0/4", "a multicast address"),
    ("240.0.0.0/4", "a reserved address"),
    ("::/128", "an unspecified address"),
    ("::1/128", "a loopback address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard-only address"),
    ("2001:2::/48", "a benchmarking address"),
    ("2001:10::/28", "an ORCHID address"),
    ("2001:20::/28", "an ORCHID address"),
    ("2001:db8::/32", "a documentation address"),
    ("3fff::/20", "a documentation address"),
    ("5f00::/16", "a segment-routing address"),
    ("fc00::/7", "a unique-local (private) address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local (private) address"),
    ("ff00::/8", "a multicast address"),
)
"""Address ranges a browser must not reach unless private networks are allowed: each with the words a refusal
uses. Checked in order; the first range holding the address names the rule."""

EMBEDDING_NETWORKS: tuple[tuple[str, str], ...] = (
    ("::ffff:0:0/96", "IPv4-mapped"),
    ("::ffff:0:0:0/96", "IPv4-translated"),
    ("64:ff9b::/96", "NAT64"),
    ("2002::/16", "6to4"),
    ("2001::/32", "Teredo"),
    ("::/96", "IPv4-compatible"),
)
"""IPv6 ranges whose addresses carry an IPv4 address the packets end up at: the embedded address is judged."""

LOCAL_NAMES: Mapping[str, str] = {
    "localhost": "a loopback name",
    "localhost.localdomain": "a loopback name",
    "localhost6": "a loopback name",
    "localhost6.localdomain6": "a loopback name",
    "ip6-localhost": "a loopback name",
    "ip6-loopback": "a loopback name",
    "metadata": "a cloud metadata name",
    "metadata.google.internal": "a cloud metadata name",
    "metadata.goog": "a cloud metadata name",
    "instance-data": "a cloud metadata name",
    "instance-data.ec2.internal": "a cloud metadata name",
    "kubernetes": "a cluster-internal name",
    "kubernetes.default": "a cluster-internal name",
}
"""Host names that always mean this machine, its cloud's metadata service, or its cluster."""

LOCAL_SUFFIXES: Mapping[str, str] = {
    ".localhost": "a loopback name",
    ".localdomain": "a local-network name",
    ".local": "a local-network (mDNS) name",
    ".lan": "a local-network name",
    ".home": "a local-network name",
    ".home.arpa": "a local-network name",
    ".internal": "an internal-network name",
    ".intranet": "an internal-network name",
    ".corp": "an internal-network name",
    ".private": "an internal-network name",
    ".svc": "a cluster-internal name",
}
"""Name suffixes that only resolve inside a local or private network."""

SINGLE_LABEL = "a single-label name, which only resolves on a local network"

_NETWORKS = tuple((ipaddress.ip_network(net), net, what) for net, what in REFUSED_NETWORKS)
_EMBEDDINGS = tuple((ipaddress.ip_network(net), kind) for net, kind in EMBEDDING_NETWORKS)


if TYPE_CHECKING:
    from ..executor.errors import ActionError


def _refusal(message: str) -> ActionError:
    """The `ActionError` Claude reads. Imported when one is made: it is the SDK's `ToolError`, and the Selenium
    driver, which uses this module's address rules for its egress proxy, then starts without loading the SDK (about
    two seconds of every driver process's start on a small machine)."""
    from ..executor.errors import ActionError

    return ActionError(message)


def cleaned(url: str) -> str:
    """The URL as a browser's URL parser sees it: C0 controls and spaces trimmed, tabs and newlines dropped."""
    return re.sub(r"[\t\n\r]", "", url.strip(AROUND_TRIM))


# --- parsing: one WHATWG parse for checking and for loading -----------------------------------------------------


@attrs.frozen
class ParsedURL:
    """A URL as a browser reads it. `href` is the browser's own serialization of it (what gets loaded), `host`
    its host as the browser connects to it (lower case, IDNA-encoded, IPv4 in dotted decimal, IPv6 in brackets),
    `address` the host as an IP address when it is one."""

    href: str
    scheme: str
    host: str
    address: IPAddress | None

    @property
    def name(self) -> str:
        """The host name without the trailing dots DNS ignores (`localhost.` is `localhost`)."""
        return self.host.rstrip(".")


def parse_url(text: str) -> ParsedURL:
    """Parse `text` exactly as a browser would (WHATWG URL Standard). Raises `ValueError` for what a browser
    would not load either (a malformed host or port, an unpaired surrogate)."""
    try:
        url = URL(text)
    except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
        raise ValueError("not a valid URL") from exc
    scheme = url.protocol.rstrip(":").lower()
    host = url.hostname or ""
    address: IPAddress | None = None
    if url.host_type == HostType.IPV4:
        address = ipaddress.IPv4Address(host)
    elif url.host_type == HostType.IPV6:
        address = ipaddress.IPv6Address(host.strip("[]"))
    return ParsedURL(href=url.href, scheme=scheme, host=host, address=address)


def _scheme_of(text: str) -> str | None:
    match = SCHEME_RE.match(text)
    return match.group(0)[:-1].lower() if match else None


def address_for_navigation(url: str) -> str:
    """The absolute URL to load for what Claude wrote, as the browser serializes it: a URL without a scheme
    (`example.com/docs`, `localhost:8000`, `//example.com`) is treated as `https://`. Raises the contract's
    refusal for any scheme but http and https, and an `ActionError` for an address with no host or one that does
    not parse."""
    text = cleaned(url)
    if not text:
        raise _refusal("The URL is empty. Give an http or https address, or back, forward or reload.")
    if text.startswith(("//", "\\\\", "/\\", "\\/")):
        text = "https:" + text
    elif SCHEME_RE.match(text):
        scheme, _, rest = text.partition(":")
        # `localhost:8080/x` parses as scheme "localhost": a host followed by a port is not a scheme, unless the
        # word is a scheme browsers act on (`javascript:1` must be refused, not loaded as a host)
        if PORT_AFTER_HOST_RE.match(rest) and scheme.lower() not in KNOWN_SCHEMES:
            text = "https://" + text
    else:
        text = "https://" + text
    if _scheme_of(text) not in WEB_SCHEMES:
        raise _refusal(REFUSED_SCHEME)
    try:
        parsed = parse_url(text)
    except ValueError as exc:
        raise _refusal(
            "The URL could not be parsed: its host or port is malformed. Give a complete http or https address "
            "such as https://example.com/."
        ) from exc
    if parsed.scheme not in WEB_SCHEMES:
        raise _refusal(REFUSED_SCHEME)
    if not parsed.host:
        raise _refusal("The URL has no host name. Give a complete address such as https://example.com/.")
    return parsed.href


# --- what an address or name is ------------------------------------------------------------------------------------


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[tuple[ipaddress.IPv4Address, str]]:
    """The IPv4 addresses an IPv6 address delivers to, with the mechanism's name."""
    for network, kind in _EMBEDDINGS:
        if address not in network:
            continue
        if kind == "6to4":
            assert address.sixtofour is not None
            return [(address.sixtofour, kind)]
        if kind == "Teredo":
            assert address.teredo is not None
            server, client = address.teredo
            return [(client, "Teredo client"), (server, "Teredo server")]
        return [(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), kind)]
    return []


def _network_rule(address: IPAddress) -> tuple[str, str] | None:
    for network, text, what in _NETWORKS:
        if address.version == network.version and address in network:
            return what, text
    return None


def address_rule(address: IPAddress) -> str | None:
    """Why `address` is not a public one, as `a loopback address (127.0.0.0/8)`, or None when it is public."""
    rule = _network_rule(address)
    if rule is not None:
        return f"{rule[0]} ({rule[1]})"
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        for inner_address, kind in embedded:
            inner = address_rule(inner_address)
            if inner is not None:
                return f"an address embedding {inner_address} ({kind}), {inner}"
        if embedded:
            return None  # it delivers to public IPv4 addresses only
    if not address.is_global:
        return "a reserved address (not globally routable)"
    return None


def name_rule(name: str) -> str | None:
    """Why a host name (lower case, no trailing dot) only means a local machine or network, or None."""
    if not name:
        return None
    what = LOCAL_NAMES.get(name)
    if what is not None:
        return what
    for suffix, what in LOCAL_SUFFIXES.items():
        if name.endswith(suffix) or name == suffix[1:]:
            return f"{what} (*{suffix})"
    if "." not in name:
        return SINGLE_LABEL
    return None


# --- resolution ----------------------------------------------------------------------------------------------------

Resolver: TypeAlias = Callable[[str], Sequence[str]]
"""A host name's addresses, as strings; raises `OSError` when the name does not resolve."""


def system_addresses(host: str) -> list[str]:
    """What this machine's resolver (hosts file, DNS) says `host` is."""
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]).partition("%")[0] for info in infos})


@attrs.define
class CachingResolver:
    """A resolver with a timeout and a short-lived cache: the guard sees every subresource, and a page can name
    many hosts, so each name is looked up once per `ttl` seconds, and a lookup that hangs counts as failed after
    `timeout` seconds (the lookup runs on a daemon thread, so a hung resolver never holds the process)."""

    lookup: Resolver = system_addresses
    ttl: float = 30.0
    failure_ttl: float = 5.0
    timeout: float = 2.0
    max_entries: int = 4096
    clock: Callable[[], float] = time.monotonic
    _cache: dict[str, tuple[float, tuple[str, ...] | None]] = attrs.field(factory=dict, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def __call__(self, host: str) -> Sequence[str]:
        now = self.clock()
        with self._lock:
            cached = self._cache.get(host)
        if cached is not None and cached[0] > now:
            if cached[1] is None:
                raise OSError(f"{host} did not resolve")
            return cached[1]
        addresses = self._lookup_with_timeout(host)
        expiry = now + (self.ttl if addresses is not None else self.failure_ttl)
        with self._lock:
            if len(self._cache) >= self.max_entries:
                for stale in sorted(self._cache, key=lambda key: self._cache[key][0])[: self.max_entries // 4 or 1]:
                    del self._cache[stale]
            self._cache[host] = (expiry, addresses)
        if addresses is None:
            raise OSError(f"{host} did not resolve")
        return addresses

    def _lookup_with_timeout(self, host: str) -> tuple[str, ...] | None:
        answer: list[tuple[str, ...] | None] = []

        def run() -> None:
            try:
                answer.append(tuple(self.lookup(host)))
            except (OSError, UnicodeError, ValueError):
                answer.append(None)

        worker = threading.Thread(target=run, name="browser-toolset-resolve", daemon=True)
        worker.start()
        worker.join(self.timeout)
        return answer[0] if answer else None


SYSTEM_RESOLVER: Resolver = CachingResolver()
"""The resolver a `URLPolicy` uses unless given one: looked up when a check runs, so a test suite can replace it
for every policy at once."""


# --- the policy ----------------------------------------------------------------------------------------------------


def _canonical_pattern(pattern: str) -> str:
    """An allowlist entry in the form hosts are compared in (IDNA, lower case, no trailing dot)."""
    text = pattern.strip().lower()
    wildcard = text.startswith("*.")
    bare = text[2:] if wildcard else text
    try:
        host = parse_url(f"http://{bare}/").name or bare
    except ValueError:
        host = bare.rstrip(".")
    return f"*.{host}" if wildcard else host


def _host_matches(host: str, pattern: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern or host.endswith("." + pattern)


def _host_tuple(hosts: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if hosts is None else tuple(_canonical_pattern(host) for host in hosts if host.strip())


def _shown(host: str) -> str:
    return host if len(host) <= HOST_SHOWN_MAX else host[: HOST_SHOWN_MAX - 1] + "…"


_RENAMED = "URLPolicy(allowed_hosts=...) is now URLPolicy(allow_hosts=...), as in the configuration (urls.allow_hosts)"


@attrs.frozen(init=False)
class URLPolicy:
    """Which addresses the browser may load.

    - Only `http` and `https` (plus the empty `about:blank` / `about:srcdoc`) ever load.
    - `allow_hosts`: when set, only these hosts and their subdomains (`example.com` admits `docs.example.com`;
      `*.example.com` admits only subdomains). Checked on every request, so a redirect off the list is stopped.
      The same name as the configuration's `urls.allow_hosts`; the older `allowed_hosts=` still works, with a
      `DeprecationWarning`.
    - `allow_private`: local and private addresses (`REFUSED_NETWORKS`, IPv6 forms embedding one, `LOCAL_NAMES`,
      `LOCAL_SUFFIXES`, single-label names, and names that resolve to any of these) are refused unless this is
      set, as the contract's security checklist asks.
    - `resolve_names` / `resolver`: whether host names are resolved to catch public names for private addresses,
      and with what (`SYSTEM_RESOLVER`, a cached `getaddrinfo`, when None).
    """

    allow_hosts: tuple[str, ...] | None = attrs.field(default=None, converter=_host_tuple)
    allow_private: bool = False
    resolve_names: bool = True
    resolver: Resolver | None = None

    def __init__(
        self,
        allow_hosts: Iterable[str] | None = None,
        allow_private: bool = False,
        resolve_names: bool = True,
        resolver: Resolver | None = None,
        *,
        allowed_hosts: Iterable[str] | None = None,
    ) -> None:
        if allowed_hosts is not None:
            if allow_hosts is not None:
                raise TypeError("URLPolicy takes allow_hosts (allowed_hosts is its old name), not both")
            warnings.warn(_RENAMED, DeprecationWarning, stacklevel=2)
            allow_hosts = allowed_hosts
        self.__attrs_init__(allow_hosts, allow_private, resolve_names, resolver)

    @property
    def allowed_hosts(self) -> tuple[str, ...] | None:
        """The old name of `allow_hosts`."""
        warnings.warn(_RENAMED, DeprecationWarning, stacklevel=2)
        return self.allow_hosts

    def refusal(self, url: str) -> str | None:
        """Why `url` may not load, as a sentence Claude can act on, or None when it may. Never repeats the URL's
        credentials: only its host appears."""
        text = cleaned(url)
        if text.lower() in INNOCUOUS_PAGES:
            return None
        if _scheme_of(text) not in WEB_SCHEMES:
            return "only http and https URLs are allowed"
        try:
            parsed = parse_url(text)
        except ValueError:
            return "the URL could not be parsed"
        if parsed.scheme not in WEB_SCHEMES:
            return "only http and https URLs are allowed"
        if not parsed.host:
            return "the URL has no host"
        host = parsed.name
        if self.allow_hosts is not None and not any(_host_matches(host, p) for p in self.allow_hosts):
            return f"{_shown(host)} is not on this session's list of allowed hosts"
        if self.allow_private:
            return None
        return self._private_refusal(parsed)

    def _private_refusal(self, parsed: ParsedURL) -> str | None:
        if parsed.address is not None:
            rule = address_rule(parsed.address)
            return None if rule is None else f"{_shown(parsed.host)} is {rule}; {PRIVATE_TAIL}"
        rule = name_rule(parsed.name)
        if rule is not None:
            return f"{_shown(parsed.name)} is {rule}; {PRIVATE_TAIL}"
        if not self.resolve_names:
            return None
        resolve = self.resolver if self.resolver is not None else SYSTEM_RESOLVER
        try:
            addresses = resolve(parsed.name)
        except (OSError, UnicodeError, ValueError):
            return None  # it does not resolve here, so the browser cannot reach it either
        for text in addresses:
            try:
                address = ipaddress.ip_address(text.partition("%")[0])
            except ValueError:
                continue
            rule = address_rule(address)
            if rule is not None:
                return f"{_shown(parsed.name)} resolves to {address}, {rule}; {PRIVATE_TAIL}"
        return None

    def allows(self, url: str) -> bool:
        return self.refusal(url) is None

    def check_navigation(self, url: str) -> None:
        """Raise the error Claude reads when `navigate` may not load `url` (already made absolute)."""
        reason = self.refusal(url)
        if reason is None:
            return
        if reason.startswith("only http"):
            raise _refusal(REFUSED_SCHEME)
        raise _refusal(f"Navigation refused: {reason}.")
