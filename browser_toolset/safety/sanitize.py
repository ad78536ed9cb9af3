"""Making page-supplied text safe to show Claude: titles, URLs, console and network entries, dialog texts, script
results, download entries.

Everything a page supplies is untrusted: it can carry line breaks that fake a new line of tool output, bidi and
invisible characters that reorder or hide what Claude reads (or split a token so no pattern sees it), megabytes of
padding, and secrets (tokens in URLs, bearer headers logged to the console, a card number in a script result).
The SDK folds and bounds what it renders itself (tab URLs, titles, download fields); this module covers what the
executor writes, and redacts credentials everywhere a URL or log-like text appears. Page text and the
accessibility tree are left unredacted: they are what the user asked Claude to read.

The patterns are data (`TOKEN_SHAPES`, `SECRET_NAMES`, ...): a new credential format is one more row.
"""

from __future__ import annotations

import re
from itertools import pairwise
from urllib.parse import quote, unquote, unquote_plus, urlsplit, urlunsplit

__all__ = [
    "REDACTED",
    "bounded",
    "clip",
    "download_url",
    "looks_secret",
    "one_line",
    "redact",
    "redact_url",
    "safe_title",
    "safe_url",
]

REDACTED = "[redacted]"
REDACTED_PARAM = "REDACTED"
"""What a credential inside a URL becomes: plain letters, so the URL stays readable without percent-escapes."""

# --- characters ----------------------------------------------------------------------------------------------------

INVISIBLE_CHARS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
"""Format characters that draw nothing: zero-width spaces and joiners, bidi marks, overrides and isolates, soft
hyphens, variation selectors and Unicode tags (used to smuggle invisible instructions). Removed outright, so a
token split by one is whole again for the patterns below."""
INVISIBLE_RE = re.compile(f"[{INVISIBLE_CHARS}]+")
# C0/C1 controls, DEL, line and paragraph separators: anything that breaks a line
LINE_UNSAFE_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u0085]+")
# the same, except newline and tab, for multi-line text (page text, script results)
TEXT_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]+")
LONE_SURROGATE_RE = re.compile("[\ud800-\udfff]")

URL_MAX = 8192
TITLE_MAX = 300
"""A title longer than this is cut: real titles are short, and a long one is usually padding or an injection."""
REDACT_WINDOW = 4
"""How much more than its limit a text is redacted before it is cut (limit × this): enough that a secret straddling
the cut is seen whole, little enough that a page cannot make redaction slow with megabytes of log."""

# --- what a secret looks like ----------------------------------------------------------------------------------

