"""Thread ids, checked where they enter: the command line and the server.

A thread id names a chat's checkpoints, its rows and its store namespaces, and the command
line makes a folder of it (``reports/THREAD_ID``). LangGraph's store refuses namespaces with a
period, and a slash or ``..`` would lead the report's folder elsewhere, so an id is 1 to 128
letters, digits, ``-`` and ``_``, starting with a letter or a digit: the server's UUIDs and
the command line's hexadecimal ids both are.
"""

from __future__ import annotations

import re

from deep_research.errors import InvalidIdError

THREAD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
"""A well-formed thread id."""


def check_thread_id(thread_id: str) -> str:
    """``thread_id``, if it is well formed.

    Raises:
        InvalidIdError: it is not (the message shows it escaped, on one line).
    """
    if THREAD_ID.fullmatch(thread_id) is None:
        shown = thread_id[:80].encode("unicode_escape").decode("ascii")
        raise InvalidIdError(
            f"invalid thread id '{shown}': use 1 to 128 letters, digits, '-' or '_'"
            " (no periods, slashes or spaces)"
        )
    return thread_id
