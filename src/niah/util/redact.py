"""Keeping secrets out of everything niah writes or prints.

API keys live only in request headers, but a server may echo them back (a gateway that puts the
``Authorization`` header into a 401 body) and a user may put credentials into a base URL
(``http://user:KEY@host/v1``, ``http://host/v1?api_key=KEY``). Every secret niah reads is registered here, in
every form a server may echo it (a URL password as written and percent-decoded, the Basic header built from
it), and every string that reaches a file or a message passes through :func:`redact`, which replaces
registered secrets, bearer tokens, URL credentials and secret-named query parameters with ``***``.

A base URL's every userinfo part (``http://KEY:@host``, ``http://KEY@host``, ``http://user:PASS@host``),
every query value (``?pass=``, ``?jwt=``, whatever the name) and its fragment (``#access_token=``) are the
user's secrets: :func:`redact_url` masks them all, and all are registered (a value not named like a secret from 8
characters on, so that a short ``api-version=2024`` does not mask every year a model writes).
"""

from __future__ import annotations

import base64
import re
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

MASK = "***"
#: Registered values shorter than this are not masked (``abc`` would mask ordinary words). A key the user chose
#: is masked wherever it appears, even when it is a word: a key never reaches a file or a message.
_MIN_SECRET = 4
#: Query values of a base URL not named like a secret are registered from this length on (see register_url_secrets).
_MIN_QUERY_SECRET = 8
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None

#: ``Bearer KEY``, ``Basic B64``, ``token KEY`` as headers write them: the scheme word standing alone (not the end
#: of ``8000-token``), followed by a value that looks like a credential (a digit, a symbol inside it, or a capital
#: after a letter, as in random keys and base64) rather than an English word (``token sample.``).
_BEARER = re.compile(r"(?i)(?<![\w\-])(bearer|basic|token)(\s+)"
                     r"(?-i:(?=[A-Za-z0-9._~+/=\-:]*(?:[0-9]|[._~+/=\-:][A-Za-z0-9]|(?<=[A-Za-z])[A-Z])))"
                     r"[A-Za-z0-9._~+/=\-:]{6,}")
#: Any userinfo of a URL (``user:pass@``, ``TOKEN@``, ``TOKEN:@``): everything between ``://`` and an ``@`` that
#: comes before the first ``/``.
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@'\"<>]*@")
_KEY_LIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-]{16,}")
#: Query parameters that carry credentials (``?api_key=``, ``&key=``, ``?token=``, signed-URL signatures).
SECRET_PARAMS = re.compile(r"(?i)^(?:[a-z0-9_\-]*(?:key|token|secret|passw(?:or)?d|pwd|auth|credential|session)"
                           r"[a-z0-9_\-]*|sig|signature|code|x-amz-signature|x-goog-signature)$")
_QUERY_SECRET = re.compile(r"(?i)([?&;]([a-z0-9_\-]+)=)([^&#\s\"'<>]+)")


def add_secret(value: str | None) -> None:
    """Register a secret so that :func:`redact` masks it wherever it appears."""
    global _pattern
    if value and len(value) >= _MIN_SECRET and value not in _secrets:
        _secrets.add(value)
        _pattern = re.compile("|".join(re.escape(s) for s in sorted(_secrets, key=len, reverse=True)))


def redact(text: str) -> str:
    """``text`` with registered secrets, bearer/basic tokens, ``sk-...`` keys and URL credentials masked."""
    if not text:
        return text
    if _pattern is not None:
        text = _pattern.sub(MASK, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    text = _QUERY_SECRET.sub(lambda m: m.group(1) + MASK if SECRET_PARAMS.match(m.group(2)) else m.group(0), text)
    return _KEY_LIKE.sub(lambda m: f"{m.group(1)}-{MASK}", text)


def url_credentials(url: str) -> tuple[str | None, str | None]:
    """(username, password) written into ``url``, or (None, None)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None, None
    return parts.username, parts.password


def redact_url(url: str) -> str:
    """``url`` without its credentials (``http://***@host/v1``) and secret query values (``?key=***``): safe
    to record and print."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    # every query value is masked, whatever its name: a base URL's query carries only what the user put there
    query = "&".join(f"{raw.partition('=')[0]}={MASK}" if "=" in raw else raw for raw in parts.query.split("&")) \
        if parts.query else ""
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
    # a fragment is never sent to a server; one in a base URL is the user's (#access_token=...): masked whole
    return redact(urlunsplit((parts.scheme, netloc, parts.path, query, MASK if parts.fragment else "")))


def register_url_secrets(url: str) -> None:
    """Register the credentials of ``url``: its password (as written and percent-decoded), the user part
    when it is a token alone, the ``Basic`` header value a client builds from them, and the values of
    secret-named query parameters (as written and decoded)."""
    user, password = url_credentials(url)
    # every userinfo part: a token passed as the user (http://TOKEN@host, http://TOKEN:@host) as much as a password
    for value in (password, unquote(password) if password else None, user, unquote(user) if user else None):
        add_secret(value)
    if user is not None or password is not None:
        pair = f"{unquote(user or '')}:{unquote(password or '')}".encode()
        add_secret(base64.b64encode(pair).decode("ascii"))
    try:
        parts = urlsplit(url)
        query, fragment = parts.query, parts.fragment
    except ValueError:
        return
    if fragment:  # the whole fragment, and each value in it (#access_token=...&state=...)
        add_secret(fragment)
        query = f"{query}&{fragment}" if query else fragment
    # every query value, whatever its name (?pass=, ?jwt=): a secret-named one as any secret, any other from
    # _MIN_QUERY_SECRET characters on (masking a short value such as api-version=2024 everywhere would mask every
    # "2024" a model writes; redact_url masks it in the URL all the same)
    pairs = [(unquote(n), v) for n, sep, v in (raw.partition("=") for raw in query.split("&")) if sep]
    pairs += parse_qsl(query, keep_blank_values=False)
    for name, value in pairs:
        if SECRET_PARAMS.match(name) or len(value) >= _MIN_QUERY_SECRET:
            add_secret(value)


def split_query(url: str) -> tuple[str, str]:
    """``url`` without its query string, and the query string: a base URL's query belongs after the request
    path (``/v1/chat/completions?key=...``), not inside it."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), parts.query