TOKEN_SHAPES: tuple[tuple[str, str], ...] = (
    ("JWT", r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    ("private key", r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^-]{0,10000}(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?"),
    ("Stripe key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,200}"),
    ("OpenAI / Anthropic style key", r"sk-[A-Za-z0-9_-]{16,300}"),
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{20,255}"),
    ("GitHub fine-grained token", r"github_pat_[A-Za-z0-9_]{20,255}"),
    ("GitLab token", r"glpat-[A-Za-z0-9_-]{20,100}"),
    ("AWS access key id", r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}"),
    ("Slack token", r"xox[abprse]-[A-Za-z0-9-]{10,250}"),
    ("Slack app token", r"xapp-[A-Za-z0-9-]{10,250}"),
    ("Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    ("Google OAuth token", r"ya29\.[0-9A-Za-z_-]{20,2000}"),
    ("npm token", r"npm_[A-Za-z0-9]{36}"),
    ("Hugging Face token", r"hf_[A-Za-z0-9]{30,100}"),
    ("SendGrid key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
)
"""Credential formats recognisable on their own, wherever they appear."""
TOKEN_RE = re.compile("|".join(f"(?:{shape})" for _, shape in TOKEN_SHAPES))
TOKEN_IN_TEXT_RE = re.compile(rf"(?<![A-Za-z0-9])(?:{TOKEN_RE.pattern})")

SECRET_NAMES: tuple[str, ...] = (
    r"(?:access|refresh|id|auth|bearer|session|csrf|xsrf|api|oauth|client|app|private)?[_-]?token",
    r"api[_-]?key",
    r"apikey",
    r"x[_-]api[_-]key",
    r"(?:access|secret|private|signing|encryption|master|client)[_-]?key",
    r"(?:client|app|shared)?[_-]?secret",
    r"pass(?:word|wd|phrase)?",
    r"pwd",
    r"session(?:[_-]?id)?",
    r"sid",
    r"sig(?:nature)?",
    r"auth",
    r"credentials?",
    r"otp",
    r"jwt",
)
"""Names whose values are credentials in free text (`password=…`, `"api_key": "…"`), with any prefix
(`stripe_secret`, `x-auth-token`). Header names are `HEADER_RULES`' business."""
NAMED_SECRET_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?<!\{\{)((?:[A-Za-z0-9]{1,30}[_-]){0,4}(?:" + "|".join(SECRET_NAMES) + r"))"
    r"([\"']?\s{0,5}[=:]\s{0,5}[\"']?)(?!REDACTED(?![A-Za-z0-9]))(?!\{\{secret:)([^\s\"'&,;}<>\]\[]{4,4096})"
)
"""A declared secret's placeholder (`{{secret:NAME}}`, `browser_toolset.safety.secrets`) is neither a name nor a
value here: it already stands for the value, and stays readable."""

SECRET_PARAM_NAMES: tuple[str, ...] = (
    r"token",
    r"(?:access|refresh|id|auth|session|csrf|xsrf)[_-]?token",
    r"auth",
    r"authorization",
    r"key",
    r"api[_-]?key",
    r"apikey",
    r"(?:client|app)?[_-]?secret",
    r"password",
    r"passwd",
    r"pwd",
    r"sig",
    r"signature",
    r"session",
    r"sessionid",
    r"sid",
    r"code",
    r"credentials?",
    r"x-amz-[a-z-]+",
    r"x-goog-[a-z-]+",
    r"jwt",
    r"otp",
    r"ticket",
    r"state",
    r"nonce",
    r"assertion",
    r"samlresponse",
)
"""Query and fragment parameter names whose values are credentials (signed URLs, OAuth codes and tokens in a
`#access_token=…` redirect, API keys), with any `_` / `-` prefix."""
SECRET_PARAM_RE = re.compile(r"^(?:.{0,60}[_-])?(?:" + "|".join(SECRET_PARAM_NAMES) + r")$", re.IGNORECASE)

SECRET_PATH_WORDS = frozenset(
    {"token", "tokens", "reset", "reset-password", "password-reset", "magic", "magic-link", "login", "verify",
     "verification", "confirm", "confirmation", "invite", "invitation", "activate", "activation", "unsubscribe",
     "key", "keys", "secret", "signature", "session", "auth", "oauth", "sso", "share", "s"}
)  # fmt: skip
"""A path segment after one of these (`/reset/<token>`, `/invite/<code>`) is a credential when it has letters and
digits."""

AUTH_SCHEMES = r"(?:bearer|basic|digest|negotiate|ntlm|token|apikey|sharedkey|aws4-hmac-sha256)"
HEADER_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "authorization header",
        re.compile(
            r"(?i)(?<![A-Za-z0-9-])((?:proxy-)?authorization|x-api-key|x-auth-token|api-key)([\"']?\s{0,5}[:=]\s{0,5}"
            rf"[\"']?(?:{AUTH_SCHEMES}\s{{1,5}})?)([^\s\"',;]{{1,4096}})"
        ),
    ),
    (
        "cookie header",
        re.compile(r"(?i)(?<![A-Za-z0-9-])(set-cookie|cookie)([\"']?\s{0,5}:\s{0,5}[\"']?)([^\r\n\"']{1,8192})"),
    ),
)
"""Header lines whose whole value is a credential; the header name stays so the line still reads."""
SCHEME_TOKEN_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(bearer|basic|digest|negotiate)(\s{1,5})([A-Za-z0-9._~+/=-]{8,4096})"
    r"|(?<![A-Za-z0-9])(token)(\s{1,5})((?=[A-Za-z0-9._~+/=-]{0,4096}\d)[A-Za-z0-9._~+/=-]{12,4096})"
)
DIGEST_RE = re.compile(r"(?i)(?<![A-Za-z0-9])(digest)(\s{1,5})((?=[A-Za-z]{1,30}=)[^\r\n]{1,4096})")
"""Digest credentials are comma-separated parameters: everything after the word goes."""
CARD_RE = re.compile(r"(?<![\w.+-])(?:\d[ -]?){12,18}\d(?![\w.])")
URL_IN_TEXT_RE = re.compile(r"(?i)(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}://[^\s\"'<>`]{1,8192}")
BASE64ISH_RE = re.compile(r"[A-Za-z0-9_+/=-]{20,}")
RANDOM_MIN = 20
"""A mixed-case, digit-bearing run this long is random when its character classes change often (a token), unlike
an identifier (`MyComponentVersion2`); `RANDOM_SURE` long, it is taken as random outright."""
RANDOM_SURE = 32
RANDOM_CHANGES = 0.45
NESTED_URL_DEPTH = 3
"""How deeply URLs inside URL parameters (`?redirect=https%3A…%3Ftoken%3D…`) are redacted in turn."""
HEX_RE = re.compile(r"[0-9a-fA-F]{48,}")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


# --- folding and bounding ------------------------------------------------------------------------------------------


def _well_formed(text: str) -> str:
    return LONE_SURROGATE_RE.sub("\ufffd", text)


def visible(text: str) -> str:
    """`text` without unpaired surrogates (each becomes U+FFFD) and without invisible format characters."""
    return INVISIBLE_RE.sub("", _well_formed(text))


def one_line(text: str, limit: int) -> str:
    """`text` folded to one line (every line break or control run becomes a space, invisible characters are
    removed), trimmed, and cut to `limit` with `…`."""
    line = LINE_UNSAFE_RE.sub(" ", visible(text)).strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def clip(line: str, limit: int, *, total: int = 0) -> str:
    """One line cut to `limit` characters with a note saying how much there was (`total`, when the line is already
    a cut of a longer text)."""
    if len(line) <= limit:
        return line
    note = f"… [cut: {max(len(line), total):,} characters in all]"
    return line[: max(0, limit - len(note))] + note


def bounded(text: str, limit: int, *, what: str = "text", total: int = 0) -> str:
    """Multi-line page text with unsafe characters removed, cut to `limit` characters with a note saying so
    (counting up to `total`, when `text` is already a cut of a longer text)."""
    clean = TEXT_UNSAFE_RE.sub(" ", visible(text))
    if len(clean) <= limit:
        return clean
    note = f"\n[{what} truncated at {limit:,} characters; {max(len(clean), total) - limit:,} more not shown]"
    return clean[: max(0, limit - len(note))] + note


def window(text: str, limit: int) -> str:
    """The part of `text` worth redacting before it is cut to `limit`."""
    most = max(limit, 256) * REDACT_WINDOW
    return text if len(text) <= most else text[:most]


# --- redaction -----------------------------------------------------------------------------------------------------


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"[ -]", "", match.group(0))
    if 13 <= len(digits) <= 19 and digits[0] in "23456" and _luhn(digits):
        return REDACTED
    return match.group(0)


