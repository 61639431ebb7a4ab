"""Benchmark sections, run in this order by ``python -m bench``.

Each module has ``NAME`` and ``run(options) -> dict`` returning what goes into
``bench/results/<NAME>.json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.sim.profiles import DEFAULT


@dataclass(frozen=True)
class Options:
    """How much to measure."""

    repeats: int = 5
    """Repetitions of each timed measurement (medians and spread are over these)."""
    quick: bool = False
    """A tiny version of every section (seconds): for the smoke test, not for figures."""
    profile: str = DEFAULT.name
    """The latency profile of the simulated model calls (:mod:`bench.sim.profiles`)."""


ORDER = (
    "orchestration",
    "checkpoints",
    "resume",
    "tokens",
    "corpus",
    "documents",
    "server",
    "cluster",
    "offline",
    "startup",
    "webapp",
    "docqa",
    "robustness",
    "drb",
)
"""Every section, in the order they run."""
