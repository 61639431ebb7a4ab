"""Evidence selection without a model: sentence windows from a step's ranked passages.

The step's pages are cut into passages and ranked across pages within the depth's token budget
(:mod:`deep_research.sources.passages`). Offline, the quotable sentences of those passages are
then ranked together (BM25 on the step's terms over the sentences and over their headings, the
page's title and section, boosted by the score of the passage they stand in and, in the
opening of their page, where a manual says what its subject is and does, by half) and chosen by
maximal marginal relevance: each next one is the most relevant once its likeness to what is
already chosen is subtracted, so a sentence that repeats a chosen one gives way to one that
says something else. A page's abbreviation of the step's words ("WAL" for write-ahead
logging) counts as those words. Each chosen sentence grows into a window
of contiguous sentences of its paragraph when its neighbours are on the step's subject too, so
that a fact stated over two sentences survives, and a line ending with a colon ("Advantages
include:") grows into the list it opens, whose items seldom name the subject, or into the
example it introduces (a command, a configuration snippet, a table's rows: lines that are no
sentence); sentences far below the best are not taken.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from deep_research.sources.injection import is_instruction
from deep_research.sources.passages import PASSAGE_BUDGET, rank_passages
from deep_research.state.models import (
    Document,
    EvidenceSpan,
    Passage,
    PlanStep,
    evidence_id,
)
from deep_research.text.language import without_question_words
from deep_research.text.words import (
    BM25,
    STOPWORDS,
    TABLE_CELLS,
    Sentence,
    content_tokens,
    ends_sentence,
    has_markup,
    is_transcript,
    jaccard,
    numbers,
    refers_back,
    sentences,
    splits_a_quotation,
    word_count,
)

MAX_QUOTE_CHARS = 600
"""Longer sentences are not quoted: a quote must be minimal to be checkable."""

MIN_QUOTE_WORDS = 5
"""Shorter sentences rarely state a checkable fact (words as
:func:`~deep_research.text.words.word_count` counts them: two CJK characters make one). Lines
without end punctuation (titles, captions) are
not quoted either."""

DIVERSITY = 0.5
"""Weight of a candidate's similarity to the windows already taken against its relevance
(maximal marginal relevance; see docs/decisions.md for the measurements)."""


PASSAGE_WEIGHT = 1.0
"""Score multiplier added in proportion to the sentence's passage score (the best passage's
sentences score up to twice as high)."""

OPENING_SHARE = 0.2
"""The opening of a page: the first fifth of what its passages shown cover (offsets from the
page's start), where a manual states what its subject is and does."""

OPENING_WEIGHT = 0.5
"""A sentence in its page's opening scores this much higher (score × 1.5)."""

HEAD_WEIGHT = 1.0
"""Weight of the BM25 score of a sentence's headings (its page's title and its section) added
to the sentence's own: a sentence under a heading that names the step's subject ("Write-Ahead
Logging") is on it even when it calls the subject by another name ("WAL") or by "it"."""

WINDOW_SENTENCES = 3
"""Most sentences in one window (see docs/decisions.md for the measurements of this and the
other constants of the module)."""

MAX_WINDOW_CHARS = 900
"""Longest window: a neighbour that would make it longer is left out."""

EXAMPLE_LINES = 4
"""Most lines of an example (a command, a snippet, a table's rows) a lead-in's window takes."""

MAX_WINDOWS = 12
"""Most windows taken for a step in one reading round."""

WINDOW_FLOOR = 0.25
"""A window scoring below this share of the step's best window is not taken."""

_ANAPHOR = re.compile(r"^(?:it|its|this|these|that|those|they|their|such|then|thus|here)\b", re.I)
"""A sentence opening with one of these words leans on the sentence before it."""

_LIST_MARKER = re.compile(r"(?:[-*•]|\d{1,3}[.)])?")
"""What may open a list item's line, before its text: a bullet or an item number."""

Link = Literal["line", "opens", "item"]
"""How one quotable sentence follows another in a window (:func:`_link`)."""


def step_terms(step: PlanStep, queries: Sequence[str] = ()) -> list[str]:
    """The content tokens that describe what a step looks for (question words left out)."""
    return content_tokens(without_question_words(" ".join([step.title, step.intent, *queries])))


def select_evidence(
    documents: Sequence[Document],
    step: PlanStep,
    queries: Sequence[str],
    *,
    budget: int = PASSAGE_BUDGET["medium"],
    limit: int = MAX_WINDOWS,
    clean: Collection[str] = (),
) -> list[EvidenceSpan]:
    """Rank the passages of ``documents`` within ``budget`` tokens and select windows as spans.

    The offline pipeline in one call (:func:`~deep_research.sources.passages.rank_passages`,
    then :func:`select_windows`); every span's ``quote`` equals ``document.text[start:end]``.
    """
    passages = rank_passages(documents, step_terms(step, queries), budget=budget, clean=clean)
    windows = select_windows(passages, step, queries, limit=limit)
    return [_span(w, step) for w in windows]


@dataclass(frozen=True)
class Window:
    """Contiguous quotable sentences of one passage, with their page offsets and score."""

    passage: int
    """Index of the passage in the list given."""
    start: int
    end: int
    text: str
    section: str | None
    score: float
    url: str
    document_id: str

    @property
    def relevance(self) -> float:
        """The score mapped to 0..1."""
        return round(self.score / (self.score + 5.0), 4)


def select_windows(
    passages: Sequence[Passage],
    step: PlanStep,
    queries: Sequence[str],
    *,
    limit: int = MAX_WINDOWS,
    answers: Callable[[str], bool] | None = None,
) -> list[Window]:
    """Return the most relevant, mutually diverse sentence windows of ``passages``.

    Sentences of all passages are ranked together on the step's terms (:func:`_scores`: BM25
    over the pooled sentences, so a term rare across the pages weighs more, and over their
    headings) and chosen by maximal marginal relevance (:func:`_windows`). Each chosen
    sentence becomes a window with its on-topic neighbours of the same line (:func:`_window`).
    Sentences that address the agent (prompt injection) are never chosen unless their passage
    comes from a page scanned clean (``Passage.clean``). ``answers``: whether a sentence gives
    the kind of answer the step asks for (a sum spent for a cost); a sentence on the step's
    subject that does scores :data:`ANSWER_WEIGHT` times higher.
    """
    candidates = _candidates(passages)
    if not candidates:
        return []
    query = step_terms(step, queries)
    query += abbreviations(" ".join([step.title, step.intent, *queries]), passages)
    bags = [content_tokens(c.sentence.text) for c in candidates]
    scores = _scores(passages, candidates, bags, query)
    if answers is not None:
        scores = [
            score * ANSWER_WEIGHT if score > 0 and answers(c.sentence.text) else score
            for c, score in zip(candidates, scores, strict=True)
        ]
    return _windows(passages, candidates, bags, scores, limit=limit)


ANSWER_WEIGHT = 3.0
"""How much more a sentence scores when it gives the kind of answer its step asks for."""

MAX_ABBREVIATION = 5
"""Longest abbreviation looked for (letters)."""

_ABBREVIATION = re.compile(rf"\b[A-Z]{{3,{MAX_ABBREVIATION}}}s?\b")


def abbreviations(text: str, passages: Sequence[Passage]) -> list[str]:
    """The passages' abbreviations of words the step uses, as terms ("WAL": write-ahead logging).

    An abbreviation is a word of three to :data:`MAX_ABBREVIATION` capitals, in a passage, whose
    letters are the initials of consecutive words of ``text`` (the step's title, intent and
    queries). A page that names its subject by abbreviation ("WAL is significantly faster")
    then states it in words the step searched with.
    """
    spelled = [
        w.lower()
        for w in re.findall(r"[A-Za-z]+", without_question_words(text))
        if w.lower() not in STOPWORDS
    ]
    initials = {
        "".join(w[0] for w in spelled[i : i + n])
        for n in range(3, MAX_ABBREVIATION + 1)
        for i in range(len(spelled) - n + 1)
    }
    found = {
        word.rstrip("s").lower()
        for passage in passages
        for word in _ABBREVIATION.findall(passage.text)
        if word.rstrip("s").lower() in initials
    }
    return [t for word in sorted(found) for t in content_tokens(word)]


@dataclass(frozen=True)
class Candidate:
    """A quotable sentence (page offsets) of a passage, and its place in that passage."""

    passage: int
    order: int
    """Position among the passage's sentences, quotable or not."""
    sentence: Sentence
    document_id: str


def _candidates(passages: Sequence[Passage]) -> list[Candidate]:
    """Quotable sentences of the passages (whole, short, not instructions), page offsets."""
    found: list[Candidate] = []
    for index, passage in enumerate(passages):
        pieces = list(sentences(passage.text))
        for order, s in enumerate(pieces):
            s = _after_example(passage.text, pieces, order)
            if (
                len(s.text) <= MAX_QUOTE_CHARS
                and word_count(s.text) >= MIN_QUOTE_WORDS
                # a fragment of a list or a cut-off sentence, unless it continues an example
                and (s.start != pieces[order].start or not s.text[0].islower())
                and (ends_sentence(s.text) or leads_in(s.text))
                and (passage.clean or not is_instruction(s.text))
                and not has_markup(s.text)  # a page's source markup is no quote
                and not splits_a_quotation(s.text)
                and TABLE_CELLS not in s.text  # cells of a table's rows, run together
                and not is_transcript(s.text)  # a terminal session, no sentence
            ):
                placed = Sentence(
                    s.text,
                    passage.start + s.start,
                    passage.start + s.end,
                    s.section or passage.section,
                )
                found.append(Candidate(index, order, placed, passage.document_id))
    return found


def statements(text: str) -> list[Sentence]:
    """The sentences of ``text``, each example line joined to the sentence it belongs to.

    As :func:`~deep_research.text.words.sentences`, but a sentence that goes on from an example
    line (:func:`_after_example`) is one statement with it, and so is a lead-in with the
    example lines it introduces (:func:`_with_example`): no line of an example is a sentence of
    its own.
    """
    pieces = list(sentences(text))
    found: list[Sentence] = []
    for order in range(len(pieces)):
        piece = _after_example(text, pieces, order)
        if found and piece.start < pieces[order].start and found[-1].start == piece.start:
            found[-1] = piece  # the example line opens this statement
        elif found and _with_example(text, found[-1], piece):
            last = found[-1]  # a line of the example the statement before introduces
            found[-1] = Sentence(text[last.start : piece.end], last.start, piece.end, last.section)
        else:
            found.append(piece)
    return found


def _with_example(text: str, statement: Sentence, piece: Sentence) -> bool:
    """Whether ``piece`` is a line of the example that ``statement`` introduces or goes on with.

    A lead-in ("... use the following config file excerpt:") takes the lines that follow it,
    after one blank line at most, each on a line of its own and none a sentence (``if($msg
    contains "error") then {``), up to the next blank line: written one by one, each line was a
    claim of its own, ended with a period.
    """
    between = text[statement.end : piece.start]
    lead_in = leads_in(statement.text)  # else the statement holds example lines already
    opened = lead_in or leads_in(statement.text.split("\n", 1)[0])
    return (
        opened
        and not between.strip()
        and 1 <= between.count("\n") <= (2 if lead_in else 1)
        and piece.section == statement.section
        and not ends_sentence(piece.text)
        and not has_markup(piece.text)
    )


def _after_example(text: str, pieces: Sequence[Sentence], order: int) -> Sentence:
    """Piece ``order`` of ``text``, opening with the example line it continues, if it does one.

    A sentence that starts in lower case right after a line that is no sentence ("For
    example" / ``FallbackResource /not-404.php`` / "will cause requests for non-existent files
    to be handled by not-404.php") goes on from that line: the two are one statement, quoted
    together (an example line of source markup is not taken). Else the piece as it is.
    """
    piece = pieces[order]
    if order == 0 or not piece.text[:1].islower() or not ends_sentence(piece.text):
        return piece
    before = pieces[order - 1]
    between = text[before.end : piece.start]
    if (
        "\n" not in between
        or between.strip()
        or before.section != piece.section
        or ends_sentence(before.text)
        or leads_in(before.text)
        or has_markup(before.text)
    ):
        return piece
    return Sentence(text[before.start : piece.end], before.start, piece.end, piece.section)


def _scores(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    bags: Sequence[list[str]],
    query: Sequence[str],
) -> list[float]:
    """Each candidate's score for the step.

    BM25 over the pooled candidates plus :data:`HEAD_WEIGHT` times BM25 over their headings,
    boosted by the score of the passage the sentence stands in (which saw the page's lead), and
    by :data:`OPENING_WEIGHT` in the first :data:`OPENING_SHARE` of what is shown of its page
    ("VACUUM reclaims storage occupied by dead tuples", "A WITHOUT ROWID table is a table that
    uses a Clustered Index as the primary key": a manual's own statement of its subject, whose
    words match the step no better than the details that follow it).
    """
    heads = [
        content_tokens(f"{passages[c.passage].title} {c.sentence.section or ''}")
        for c in candidates
    ]
    bm25 = BM25(bags)
    headings = BM25(heads)
    best = max((p.score for p in passages), default=0.0)
    passage_share = [p.score / best if best > 0 else 0.0 for p in passages]
    reach: dict[str, int] = {}  # how far into each page the passages shown go
    for passage in passages:
        reach[passage.document_id] = max(reach.get(passage.document_id, 0), passage.end)
    scores: list[float] = []
    for i, candidate in enumerate(candidates):
        own = bm25.score(query, i) + HEAD_WEIGHT * headings.score(query, i)
        score = own * (1 + PASSAGE_WEIGHT * passage_share[candidate.passage])
        if candidate.sentence.start < OPENING_SHARE * reach[candidate.document_id]:
            score *= 1 + OPENING_WEIGHT
        scores.append(score)
    return scores


def _windows(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    bags: Sequence[list[str]],
    scores: Sequence[float],
    *,
    limit: int,
) -> list[Window]:
    """The best windows, ``limit`` at most, chosen by maximal marginal relevance.

    Each next seed is the candidate whose score (as a share of the best) minus
    :data:`DIVERSITY` times its similarity to the closest window already taken (token
    Jaccard) is highest, so that a sentence repeating what is taken gives way to one that says
    something else. Candidates below :data:`WINDOW_FLOOR` of the best score are never seeds,
    and a seed's window takes no sentence another window holds.
    """
    best = max(scores, default=0.0)
    left = [i for i, score in enumerate(scores) if score > 0 and score >= WINDOW_FLOOR * best]
    used: set[int] = set()
    chosen: list[tuple[Window, set[str]]] = []

    def gain(i: int) -> float:
        bag = set(bags[i])
        similar = max((jaccard(bag, taken) for _, taken in chosen), default=0.0)
        return scores[i] / best - DIVERSITY * similar

    while left and len(chosen) < limit:
        seed = max(left, key=lambda i: (gain(i), -i))
        members = _window(passages, candidates, scores, seed, used)
        used.update([*members, seed])
        left = [i for i in left if i not in used]
        if not members:
            continue
        end = _example_end(passages, candidates, members, used)
        if end is not None:  # the example's own sentences are this window's
            last = candidates[members[-1]]
            taken = [
                k
                for k in range(members[-1] + 1, len(candidates))
                if candidates[k].passage == last.passage and candidates[k].sentence.end <= end
            ]
            used.update(taken)
            left = [i for i in left if i not in used]
            members = [*members, *taken]
        bag = {t for i in members for t in bags[i]}
        chosen.append((_joined(passages, candidates, members, scores[seed], end), bag))
    return [window for window, _ in chosen]


def _window(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    scores: Sequence[float],
    seed: int,
    used: Collection[int] = (),
) -> list[int]:
    """The candidates of the seed's window: itself, then neighbours while they belong.

    A neighbour belongs when it is the next (or previous) sentence of the same passage, on the
    same line, quotable, and on the step's subject (a positive score) or, for the sentence
    before, when the one after it opens by referring back to it ("It...", "This..."). A line
    that ends with a colon ("Advantages include:") introduces what follows it: the window goes
    on into the list it opens, item by item, whatever their scores, or into the example lines it
    introduces (:func:`_example_end`); a lead-in followed by neither is no window at all (empty).
    """
    members = [seed]
    listing = False  # the window has crossed a colon into what it introduces

    def neighbour(i: int, step: int) -> tuple[int, Link] | None:
        j = i + step
        if j in used:
            return None
        link = _link(passages, candidates, min(i, j), max(i, j))
        return (j, link) if link else None

    while len(members) < WINDOW_SENTENCES:
        after = neighbour(members[-1], 1)
        before = neighbour(members[0], -1)
        if after is not None and (
            after[1] == "opens"
            or (listing and after[1] in ("line", "item"))
            or (
                after[1] == "line"
                and (scores[after[0]] > 0 or _ANAPHOR.match(candidates[after[0]].sentence.text))
            )
        ):
            grown = [*members, after[0]]
            opens = after[1] == "opens"
        elif (
            before is not None
            and before[1] == "line"
            and _ANAPHOR.match(candidates[members[0]].sentence.text)
        ):
            grown, opens = [before[0], *members], False
        else:
            break
        if (
            candidates[grown[-1]].sentence.end - candidates[grown[0]].sentence.start
            > MAX_WINDOW_CHARS
        ):
            break
        members, listing = grown, listing or opens
    while (
        members
        and leads_in(candidates[members[-1]].sentence.text)
        and _example_end(passages, candidates, members, used) is None
    ):
        members.pop()  # a lead-in without what it introduces says nothing
    return _with_antecedent(passages, candidates, members, used)


def _example_end(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    members: Sequence[int],
    used: Collection[int] = (),
) -> int | None:
    """Where the example that the window's last sentence introduces ends (page offset), if any.

    A lead-in (a line ending with a colon) whose next line is no quotable sentence (a
    command, a configuration snippet, a table's rows, a term of a definition list) introduces
    what follows it: the window takes the lines that follow, whole, up to a blank line, a
    heading, a line of source markup, a sentence another window holds or the passage's end, at most
    :data:`EXAMPLE_LINES` of them and within :data:`MAX_WINDOW_CHARS`. ``None`` when the last
    sentence is no lead-in, or a quotable sentence opens what follows it (a list, which the
    window takes item by item), or nothing can be taken.
    """
    last = candidates[members[-1]]
    if not leads_in(last.sentence.text):
        return None
    passage = passages[last.passage]
    inside = {  # the quotable sentences after the lead-in in its passage, by offset
        candidates[k].sentence.start: k
        for k in range(members[-1] + 1, len(candidates))
        if candidates[k].passage == last.passage
    }
    start = candidates[members[0]].sentence.start
    end: int | None = None
    at = last.sentence.end
    lines = 0
    for line in passage.text[at - passage.start :].split("\n"):
        line_start, line_end = at, at + len(line)
        at = line_end + 1
        text = line.strip()
        if not text:
            if lines:
                break  # a blank line ends the example (its paragraph or block)
            continue
        opens = next((k for o, k in inside.items() if line_start <= o < line_end), None)
        if lines == 0 and opens is not None:
            return None  # a quotable sentence: a list, not an example
        if opens is not None and opens in used:
            break
        if text.startswith("#") or has_markup(line) or lines == EXAMPLE_LINES:
            break
        if line_end - start > MAX_WINDOW_CHARS:
            break
        end, lines = line_end - (len(line) - len(line.rstrip())), lines + 1
    return end


def _with_antecedent(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    members: list[int],
    used: Collection[int],
) -> list[int]:
    """``members`` opening with the sentence their first one refers back to, or without it.

    A sentence that points at what precedes it ("the above configuration", "this module")
    is quoted after that sentence (the one before it on its line), or not at all.
    """
    taken = 0  # antecedents put before the sentence that needed the first of them
    while members and refers_back(candidates[members[0]].sentence.text):
        before = members[0] - 1
        linked = before not in used and _link(passages, candidates, before, members[0]) == "line"
        span = candidates[members[-1]].sentence.end - candidates[max(before, 0)].sentence.start
        if linked and span <= MAX_WINDOW_CHARS:
            members = [before, *members]  # a window may pass its size for the antecedent
            taken += 1
        else:  # the chain of antecedents fails: so does the sentence it was taken for
            members, taken = members[taken + 1 :], 0
    return members


_AS_FOLLOWS = re.compile(r"\b(?:as follows|the following|like this)\.$", re.IGNORECASE)
"""A sentence that announces what follows it, ended with a stop ("It can be used as follows.")."""


def leads_in(sentence: str) -> bool:
    """Whether ``sentence`` introduces what follows it.

    It ends with a colon (or a full-width one), or announces what follows and ends with a stop
    (:data:`_AS_FOLLOWS`).
    """
    text = sentence.rstrip()
    return text.endswith((":", "：")) or bool(_AS_FOLLOWS.search(text))


def _link(
    passages: Sequence[Passage], candidates: Sequence[Candidate], first: int, second: int
) -> Link | None:
    """How candidate ``second`` follows ``first``, if it comes right after it in their passage.

    ``"line"``: the next sentence, on the same line. ``"opens"``: the first's line ends with a
    colon (after it, or after a short lead-in of its own) and the second opens the next line,
    after a list marker at most. ``"item"``: the second opens the very next line, after a list
    marker (the next item of a list). ``None``: anything else between them.
    """
    if first < 0 or second >= len(candidates):
        return None
    a, b = candidates[first], candidates[second]
    if a.passage != b.passage:
        return None
    passage = passages[a.passage]
    gap = passage.text[a.sentence.end - passage.start : b.sentence.start - passage.start]
    if "\n" not in gap:
        return "line" if b.order == a.order + 1 else None
    rest, _, following = gap.partition("\n")
    lines = [line.strip() for line in following.split("\n")]
    if not all(_LIST_MARKER.fullmatch(line) for line in lines):
        return None
    if leads_in(a.sentence.text + rest) and b.order == a.order + (2 if rest.strip() else 1):
        return "opens"
    item = bool(lines[-1]) and len(lines) == 1  # the very next line, after a list marker
    return "item" if item and not rest.strip() and b.order == a.order + 1 else None


def _joined(
    passages: Sequence[Passage],
    candidates: Sequence[Candidate],
    members: Sequence[int],
    score: float,
    example_end: int | None = None,
) -> Window:
    first, last = candidates[members[0]], candidates[members[-1]]
    passage = passages[first.passage]
    start, end = first.sentence.start, example_end or last.sentence.end
    return Window(
        passage=first.passage,
        start=start,
        end=end,
        text=passage.text[start - passage.start : end - passage.start],
        section=first.sentence.section,
        score=score,
        url=passage.url,
        document_id=passage.document_id,
    )


def _span(window: Window, step: PlanStep) -> EvidenceSpan:
    return EvidenceSpan(
        id=evidence_id(step.id, window.url, window.start, window.end),
        url=window.url,
        document_id=window.document_id,
        step_id=step.id,
        quote=window.text,
        start=window.start,
        end=window.end,
        section=window.section,
        relevance=window.relevance,
        has_numbers=bool(numbers(window.text)),
    )