def looks_secret(value: str) -> bool:
    """Whether a bare value (a path segment, an unnamed query parameter, a fragment) is a credential: a known token
    shape, or a long random-looking string (mixed-case letters and digits, or long hex) that is not a UUID."""
    value = value.strip()
    if len(value) < 16:
        return False
    if TOKEN_RE.search(value):
        return True
    if UUID_RE.match(value):
        return False
    for run in BASE64ISH_RE.findall(value):
        for piece in re.split(r"[-_]", run):
            if len(piece) >= RANDOM_MIN and _random_looking(piece):
                return True
    return bool(HEX_RE.search(value))


def _char_class(char: str) -> int:
    return 0 if char.islower() else 1 if char.isupper() else 2 if char.isdigit() else 3


def _random_looking(piece: str) -> bool:
    classes = [_char_class(char) for char in piece]
    if not {0, 1, 2} <= set(classes):
        return False
    if len(piece) >= RANDOM_SURE:
        return True
    changes = sum(1 for before, after in pairwise(classes) if before != after)
    return changes / (len(piece) - 1) >= RANDOM_CHANGES


def _keep_name(match: re.Match[str]) -> str:
    return f"{match.group(1)}{match.group(2)}{REDACTED}"


def _scheme_token(match: re.Match[str]) -> str:
    for first in (1, 4):
        if match.group(first) is not None:
            return f"{match.group(first)}{match.group(first + 1)}{REDACTED}"
    return match.group(0)


def redact(text: str) -> str:
    """`text` with credentials replaced by `[redacted]`: URLs as `redact_url` treats them, header values
    (`Authorization`, `Cookie`, `Set-Cookie`), bearer and basic credentials, token shapes (`TOKEN_SHAPES`),
    `name=value` pairs whose name is a secret's (`SECRET_NAMES`), and card numbers that pass the Luhn check.
    Invisible characters are removed first, so none can hide a token from these patterns."""
    text = visible(text)
    text = URL_IN_TEXT_RE.sub(lambda m: redact_url(m.group(0)), text)
    text = DIGEST_RE.sub(_keep_name, text)
    for _, pattern in HEADER_RULES:
        text = pattern.sub(_keep_name, text)
    text = SCHEME_TOKEN_RE.sub(_scheme_token, text)
    text = TOKEN_IN_TEXT_RE.sub(REDACTED, text)
    text = NAMED_SECRET_RE.sub(_keep_name, text)
    return CARD_RE.sub(_card, text)


