"""Which URLs the browser may load, and how a URL Claude wrote becomes one to load.

The executor applies one `URLPolicy` in two places: to every address Claude asks `navigate` for (after turning a
scheme-less address into `https://`), and, through the driver's guard, to everything the browser itself is about
to load (redirects, page-started navigations, popups, subresources). Schemes are read with a URL parser, never a
string prefix, after the same cleanup a browser's address bar does (surrounding spaces and C0 controls trimmed,
tabs and newlines removed), so `  JavaScript:alert(1)` and `java\\nscript:` are recognised for what they are.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

import attrs

from .errors import ActionError

__all__ = ["REFUSED_SCHEME", "URLPolicy", "address_for_navigation"]

REFUSED_SCHEME = "Error: Navigation refused. Only http and https URLs are allowed."
"""The contract's canonical text (§7) for a refused scheme."""

WEB_SCHEMES = frozenset({"http", "https"})
INNOCUOUS_PAGES = frozenset({"about:blank", "about:srcdoc"})
"""Pages that load nothing and that browsers use for new tabs and empty frames."""

KNOWN_SCHEMES = frozenset(
    {"http", "https", "javascript", "data", "file", "vbscript", "blob", "about", "chrome", "chrome-extension",
     "view-source", "ftp", "mailto", "tel", "sms", "ws", "wss", "filesystem", "intent", "resource",
     "moz-extension", "edge", "devtools", "jar", "ms-settings"}
)  # fmt: skip
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
PORT_AFTER_HOST_RE = re.compile(r"^\d+(?:[/?#]|$)")
AROUND_TRIM = "".join(chr(c) for c in range(0x21)) + "\x7f"


def cleaned(url: str) -> str:
    """The URL as a browser's URL parser sees it: C0 controls and spaces trimmed, tabs and newlines dropped."""
    return re.sub(r"[\t\n\r]", "", url.strip(AROUND_TRIM))


def address_for_navigation(url: str) -> str:
    """The absolute URL to load for what Claude wrote: a URL without a scheme (`example.com/docs`,
    `localhost:8000`, `//example.com`) is treated as `https://`. Raises the contract's refusal for any scheme but
    http and https, and an `ActionError` for an address with no host."""
    text = cleaned(url)
    if not text:
        raise ActionError("The URL is empty. Give an http or https address, or back, forward or reload.")
    if text.startswith("//"):
        text = "https:" + text
    elif SCHEME_RE.match(text):
        scheme, _, rest = text.partition(":")
        # `localhost:8080/x` parses as scheme "localhost": a host followed by a port is not a scheme, unless the
        # word is a scheme browsers act on (`javascript:1` must be refused, not loaded as a host)
        if PORT_AFTER_HOST_RE.match(rest) and scheme.lower() not in KNOWN_SCHEMES:
            text = "https://" + text
    else:
        text = "https://" + text
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises for a malformed port
    except ValueError as exc:
        raise ActionError(f"The URL could not be parsed ({exc}). Give a complete http or https address.") from exc
    if parts.scheme.lower() not in WEB_SCHEMES:
        raise ActionError(REFUSED_SCHEME)
    if not parts.hostname:
        raise ActionError("The URL has no host name. Give a complete address such as https://example.com/.")
    return text


def _host_matches(host: str, pattern: str) -> bool:
    pattern = pattern.lower().strip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern or host.endswith("." + pattern)


def _is_private_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def _host_tuple(hosts: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if hosts is None else tuple(hosts)


@attrs.frozen
class URLPolicy:
    """Which addresses the browser may load.

    - Only `http` and `https` (plus the empty `about:blank` / `about:srcdoc`) ever load.
    - `allowed_hosts`: when set, only these hosts and their subdomains (`example.com` admits `docs.example.com`;
      `*.example.com` admits only subdomains). Checked on every request, so a redirect off the list is stopped.
    - `allow_private`: loopback, private, link-local and reserved addresses (and `localhost`) are refused unless
      this is set, as the contract's security checklist asks. Host names are not resolved here: a public name that
      resolves to a private address needs the network-layer egress rules the checklist also asks for.
    """

    allowed_hosts: tuple[str, ...] | None = attrs.field(default=None, converter=_host_tuple)
    allow_private: bool = False

    def refusal(self, url: str) -> str | None:
        """Why `url` may not load, as a sentence Claude can act on, or None when it may."""
        text = cleaned(url)
        if text.lower() in INNOCUOUS_PAGES:
            return None
        try:
            parts = urlsplit(text)
            host = (parts.hostname or "").lower()
        except ValueError:
            return "the URL could not be parsed"
        if parts.scheme.lower() not in WEB_SCHEMES:
            return "only http and https URLs are allowed"
        if not host:
            return "the URL has no host"
        if self.allowed_hosts is not None and not any(_host_matches(host, p) for p in self.allowed_hosts):
            return f"{host} is not on this session's list of allowed hosts"
        if not self.allow_private and _is_private_host(host):
            return f"{host} is a local or private-network address, which this session does not allow"
        return None

    def allows(self, url: str) -> bool:
        return self.refusal(url) is None

    def check_navigation(self, url: str) -> None:
        """Raise the error Claude reads when `navigate` may not load `url` (already made absolute)."""
        reason = self.refusal(url)
        if reason is None:
            return
        if reason.startswith("only http"):
            raise ActionError(REFUSED_SCHEME)
        raise ActionError(f"Navigation refused: {reason}.")
