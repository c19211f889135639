"""Keeping secrets out of everything niah writes or prints.

API keys live only in request headers, but a server may echo them back (a gateway that puts the
``Authorization`` header into a 401 body) and a user may put credentials into a base URL
(``http://user:KEY@host/v1``). Every secret niah reads is registered here, and every string that reaches a
file or a message passes through :func:`redact`, which replaces registered secrets, bearer tokens and URL
credentials with ``***``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
_MIN_SECRET = 4  # shorter strings would mask ordinary words
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None

_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=\-:]{6,}")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@:'\"]*:[^/\s@'\"]*@")
_KEY_LIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-]{16,}")


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
    return _KEY_LIKE.sub(lambda m: f"{m.group(1)}-{MASK}", text)


def url_credentials(url: str) -> tuple[str | None, str | None]:
    """(username, password) written into ``url``, or (None, None)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None, None
    return parts.username, parts.password


def redact_url(url: str) -> str:
    """``url`` without its credentials (``http://***@host/v1``): safe to record and print."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    if parts.username is None and parts.password is None:
        return redact(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return redact(urlunsplit((parts.scheme, f"{MASK}@{host}", parts.path, parts.query, parts.fragment)))


def register_url_secrets(url: str) -> None:
    user, password = url_credentials(url)
    add_secret(password)
    if password is None:
        add_secret(user)  # a token passed as the user part alone (http://TOKEN@host)
