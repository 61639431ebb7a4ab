"""``deep-research token USER_ID``: print a signed bearer token for the server."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from deep_research.errors import ConfigurationError
from deep_research.server.tokens import sign_token
from deep_research.settings import get_settings


def run_token_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the signed token of ``args.user_id``; returns the exit status.

    Raises:
        ConfigurationError: no secret is set, or the user id is invalid.
    """
    secret = get_settings().auth_secret
    if secret is None:
        raise ConfigurationError("set DEEP_RESEARCH_AUTH_SECRET to sign tokens")
    (out or sys.stdout).write(sign_token(args.user_id, secret.get_secret_value()) + "\n")
    return 0
