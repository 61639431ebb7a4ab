"""Evidence selection: the best minimal verbatim quotes of a document for a research step.

Two stages. Each document is cut into overlapping token-bounded chunks
(:mod:`deep_research.sources.chunking`) and its :data:`CHUNKS_PER_DOCUMENT` best chunks for
the step are kept, so that a long page competes with its relevant passages only. The sentences
starting in those passages are then ranked together across documents.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from deep_research.sources.chunking import chunk_text
from deep_research.sources.injection import is_instruction
from deep_research.state.models import Document, EvidenceSpan, PlanStep, stable_id
from deep_research.text import BM25, Sentence, content_tokens, jaccard, numbers, sentences

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
    passages = best_passages(documents, query, per_document=CHUNKS_PER_DOCUMENT)
    candidates = [
        (document, s)
        for document in documents
        for s in sentences(document.text)
        if any(start <= s.start < end for start, end in passages[document.id])
        and len(s.text) <= MAX_QUOTE_CHARS
        and len(s.text.split()) >= MIN_QUOTE_WORDS
        and s.text.rstrip("\"')]").endswith((".", "!", "?"))
        and (document.id in clean or not is_instruction(s.text))
    ]
    if not candidates:
        return []
    bags = [content_tokens(s.text) for _, s in candidates]
    bm25 = BM25(bags)
    anchor = _distinctive(topic, bags)
    scores = [
        bm25.score(query, i) * (1 + TOPIC_BOOST * len(anchor.intersection(bags[i])))
        for i in range(len(candidates))
    ]
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    taken: dict[str, int] = {}
    for i in ranked:
        document, sentence = candidates[i]
        if scores[i] <= 0 or len(chosen) >= limit:
            break
        if taken.get(document.id, 0) >= per_document:
            continue
        if any(jaccard(set(bags[i]), set(bags[j])) > _REDUNDANT for j in chosen):
            continue
        chosen.append(i)
        taken[document.id] = taken.get(document.id, 0) + 1
    return [_span(candidates[i][0], candidates[i][1], step, scores[i]) for i in chosen]


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
