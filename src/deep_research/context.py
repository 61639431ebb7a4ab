"""Per-run settings: the graph's context schema, which Studio renders as a form.

A :class:`Context` is frozen and JSON-serialisable. It never reads the environment: what a
caller passes is what the run uses. Optional budget fields left unset take the value of the
chosen depth (see :data:`deep_research.state.models.DEPTH_BUDGETS`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from deep_research.errors import ConfigurationError, InvalidQuestionError
from deep_research.state.models import DEPTH_BUDGETS, Config, concrete_depth

Mode = Literal["simple", "web_search", "deep_research"]
Depth = Literal["auto", "light", "medium", "extended"]

PROVIDERS = (
    "local",
    "tavily",
    "searxng",
    "mcp",
    "pubmed",
    "europepmc",
    "openalex",
    "clinicaltrials",
)
"""Source providers a run can name in ``sources``, joined with ``+``."""

GROUPS = {"academic": ("pubmed", "europepmc", "openalex", "clinicaltrials")}
"""Names that stand for several providers."""

SOURCE_EXAMPLES = [
    "auto",
    "local",
    "tavily",
    "searxng",
    "mcp",
    "academic",
    "pubmed",
    "europepmc",
    "openalex",
    "clinicaltrials",
    "local+tavily",
    "local+academic",
    "tavily+academic",
    "pubmed+clinicaltrials",
]
"""Choices Studio offers for ``sources`` (any ``+`` combination of the names is accepted)."""


def source_names(sources: str) -> list[str]:
    """The providers a ``sources`` value names, groups expanded, in order, once each.

    ``auto`` stands alone and is returned as it is (the providers resolve it).

    Raises:
        ValueError: a name is unknown, a part is empty, or ``auto`` is combined.
    """
    parts = [part.strip().lower() for part in sources.split("+")]
    if parts == ["auto"]:
        return ["auto"]
    known = (*PROVIDERS, *GROUPS)
    unknown = [part for part in parts if part not in known]
    if unknown or not all(parts):
        named = ", ".join(repr(p) for p in unknown) if any(unknown) else "an empty name"
        raise ValueError(
            f"unknown source {named} in {sources!r}: use 'auto', or names joined with '+'"
            f" from {', '.join(known)} (academic = all four scholarly sources)"
        )
    expanded = [name for part in parts for name in GROUPS.get(part, (part,))]
    return list(dict.fromkeys(expanded))


def resolved_sources(sources: str, *, tavily: bool, searxng: bool) -> list[str]:
    """The providers a run of ``sources`` searches, ``auto`` resolved.

    ``auto`` is Tavily when its key is set (``tavily``), else SearXNG when its URL is
    (``searxng``), else the local corpus.

    Raises:
        ValueError: as :func:`source_names`.
    """
    names = source_names(sources)
    if names == ["auto"]:
        return ["tavily" if tavily else "searxng" if searxng else "local"]
    return names


def _valid_sources(sources: str) -> str:
    source_names(sources)
    return sources.strip().lower()


SourceChoice = Annotated[
    str, AfterValidator(_valid_sources), Field(examples=SOURCE_EXAMPLES, max_length=200)
]
"""``auto``, or provider names joined with ``+`` (see :func:`source_names`)."""

MAX_QUESTION_CHARS = 4000
"""Longest accepted question, in characters."""

_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Characters a question may not hold: C0 and C1 controls but tab and newlines, the
bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069: they make text
read in another order than it is stored), and lone surrogates (undecodable bytes on the
command line)."""

_SURROGATE = re.compile(r"[\ud800-\udfff]")
"""Lone surrogates alone: a question holding one is not valid UTF-8 text, and says so."""

MAX_INSTRUCTIONS_CHARS = 4000
"""Longest accepted system instructions, in characters."""


