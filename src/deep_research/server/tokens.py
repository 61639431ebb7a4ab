"""The server's bearer tokens: a table of ``token=user_id`` pairs, or JWTs signed by the operator.

Two schemes, configured in the environment and usable together:

- ``DEEP_RESEARCH_AUTH_TOKENS="TOKEN1=alice,TOKEN2=bob"``: each token (at least 16 characters)
  stands for one user. Every token is compared in constant time (``hmac.compare_digest``).
- ``DEEP_RESEARCH_AUTH_SECRET=SECRET`` (at least 32 bytes): a token is a JWT signed with
  HS256 (the only algorithm accepted) whose ``sub`` is the user id and whose ``exp`` is
  required; ``deep-research token USER_ID --ttl 30d`` makes one. Its header's ``kid`` names
  the secret that signed it (a digest of the secret), so secrets can be rotated: put the old
  one in ``DEEP_RESEARCH_AUTH_PREVIOUS_SECRETS`` (comma-separated), where its tokens stay
  valid until they expire, and sign new ones with the new secret.

A setting that is present but unusable (a token list with no pair, a short secret) is a
configuration error, raised when the server starts (:mod:`deep_research.server.auth` checks
at import). With neither set the server is open: every request acts as
``DEEP_RESEARCH_USER_ID``. User ids are 1 to 128 letters, digits and ``_ @ + - .``, and never
one of the project's own store namespaces (``documents``, ``researchers``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

import jwt

from deep_research.errors import ConfigurationError
from deep_research.persistence.namespaces import RESERVED_NAMESPACE_ROOTS
from deep_research.settings import Settings, get_settings

MIN_TOKEN_CHARS = 16
"""Shortest accepted listed token."""

MIN_SECRET_BYTES = 32
"""Shortest accepted signing secret (HS256 keys should be at least as long as the hash)."""

ALGORITHM = "HS256"
"""The only signature algorithm signed and accepted."""

DEFAULT_TTL = timedelta(days=30)
MAX_TTL = timedelta(days=366)

USER_ID = re.compile(r"[A-Za-z0-9_@+\-.]{1,128}")
"""What a user id may look like: 1 to 128 letters, digits and ``_ @ + - .``."""

_DURATION = re.compile(r"(\d+)\s*([smhdw]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def valid_user_id(user_id: str) -> bool:
    """Whether ``user_id`` is well formed and not a reserved namespace root."""
    return USER_ID.fullmatch(user_id) is not None and user_id not in RESERVED_NAMESPACE_ROOTS


def _check_user_id(user_id: str) -> None:
    if not valid_user_id(user_id):
        reserved = ", ".join(sorted(RESERVED_NAMESPACE_ROOTS))
        raise ConfigurationError(
            f"invalid user id {user_id!r}: use 1 to 128 letters, digits or _ @ + - ."
            f" (and not {reserved})"
        )


def _check_secret(secret: str, name: str = "DEEP_RESEARCH_AUTH_SECRET") -> None:
    if len(secret.encode()) < MIN_SECRET_BYTES:
        raise ConfigurationError(f"{name} must be at least {MIN_SECRET_BYTES} bytes long")


def parse_ttl(text: str) -> timedelta:
    """``"30d"``, ``"12h"``, ``"90m"``, ``"3600s"`` or ``"3600"`` as a duration.

    Raises:
        ConfigurationError: not a duration, zero, or longer than a year.
    """
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None:
        raise ConfigurationError(f"invalid --ttl {text!r}: use a number with s, m, h, d or w")
    ttl = timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])
    if not timedelta(0) < ttl <= MAX_TTL:
        raise ConfigurationError(f"--ttl must be more than 0 and at most {MAX_TTL.days} days")
    return ttl


def key_id(secret: str) -> str:
    """The ``kid`` of tokens signed with ``secret``: names the key, reveals nothing of it."""
    return hashlib.sha256(b"deep-research kid:" + secret.encode()).hexdigest()[:16]


def sign_token(
    user_id: str, secret: str, *, ttl: timedelta = DEFAULT_TTL, now: datetime | None = None
) -> str:
    """A JWT for ``user_id`` that expires after ``ttl``.

    Raises:
        ConfigurationError: the user id, the secret or the duration is not acceptable.
    """
    _check_user_id(user_id)
    _check_secret(secret)
    issued = now or datetime.now(UTC)
    claims = {"sub": user_id, "iat": issued, "exp": issued + ttl}
    return jwt.encode(claims, secret, algorithm=ALGORITHM, headers={"kid": key_id(secret)})


def _parse_pairs(text: str) -> tuple[tuple[str, str], ...]:
    pairs: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        token, sep, user_id = (s.strip() for s in item.partition("="))
        if not sep or not valid_user_id(user_id):
            raise ConfigurationError(
                "DEEP_RESEARCH_AUTH_TOKENS must be comma-separated TOKEN=USER_ID pairs"
                f" with valid user ids (got an entry for {user_id or '?'!r})"
            )
        if len(token) < MIN_TOKEN_CHARS:
            raise ConfigurationError(
                f"the token of {user_id!r} in DEEP_RESEARCH_AUTH_TOKENS is shorter than"
                f" {MIN_TOKEN_CHARS} characters"
            )
        if token in pairs:
            raise ConfigurationError("a token appears twice in DEEP_RESEARCH_AUTH_TOKENS")
        pairs[token] = user_id
    if text.strip() and not pairs:
        raise ConfigurationError(
            "DEEP_RESEARCH_AUTH_TOKENS is set but holds no TOKEN=USER_ID pair; unset it to run"
            " an open server"
        )
    return tuple(pairs.items())


@dataclass(frozen=True)
class TokenVerifier:
    """Maps a bearer token to its user id under the configured schemes."""

    tokens: tuple[tuple[str, str], ...] = ()
    """``(token, user_id)`` pairs."""
    secrets: tuple[str, ...] = ()
    """Signing secrets whose JWTs are accepted: the current one first, then previous ones."""

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenVerifier:
        """The verifier the environment configures.

        Raises:
            ConfigurationError: a token pair or a secret is malformed or too short.
        """
        return _verifier(
            settings.auth_tokens.get_secret_value() if settings.auth_tokens else "",
            settings.auth_secret.get_secret_value() if settings.auth_secret else "",
            settings.auth_previous_secrets.get_secret_value()
            if settings.auth_previous_secrets
            else "",
        )

    @property
    def open(self) -> bool:
        """True when no scheme is configured: the server then accepts every request."""
        return not self.tokens and not self.secrets

    def verify(self, token: str) -> str | None:
        """The user id of ``token``, or ``None`` when no scheme accepts it."""
        presented = token.encode()
        user: str | None = None
        for known, user_id in self.tokens:  # no early exit: the time does not tell which
            if hmac.compare_digest(known.encode(), presented):
                user = user_id
        if user is None and self.secrets:
            user = self._verify_jwt(token)
        return user

    def _verify_jwt(self, token: str) -> str | None:
        try:
            kid = jwt.get_unverified_header(token).get("kid")
        except jwt.PyJWTError:
            return None
        secret = next((s for s in self.secrets if hmac.compare_digest(key_id(s), str(kid))), None)
        if secret is None:
            return None
        try:
            claims = jwt.decode(
                token, secret, algorithms=[ALGORITHM], options={"require": ["exp", "sub"]}
            )
        except jwt.PyJWTError:
            return None
        subject = claims.get("sub")
        return subject if isinstance(subject, str) and valid_user_id(subject) else None


@lru_cache(maxsize=4)
def _verifier(tokens: str, secret: str, previous: str) -> TokenVerifier:
    secrets = [secret] if secret else []
    if previous and not secret:
        raise ConfigurationError(
            "DEEP_RESEARCH_AUTH_PREVIOUS_SECRETS needs DEEP_RESEARCH_AUTH_SECRET, the current one"
        )
    secrets += [s.strip() for s in previous.split(",") if s.strip()]
    for index, value in enumerate(secrets):
        _check_secret(value, "DEEP_RESEARCH_AUTH_SECRET" if index == 0 else "each previous secret")
    return TokenVerifier(tokens=_parse_pairs(tokens), secrets=tuple(secrets))


def current_verifier() -> TokenVerifier:
    """The verifier of this process's settings."""
    return TokenVerifier.from_settings(get_settings())
