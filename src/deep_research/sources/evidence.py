"""Evidence selection: the best minimal verbatim quotes of a document for a research step.

Two stages. Each document is cut into overlapping token-bounded chunks
(:mod:`deep_research.sources.chunking`) and its :data:`CHUNKS_PER_DOCUMENT` best chunks for
the step are kept, so that a long page competes with its relevant passages only. The sentences
starting in those passages are then ranked together across documents.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from deep_research.sources.chunking import chunk_text
from deep_research.sources.injection import is_instruction
from deep_research.state.models import Document, EvidenceSpan, PlanStep, stable_id
from deep_research.text import (
    BM25,
    STOPWORDS,
    Sentence,
    content_tokens,
    jaccard,
    numbers,
    sentences,
    stem,
)
from deep_research.verification.quantities import quantities

MAX_QUOTE_CHARS = 600
"""Longer sentences are not quoted: a quote must be minimal to be checkable."""

MIN_QUOTE_WORDS = 5
"""Shorter sentences rarely state a checkable fact. Lines without end punctuation (titles,
captions) are not quoted either."""

_REDUNDANT = 0.6
"""Token overlap above which a candidate repeats an already selected quote."""

TOPIC_BOOST = 0.5
"""Score multiplier added per distinctive question term a sentence contains."""

TOPIC_RARITY = 0.25
"""A question term counts as distinctive when fewer than this share of candidates hold it."""

ANSWER_BOOST = 0.5
"""Score multiplier added when an on-topic sentence states the kind of figure the step asks
for (a currency amount for a cost question, a year for a "when" question)."""

ANSWER_TYPES: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...] = (
    (
        "money",
        re.compile(
            r"\b(?:cost(?:s|ed|ing)?|pric(?:e|es|ed|ing)|paid|pay|spen[dt]|spending|"
            r"fund(?:s|ed|ing)?|budget(?:s|ed)?|invest(?:ed|ment)?)\b",
            re.I,
        ),
        frozenset({"money"}),
    ),
    (
        "date",
        re.compile(r"\b(?:when|(?:what|which) year|what date|timeline)\b", re.I),
        frozenset({"date", "decade"}),
    ),
    (
        "measure",
        re.compile(r"\b(?:how (?:many|large|big)|capacity|size[sd]?)\b", re.I),
        frozenset({"power", "energy", "length", "miles", "mass", "charge", "voltage", "count"}),
    ),
)
"""Answer types (classic QA): a cue in a step's title, and the quantity kinds
(:func:`~deep_research.verification.quantities.quantities`) that answer it; ``money`` also covers
prices per unit (``money/energy``)."""

ANSWER_TERMS = frozenset(
    content_tokens(
        "cost costs price prices paid pay spend spent funding budget invested large big "
        "size sizes capacity year date timeline"
    )
)
"""Question terms that name what is asked, not what it is asked about: never subject terms."""

CHUNKS_PER_DOCUMENT = 4
"""Passages of one document whose sentences compete for evidence (at 256-token chunks, a
document of up to about 900 words is considered whole)."""


def step_terms(step: PlanStep, queries: Sequence[str] = ()) -> list[str]:
    """The content tokens that describe what a step looks for."""
    return content_tokens(" ".join([step.title, step.intent, *queries]))


def select_evidence(
    documents: Sequence[Document],
    step: PlanStep,
    queries: Sequence[str],
    *,
    per_document: int,
    limit: int,
    topic: Sequence[str] = (),
    question: str = "",
    clean: Collection[str] = (),
) -> list[EvidenceSpan]:
    """Return the most relevant, mutually diverse sentences of ``documents`` as spans.

    Sentences of all documents are ranked together (BM25 over the pooled sentences, so a
    term rare across the documents weighs more), at most ``per_document`` from one document
    and ``limit`` in all. A sentence that also names the research question's distinctive
    terms (``topic``: those in fewer than a quarter of the candidates) ranks higher, so that
    a step about, say, a timeline prefers the timeline of the subject asked about. Sentences
    that address the agent (prompt injection) are never chosen; ``clean`` names documents
    whose whole text :func:`~deep_research.sources.injection.injection_flags` found clean,
    and their sentences are not scanned again (a sentence is a verbatim slice of the text,
    so it is clean too). Every span's ``quote`` equals ``document.text[start:end]``.
    """
    query = step_terms(step, queries)
    candidates = _candidates(documents, query, clean)
    if not candidates:
        return []
    bags = [content_tokens(s.text) for _, s in candidates]
    scores = _scores(candidates, bags, query, step, topic=topic, question=question)
    chosen = _diverse(candidates, bags, scores, per_document=per_document, limit=limit)
    return [_span(candidates[i][0], candidates[i][1], step, scores[i]) for i in chosen]


Candidate = tuple[Document, Sentence]


def _candidates(
    documents: Sequence[Document], query: Sequence[str], clean: Collection[str]
) -> list[Candidate]:
    """Quotable sentences of the documents' best passages (whole, short, not instructions)."""
    passages = best_passages(documents, query, per_document=CHUNKS_PER_DOCUMENT)
    return [
        (document, s)
        for document in documents
        for s in sentences(document.text)
        if any(start <= s.start < end for start, end in passages[document.id])
        and len(s.text) <= MAX_QUOTE_CHARS
        and len(s.text.split()) >= MIN_QUOTE_WORDS
        and s.text.rstrip("\"')]").endswith((".", "!", "?"))
        and (document.id in clean or not is_instruction(s.text))
    ]