def no_control_characters(text: str) -> str:
    """``text``, unless it holds a NUL byte, another control character or a lone surrogate.

    Databases refuse NUL bytes, and terminals run escapes.

    Raises:
        ValueError: it does.
    """
    if _CONTROL.search(text):
        raise ValueError(
            "must not contain control characters (a NUL byte, a terminal escape or a"
            " bidirectional override)"
        )
    return text


PlainText = Annotated[str, AfterValidator(no_control_characters)]
"""Text a user sends that is stored and printed: no control characters but tabs and newlines."""


def validate_question(question: str) -> str:
    """Return the stripped question.

    Raises:
        InvalidQuestionError: it is empty or longer than ``MAX_QUESTION_CHARS``.
    """
    stripped = question.strip()
    if not stripped:
        raise InvalidQuestionError("the question is empty")
    if _SURROGATE.search(stripped):
        raise InvalidQuestionError("the question is not valid UTF-8 text")
    if _CONTROL.search(stripped):
        raise InvalidQuestionError(
            "the question contains control characters (a NUL byte, a terminal escape or a"
            " bidirectional override)"
        )
    if len(stripped) > MAX_QUESTION_CHARS:
        raise InvalidQuestionError(
            f"the question is {len(stripped)} characters long; the limit is {MAX_QUESTION_CHARS}"
        )
    return stripped


@dataclass(frozen=True, kw_only=True, config=ConfigDict(use_attribute_docstrings=True))
class Context:
    """Run-level knobs of one research run."""

    model: str | None = None
    """Model for this run: ``provider:model`` (``anthropic:claude-sonnet-4-5``,
    ``ollama:qwen3:8b``) or a model of the OpenAI-compatible endpoint; unset uses the process
    setting (``DEEP_RESEARCH_MODEL``)."""

    judge_model: str | None = None
    """Model that judges claims; unset uses ``DEEP_RESEARCH_JUDGE_MODEL``, then ``model``."""

    notes_model: str | None = None
    """Model that proposes queries, takes notes and titles chats; unset uses
    ``DEEP_RESEARCH_NOTES_MODEL``, then ``model``."""

    mode: Mode = "deep_research"
    """``simple`` answers directly, ``web_search`` runs one researcher for one round,
    ``deep_research`` runs the whole graph."""

    depth: Depth = "auto"
    """Named research budget; ``auto`` picks ``light``, ``medium`` or ``extended`` (complex
    questions) from the plan."""

    allow_clarification: bool = True
    """Ask one clarifying question (an interrupt) when the request is ambiguous."""

    review_plan: bool = False
    """Pause after planning (an interrupt) so that a person can approve or edit the plan."""

    verify: bool = True
    """Check every claim of the report against its evidence (verify, revise) before it is
    final. Off, the report comes sooner, unchecked, and says so: no claim carries a verdict."""

    system_instructions: Annotated[PlainText, Field(max_length=MAX_INSTRUCTIONS_CHARS)] = ""
    """Standing instructions of the user (language, focus, style) for the model's clarifying,
    planning, searching and writing; verification never follows them. The offline engine,
    which writes no prose of its own, ignores them."""

    sources: SourceChoice = "auto"
    """Where to search: ``auto`` uses Tavily when its key is set, SearXNG when its URL is, the
    local corpus otherwise; or names joined with ``+`` from ``local``, ``tavily``,
    ``searxng``, ``mcp``, ``pubmed``, ``europepmc``, ``openalex``, ``clinicaltrials`` and
    ``academic`` (the four scholarly sources), such as ``local+academic``."""

    corpus_dir: str | None = None
    """Folder of Markdown, text and HTML files; unset uses the bundled sample corpus."""

    max_rounds: Annotated[int, Field(ge=1, le=10)] | None = None
    """Research rounds (dispatch → reflect) before synthesis; unset takes the depth's value."""

    results_per_query: Annotated[int, Field(ge=3, le=10)] | None = None
    """Search results read per query; unset takes the depth's value."""

    per_domain_cap: Annotated[int, Field(ge=1, le=10)] = 3
    """Most sources taken from one domain (or one local file) per research step."""

    fetch_timeout: Annotated[float, Field(ge=5, le=60)] = 20.0
    """Seconds allowed to fetch one page."""

    max_parallel_researchers: Annotated[int, Field(ge=1, le=16)] | None = None
    """Researchers dispatched at once; further open steps wait for the next dispatch."""

    max_revisions: Annotated[int, Field(ge=0, le=5)] | None = None
    """Verify → revise passes before finalizing; unset takes the depth's value."""

    max_tokens: Annotated[int, Field(ge=1)] | None = None
    """Model tokens (prompt and completion) the run may spend: once spent, research stops and
    the report is written from what was found, saying so; unset: no limit."""

    max_cost_usd: Annotated[float, Field(gt=0)] | None = None
    """Estimated USD the run may spend, at the prices of the models that run (see
    ``DEEP_RESEARCH_PRICES``): once spent, research stops as for ``max_tokens``."""

    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    """Sampling temperature of the run's model calls; unset uses ``DEEP_RESEARCH_TEMPERATURE``,
    then the provider's default. 0 with a ``seed`` makes a local server's runs repeatable."""

    seed: int | None = None
    """Sampling seed of the run's model calls, where the provider takes one; unset uses
    ``DEEP_RESEARCH_SEED``."""

    writer_max_tokens: Annotated[int, Field(ge=16)] | None = None
    """Most tokens one reply of the writer (plan, reflection, report, rewrites) may have, sent
    as ``max_tokens``: a model that loops stops there. Unset uses
    ``DEEP_RESEARCH_WRITER_MAX_TOKENS``, then no cap."""

    judge_max_tokens: Annotated[int, Field(ge=16)] | None = None
    """Most tokens one reply of the judge may have; unset uses
    ``DEEP_RESEARCH_JUDGE_MAX_TOKENS``."""

    notes_max_tokens: Annotated[int, Field(ge=16)] | None = None
    """Most tokens one reply of the notes model may have; unset uses
    ``DEEP_RESEARCH_NOTES_MAX_TOKENS``."""


