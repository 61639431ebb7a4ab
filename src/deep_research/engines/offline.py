"""The offline engine: extractive research with no model and no network.

Questions are decomposed into steps by their parts and by standard facets; notes and reports
are BM25-ranked, diversity-selected sentences quoted verbatim from the evidence, each with its
citation; verdicts come from the lexical and numeric checks of :mod:`.checks`. Reports say that
they are extracts. Nothing here is canned: every sentence of a report comes from a source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deep_research.engines.base import (
    ClaimCheck,
    ProgressCallback,
    Reply,
    Turn,
    chat_title,
    evidence_key,
)
from deep_research.engines.schemas import (
    ClaimVerdict,
    ClarifyDecision,
    Reflection,
    ResearchPlan,
    Rewrite,
    StepDraft,
    StepNotes,
)
from deep_research.state.models import EvidenceSpan, Finding, PlanStep
from deep_research.text import STOPWORDS, content_tokens, jaccard, numbers, tokens
from deep_research.verification.checks import check_claim, coverage

EXTRACTIVE_NOTICE = (
    "> Written by the offline extractive engine: every sentence below is quoted from a source "
    "and selected by relevance and diversity; no language model wrote or paraphrased it."
)

_FACETS = (
    ("key figures, costs and sizes", "Numbers that characterise the subject"),
    ("history and timeline", "Dates and milestones"),
    ("risks, limitations and disagreements", "Problems and points on which sources differ"),
    ("outlook and trends", "What is expected next"),
    ("how it works", "Mechanisms and definitions"),
)
_SPLIT = re.compile(
    r"\?|;|\n|\b(?:and also|as well as)\b"
    r"|,?\s+and\s+(?=(?:what|how|why|when|where|which|who|whom|whether|is|are|was|were|does|do|did|"
    r"can|could|should)\b)",
    re.I,
)
_COMPARE = re.compile(r"\b(?:vs\.?|versus|compared? (?:to|with)|or)\b", re.I)
_SENTENCES_PER_SECTION = 4
_CONFLICT_OVERLAP = 0.4


def _topic(question: str) -> str:
    words = [w for w in tokens(question) if w not in STOPWORDS]
    return " ".join(dict.fromkeys(words))


def _sentence(quote: str, keys: Sequence[str]) -> str:
    """Render a quote in the canonical cited form: ``body [E1][E2].``."""
    body = quote.rstrip()
    punct = body[-1] if body and body[-1] in ".!?" else "."
    body = body.rstrip(".!?").rstrip()
    markers = "".join(f"[{k}]" for k in keys)
    return f"{body} {markers}{punct}" if markers else f"{body}{punct}"


class OfflineEngine:
    """Extractive engine; see the module docstring."""

    name = "offline"
    extractive = True

    async def title(self, question: str) -> Reply[str]:
        """The question itself, on one line and cut at a word (:func:`chat_title`)."""
        return Reply(chat_title(question))

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """Ask only when the request names fewer than two content words and has no context."""
        if history or len(set(content_tokens(question))) >= 2:
            return Reply(ClarifyDecision(needs_clarification=False))
        return Reply(
            ClarifyDecision(
                needs_clarification=True,
                question=(
                    f"“{question.strip()}” is broad. Which aspect should the research cover "
                    "(for example costs, history, technology, risks, or a comparison)?"
                ),
            )
        )

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """Decompose the question into its parts, compared items and standard facets."""
        topic = _topic(question)
        parts = [p.strip(" ,.") for p in _SPLIT.split(question) if len(content_tokens(p)) >= 2]
        steps = [StepDraft(title=p, intent=p) for p in parts] or [
            StepDraft(title=topic, intent=question.strip())
        ]
        compared = [c.strip(" ,.?") for c in _COMPARE.split(question) if content_tokens(c)]
        if len(compared) >= 2:
            steps += [StepDraft(title=_topic(c), intent=f"Characterise {c}") for c in compared]
        subject = " ".join(content_tokens(parts[0] if parts else question)[:4])
        steps += [
            StepDraft(
                title=facet[:1].upper() + facet[1:],
                intent=f"{intent}: {subject}",
                evidence_needed=intent,
            )
            for facet, intent in _FACETS
        ]
        unique: dict[str, StepDraft] = {}
        for step in steps:
            unique.setdefault(" ".join(sorted(set(content_tokens(step.title)))), step)
        chosen = list(unique.values())[:max_steps]
        complexity = (
            "complex" if len(parts) >= 3 else "simple" if len(topic.split()) <= 3 else ("moderate")
        )
        brief = (
            f"Research question: {question.strip()} The plan covers: "
            + "; ".join(s.title for s in chosen)
            + ". (Decomposed by the offline engine.)"
        )
        return Reply(ResearchPlan(brief=brief, complexity=complexity, steps=chosen))

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int
    ) -> Reply[list[str]]:
        """The step title, then narrower and broader keyword variants not yet issued."""
        title_terms = [t for t in tokens(step.title) if t not in STOPWORDS]
        question_terms = [t for t in tokens(question) if t not in STOPWORDS]
        intent_terms = [t for t in tokens(step.intent) if t not in STOPWORDS]
        candidates = [
            " ".join(dict.fromkeys(title_terms + intent_terms[:6])),
            " ".join(dict.fromkeys(title_terms + question_terms[:4])),
            " ".join(title_terms),
            " ".join(dict.fromkeys(question_terms)),
            " ".join(title_terms[-3:]),
        ]
        seen = {q.lower() for q in previous}
        fresh: list[str] = []
        for query in candidates:
            if query and query.lower() not in seen:
                seen.add(query.lower())
                fresh.append(query)
        return Reply(fresh[:n])

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        """The three most relevant quotes; sufficient when two or more relevant ones exist."""
        ranked = sorted(range(len(evidence)), key=lambda i: -evidence[i].relevance)[:3]
        text = " ".join(_sentence(evidence[i].quote, [evidence_key(i)]) for i in ranked)
        strong = sum(1 for e in evidence if e.relevance >= 0.3)
        return Reply(StepNotes(notes=text, sufficient=strong >= 2))

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
    ) -> Reply[Reflection]:
        """Adjust steps that found too little; continue on question terms no finding covers."""
        weak = [f.step_id for f in findings if not f.sufficient]
        titles = {s.id: s.title for s in plan}
        if weak and max_new_steps:
            replaced = weak[:max_new_steps]
            return Reply(
                Reflection(
                    decision="adjust",
                    reasoning=f"{len(weak)} step(s) found too little evidence; broadening them.",
                    new_steps=[
                        StepDraft(title=" ".join(content_tokens(titles[i])[:3]), intent=titles[i])
                        for i in replaced
                    ],
                    replaces=replaced,
                )
            )
        covered = set(content_tokens(" ".join(f.notes for f in findings)))
        missing = [t for t in dict.fromkeys(content_tokens(question)) if t not in covered]
        if missing and max_new_steps:
            return Reply(
                Reflection(
                    decision="continue",
                    reasoning=f"No finding mentions: {', '.join(missing)}.",
                    new_steps=[StepDraft(title=" ".join(missing), intent=question)],
                )
            )
        return Reply(Reflection(decision="complete", reasoning="Every step found evidence."))

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
    ) -> Reply[str]:
        """One section per step of its best diverse quotes, then where sources disagree."""
        used: list[set[str]] = []
        blocks = [EXTRACTIVE_NOTICE]
        for step in plan:
            ranked = sorted(
                (i for i, e in enumerate(evidence) if e.step_id == step.id),
                key=lambda i: (-evidence[i].relevance, i),
            )
            lines = []
            for i in ranked:
                bag = set(content_tokens(evidence[i].quote))
                if any(jaccard(bag, other) > 0.5 for other in used):
                    continue
                used.append(bag)
                lines.append(_sentence(evidence[i].quote, [evidence_key(i)]))
                if len(lines) == _SENTENCES_PER_SECTION:
                    break
            if lines:
                blocks.append(f"## {step.title[:1].upper()}{step.title[1:]}\n\n" + " ".join(lines))
        disagreements = _disagreements(evidence)
        if disagreements:
            blocks.append("## Where sources disagree\n\n" + "\n".join(disagreements))
        for block in blocks:
            if on_progress:
                on_progress(block + "\n\n")
        return Reply("\n\n".join(blocks) + "\n")

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """The offline engine cannot answer without sources, and says so."""
        return Reply(
            "The offline engine answers only from sources it has read, so `simple` mode has "
            "nothing to offer without a model. Ask again in `web_search` or `deep_research` "
            "mode, or configure a model (DEEP_RESEARCH_MODEL and OPENAI_API_KEY)."
        )

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """Lexical coverage plus strict number and negation checks, per claim."""
        verdicts = []
        for item in checks:
            quotes = [e.quote for e in item.evidence]
            result = check_claim(item.claim.text, quotes)
            relied = result.index >= 0
            verdicts.append(
                ClaimVerdict(
                    claim_id=item.claim.id,
                    verdict=result.verdict,
                    confidence=result.confidence,
                    reasoning=result.reasoning,
                    evidence_key=evidence_key(result.index) if relied else None,
                    quote=quotes[result.index][result.start : result.end] if relied else None,
                )
            )
        return Reply(verdicts)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """Replace the claim by the evidence sentence closest to it, or remove it."""
        scored = sorted(
            ((coverage(check.claim.text, e.quote), i) for i, e in enumerate(check.evidence)),
            reverse=True,
        )
        if scored and scored[0][0] >= 0.3:
            best = scored[0][1]
            quote = check.evidence[best].quote.rstrip().rstrip(".!?")
            return Reply(Rewrite(text=quote, evidence_key=evidence_key(best)))
        return Reply(Rewrite(text=""))


def _disagreements(evidence: Sequence[EvidenceSpan]) -> list[str]:
    """Pairs of quotes from different documents on the same point with different numbers."""
    lines: list[str] = []
    seen: set[str] = set()
    numeric = [i for i, e in enumerate(evidence) if e.has_numbers]
    for a_pos, a in enumerate(numeric):
        for b in numeric[a_pos + 1 :]:
            ea, eb = evidence[a], evidence[b]
            if ea.url == eb.url or ea.quote in seen or eb.quote in seen:
                continue
            words_a = {t for t in content_tokens(ea.quote) if not t[0].isdigit()}
            words_b = {t for t in content_tokens(eb.quote) if not t[0].isdigit()}
            if jaccard(words_a, words_b) < _CONFLICT_OVERLAP:
                continue
            if set(numbers(ea.quote)) == set(numbers(eb.quote)):
                continue
            seen.update({ea.quote, eb.quote})
            lines.append(f"- {_sentence(ea.quote, [evidence_key(a)])}")
            lines.append(f"- {_sentence(eb.quote, [evidence_key(b)])}")
    return lines