def _scores(
    candidates: Sequence[Candidate],
    bags: Sequence[list[str]],
    query: Sequence[str],
    step: PlanStep,
    *,
    topic: Sequence[str],
    question: str,
) -> list[float]:
    """Each candidate's score for the step.

    BM25 over the pooled candidates, boosted by the question's distinctive terms and by the
    kind of answer the step asks for; zero when off the subject a facet step is anchored on.
    """
    bm25 = BM25(bags)
    subject = subject_terms(topic)
    distinctive = _distinctive(subject, bags)
    held: dict[str, set[str]] = {}  # each document's terms, as its candidate sentences hold them
    for (document, _), bag in zip(candidates, bags, strict=True):
        held.setdefault(document.id, set()).update(bag)
    anchors = _anchors(subject_names(question), subject, list(held.values()), bags)
    wanted = answer_kinds(step.title)
    anchored = needs_anchor(step, subject)
    scores: list[float] = []
    for i, (_, sentence) in enumerate(candidates):
        score = bm25.score(query, i) * (1 + TOPIC_BOOST * len(distinctive.intersection(bags[i])))
        on_topic = bool(anchors.intersection(bags[i])) if anchors else True
        if anchored and not on_topic:
            score = 0.0
        elif wanted and on_topic and _answers(sentence.text, wanted):
            score *= 1 + ANSWER_BOOST
        scores.append(score)
    return scores


def _diverse(
    candidates: Sequence[Candidate],
    bags: Sequence[list[str]],
    scores: Sequence[float],
    *,
    per_document: int,
    limit: int,
) -> list[int]:
    """The best candidates: ``per_document`` per document, ``limit`` in all, no repeats."""
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    taken: dict[str, int] = {}
    for i in ranked:
        document_id = candidates[i][0].id
        if scores[i] <= 0 or len(chosen) >= limit:
            break
        if taken.get(document_id, 0) >= per_document:
            continue
        if any(jaccard(set(bags[i]), set(bags[j])) > _REDUNDANT for j in chosen):
            continue
        chosen.append(i)
        taken[document_id] = taken.get(document_id, 0) + 1
    return chosen


def subject_terms(topic: Sequence[str]) -> list[str]:
    """The question's terms that name its subject: all but those naming the answer sought."""
    return [t for t in dict.fromkeys(topic) if t not in ANSWER_TERMS]


def answer_kinds(text: str) -> frozenset[str]:
    """The quantity kinds that answer ``text`` (a step title), by its answer-type cues."""
    return frozenset(kind for _, cue, kinds in ANSWER_TYPES if cue.search(text) for kind in kinds)


