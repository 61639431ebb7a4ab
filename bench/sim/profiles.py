"""How long a simulated model call takes: named profiles of real models' speeds.

A real call first waits a time to its first token, which grows with the prompt (the model
reads the prompt at its prefill rate), then streams its completion at a decode rate. A
profile states both, with a base for the round trip, in the units providers publish them:
seconds and tokens per second of real time. The simulation runs :data:`SPEEDUP` times faster
than real time, so that a benchmark of 16-step plans takes minutes: every wait (model calls,
searches, page reads) is divided by it, which keeps their proportions.

The figures and where they come from are in BENCHMARKS.md (method: the simulation). Searches
and page reads do not depend on the model: they keep :data:`SEARCH_SECONDS` and
:data:`READ_SECONDS` under every profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SPEEDUP = 10.0
"""Real seconds per simulated second: every wait of the simulation is divided by this."""

SEARCH_SECONDS = 0.15
"""Simulated seconds a search takes (1.5 s of real time)."""

READ_SECONDS = 0.1
"""Simulated seconds a page read takes (1 s of real time)."""

CHUNK_TOKENS = 16
"""Completion tokens per streamed chunk: a consumer sees text arrive this many tokens at a time
(providers send a few tokens per server-sent event; 16 keeps the simulator's own work small)."""


@dataclass(frozen=True)
class Profile:
    """The speed of one model as published, in real time (see :data:`SPEEDUP`)."""

    name: str
    model: str
    """The model and where it runs."""
    base: float
    """Real seconds before the first token that do not depend on the prompt (round trip,
    queueing)."""
    prefill: float | None
    """Prompt tokens read per real second; ``None``: reading costs nothing beyond ``base``."""
    decode: float | None
    """Completion tokens written per real second; ``None``: the completion arrives at once."""
    source: str
    """Where the figures come from."""

    def first_token(self, prompt_tokens: int) -> float:
        """Simulated seconds from the request to the completion's first token."""
        reading = prompt_tokens / self.prefill if self.prefill else 0.0
        return (self.base + reading) / SPEEDUP

    def decoding(self, completion_tokens: int) -> float:
        """Simulated seconds from the first token to the last."""
        return completion_tokens / self.decode / SPEEDUP if self.decode else 0.0

    def seconds(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Simulated seconds the whole call takes."""
        return self.first_token(prompt_tokens) + self.decoding(completion_tokens)

    def described(self) -> dict[str, Any]:
        """The profile as the benchmark's results record it."""
        return {
            "name": self.name,
            "model": self.model,
            "base_seconds": self.base,
            "prefill_tokens_per_second": self.prefill,
            "decode_tokens_per_second": self.decode,
            "source": self.source,
            "speedup": SPEEDUP,
        }


FIXED = Profile(
    name="fixed-0.3",
    model="none: every call takes 0.3 s, whatever it reads and writes (3 s of real time)",
    base=3.0,
    prefill=None,
    decode=None,
    source="the benchmark's earlier simulation (before issue #45)",
)

INSTANT = Profile(
    name="instant",
    model="none: calls answer at once (to measure the agent's own computing)",
    base=0.0,
    prefill=None,
    decode=None,
    source="",
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="gpt-4o",
            model="GPT-4o on OpenAI's API",
            base=0.45,
            prefill=5_000,
            decode=90,
            source=(
                "Artificial Analysis (artificialanalysis.ai), GPT-4o on OpenAI: output speed "
                "about 80-110 tokens/s and time to first token about 0.4-0.5 s for a 1k-token "
                "prompt, as published in 2024 (as known to the author; no internet to check "
                "again); prefill rate: an assumption (providers publish none)"
            ),
        ),
        Profile(
            name="claude-3.5-sonnet",
            model="Claude 3.5 Sonnet on Anthropic's API",
            base=0.9,
            prefill=5_000,
            decode=60,
            source=(
                "Artificial Analysis, Claude 3.5 Sonnet on Anthropic: output speed about 50-80 "
                "tokens/s, time to first token about 0.8-1.0 s, as published in 2024 (as known "
                "to the author); prefill rate: an assumption"
            ),
        ),
        Profile(
            name="gemini-1.5-flash",
            model="Gemini 1.5 Flash on Google's API",
            base=0.35,
            prefill=10_000,
            decode=180,
            source=(
                "Artificial Analysis, Gemini 1.5 Flash: output speed about 150-200 tokens/s, "
                "time to first token about 0.3-0.4 s, as published in 2024 (as known to the "
                "author); prefill rate: an assumption"
            ),
        ),
        Profile(
            name="llama-3.1-8b-groq",
            model="Llama 3.1 8B Instant on Groq",
            base=0.25,
            prefill=20_000,
            decode=750,
            source=(
                "Groq's model page and launch post for Llama 3.1 8B Instant (about 750 tokens/s "
                "output, 2024-07) and Artificial Analysis (time to first token about 0.2-0.3 s), "
                "as known to the author; prefill rate: an assumption"
            ),
        ),
        Profile(
            name="llama-7b-q4-m2-ultra",
            model="LLaMA 7B Q4_0 in llama.cpp on an Apple M2 Ultra (76-core GPU)",
            base=0.05,
            prefill=1_238,
            decode=94,
            source=(
                "llama.cpp's 'Performance of llama.cpp on Apple Silicon M-series' (GitHub "
                "discussion 4167, 2023-11): pp512 about 1,238 tokens/s, tg128 about 94 tokens/s "
                "(as known to the author)"
            ),
        ),
        Profile(
            name="smollm2-135m-2core",
            model="SmolLM2-135M-Instruct Q4_1 in llama.cpp's server on 2 shared cores",
            base=0.05,
            prefill=250,
            decode=50,
            source=(
                "measured on this machine kind, 2026-12-06 (../shared/ECOSYSTEM.md §14): "
                "prompt 120-380 tokens/s, generation 20-80 tokens/s; the middle of each range"
            ),
        ),
        FIXED,
        INSTANT,
    )
}
"""Every profile by name."""

DEFAULT = PROFILES["gpt-4o"]
"""The profile the benchmark runs on unless told otherwise."""


def profile(name: str) -> Profile:
    """The profile called ``name``.

    Raises:
        ValueError: there is none.
    """
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"unknown latency profile {name!r}: one of {known}") from None
