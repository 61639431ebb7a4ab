"""Deterministic fixture text: plan steps, queries, web pages and written prose.

Everything is derived from a seed string, so that two agents (or two runs) asking the same
thing get the same answer. The prose is generated English-like text with figures, dates and
named sources, so that tokenization, evidence selection and claim checking behave as on
real pages.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache

QUESTION = (
    "How do LFP and NMC batteries compare for grid storage, and what did Hornsdale Power "
    "Reserve cost?"
)
"""The README's default question; every simulated run researches it."""

PAGE_WORDS = 1000
"""Words of one fixture web page (after extraction), about 1,300 tokens."""

ASPECTS = (
    "cycle life under daily cycling",
    "capital cost per kilowatt hour",
    "thermal runaway and fire safety",
    "round trip efficiency",
    "Hornsdale Power Reserve construction cost",
    "cobalt and nickel supply chains",
    "degradation in hot climates",
    "recycling and second life",
    "market share in utility projects",
    "fire codes and permitting",
    "warranty terms and guarantees",
    "energy density and footprint",
    "revenue from frequency services",
    "calendar aging at partial charge",
    "project financing and insurance",
    "cell manufacturing capacity",
)
"""Aspects of the question, one per plan step (16 at most)."""

_SOURCES = (
    "the National Renewable Energy Laboratory",
    "BloombergNEF",
    "the Australian Energy Market Operator",
    "a 2023 industry survey",
    "the project operator",
    "the International Energy Agency",
    "Lazard",
    "Wood Mackenzie",
)
_PLACES = ("South Australia", "California", "Texas", "Germany", "Japan", "the United Kingdom")
_UNITS = ("MWh", "MW", "cycles", "USD per kWh", "percent", "million USD", "GWh", "years")
_VERBS = ("reached", "averaged", "exceeded", "fell to", "rose to", "stood at")
_TREND = ("improved", "declined", "shifted", "grew", "narrowed", "changed")
_ADJ = ("competitive", "critical", "uncertain", "favourable", "limited", "substantial")
_NOUNS = ("performance", "economics", "deployment", "reliability", "costs", "outcomes")
_TEMPLATES = (
    "{S} {v} {n} {u} in {y}, according to {src}.",
    "In {y}, {s} {t} across {place} as operators gained experience.",
    "{Src} reported that {s} {t} by {p} percent between {y0} and {y}.",
    "Analysts at {src} noted that {s} remains {adj} for grid {noun}.",
    "The measured {noun} of {s} was {n} {u} at sites in {place}.",
    "Compared with earlier projects, {s} {t} by {p} percent, which changed grid {noun}.",
    "A study published in {y} found that {s} {v} {n} {u} over the test period.",
    "Operators in {place} said that {s} was {adj} when contracts were signed in {y}.",
)

FLAG_FIGURE = "9999"
"""A figure no fixture states: the simulated judge finds sentences with it unsupported."""


def rng(*seed: object) -> random.Random:
    """A random generator seeded by ``seed`` (stable across processes and machines)."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in seed).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def words(text: str) -> list[str]:
    """The words of ``text`` (letters and digits)."""
    return re.findall(r"[A-Za-z0-9]+", text)


def sentence(r: random.Random, subject: str) -> str:
    """One sentence about ``subject`` with a figure, a year or a named source."""
    year = r.randint(2015, 2024)
    values = {
        "s": subject,
        "S": subject[:1].upper() + subject[1:],
        "v": r.choice(_VERBS),
        "t": r.choice(_TREND),
        "n": f"{r.randint(2, 950)}{r.choice(('', '.5', ',000'))}",
        "u": r.choice(_UNITS),
        "y": year,
        "y0": year - r.randint(2, 6),
        "p": r.randint(3, 60),
        "src": r.choice(_SOURCES),
        "Src": r.choice(_SOURCES).capitalize(),
        "place": r.choice(_PLACES),
        "adj": r.choice(_ADJ),
        "noun": r.choice(_NOUNS),
    }
    return r.choice(_TEMPLATES).format(**values)


def prose(r: random.Random, subjects: list[str], n_words: int) -> list[str]:
    """Sentences about ``subjects`` (in turn) until about ``n_words`` words are written."""
    out: list[str] = []
    total = 0
    while total < n_words:
        text = sentence(r, subjects[len(out) % len(subjects)])
        out.append(text)
        total += len(text.split())
    return out


def subjects_of(topic: str) -> list[str]:
    """Noun phrases to write about, built from a topic's words."""
    terms = [w.lower() for w in words(topic) if len(w) > 2][:6] or ["grid storage"]
    half = max(1, len(terms) // 2)
    return [
        f"the {' '.join(terms[:half])} of LFP systems",
        f"{' '.join(terms)} for NMC projects",
        f"the {' '.join(terms[half:] or terms)} of grid batteries",
    ]


@dataclass(frozen=True)
class Page:
    """A fixture web page."""

    url: str
    title: str
    text: str


def slug(text: str) -> str:
    """A URL path segment made of the words of ``text``."""
    return "-".join(w.lower() for w in words(text))[:80] or "page"


def result_urls(query: str, k: int) -> list[str]:
    """The ``k`` result URLs of ``query``: distinct domains, the query's words in the path."""
    r = rng("results", query)
    domains = r.sample(range(400), k)
    return [f"https://site{d:03d}.example.org/{slug(query)}-{i}" for i, d in enumerate(domains)]


@lru_cache(maxsize=8192)
def page(url: str, n_words: int = PAGE_WORDS) -> Page:
    """The page at ``url``: a title and sections of prose about the words of its path."""
    topic = url.rsplit("/", 1)[-1].replace("-", " ")
    r = rng("page", url)
    subjects = subjects_of(topic)
    title = f"{topic.rstrip('0123456789 ').title()}: data and analysis"
    sections = []
    per_section = n_words // 4
    for heading in ("Overview", "Key figures", "Projects and operators", "Outlook"):
        body = " ".join(prose(r, subjects, per_section))
        sections.append(f"## {heading}\n\n{body}")
    return Page(url=url, title=title, text=f"# {title}\n\n" + "\n\n".join(sections) + "\n")


@lru_cache(maxsize=8192)
def snippet(url: str, n_words: int = 45) -> str:
    """The search snippet of the page at ``url``: its first words."""
    body = page(url).text.split("## Overview", 1)[-1]
    return " ".join(body.split()[:n_words])


def queries(title: str, n: int, previous: list[str]) -> list[str]:
    """``n`` keyword queries for a step, none repeating ``previous``."""
    base = [w.lower() for w in words(title) if len(w) > 2][:5]
    angles = ("2024 data", "industry report", "case study", "statistics", "comparison", "review")
    out: list[str] = []
    seen = {p.casefold() for p in previous}
    i = 0
    while len(out) < n and i < 50:
        query = f"{' '.join(base)} {angles[i % len(angles)]}" + (f" {i}" if i >= 6 else "")
        if query.casefold() not in seen:
            seen.add(query.casefold())
            out.append(query)
        i += 1
    return out
