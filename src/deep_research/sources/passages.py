"""Passages: the parts of a step's pages that its engine reads to pick evidence.

Each page is cut into passages of whole consecutive sentences of one section, about
:data:`PASSAGE_TOKENS` tokens each; consecutive passages share their boundary sentence, so that a
fact stated over two sentences is whole in one of them. The passages of all the step's pages are
ranked together with BM25 on the step's terms (a term rare across the pages weighs more) and the
best are kept within the step's budget of words, which depends on the depth and, for a
model, on its window (:data:`PASSAGE_BUDGET`). A page's share follows its relevance rather
than a fixed quota: each passage a page already has discounts its next one by
:data:`PAGE_DECAY`, so a page with many relevant passages gives many, and a long page does
not crowd out the others.

The engine picks its evidence from the passages; :mod:`deep_research.engines.quotes` locates
what it quotes.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

from deep_research.state.models import Document, Passage, stable_id
from deep_research.text.words import BM25, CJK_CLASS, content_tokens, has_cjk, sentences

PASSAGE_TOKENS = 80
"""Tokens (whitespace-separated) a passage grows to before the next one starts."""

MAX_PASSAGE_TOKENS = 240
"""A single sentence longer than this is cut at a token to make its passage."""

PASSAGE_BUDGET: dict[str, int] = {"light": 2000, "medium": 2250, "extended": 2500}
"""Tokens of passages the offline engine reads per step and reading round, by depth. A model
reads a budget sized by its window (:func:`deep_research.engines.llm.budgets.passage_words`)."""

LEAD_PASSAGES = 3
"""A page's first passages, where it says what its subject is (its lead, a manual page's
synopsis and description), ..."""

LEAD_BOOST = 0.5
"""... score this much higher (score × 1.5)."""

PAGE_DECAY = 0.75
"""Factor applied to a page's next passage's score for each passage it already has."""


_WORD_UNIT = re.compile(rf"[{CJK_CLASS}]{{1,2}}|[^\s{CJK_CLASS}]+")
"""A word as passages count them: a run of non-space text, or two CJK characters (which are
written without spaces; see :func:`~deep_research.text.words.word_count`). In a text without CJK
characters these are exactly ``str.split``'s words, which it counts faster."""


def _size(text: str) -> int:
    """Words of ``text`` as passages count them (:data:`_WORD_UNIT`)."""
    return len(_WORD_UNIT.findall(text))


@dataclass(frozen=True, slots=True)
class _Cut:
    """A passage's place in its page, before it is chosen: its sentences and its offsets."""

    first: int
    """Index of its first sentence."""
    last: int
    """Index of its last sentence (the passage may end inside it: see ``end``)."""
    start: int
    end: int
    words: int
    section: str | None