def make_context(**values: Any) -> Context:
    """Build a :class:`Context`, turning validation errors into one readable line.

    Raises:
        ConfigurationError: a value is of the wrong type or out of range.
    """
    try:
        return Context(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'context'}: {err['msg']}"
            f" (got {err.get('input')!r})"
            for err in exc.errors()
        )
        raise ConfigurationError(f"invalid setting: {problems}") from None
    except TypeError as exc:
        raise ConfigurationError(f"invalid setting: {exc}") from None


def resolve_config(
    context: Context, *, depth: str, engine: str, sources: list[str], extractive: bool = False
) -> Config:
    """Turn the run's knobs and the chosen depth into the budget the run will keep to."""
    if context.mode == "web_search":
        base = DEPTH_BUDGETS["light"].model_copy(update={"max_steps": 1, "max_rounds": 1})
        depth = "light"
    else:
        depth = concrete_depth(depth)
        base = DEPTH_BUDGETS[depth]
    overrides = {
        name: value
        for name, value in (
            ("max_rounds", context.max_rounds if context.mode == "deep_research" else None),
            ("results_per_query", context.results_per_query),
            ("max_parallel_researchers", context.max_parallel_researchers),
            ("max_revisions", context.max_revisions),
            ("max_tokens", context.max_tokens),
            ("max_cost_usd", context.max_cost_usd),
        )
        if value is not None
    }
    return Config(
        mode=context.mode,
        depth=depth,
        engine=engine,
        extractive=extractive,
        sources=sources,
        budget=base.model_copy(update=overrides),
        per_domain_cap=context.per_domain_cap,
        fetch_timeout=context.fetch_timeout,
        verify=context.verify,
    )
