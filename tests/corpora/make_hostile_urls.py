"""Writes `hostile_urls.json`: addresses a page or a manipulated Claude might use to reach a local or private
machine, each with the verdict the default URL policy must reach, and the fake DNS the names resolve through.

The verdicts are decided here from what each address was built to reach (an encoding of 127.0.0.1 must be refused
however it is spelled), never by running the policy, so the corpus checks the policy rather than recording it.
Run `python tests/corpora/make_hostile_urls.py` after changing it; the JSON is what the tests read.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

REFUSED_V4: dict[str, str] = {
    "127.0.0.1": "127.0.0.0/8",
    "127.1.2.3": "127.0.0.0/8",
    "10.0.0.1": "10.0.0.0/8",
    "10.255.255.254": "10.0.0.0/8",
    "172.16.5.4": "172.16.0.0/12",
    "172.31.255.1": "172.16.0.0/12",
    "192.168.1.1": "192.168.0.0/16",
    "169.254.169.254": "169.254.0.0/16",
    "100.100.100.200": "100.64.0.0/10",
    "100.64.0.1": "100.64.0.0/10",
    "0.0.0.0": "0.0.0.0/8",
    "224.0.0.1": "224.0.0.0/4",
    "255.255.255.255": "240.0.0.0/4",
    "198.18.0.1": "198.18.0.0/15",
    "192.0.0.170": "192.0.0.0/24",
}
"""Each refused IPv4 target and the range its refusal names."""

ALLOWED_V4 = ["8.8.8.8", "93.184.215.14", "1.1.1.1", "100.63.255.255", "100.128.0.1", "172.15.255.255",
              "172.32.0.1", "11.0.0.1", "169.253.1.1", "192.169.0.1"]  # fmt: skip
"""Public addresses right beside the refused ranges, in the same encodings: they must load."""


def v4_spellings(address: str) -> list[tuple[str, str]]:
    """Host spellings a WHATWG parser reads as `address`, with a note on each."""
    value = int(ipaddress.IPv4Address(address))
    a, b, c, d = (int(part) for part in address.split("."))
    return [
        (address, "dotted decimal"),
        (str(value), "one decimal number"),
        (hex(value), "one hex number"),
        ("0X" + format(value, "X"), "one hex number, upper case"),
        ("0x" + format(value, "010x"), "one hex number with leading zeros"),
        ("0" + format(value, "o") if value else "0", "one octal number"),
        (".".join(hex(p) for p in (a, b, c, d)), "dotted hex"),
        (".".join("0" + format(p, "o") for p in (a, b, c, d)), "dotted octal"),
        (f"{a}.{(b << 16) | (c << 8) | d}", "two parts"),
        (f"{a}.{b}.{(c << 8) | d}", "three parts"),
        (f"{hex(a)}.{b}.{c}.{d}", "hex first part"),
        (address + ".", "trailing dot"),
        ("".join(f"%{ord(ch):02x}" for ch in address), "percent-encoded"),
        (address.translate(str.maketrans("0123456789.", "０１２３４５６７８９．")), "full-width digits"),
        (address.replace(".", "\u3002"), "ideographic full stops"),
    ]


def v6_forms(address: str) -> list[tuple[str, str]]:
    """IPv6 hosts that deliver to the IPv4 `address`."""
    v4 = ipaddress.IPv4Address(address)
    high, low = int(v4) >> 16, int(v4) & 0xFFFF
    teredo_client = int(v4) ^ 0xFFFFFFFF
    return [
        (f"[::ffff:{address}]", "IPv4-mapped IPv6"),
        (f"[::ffff:{high:x}:{low:x}]", "IPv4-mapped IPv6, hex"),
        (f"[0:0:0:0:0:ffff:{address}]", "IPv4-mapped IPv6, long form"),
        (f"[64:ff9b::{address}]", "NAT64"),
        (f"[2002:{high:x}:{low:x}::1]", "6to4"),
        (f"[2001:0:4136:e378:8000:63bf:{teredo_client >> 16:x}:{teredo_client & 0xFFFF:x}]", "Teredo"),
    ]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(url: str, verdict: str, note: str, rule: str | None = None) -> None:
        case: dict[str, Any] = {"url": url, "verdict": verdict, "note": note}
        if rule is not None:
            case["rule"] = rule
        out.append(case)

    for address, rule in REFUSED_V4.items():
        for host, note in v4_spellings(address):
            add(f"http://{host}/", "refused", f"{address} as {note}", rule)
    for address in ALLOWED_V4:
        for host, note in v4_spellings(address)[:6]:
            add(f"http://{host}/", "allowed", f"public {address} as {note}")

    for address in ("127.0.0.1", "10.0.0.1", "169.254.169.254", "192.168.1.1", "100.100.100.200"):
        for host, note in v6_forms(address):
            add(f"http://{host}/", "refused", f"{address} as {note}", address)
    for address in ("8.8.8.8", "93.184.215.14"):
        for host, note in v6_forms(address):
            add(f"http://{host}/", "allowed", f"public {address} as {note}")
    add("http://[::127.0.0.1]/", "refused", "IPv4-compatible IPv6 of loopback", "127.0.0.0/8")
    add("http://[::10.0.0.1]/", "refused", "IPv4-compatible IPv6 of a private address", "10.0.0.0/8")

    for host, rule in [
        ("[::1]", "::1/128"), ("[0:0:0:0:0:0:0:1]", "::1/128"), ("[::0001]", "::1/128"), ("[::]", "::/128"),
        ("[fc00::1]", "fc00::/7"), ("[fd12:3456:789a::1]", "fc00::/7"), ("[fe80::1]", "fe80::/10"),
        ("[febf:ffff::1]", "fe80::/10"), ("[fec0::1]", "fec0::/10"), ("[ff02::1]", "ff00::/8"),
        ("[64:ff9b:1::a00:1]", "64:ff9b:1::/48"), ("[2001:db8::1]", "2001:db8::/32"), ("[100::1]", "100::/64"),
        ("[FE80::1]", "fe80::/10"), ("[::ffff:0:0]", "0.0.0.0/8"),
    ]:  # fmt: skip
        add(f"http://{host}/", "refused", "IPv6 local, private or reserved", rule)
    for host in ("[2606:4700:4700::1111]", "[2001:4860:4860::8888]", "[2a00:1450:4001:82b::200e]"):
        add(f"http://{host}/", "allowed", "public IPv6")

    # userinfo, backslashes and other parser differentials: the host is what a browser connects to
    for url, note in [
        ("http://a@169.254.169.254\\@b/", "userinfo and a backslash"),
        ("http://example.com@127.0.0.1/", "a public name as userinfo"),
        ("http://user:hunter2@10.0.0.1/", "a password in userinfo"),
        ("http://127.0.0.1\\@example.com/", "a backslash ends the host"),
        ("http:\\\\10.0.0.1", "backslashes for slashes"),
        ("http:/\\10.0.0.1/", "a slash and a backslash"),
        ("http:10.0.0.1", "no slashes"),
        ("http:///10.0.0.1/", "three slashes"),
        ("HtTp://10.0.0.1/", "mixed-case scheme"),
        ("http://10.0.0.1:80/", "default port"),
        ("http://10.0.0.1:8080/admin", "a port and a path"),
        ("  http://10.0.0.1/  ", "surrounding spaces"),
        ("http://10.0\t.0.1/", "a tab inside the host"),
        ("http://10.0.0\n.1/", "a newline inside the host"),
        ("\x00http://10.0.0.1/", "a leading NUL"),
        ("http://example.com:80@10.0.0.1/", "a port-like userinfo"),
        ("http://10.0.0.1#@evil.com/", "the fragment holds the public name"),
        ("http://10.0.0.1?@evil.com/", "the query holds the public name"),
        ("http://[::ffff:a9fe:a9fe]/latest/meta-data/", "metadata by mapped IPv6"),
        ("https://169.254.169.254/computeMetadata/v1/", "metadata over https"),
        ("http://a:b@c:d@127.0.0.1/", "two @ signs"),
        ("http://%31%32%37%2e%30%2e%30%2e%31/", "percent-encoded dots too"),
        ("http://0x7f.1/", "hex and two parts"),
        ("http://127.1/", "two parts"),
        ("http://2130706433/", "one decimal number"),
        ("http://0251.0376.0251.0376/", "dotted octal metadata"),
        ("http://169.254.43518/", "two-part metadata"),
        ("http://0/", "zero"),
        ("http://0x0/", "hex zero"),
        ("http://127.0.0.1./", "trailing dot"),
    ]:
        add(url, "refused", note)
    for url, note in [
        ("127.0.0.1", "scheme-less"),
        ("127.0.0.1:8080/x", "scheme-less with a port"),
        ("0x7f.1:8080/x", "scheme-less hex with a port"),
        ("//127.0.0.1/", "protocol-relative"),
        ("\\\\10.0.0.1\\share", "UNC-like"),
        ("localhost", "scheme-less localhost"),
        ("localhost:3000", "scheme-less localhost with a port"),
        ("[::1]:8080", "scheme-less IPv6 loopback"),
    ]:
        add(url, "refused", note)

    names = [
        ("localhost", "loopback name"), ("LOCALHOST", "upper case"), ("localhost.", "trailing dot"),
        ("localhost..", "two trailing dots"), ("LocalHost.", "mixed case and a dot"), ("app.localhost", "*.localhost"),
        ("a.b.localhost.", "*.localhost with a dot"), (".localhost", "empty label"), ("loc%61lhost", "percent-encoded"),
        ("ｌｏｃａｌｈｏｓｔ", "full-width"),
        ("localhost\u3002", "ideographic full stop"), ("localhost%2e", "encoded dot"),
        ("localhost.localdomain", "localdomain"), ("ip6-localhost", "ip6-localhost"), ("ip6-loopback", "ip6-loopback"),
        ("localhost6", "localhost6"), ("metadata", "GCE metadata short"), ("metadata.google.internal", "GCE metadata"),
        ("METADATA.GOOGLE.INTERNAL.", "GCE metadata, upper case"), ("metadata.goog", "metadata.goog"),
        ("instance-data", "EC2 instance-data"), ("instance-data.ec2.internal", "EC2 instance-data FQDN"),
        ("printer.local", "mDNS"), ("nas.lan", ".lan"), ("router.home.arpa", ".home.arpa"),
        ("db.internal", ".internal"),
        ("git.corp", ".corp"), ("wiki.intranet", ".intranet"), ("vault.private", ".private"), ("gw.home", ".home"),
        ("api.default.svc", ".svc"), ("kubernetes.default", "kubernetes"), ("kubernetes", "kubernetes short"),
        ("intranet", "single label"), ("router", "single label"), ("jenkins", "single label"),
        ("x.LOCAL", "upper-case suffix"), ("x.local.", "suffix with a dot"),
    ]  # fmt: skip
    for host, note in names:
        add(f"http://{host}/", "refused", f"name: {note}")
        add(f"https://{host}:8443/path", "refused", f"name with port: {note}")

    resolver_cases: list[tuple[str, str, str, str | None]] = [
        ("localtest.me", "refused", "a public name for 127.0.0.1", "127.0.0.0/8"),
        ("sub.localtest.me", "refused", "a wildcard public name for 127.0.0.1", "127.0.0.0/8"),
        ("lvh.me", "refused", "a public name for 127.0.0.1", "127.0.0.0/8"),
        ("127.0.0.1.nip.io", "refused", "nip.io", "127.0.0.0/8"),
        ("10.0.0.1.sslip.io", "refused", "sslip.io", "10.0.0.0/8"),
        ("169.254.169.254.nip.io", "refused", "nip.io metadata", "169.254.0.0/16"),
        ("rebind.example", "refused", "one public and one loopback answer", "127.0.0.0/8"),
        ("v6loop.example", "refused", "an AAAA for ::1", "::1/128"),
        ("mapped.example", "refused", "an AAAA for a mapped private address", "10.0.0.0/8"),
        ("hosts-file.example", "refused", "an /etc/hosts entry for 192.168.0.10", "192.168.0.0/16"),
        ("cgnat.example", "refused", "a name for Alibaba's metadata address", "100.64.0.0/10"),
        ("example.com", "allowed", "a public name", None),
        ("www.example.org", "allowed", "a public name", None),
        ("v6.example", "allowed", "a public IPv6 name", None),
        ("unresolvable.example", "allowed", "does not resolve (the browser will fail too)", None),
        ("127.0.0.1.example.com", "allowed", "looks local, resolves nowhere", None),
        ("localhost.example.com", "allowed", "a public name starting with localhost", None),
        ("mylocal.example.net", "allowed", "a public name with local in it", None),
        ("shop.test", "allowed", "a test domain with no answer", None),
        ("xn--bcher-kva.example", "allowed", "an IDN", None),
        ("bücher.example", "allowed", "an IDN in Unicode", None),
    ]
    for host, verdict, note, named_rule in resolver_cases:
        add(f"https://{host}/", verdict, f"resolved: {note}", named_rule)
        add(f"http://{host}:8080/x?y=1", verdict, f"resolved, with a port: {note}", named_rule)

    for url, note in [
        ("https://example.com/?next=http://127.0.0.1/", "a private address in the query"),
        ("https://example.com/redirect/127.0.0.1", "a private address in the path"),
        ("https://example.com/#http://10.0.0.1/", "a private address in the fragment"),
        ("https://example.com:443/", "default port"),
        ("http://example.com#@10.0.0.1/", "the fragment holds the private address"),
        ("http://example.com?@10.0.0.1/", "the query holds the private address"),
        ("http://example.com\\@10.0.0.1/", "a backslash ends the public host"),
        ("example.com", "scheme-less public name"),
        ("EXAMPLE.COM/docs", "scheme-less, upper case"),
        ("https://user@example.com/", "userinfo on a public host"),
        ("http://8.8.8.8:53/", "public address with a port"),
    ]:
        add(url, "allowed", note)

    for url, note in [
        ("javascript:alert(1)", "javascript"), ("JaVaScRiPt:alert(1)", "javascript mixed case"),
        ("java\nscript:alert(1)", "javascript with a newline"), ("data:text/html,<script>1</script>", "data"),
        ("file:///etc/passwd", "file"), ("file://localhost/etc/passwd", "file with a host"),
        ("chrome://settings", "chrome"), ("view-source:http://127.0.0.1/", "view-source"),
        ("ftp://10.0.0.1/", "ftp"), ("ws://127.0.0.1/", "websocket"), ("blob:http://127.0.0.1/x", "blob"),
        ("gopher://127.0.0.1:6379/_INFO", "gopher to redis"), ("dict://127.0.0.1:11211/", "dict"),
        ("about:config", "about:config"), ("vbscript:msgbox", "vbscript"),
    ]:  # fmt: skip
        add(url, "refused", f"scheme: {note}", "scheme")

    for url, note in [
        ("http://1.2.3.4.5/", "five IPv4 parts"), ("http://256.0.0.1/", "an IPv4 part over 255"),
        ("http://0x100000000/", "over 32 bits"), ("http://4294967296/", "over 32 bits, decimal"),
        ("http://[1::2::3]/", "two ::"), ("http://[fe80::1%25eth0]/", "a zone id"), ("http://09.0.0.1/", "bad octal"),
        ("http://ex%00ample.com/", "an encoded NUL"), ("http://a b/", "a space in the host"),
        ("http://user@:80/", "no host"), ("http://example.com:99999/", "port out of range"), ("http://", "empty"),
        ("http://[::1/", "unclosed bracket"), ("http://\ud800.com/", "an unpaired surrogate"),
    ]:  # fmt: skip
        add(url, "refused", f"unparseable: {note}", "parse")
    return out


RESOLVER: dict[str, list[str]] = {
    "localtest.me": ["127.0.0.1"],
    "sub.localtest.me": ["127.0.0.1"],
    "lvh.me": ["127.0.0.1"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "10.0.0.1.sslip.io": ["10.0.0.1"],
    "169.254.169.254.nip.io": ["169.254.169.254"],
    "rebind.example": ["93.184.215.14", "127.0.0.1"],
    "v6loop.example": ["::1"],
    "mapped.example": ["2606:4700::1", "::ffff:10.0.0.1"],
    "hosts-file.example": ["192.168.0.10"],
    "cgnat.example": ["100.100.100.200"],
    "example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "www.example.org": ["93.184.215.14"],
    "v6.example": ["2001:4860:4860::8888"],
    "localhost.example.com": ["93.184.215.14"],
    "mylocal.example.net": ["93.184.215.14"],
    "xn--bcher-kva.example": ["93.184.215.14"],
}
"""The fake DNS the corpus resolves through; a name not listed does not resolve."""


def main() -> None:
    corpus = {"resolver": RESOLVER, "cases": cases()}
    (HERE / "hostile_urls.json").write_text(json.dumps(corpus, indent=1, ensure_ascii=True) + "\n")
    print(f"{len(corpus['cases'])} cases written")


if __name__ == "__main__":
    main()