class _Page:
    """A page cut into sentences and passages, with its words counted once."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.spaced = not has_cjk(document.text)
        self.sentences = list(sentences(document.text))
        self.cuts = self._cut()

    def size(self, start: int, end: int) -> int:
        """Words of ``document.text[start:end]`` as passages count them (:data:`_WORD_UNIT`)."""
        if self.spaced:
            return len(self.document.text[start:end].split())
        return len(_WORD_UNIT.findall(self.document.text, start, end))

    def _cut(self) -> list[_Cut]:
        cuts: list[_Cut] = []
        first, size = 0, 0  # the group: sentences[first:n]
        for n, sentence in enumerate(self.sentences):
            if n > first and sentence.section != self.sentences[first].section:
                cuts.append(self._group(first, n - 1))
                first, size = n, 0
            words = self.size(sentence.start, sentence.end)
            size += words
            if size >= PASSAGE_TOKENS:
                cuts.append(self._group(first, n))
                # the boundary sentence opens the next passage too, unless it filled this one alone
                first, size = (n, words) if n > first else (n + 1, 0)
        last = len(self.sentences) - 1
        if first <= last and not (cuts and cuts[-1].end >= self.sentences[last].end):
            cuts.append(self._group(first, last))
        return cuts

    def _group(self, first: int, last: int) -> _Cut:
        text = self.document.text
        start, end = self.sentences[first].start, self.sentences[last].end
        words = self.size(start, end)
        if words > MAX_PASSAGE_TOKENS:  # rare: only then are the words' offsets needed
            cut = next(islice(_WORD_UNIT.finditer(text, start, end), MAX_PASSAGE_TOKENS - 1, None))
            end, words = cut.end(), MAX_PASSAGE_TOKENS
        return _Cut(first, last, start, end, words, self.sentences[first].section)

    def passage(
        self, cut: _Cut, *, clean: bool, score: float = 0.0, date: str | None = None
    ) -> Passage:
        document = self.document
        return Passage(
            id=stable_id("psg", document.id, cut.start, cut.end),
            document_id=document.id,
            url=document.url,
            title=document.title,
            date=date,
            start=cut.start,
            end=cut.end,
            text=document.text[cut.start : cut.end],
            section=cut.section,
            score=score,
            tokens=cut.words,
            clean=clean,
        )


def build_passages(document: Document, *, clean: bool = False) -> list[Passage]:
    """Cut a page into passages of whole sentences (see the module docstring).

    Every passage is a verbatim slice: ``document.text[p.start:p.end] == p.text``.
    """
    page = _Page(document)
    return [page.passage(cut, clean=clean) for cut in page.cuts]


class _Terms:
    """Counts a page's content tokens for BM25: how many, and how often each query term.

    Each passage is scored with its page's title and its section heading (contextual
    headers: a definition under "Description" names its subject in the title only), as the
    tokens of ``f"{title} {section} {text}"``. Passages share their boundary sentences, so
    the tokens are counted once per sentence and per text between sentences (a list's
    marker, a repeated heading), and a passage's counts are the sums of its parts': no token
    spans two sentences, since sentences end at a stop or a line's end.
    """

    def __init__(self, page: _Page, query: set[str]) -> None:
        self.page, self.query = page, query
        text, found = page.document.text, page.sentences
        self.title = self.count(page.document.title)
        self.sections: dict[str | None, tuple[int, list[str]]] = {}
        self.parts = [self.count(s.text) for s in found]
        self.gaps = [
            self.count(text[a.end : b.start]) for a, b in zip(found, found[1:], strict=False)
        ]

    def count(self, text: str) -> tuple[int, list[str]]:
        """The content tokens of ``text``: how many, and the query terms among them."""
        if not text or text.isspace():
            return 0, []
        found = content_tokens(text)
        return len(found), [t for t in found if t in self.query]

    def of(self, cut: _Cut) -> tuple[int, dict[str, int]]:
        """A passage's tokens, title and heading included: how many, and each query term's."""
        section = self.sections.get(cut.section)
        if section is None:
            section = self.sections[cut.section] = self.count(cut.section or "")
        parts = [self.title, section]
        if cut.end < self.page.sentences[cut.last].end:  # cut inside a long sentence
            parts.append(self.count(self.page.document.text[cut.start : cut.end]))
        else:
            parts += self.parts[cut.first : cut.last + 1] + self.gaps[cut.first : cut.last]
        size = 0
        terms: dict[str, int] = {}
        for n, hits in parts:
            size += n
            for term in hits:
                terms[term] = terms.get(term, 0) + 1
        return size, terms


def rank_passages(
    documents: Sequence[Document],
    query: Sequence[str],
    *,
    budget: int,
    clean: Collection[str] = (),
    dates: Mapping[str, str] | None = None,
) -> list[Passage]:
    """The best passages of ``documents`` for ``query``, at most ``budget`` tokens in all.

    Args:
        documents: The pages the step read.
        query: The step's content terms (:func:`~deep_research.sources.evidence.step_terms`).
        budget: Words of passages to keep (:data:`PASSAGE_BUDGET` of the run's depth, or the
            engine's window-sized budget).
        clean: Ids of the documents whose whole text holds no instruction to the agent.
        dates: Publication dates of the documents, by id, where known (shown to the engine).

    Returns:
        The chosen passages, best first, with their scores; overlapping or touching passages
        of a page are merged into one. Passages that hold no query term are never chosen.
    """
    wanted = set(query)
    pages = [_Page(d) for d in documents]
    pool = [(page, cut) for page in pages for cut in page.cuts]
    if not pool:
        return []
    counts: list[tuple[int, dict[str, int]]] = []
    for page in pages:
        terms = _Terms(page, wanted)
        counts += [terms.of(cut) for cut in page.cuts]
    bm25 = BM25.from_counts([hits for _, hits in counts], [n for n, _ in counts])
    lifts = [_lead(page.cuts, k, wanted) for page in pages for k in range(len(page.cuts))]
    scores = [bm25.score(query, i) * lifts[i] for i in range(len(pool))]
    chosen = _choose([(page.document.id, cut.words) for page, cut in pool], scores, budget)
    picked = []
    for i in chosen:
        page, cut = pool[i]
        document_id = page.document.id
        date = (dates or {}).get(document_id)
        picked.append(
            page.passage(cut, clean=document_id in clean, score=round(scores[i], 4), date=date)
        )
    return _merged(picked, {d.id: d for d in documents})


def _choose(pool: Sequence[tuple[str, int]], scores: Sequence[float], budget: int) -> list[int]:
    """Greedily, the passage whose score discounted by its page's passages so far is highest.

    ``pool`` gives each passage's page id and words. Ties go to the earlier passage; a passage
    over what is left of ``budget`` is skipped. A discounted score only falls as its page gains
    passages, so a heap of scores worked out earlier needs a passage's score again only when
    its page has gained one since (the same choices as scanning every passage left at each
    turn, without the quadratic scan).
    """
    taken: dict[str, int] = {}
    heap = [(-scores[i], i, 0) for i in range(len(pool)) if scores[i] > 0]
    heapq.heapify(heap)
    chosen: list[int] = []
    spent = 0
    while heap:
        _, best, seen = heapq.heappop(heap)
        page, words = pool[best]
        now = taken.get(page, 0)
        if now != seen:  # its page gained a passage since: score it again
            heapq.heappush(heap, (-scores[best] * PAGE_DECAY**now, best, now))
            continue
        if spent + words > budget:
            continue
        chosen.append(best)
        spent += words
        taken[page] = now + 1
    return chosen


def _lead(cuts: Sequence[_Cut], index: int, query: set[str]) -> float:
    """The lift of a page's passage ``index``: more if it opens the page or an asked-for section.

    :data:`LEAD_BOOST` for a page's first :data:`LEAD_PASSAGES` passages, and for the first
    passage of a section whose heading names a query term (where the section says what it is
    about: "Interactive mode" opens with what an interactive rebase does); else 1.
    """
    if index < LEAD_PASSAGES:
        return 1 + LEAD_BOOST
    section = cuts[index].section
    opens_section = cuts[index - 1].section != section and bool(
        query.intersection(content_tokens(section or ""))
    )
    return 1 + LEAD_BOOST if opens_section else 1.0


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
