"""Channel versions: LangGraph's scheme, written in 19 characters instead of 51.

A checkpoint records the version of every channel and, for every node, the versions it has
seen: a researcher's checkpoint holds about 30 of them. LangGraph's savers write a version as
a 32-digit counter and a random float (``00000000000000000000000000000007.0.62080345857459``),
the float keeping two forks of a thread from storing different values under one version.
:func:`next_version` keeps both parts, as a 10-digit counter and 32 random bits in hex
(``0000000007.9f3ac02b``). PostgreSQL stores checkpoints as uncompressed JSONB, where the
versions were about half of a researcher's checkpoint.

Versions are compared as strings. A thread written with LangGraph's versions continues
correctly: the next version parses the counter as LangGraph does, and any short version sorts
after any long one (the long ones start with 22 or more zeros). The reverse does not hold, so
a thread written with short versions needs these savers to continue (see docs/decisions.md).
"""

from __future__ import annotations

import random

COUNTER_DIGITS = 10


def next_version(current: str | int | None) -> str:
    """The version after ``current`` (``None`` for a new channel): counter + 1, new random part."""
    if current is None:
        counter = 0
    elif isinstance(current, int):
        counter = current
    else:
        counter = int(current.split(".")[0])
    return f"{counter + 1:0{COUNTER_DIGITS}}.{random.getrandbits(32):08x}"


class ShortVersions:
    """Mixin for a checkpoint saver: channel versions made by :func:`next_version`."""

    def get_next_version(self, current: str | None, channel: None) -> str:
        """The version after ``current`` (see :func:`next_version`)."""
        return next_version(current)