def _redacted_pairs(text: str, separator: str, depth: int = 0) -> str:
    """Query-like `name=value` pairs with credential values replaced, the rest left byte for byte as they were. A
    value that is itself a URL (a redirect target) is redacted as one."""
    pieces = text.split(separator)
    changed = False
    for index, piece in enumerate(pieces):
        name, equals, value = piece.partition("=")
        decoded_name = unquote_plus(name)
        if equals:
            decoded = unquote_plus(value)
            secret = bool(value) and (SECRET_PARAM_RE.match(decoded_name) is not None or looks_secret(decoded))
            if secret and value != REDACTED_PARAM:
                pieces[index] = f"{name}={REDACTED_PARAM}"
                changed = True
            elif "://" in decoded and depth < NESTED_URL_DEPTH:
                inner = redact_url(decoded, depth + 1)
                if inner != decoded:
                    pieces[index] = f"{name}={quote(inner, safe='')}"
                    changed = True
        elif looks_secret(unquote(piece)):
            pieces[index] = REDACTED_PARAM
            changed = True
    return separator.join(pieces) if changed else text


def _redacted_path(path: str) -> str:
    segments = path.split("/")
    changed = False
    for index, segment in enumerate(segments):
        decoded = unquote(segment)
        after_word = index > 0 and unquote(segments[index - 1]).lower() in SECRET_PATH_WORDS
        tokenish = len(decoded) >= 8 and re.search(r"\d", decoded) and re.search(r"[A-Za-z]", decoded)
        if looks_secret(decoded) or (after_word and tokenish):
            segments[index] = REDACTED_PARAM
            changed = True
    return "/".join(segments) if changed else path


def _redacted_fragment(fragment: str, depth: int) -> str:
    if "=" in fragment:
        route, mark, params = fragment.rpartition("?") if "?" in fragment else ("", "", fragment)
        return route + mark + _redacted_pairs(params, "&", depth)
    return _redacted_path(fragment)


def redact_url(url: str, depth: int = 0) -> str:
    """A URL with its credentials replaced: userinfo (`user:password@`) removed, and secret query and fragment
    parameters (named or not: `?token=…`, `?<long token>`, `#access_token=…`), token-like path segments and
    known token shapes replaced by `REDACTED`. Everything else is left as written."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return TOKEN_RE.sub(REDACTED_PARAM, url)
    if not parts.netloc and not url[len(parts.scheme) + 1 :].startswith("//"):
        # an opaque URL (data:, javascript:, mailto:): no structure to go by, only the token shapes
        return NAMED_SECRET_RE.sub(_keep_name, TOKEN_RE.sub(REDACTED_PARAM, url))
    netloc = parts.netloc.rpartition("@")[2]
    path = _redacted_path(parts.path)
    query = _redacted_pairs(parts.query, "&", depth)
    fragment = _redacted_fragment(parts.fragment, depth)
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    rebuilt = urlunsplit((parts.scheme, netloc, path, query, fragment))
    if parts.query == "" and url.rstrip("#").endswith("?"):
        rebuilt += "?"
    return rebuilt


def safe_title(title: str) -> str:
    """A page title for the tab inventory: one line, credentials redacted, bounded. Not escaped: the API escapes
    quotes itself."""
    return one_line(redact(one_line(window(title, TITLE_MAX), TITLE_MAX * REDACT_WINDOW)), TITLE_MAX)


def safe_url(url: str) -> str:
    """A page-supplied URL as Claude may read it: on one line, credentials redacted (`redact_url`), bounded,
    characters that do not belong in a URL percent-encoded. The API renders URLs verbatim."""
    line = one_line(window(url, URL_MAX), URL_MAX * REDACT_WINDOW)
    return quote(one_line(redact_url(line), URL_MAX), safe=":/?#[]@!$&'()*+,;=%~")


def download_url(url: str) -> str:
    """A download's URL for `state_changes`: as `safe_url`, and with the query and fragment removed entirely,
    since after redirects they are usually signed credentials."""
    parts = urlsplit(safe_url(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def safe_log_line(text: str, limit: int) -> str:
    """A console or network entry, a dialog message, a download error: redacted, on one line, cut with a note."""
    return clip(one_line(redact(window(text, limit)), limit * REDACT_WINDOW), limit, total=len(text))


def safe_text(text: str, limit: int, *, what: str) -> str:
    """Multi-line page-supplied text that is log-like (a script result): redacted, unsafe characters removed, cut
    with a note."""
    return bounded(redact(window(text, limit)), limit, what=what, total=len(text))
