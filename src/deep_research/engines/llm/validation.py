"""What a structured answer must hold beyond its schema, per task of the LLM engine.

Each ``*_problems`` function names, one line each, what does not fit what the model was asked:
claim ids it was not given, evidence keys out of range, quotes not verbatim in the evidence,
counts out of bounds. An empty list means the answer is usable. The engine sends the problems
back to the model (:mod:`deep_research.engines.llm.structured`) and, when the model cannot fix
them, falls back (:mod:`deep_research.engines.llm.engine`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from deep_research.engines.base import ClaimCheck, evidence_key
from deep_research.engines.llm import prompts
from deep_research.engines.schemas import (
    ClaimVerdict,
    ClarifyDecision,
    EvidencePicks,
    PickedQuote,
    Reflection,
    ReportAssessment,
    ResearchPlan,
    Rewrite,
    SearchQueries,
    StepDraft,
    StepNotes,
    VerdictBatch,
)
from deep_research.state.models import EvidenceSpan, Passage, Requirements
from deep_research.text.verbatim import find_quote, fold, quote_parts
from deep_research.text.words import Sentence, content_tokens

_KEY = re.compile(r"\[?\s*E(\d+)\s*\]?", re.I)
_PASSAGE = re.compile(r"\[?\s*P(\d+)\s*\]?", re.I)
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_CITED = re.compile(r"\bE(\d+)\b", re.I)


def key_position(key: str | None, count: int) -> int | None:
    """The 0-based position an evidence key (``E3``, ``[E3]``, ``e3``) names, if in range."""
    match = _KEY.fullmatch((key or "").strip())
    index = int(match.group(1)) - 1 if match else -1
    return index if 0 <= index < count else None


def _key_range(count: int) -> str:
    return f"E1–E{count}" if count > 1 else ("E1" if count else "none")


def verbatim(quote: str, passage: str) -> bool:
    """True when ``quote`` appears in ``passage``, ignoring case, spacing and quote styles.

    An ellipsis in the quote may stand for any text: each part must appear, in order. The
    same match locates a picked quote in its page (:func:`~deep_research.text.verbatim.find_quote`).
    """
    if not quote_parts(quote):
        return True  # nothing but an ellipsis or punctuation: nothing to contradict
    return find_quote(quote, passage) is not None


def clarify_problems(decision: ClarifyDecision) -> list[str]:
    """A clarification must come with its question."""
    if decision.needs_clarification and not decision.question.strip():
        return ["needs_clarification is true but question is empty"]
    return []


def plan_problems(plan: ResearchPlan) -> list[str]:
    """A brief and at least one titled step, none covering a whole grid of items and dimensions.

    Steps beyond the limit are cut, not refused.
    """
    problems = usable_plan_problems(plan)
    problems += [
        f"steps.{i} covers every item and every dimension the question names; split the "
        "work into one step per item or one per dimension"
        for i, step in enumerate(plan.steps)
        if covers_grid(step, plan.requirements)
    ]
    return problems


def usable_plan_problems(plan: ResearchPlan) -> list[str]:
    """What makes a plan unusable: no brief, no step, a step without a title."""
    problems = []
    if not plan.brief.strip():
        problems.append("brief is empty")
    if not plan.steps:
        problems.append("steps is empty; give at least one step")
    problems += [
        f"steps.{i}.title is empty" for i, s in enumerate(plan.steps) if not s.title.strip()
    ]
    return problems


def covers_grid(step: StepDraft, requirements: Requirements) -> bool:
    """Whether a step names every item and every dimension of a question of several of each.

    Such a step asks one researcher for the whole report; names are matched as the
    requirements spell them (case and quote marks aside), so a step that paraphrases them is
    not flagged.
    """
    items, dimensions = requirements.items, requirements.dimensions
    if len(items) < 2 or len(dimensions) < 2:
        return False
    text = fold(f"{step.title} {step.intent}")
    return all(fold(name.strip()) in text for name in [*items, *dimensions])


def searchable(query: str) -> bool:
    """Whether ``query`` holds a word to search for: one with a letter, not a function word.

    A small model's "1", "who" or "there" finds nothing the step needs (a search engine reads
    a lone number as any page that numbers something).
    """
    return any(any(c.isalpha() for c in token) for token in content_tokens(query))


def queries_problems(queries: SearchQueries) -> list[str]:
    """At least one query with a word to search for (:func:`searchable`)."""
    if not any(query.strip() for query in queries.queries):
        return ["queries is empty; give at least one keyword query"]
    if not any(searchable(query) for query in queries.queries):
        return [
            "no query holds a word to search for (only numbers or words like 'who', 'the');"
            " give keyword queries naming what the step looks for"
        ]
    return []


def cited_out_of_range(text: str, count: int) -> list[str]:
    """Keys cited in ``text`` as ``[E#]`` that name none of the ``count`` evidence spans."""
    keys = {int(n) for group in _BRACKETS.findall(text) for n in _CITED.findall(group)}
    return [f"E{n}" for n in sorted(keys) if not 1 <= n <= count]


def notes_problems(notes: StepNotes, evidence: Sequence[EvidenceSpan]) -> list[str]:
    """Notes cite only the evidence shown."""
    wrong = cited_out_of_range(notes.notes, len(evidence))
    if wrong:
        return [
            f"notes cite {', '.join(wrong)}, but the evidence shown is {_key_range(len(evidence))}"
        ]
    return []


def reflection_problems(reflection: Reflection, step_ids: Collection[str]) -> list[str]:
    """``replaces`` names existing steps; continuing or adjusting comes with new steps."""
    problems = [
        f"replaces names step {step_id!r}, which is not in the plan"
        for step_id in reflection.replaces
        if step_id not in step_ids
    ]
    if reflection.decision != "complete" and not reflection.new_steps:
        problems.append(f"decision is {reflection.decision} but new_steps is empty")
    return problems


def _verdict_problems(verdict: ClaimVerdict, check: ClaimCheck) -> list[str]:
    count = len(check.evidence)
    if verdict.evidence_key is None:
        return []
    position = key_position(verdict.evidence_key, count)
    if position is None:
        return [
            f"claim {verdict.claim_id}: evidence_key {verdict.evidence_key} is not among the "
            f"evidence shown with it ({_key_range(count)})"
        ]
    if verdict.quote and not verbatim(verdict.quote, check.evidence[position].quote):
        return [
            f"claim {verdict.claim_id}: the quote is not verbatim in {evidence_key(position)}; "
            "copy it exactly or leave it out"
        ]
    return []


class VerdictCollector:
    """Checks verdict batches and keeps every usable verdict across attempts.

    Call it on each batch the model returns (it is the ``check`` of the judge's request): the
    usable verdicts of every attempt accumulate in :attr:`kept`, so that a re-asked model needs
    only answer for the claims still missing. The batch is a problem while some claim has no
    usable verdict; the problems name the ids not given, the keys out of range and the quotes
    not verbatim that made verdicts unusable, and the claims still missing.
    """

    def __init__(self, checks: Sequence[ClaimCheck]) -> None:
        """Collect verdicts for ``checks``."""
        self.checks = {check.claim.id: check for check in checks}
        self.kept: dict[str, ClaimVerdict] = {}
        """Usable verdicts by claim id (the first usable one wins)."""

    def __call__(self, batch: VerdictBatch) -> list[str]:
        """Keep the batch's usable verdicts; what is still wrong, or nothing when all are in."""
        problems: list[str] = []
        for verdict in batch.verdicts:
            check = self.checks.get(verdict.claim_id)
            if check is None:
                problems.append(f"claim_id {verdict.claim_id!r} was not given")
                continue
            wrong = _verdict_problems(verdict, check)
            problems += wrong
            if not wrong:
                self.kept.setdefault(verdict.claim_id, verdict)
        missing = [claim_id for claim_id in self.checks if claim_id not in self.kept]
        if not missing:
            return []
        ids = ", ".join(self.checks)
        return [
            *dict.fromkeys(problems),
            f"no usable verdict yet for claims {', '.join(missing)}; give one for each "
            f"(the claim ids are {ids})",
        ]

    @property
    def missing(self) -> list[ClaimCheck]:
        """The checks with no usable verdict, in order."""
        return [check for claim_id, check in self.checks.items() if claim_id not in self.kept]


def rewrite_problems(rewrite: Rewrite, check: ClaimCheck) -> list[str]:
    """The evidence key names evidence shown; the text cites none out of range."""
    count = len(check.evidence)
    problems = []
    if rewrite.evidence_key is not None and key_position(rewrite.evidence_key, count) is None:
        problems.append(
            f"evidence_key {rewrite.evidence_key} is not among the evidence shown "
            f"({_key_range(count)})"
        )
    wrong = cited_out_of_range(rewrite.text, count)
    if wrong:
        problems.append(f"text cites {', '.join(wrong)}, which were not shown")
    return problems


def assessment_problems(assessed: ReportAssessment, shown: int) -> list[str]:
    """A summary, and citations only of the evidence shown."""
    problems = [] if assessed.summary.strip() else ["summary is empty"]
    texts = [assessed.summary, *(item.text for item in assessed.limitations)]
    wrong = sorted({key for text in texts for key in cited_out_of_range(text, shown)})
    if wrong:
        problems.append(
            f"the text cites {', '.join(wrong)}, but the evidence shown is {_key_range(shown)}"
        )
    return problems


def _passage_of(key: str, passages: Sequence[Passage]) -> Passage | None:
    match = _PASSAGE.fullmatch(key.strip())
    index = int(match.group(1)) - 1 if match else -1
    return passages[index] if 0 <= index < len(passages) else None


_NUMBER = re.compile(r"\d+")


@lru_cache(maxsize=512)
def _numbered(text: str) -> tuple[Sentence, ...]:
    return tuple(prompts.passage_sentences(text))


def picked_text(pick: PickedQuote, passage: Passage) -> str | None:
    """The text a pick names in its passage, ``None`` if it names none.

    Sentence numbers (``s4``, ``s4-s6``, the first to the last named) give the passage's text
    from the first one's start to the last one's end, exactly as it stands; without numbers
    the passage shows, the quote as the model copied it stands in (the sentence numbers of
    the prompt removed, should it have copied them too).
    """
    numbers = [int(n) for n in _NUMBER.findall(pick.sentences)]
    shown = _numbered(passage.text)
    if numbers and 1 <= min(numbers) and max(numbers) <= len(shown):
        return passage.text[shown[min(numbers) - 1].start : shown[max(numbers) - 1].end]
    return prompts.SENTENCE_MARK.sub("", pick.quote).strip() or None


def _pick_problem(pick: PickedQuote, passages: Sequence[Passage]) -> str | None:
    key = pick.passage
    passage = _passage_of(key, passages)
    if passage is None:
        return f"passage {key} was not shown (the passages are P1–P{len(passages)})"
    text = picked_text(pick, passage)
    if text is None and pick.sentences.strip():
        count = len(_numbered(passage.text))
        return f"{key} shows sentences s1–s{count}; {pick.sentences.strip()} is not among them"
    if text is None:
        return f"the pick from {key} names no sentences; give their numbers, as s4 or s4-s6"
    if not pick.sentences.strip() or text == prompts.SENTENCE_MARK.sub("", pick.quote).strip():
        if not verbatim(text, passage.text):
            return f"the quote from {key} is not copied from it; name its sentences' numbers"
    return None


def pick_problems(picks: EvidencePicks, passages: Sequence[Passage]) -> list[str]:
    """Picks name passages shown and are copied from them, or at least one of them is.

    Picks naming a passage not shown are dropped (:func:`usable_picks`), and the caller
    drops any quote it cannot locate in its page: only when no pick is usable is the model
    asked again. Picking nothing is an answer.
    """
    found = [_pick_problem(q, passages) for q in picks.quotes]
    if not found or any(problem is None for problem in found):
        return []
    return list(dict.fromkeys(problem for problem in found if problem))


def usable_picks(picks: EvidencePicks | None, passages: Sequence[Passage]) -> EvidencePicks | None:
    """The picks that name a passage shown and text in it; ``None`` if none does.

    Each pick's quote is set to the text it names (:func:`picked_text`). Quotes not copied
    from their passage are left for the caller, which drops and counts those it cannot locate
    in the page.
    """
    if picks is None:
        return None
    kept = []
    for pick in picks.quotes:
        passage = _passage_of(pick.passage, passages)
        text = picked_text(pick, passage) if passage is not None else None
        if text is not None:
            kept.append(pick.model_copy(update={"quote": text}))
    return picks.model_copy(update={"quotes": kept}) if kept else None
