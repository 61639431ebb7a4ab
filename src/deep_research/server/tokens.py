"""The server's bearer tokens: a table of ``token=user_id`` pairs, or tokens signed with a secret.

Two schemes, configured in the environment and usable together:

- ``DEEP_RESEARCH_AUTH_TOKENS="TOKEN1=alice,TOKEN2=bob"``: each token (at least 16 characters)
  stands for one user. Every token is compared in constant time (``hmac.compare_digest``).
- ``DEEP_RESEARCH_AUTH_SECRET=SECRET`` (at least 16 characters): a token is ``USER_ID.SIGNATURE``
  where ``SIGNATURE`` is the hex HMAC-SHA256 of the user id under the secret, so new users
  need no configuration. ``deep-research token USER_ID`` prints one; so does
  ``printf %s USER_ID | openssl dgst -sha256 -hmac "$SECRET"`` (prefix ``USER_ID.``).

With neither set the server is open: every request acts as ``DEEP_RESEARCH_USER_ID``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from functools import lru_cache

from deep_research.errors import ConfigurationError
from deep_research.settings import Settings, get_settings

MIN_SECRET_CHARS = 16
"""Shortest accepted token or signing secret."""

USER_ID = re.compile(r"[A-Za-z0-9_@+\-.]{1,128}")
"""What a user id may look like: 1 to 128 letters, digits and ``_ @ + - .``."""


def _valid_user_id(user_id: str) -> bool:
    return USER_ID.fullmatch(user_id) is not None


def _signature(user_id: str, secret: str) -> str:
    return hmac.new(secret.encode(), user_id.encode(), hashlib.sha256).hexdigest()


def sign_token(user_id: str, secret: str) -> str:
    """The signed token of ``user_id``: ``USER_ID.HEX(HMAC-SHA256(secret, USER_ID))``.

    Raises:
        ConfigurationError: the user id or the secret is not acceptable.
    """
    if not _valid_user_id(user_id):
        raise ConfigurationError(
            f"invalid user id {user_id!r}: use 1 to 128 letters, digits or _ @ + - ."
        )
    if len(secret) < MIN_SECRET_CHARS:
        raise ConfigurationError(
            f"DEEP_RESEARCH_AUTH_SECRET must have at least {MIN_SECRET_CHARS} characters"
        )
    return f"{user_id}.{_signature(user_id, secret)}"


def _parse_pairs(text: str) -> tuple[tuple[str, str], ...]:
    pairs: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        token, sep, user_id = (s.strip() for s in item.partition("="))
        if not sep or not _valid_user_id(user_id):
            raise ConfigurationError(
                "DEEP_RESEARCH_AUTH_TOKENS must be comma-separated TOKEN=USER_ID pairs"
                f" with valid user ids (got an entry for {user_id or '?'!r})"
            )
        if len(token) < MIN_SECRET_CHARS:
            raise ConfigurationError(
                f"the token of {user_id!r} in DEEP_RESEARCH_AUTH_TOKENS is shorter than"
                f" {MIN_SECRET_CHARS} characters"
            )
        if token in pairs:
            raise ConfigurationError("a token appears twice in DEEP_RESEARCH_AUTH_TOKENS")
        pairs[token] = user_id
    return tuple(pairs.items())


@dataclass(frozen=True)
class TokenVerifier:
    """Maps a bearer token to its user id under the configured schemes."""

    tokens: tuple[tuple[str, str], ...] = ()
    """``(token, user_id)`` pairs."""
    secret: str | None = None
    """The signing secret of ``USER_ID.SIGNATURE`` tokens."""

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenVerifier:
        """The verifier the environment configures.

        Raises:
            ConfigurationError: a token pair or the secret is malformed or too short.
        """
        return _verifier(
            settings.auth_tokens.get_secret_value() if settings.auth_tokens else "",
            settings.auth_secret.get_secret_value() if settings.auth_secret else "",
        )

    @property
    def open(self) -> bool:
        """True when no scheme is configured: the server then accepts every request."""
        return not self.tokens and self.secret is None

    def verify(self, token: str) -> str | None:
        """The user id of ``token``, or ``None`` when no scheme accepts it."""
        presented = token.encode()
        user: str | None = None
        for known, user_id in self.tokens:  # no early exit: the time does not tell which
            if hmac.compare_digest(known.encode(), presented):
                user = user_id
        if user is None and self.secret is not None:
            user_id, sep, signature = token.rpartition(".")
            if sep and _valid_user_id(user_id):
                expected = _signature(user_id, self.secret).encode()
                if hmac.compare_digest(expected, signature.encode()):
                    user = user_id
        return user


@lru_cache(maxsize=4)
def _verifier(tokens: str, secret: str) -> TokenVerifier:
    if secret and len(secret) < MIN_SECRET_CHARS:
        raise ConfigurationError(
            f"DEEP_RESEARCH_AUTH_SECRET must have at least {MIN_SECRET_CHARS} characters"
        )
    return TokenVerifier(tokens=_parse_pairs(tokens), secret=secret or None)


def current_verifier() -> TokenVerifier:
    """The verifier of this process's settings."""
    return TokenVerifier.from_settings(get_settings())