def needs_anchor(step: PlanStep, subject: Sequence[str]) -> bool:
    """Whether the step's evidence must name the subject: its title names none of it.

    Such a step is a facet of the question (its history, its risks) or a broadened step; its
    own terms are generic, and sentences that match them only are about something else.
    """
    return bool(subject) and not set(subject).intersection(content_tokens(step.title))


def _answers(text: str, kinds: frozenset[str]) -> bool:
    """Whether ``text`` states a figure of one of ``kinds`` (prices per unit count as money)."""
    return any(q.kind.split("/")[0] in kinds for q in quantities(text))


def subject_names(question: str) -> list[list[str]]:
    """The names the question asks about: runs of capitalised words, as stemmed terms.

    ``Hornsdale Power Reserve`` gives ``[hornsdale, power, reserve]``; ``LFP and NMC`` gives
    ``[lfp]`` and ``[nmc]``. The question's first word counts only as an acronym.
    """
    names: list[list[str]] = []
    run: list[str] = []
    words = re.findall(r"[\w'-]+|[^\w\s]", question)
    for position, word in enumerate([*words, ""]):
        first = position == 0 and not (word.isupper() and len(word) > 1)
        term = stem(word.lower())
        if word[:1].isupper() and not first and word.lower() not in STOPWORDS:
            if term not in ANSWER_TERMS:
                run.append(term)
                continue
        if run:
            names.append(run)
            run = []
    return names


def _anchors(
    names: Sequence[Sequence[str]],
    subject: Sequence[str],
    texts: Sequence[set[str]],
    bags: Sequence[Sequence[str]],
) -> set[str]:
    """The terms of which a sentence must hold one to be about the question's subject.

    When the question names its subject, of each name its rarest term among the documents'
    terms (``texts``: each document's terms, as far as its candidate sentences show them;
    ``hornsdale`` rather than ``power`` or ``reserve``, which other pages use for other
    things; a term no document holds is rarest, and then no sentence is about that name).
    Otherwise its distinctive terms, or, for a broad question whose terms are all common,
    any of them; none (no anchoring) when no candidate holds any question term.
    """
    if names:
        return {min(name, key=lambda term: sum(term in text for text in texts)) for name in names}
    distinctive = _distinctive(subject, bags)
    return distinctive or {term for term in subject if any(term in bag for bag in bags)}


def _distinctive(topic: Sequence[str], bags: Sequence[Sequence[str]]) -> set[str]:
    """The topic terms found in some but at most a quarter of the candidate sentences."""
    sets = [set(bag) for bag in bags]
    return {
        term
        for term in set(topic)
        if 0 < sum(term in bag for bag in sets) <= max(1.0, TOPIC_RARITY * len(sets))
    }


def best_passages(
    documents: Sequence[Document], query: Sequence[str], *, per_document: int
) -> dict[str, list[tuple[int, int]]]:
    """The ``(start, end)`` offsets of each document's best chunks for ``query``.

    Chunks of all documents are ranked together with BM25; ties keep document order.
    """
    chunks = [chunk for document in documents for chunk in chunk_text(document.id, document.text)]
    bm25 = BM25([content_tokens(chunk.text) for chunk in chunks])
    scores = [bm25.score(query, i) for i in range(len(chunks))]
    kept: dict[str, list[tuple[int, int]]] = {document.id: [] for document in documents}
    for i in sorted(range(len(chunks)), key=lambda i: (-scores[i], i)):
        chosen = kept[chunks[i].document_id]
        if len(chosen) < per_document:
            chosen.append((chunks[i].start, chunks[i].end))
    return kept


def _span(document: Document, sentence: Sentence, step: PlanStep, score: float) -> EvidenceSpan:
    return EvidenceSpan(
        id=stable_id("ev", step.id, document.url, sentence.start, sentence.end),
        url=document.url,
        document_id=document.id,
        step_id=step.id,
        quote=sentence.text,
        start=sentence.start,
        end=sentence.end,
        section=sentence.section,
        relevance=round(score / (score + 5.0), 4),
        has_numbers=bool(numbers(sentence.text)),
    )
