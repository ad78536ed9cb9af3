"""Making page-supplied text safe to show Claude: titles, URLs, console and network entries, script results.

Everything a page supplies is untrusted: it can carry line breaks that fake a new line of tool output, bidi
controls that reorder what Claude reads, megabytes of padding, and secrets (tokens in URLs, bearer headers logged
to the console). The SDK folds and bounds what it renders itself (tab URLs, titles, download fields); this module
covers what the executor writes into text results, and redacts credentials everywhere a URL or entry appears.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "bounded", "download_url", "one_line", "redact", "safe_title", "safe_url"]

REDACTED = "[redacted]"
REDACTED_PARAM = "REDACTED"
"""What a credential query value becomes: plain letters, so the URL stays readable without percent-escapes."""

# C0/C1 controls, DEL, line/paragraph separators and bidi controls: anything that breaks or reorders a line
LINE_UNSAFE_RE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")
# the same, except newline and tab, for multi-line text (page text, script results)
TEXT_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")
LONE_SURROGATE_RE = re.compile("[\ud800-\udfff]")

TITLE_MAX = 300
"""A title longer than this is cut: real titles are short, and a long one is usually padding or an injection."""

SECRET_PARAM_RE = re.compile(
    r"^(?:.*[_-])?(?:token|access[_-]?token|refresh[_-]?token|id[_-]?token|auth|authorization|key|api[_-]?key|"
    r"apikey|secret|client[_-]?secret|password|passwd|pwd|sig|signature|session|sessionid|sid|code|credential|"
    r"x-amz-[a-z-]+|x-goog-[a-z-]+|jwt|otp|ticket)$",
    re.IGNORECASE,
)
"""Query parameter names whose values are credentials (signed URLs, OAuth codes, API keys)."""

SECRET_TEXT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWT
    re.compile(
        r"(?i)\b((?:access_|refresh_|id_)?token|api[_-]?key|apikey|secret|password|passwd|session(?:id)?|"
        r"client_secret|signature|sig|auth)(\s*[=:]\s*[\"']?)([^\s\"'&,;}]{4,})"
    ),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"),  # API-key shapes
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b"),  # GitHub tokens
)


def _well_formed(text: str) -> str:
    return LONE_SURROGATE_RE.sub("\ufffd", text)


def one_line(text: str, limit: int) -> str:
    """`text` folded to one line (every unsafe run becomes a space), trimmed, and cut to `limit` with `…`."""
    line = LINE_UNSAFE_RE.sub(" ", _well_formed(text)).strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def bounded(text: str, limit: int, *, what: str = "text") -> str:
    """Multi-line page text with unsafe characters removed, cut to `limit` characters with a note saying so."""
    clean = TEXT_UNSAFE_RE.sub(" ", _well_formed(text))
    if len(clean) <= limit:
        return clean
    note = f"\n[{what} truncated at {limit:,} characters; {len(clean) - limit:,} more not shown]"
    return clean[: max(0, limit - len(note))] + note


def safe_title(title: str) -> str:
    """A page title for the tab inventory: one line, bounded. Not escaped: the API escapes quotes itself."""
    return one_line(title, TITLE_MAX)


def redact(text: str) -> str:
    """`text` with credential-looking values (bearer tokens, JWTs, `password=…`, API-key shapes) replaced."""
    for pattern in SECRET_TEXT_RES:
        if pattern.groups >= 3:
            text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
        elif pattern.groups == 1:
            text = pattern.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


def _safe_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    if not pairs:
        return query
    if not any(SECRET_PARAM_RE.match(name) for name, _ in pairs):
        return query
    return urlencode([(name, REDACTED_PARAM if SECRET_PARAM_RE.match(name) else value) for name, value in pairs])


def safe_url(url: str) -> str:
    """A page-supplied URL as Claude may read it: on one line, no `user:password@`, credential-like query values
    redacted, characters that do not belong in a URL percent-encoded. The API renders URLs verbatim."""
    line = one_line(url, 8192)
    try:
        parts = urlsplit(line)
    except ValueError:
        return quote(line, safe=":/?#[]@!$&'()*+,;=%~")
    netloc = parts.netloc.rpartition("@")[2]
    safe = urlunsplit((parts.scheme, netloc, parts.path, _safe_query(parts.query), parts.fragment))
    return quote(safe, safe=":/?#[]@!$&'()*+,;=%~")


def download_url(url: str) -> str:
    """A download's URL for `state_changes`: as `safe_url`, and with the query and fragment removed entirely,
    since after redirects they are usually signed credentials."""
    parts = urlsplit(safe_url(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
