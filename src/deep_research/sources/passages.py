"""Passages: the parts of a step's pages that its engine reads to pick evidence.

Each page is cut into passages of whole consecutive sentences of one section, about
:data:`PASSAGE_TOKENS` tokens each; consecutive passages share their boundary sentence, so that a
fact stated over two sentences is whole in one of them. The passages of all the step's pages are
ranked together with BM25 on the step's terms (a term rare across the pages weighs more) and the
best are kept within the step's token budget, which depends on the depth
(:data:`PASSAGE_BUDGET`). A page's share follows its relevance rather than a fixed quota: each
passage a page already has discounts its next one by :data:`PAGE_DECAY`, so a page with many
relevant passages gives many, and a long page does not crowd out the others.

The engine picks its evidence from the passages; :mod:`deep_research.sources.quotes` locates
what it quotes.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Collection, Sequence
from itertools import islice

from deep_research.state.models import Document, Passage, stable_id
from deep_research.text import BM25, CJK_CLASS, Sentence, content_tokens, sentences

PASSAGE_TOKENS = 80
"""Tokens (whitespace-separated) a passage grows to before the next one starts."""

MAX_PASSAGE_TOKENS = 240
"""A single sentence longer than this is cut at a token to make its passage."""

PASSAGE_BUDGET: dict[str, int] = {"light": 2000, "medium": 2250, "extended": 2500}
"""Tokens of passages shown to the engine per step and reading round, by depth."""

LEAD_PASSAGES = 3
"""A page's first passages, where it says what its subject is (its lead, a manual page's
synopsis and description), ..."""

LEAD_BOOST = 0.5
"""... score this much higher (score × 1.5)."""

PAGE_DECAY = 0.75
"""Factor applied to a page's next passage's score for each passage it already has."""


_WORD_UNIT = re.compile(rf"[{CJK_CLASS}]{{1,2}}|[^\s{CJK_CLASS}]+")
"""A word as passages count them: a run of non-space text, or two CJK characters (which are
written without spaces; see :func:`~deep_research.text.word_count`)."""


def _size(text: str) -> int:
    """Words of ``text`` as passages count them (:data:`_WORD_UNIT`)."""
    return len(_WORD_UNIT.findall(text))


def build_passages(document: Document, *, clean: bool = False) -> list[Passage]:
    """Cut a page into passages of whole sentences (see the module docstring).

    Every passage is a verbatim slice: ``document.text[p.start:p.end] == p.text``.
    """
    passages: list[Passage] = []
    group: list[Sentence] = []
    size = 0
    for sentence in sentences(document.text):
        if group and sentence.section != group[0].section:
            passages.append(_passage(document, group, clean))
            group, size = [], 0
        group.append(sentence)
        words = _size(sentence.text)
        size += words
        if size >= PASSAGE_TOKENS:
            passages.append(_passage(document, group, clean))
            # the boundary sentence opens the next passage too, unless it filled this one alone
            group = [sentence] if len(group) > 1 else []
            size = words if group else 0
    if group and not (passages and passages[-1].end >= group[-1].end):
        passages.append(_passage(document, group, clean))
    return passages


def _passage(document: Document, group: Sequence[Sentence], clean: bool) -> Passage:
    start, end = group[0].start, group[-1].end
    words = len(_WORD_UNIT.findall(document.text, start, end))
    if words > MAX_PASSAGE_TOKENS:  # rare: only then are the words' offsets needed
        cut = next(
            islice(_WORD_UNIT.finditer(document.text, start, end), MAX_PASSAGE_TOKENS - 1, None)
        )
        end, words = cut.end(), MAX_PASSAGE_TOKENS
    return Passage(
        id=stable_id("psg", document.id, start, end),
        document_id=document.id,
        url=document.url,
        title=document.title,
        start=start,
        end=end,
        text=document.text[start:end],
        section=group[0].section,
        tokens=words,
        clean=clean,
    )


def rank_passages(
    documents: Sequence[Document],
    query: Sequence[str],
    *,
    budget: int,
    clean: Collection[str] = (),
) -> list[Passage]:
    """The best passages of ``documents`` for ``query``, at most ``budget`` tokens in all.

    Args:
        documents: The pages the step read.
        query: The step's content terms (:func:`~deep_research.sources.evidence.step_terms`).
        budget: Tokens of passages to keep (:data:`PASSAGE_BUDGET` of the run's depth).
        clean: Ids of the documents whose whole text holds no instruction to the agent.

    Returns:
        The chosen passages, best first, with their scores; overlapping or touching passages
        of a page are merged into one. Passages that hold no query term are never chosen.
    """
    pool = [p for d in documents for p in build_passages(d, clean=d.id in clean)]
    if not pool:
        return []
    titles = {d.id: d.title for d in documents}
    # each passage is scored with its page's title and its section heading (contextual
    # headers): a definition under "Description" names its subject in the title only
    bm25 = BM25(
        [content_tokens(f"{titles[p.document_id]} {p.section or ''} {p.text}") for p in pool]
    )
    wanted = set(query)
    scores = [bm25.score(query, i) * _lead(pool, i, wanted) for i in range(len(pool))]
    chosen = _choose(pool, scores, budget)
    picked = [pool[i].model_copy(update={"score": round(scores[i], 4)}) for i in chosen]
    return _merged(picked, {d.id: d for d in documents})


def _choose(pool: Sequence[Passage], scores: Sequence[float], budget: int) -> list[int]:
    """Greedily, the passage whose score discounted by its page's passages so far is highest.

    Ties go to the earlier passage; a passage over what is left of ``budget`` is skipped.
    A discounted score only falls as its page gains passages, so a heap of scores worked out
    earlier needs a passage's score again only when its page has gained one since (the same
    choices as scanning every passage left at each turn, without the quadratic scan).
    """
    taken: dict[str, int] = {}
    heap = [(-scores[i], i, 0) for i in range(len(pool)) if scores[i] > 0]
    heapq.heapify(heap)
    chosen: list[int] = []
    spent = 0
    while heap:
        _, best, seen = heapq.heappop(heap)
        now = taken.get(pool[best].document_id, 0)
        if now != seen:  # its page gained a passage since: score it again
            heapq.heappush(heap, (-_discounted(scores[best], taken, pool[best]), best, now))
            continue
        if spent + pool[best].tokens > budget:
            continue
        chosen.append(best)
        spent += pool[best].tokens
        taken[pool[best].document_id] = now + 1
    return chosen


def _lead(pool: Sequence[Passage], index: int, query: set[str]) -> float:
    """The lift of a passage that opens its page or a section the step asks about.

    :data:`LEAD_BOOST` for a page's first :data:`LEAD_PASSAGES` passages, and for the first
    passage of a section whose heading names a query term (where the section says what it is
    about: "Interactive mode" opens with what an interactive rebase does); else 1.
    """
    passage = pool[index]
    first = index
    while first > 0 and pool[first - 1].document_id == passage.document_id:
        first -= 1
    opens_section = (
        index == first
        or pool[index - 1].section != passage.section
        and bool(query.intersection(content_tokens(passage.section or "")))
    )
    return 1 + LEAD_BOOST if index - first < LEAD_PASSAGES or opens_section else 1.0


def _discounted(score: float, taken: dict[str, int], passage: Passage) -> float:
    return score * PAGE_DECAY ** taken.get(passage.document_id, 0)


def _merged(passages: Sequence[Passage], documents: dict[str, Document]) -> list[Passage]:
    """Merge each page's overlapping or touching passages; best first, ties in page order."""
    by_page: dict[str, list[Passage]] = {}
    for passage in sorted(passages, key=lambda p: (p.document_id, p.start)):
        run = by_page.setdefault(passage.document_id, [])
        if run and passage.start <= run[-1].end + 1:
            last = run[-1]
            end = max(last.end, passage.end)
            text = documents[passage.document_id].text[last.start : end]
            run[-1] = last.model_copy(
                update={
                    "id": stable_id("psg", passage.document_id, last.start, end),
                    "end": end,
                    "text": text,
                    "tokens": _size(text),
                    "score": max(last.score, passage.score),
                }
            )
        else:
            run.append(passage)
    merged = [p for run in by_page.values() for p in run]
    order = {d: i for i, d in enumerate(documents)}
    return sorted(merged, key=lambda p: (-p.score, order[p.document_id], p.start))
