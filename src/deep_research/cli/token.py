"""``deep-research token USER_ID [--ttl 30d]``: print a signed bearer token for the server."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from deep_research.errors import ConfigurationError
from deep_research.server.tokens import parse_ttl, sign_token
from deep_research.settings import get_settings


def run_token_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print a token for ``args.user_id`` valid for ``args.ttl``; returns the exit status.

    Raises:
        ConfigurationError: no secret is set, or the user id, secret or duration is invalid.
    """
    secret = get_settings().auth_secret
    if secret is None:
        raise ConfigurationError("set DEEP_RESEARCH_AUTH_SECRET to sign tokens")
    ttl = parse_ttl(getattr(args, "ttl", None) or "30d")
    token = sign_token(args.user_id, secret.get_secret_value(), ttl=ttl)
    (out or sys.stdout).write(token + "\n")
    return 0
