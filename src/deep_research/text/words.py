"""Small text utilities shared by the offline engine, evidence selection and the verifier.

Every script is handled: words are Unicode letters and digits (accents kept), and text in
scripts written without spaces (Chinese, Japanese) is cut into overlapping character
bigrams, the usual unit of CJK retrieval. Sentences end at ``.!?`` before a capital or a
digit, and at the full-width ``。！？`` (and the Devanagari, Arabic and Ethiopic stops) anywhere.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

_ENGLISH_STOPWORDS = """a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not of off on once only or other our ours out over own same
    she should so some such than that the their theirs them then there these they this those
    through to too under until up very was we were what when where which while who whom why will
    with would you your yours also may might must shall via per vs versus tell give explain
    describe show compare much many one two"""

_FRENCH_STOPWORDS = """le la les un une des du de d l au aux et ou mais donc ni que qui quoi
    dont où ce cet cette ces se sa ses leur leurs mon ma mes ton ta tes notre nos votre vos il
    elle ils elles nous vous je tu on y en ne pas est sont été être était avoir ont avait dans
    par sur avec sans sous entre vers chez comme quel quelle quels quelles plus moins très
    aussi selon lors depuis pendant après avant cela ceci ça leurs quelque quelques tout tous
    toute toutes autre autres même fait faire peut peuvent doit"""

_SPANISH_GERMAN_STOPWORDS = """el los las del y o pero que qué para por con sobre entre
    como más muy es fue ser está están una unos unas su sus al lo der das dem des ein
    eine einer eines und oder aber dass für ohne über unter zwischen wie mehr sehr ist sind
    waren nicht auch von zu im"""

STOPWORDS = frozenset((_ENGLISH_STOPWORDS + _FRENCH_STOPWORDS + _SPANISH_GERMAN_STOPWORDS).split())
"""Function words of English, French, Spanish and German (none of them an English content
word), left out of content tokens."""

CJK_CLASS = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
"""Hiragana, katakana and Han ideographs: scripts written without spaces between words."""

_CJK = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_WORD = re.compile(
    rf"(?P<cjk>[{CJK_CLASS}]++)|(?P<word>[^\W_{CJK_CLASS}]++(?:[.,'’][^\W_{CJK_CLASS}]++)*+)"
)
"""A run of CJK characters, or a word of letters and digits of any other script (inner
``.``, ``,`` and apostrophes kept: ``1,200``, ``3.5``, ``l'électricité``). The quantifiers
are possessive (``++``, ``*+``): giving back a letter could never let a match go on, so the
matches are the same, and the engine keeps no positions to backtrack to (a fifth faster)."""
_SPACED_WORD = re.compile(r"[^\W_]++(?:[.,'’][^\W_]++)*+")
""":data:`_WORD`'s words in a text without CJK characters."""
_ASCII_WORD = re.compile(r"[a-z0-9]++(?:[.,'][a-z0-9]++)*+")
""":data:`_SPACED_WORD`'s words in a lower-cased ASCII text, found a quarter faster: there a
letter or digit is ``[a-z0-9]``."""

FULL_STOPS = "。！？｡"
"""Sentence-final marks of CJK text, never followed by a space."""

OTHER_STOPS = "।॥؟۔።"
"""Sentence-final marks of Devanagari, Arabic and Ethiopic text, followed by a space."""

SENTENCE_PUNCT = ".!?" + FULL_STOPS + OTHER_STOPS
"""Every mark that can end a sentence."""

CLOSERS = "\"')]»”’」』）】"
"""Closing quotes and brackets that may follow a sentence's final mark."""

_OPENERS = "\"'(\\[«“‘「『（【"
_LATIN_END = re.compile(rf"[.!?{OTHER_STOPS}]([{re.escape(CLOSERS)}]*)\s+")
_FULL_END = re.compile(rf"[{FULL_STOPS}]([{re.escape(CLOSERS)}]*)\s*")
"""A stop, the closing marks after it, and the space before the next sentence. (A leading
character class, not a lookbehind: the regex engine then skips ahead to the next stop.)"""
_FIRST_LETTER = re.compile(rf"[{re.escape(_OPENERS)}]*+(.)")
"""The first character after any opening quotes and brackets."""
_ELISION = re.compile(r"^(?:l|d|qu|n|s|j|c|m|t|jusqu|lorsqu|puisqu)['’](?=\w)")
"""A French elided article or pronoun (``l'``, ``d'``, ``qu'``) glued to the next word."""
_NUMBER = re.compile(rf"(?<![^\W{CJK_CLASS}])(?<!\.)[-+]?\d[\d,]*(?:\.\d+)?(?![\d])")


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a Han, hiragana or katakana character."""
    return bool(_CJK.fullmatch(char))


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds any CJK character (an ASCII text, known at once, holds none)."""
    return not text.isascii() and _CJK.search(text) is not None


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens; CJK runs as character bigrams (``比亚迪`` → ``比亚``, ``亚迪``).

    Numbers keep their inner separators (``1,200``, ``3.5``); accents are kept.
    """
    if text.isascii():  # the common case
        found = _ASCII_WORD.findall(text.lower())
    elif not has_cjk(text):  # one pattern, no groups
        # lower-case word by word: lowering can change word bounds
        found = [word.lower() for word in _SPACED_WORD.findall(text)]
    else:
        found = []
        for run, word in _WORD.findall(text):
            found += _bigrams(run) if run else [word.lower()]
    if "'" in text or "’" in text:
        return [_ELISION.sub("", word) if "'" in word or "’" in word else word for word in found]
    return found


def words(text: str) -> list[str]:
    """Lower-cased words, CJK runs whole (for writing search queries, not for matching)."""
    return [(m.group("cjk") or m.group("word")).lower() for m in _WORD.finditer(text)]


_INTERNAL = re.compile(
    r"\[@[A-Za-z0-9_]+\]"  # an evidence marker of a draft or of notes
    r"|\[E\d+(?:\s*,\s*E\d+)*\]"  # an evidence key of a prompt or of offline notes
    r"|\b[a-z]{1,4}_[0-9a-f]{8,}\b"  # an id of the run (ev_7b0ba6937658)
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b",  # a hash
    re.I,
)


def without_ids(text: str) -> str:
    """``text`` with the run's own identifiers blanked: evidence markers and keys, ids, hashes.

    Words taken from notes or evidence for a query or a title must never be these.
    """
    return _INTERNAL.sub(" ", text)


_MARKUP = re.compile(
    r":[a-z]+(?::[a-z]+)?:`"  # a reST or Sphinx role (:func:`debug`)
    r"|``|`_|`[^`\n]*<[^>\n]*>`"  # reST literals and links
    r"|^\s*\.\. [a-z-]+::"  # a reST directive
    r"|\]\([^)\s]*\)|\*\*|(?<!\w)__(?=\w)"  # Markdown links and strong emphasis
    r"|\[\[|\]\]|\{\{|\}\}|'''|(?<!\w)''(?=\w)"  # wiki links, templates, emphasis
    r"|^\s*(?:#{1,6}|={2,}|-{3,}|\*{3,})\s"  # a heading or rule line
    r'|"[\w.-]{1,40}"\s*:\s*(?:"|-?\d|\{|\[|true\b|false\b|null\b)',  # a JSON member
    re.M,
)


def has_markup(text: str) -> bool:
    """Whether ``text`` holds reST, Sphinx, Markdown or wiki markup, or a JSON member.

    Such text is not fit to quote as is: a JSON example's ``"detail": "The certificate ... can
    be used.`` read as a sentence of a page.
    """
    return bool(_MARKUP.search(text))


_STRAIGHT_QUOTE = re.compile(r'(?<!\d)"')
"""A straight double quotation mark that is no inch sign of a figure (a 12" pipe)."""


def splits_a_quotation(text: str) -> bool:
    """Whether ``text`` opens or closes a quotation it does not hold whole.

    A sentence split out of a quotation of several sentences (the second sentence of a JSON
    string, with the string's closing mark; ``He wrote "First thing.``), quoted alone, carries
    a quotation mark that pairs with nothing in the report.
    """
    return (
        # odd however read: with every mark, and without those that may be inch signs
        text.count('"') % 2 == 1
        and len(_STRAIGHT_QUOTE.findall(text)) % 2 == 1
        or text.count("\u201c") != text.count("\u201d")
        or text.count("\u00ab") != text.count("\u00bb")
    )


TABLE_CELLS = " | "
"""What every reader joins a table row's cells with (HTML, reST, Word, PowerPoint): text that
holds it is rows of a table, not a sentence of the page's."""

_TRANSCRIPT = re.compile(r"(?:^|\s)\$ [a-z][\w.-]*|<\d{1,2}>")
"""A shell prompt before a command (``$ git reset -- frotz.c``) or a listing's callout (``<1>``)."""


def is_transcript(text: str) -> bool:
    """Whether ``text`` runs a terminal session or a numbered listing into its words.

    git's manual shows its examples as sessions (``$ git show-branch --more=4 master master^2 |
    head``, then the output, then "<1>" notes), which a sentence split reads as prose.
    """
    return bool(_TRANSCRIPT.search(text))


_REFERS_BACK = re.compile(
    r"\b(?:the above|above[- ]mentioned|(?:shown|described|mentioned|given|listed|seen|noted|"
    r"defined|created|explained|discussed) (?:above|earlier|previously|before)|"
    r"the (?:previous|preceding|former|latter)\b|"
    r"(?:this|that) (?:module|example|section|page|chapter|snippet|listing|code|program|script|"
    r"configuration|file|figure|table|one|functionality|feature|behaviou?r)\b|"
    r"these (?:examples|snippets|listings)\b|"
    r"^\W*(?:therefore|thus|hence|consequently|otherwise|in (?:this|that) case)\b|"
    r"^\W*this (?:means|is|was|makes|allows|ensures|can|will|also|way)\b|"
    r"\bsuch (?:cases|a case|situations)\b)",
    re.I,
)


def refers_back(sentence: str) -> bool:
    """Whether ``sentence`` points back at what precedes it ("the above", "this module")."""
    return bool(_REFERS_BACK.search(sentence))


PART_SPLIT = re.compile(
    r"\?|？|;|；|。|\n|\b(?:and also|as well as|et aussi|ainsi que)\b"
    r"|,?\s+and\s+(?=(?:what|how|why|when|where|which|who|whom|whether|is|are|was|were|does|do|did|"
    r"can|could|should)\b)"
    r"|,?\s+et\s+(?=(?:combien|quel(?:le)?s?|comment|pourquoi|quand|où|qui)\b)",
    re.I,
)
"""Where a question passes from one part to the next ("..., and how efficient are they?")."""


def question_parts(question: str, *, bare: bool = False) -> list[str]:
    """The parts a question asks, each as written (a question of one part gives itself).

    A part of function words only ("..., and what must it have?") is left out unless
    ``bare``: it names nothing of its own, but it still asks something of what the question
    names, which a judgement of the answer must not skip.
    """
    keep = tokens if bare else content_tokens
    parts = [p.strip(" ,.，、") for p in PART_SPLIT.split(question) if keep(p)]
    return parts or ([question.strip()] if question.strip() else [])


def content_tokens(text: str) -> list[str]:
    """Tokens minus stopwords, lightly stemmed so that plurals match singulars."""
    return [stem(t) for t in tokens(text) if t not in STOPWORDS]


def word_count(text: str) -> int:
    """Roughly how many words ``text`` holds, in any script.

    Words of spaced scripts count one each; CJK text counts one word per two characters
    (the average length of a Chinese word), so a ten-character sentence counts five.
    """
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    spaced = sum(1 for m in _WORD.finditer(text) if m.group("word"))
    return spaced + (cjk + 1) // 2


def content_word_count(text: str) -> int:
    """:func:`word_count` of the content words only (stopwords left out)."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    spaced = sum(
        1
        for m in _WORD.finditer(text)
        if m.group("word") and m.group("word").lower() not in STOPWORDS
    )
    return spaced + (cjk + 1) // 2


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with a sentence-final mark (closing quotes may follow it)."""
    return text.rstrip().rstrip(CLOSERS).endswith(tuple(SENTENCE_PUNCT))


_UNCHANGED = frozenset({"news", "series", "species"})
"""Words whose final ``s`` or ``ies`` is no plural's: stemmed to themselves (``news`` is not
``new``)."""

_VOWELS = "aeiou"

_DOUBLED = frozenset("bdgkmnprt")
"""Consonants a verb doubles before ``-ed`` and ``-ing`` (``stop``, ``stopped``). Not ``f``,
``l``, ``s`` or ``z``, which end many words doubled (``skill``, ``skilled``)."""


@lru_cache(maxsize=1 << 16)
def stem(token: str) -> str:
    """A deliberately small stemmer: strips common English plural and verb endings.

    A final silent ``e`` goes too, with or without an ending, so that a word ending in ``e``
    and its forms stem alike (``rebase``, ``rebased``, ``rebases`` and ``rebasing`` give
    ``rebas``; ``fire``, ``fires`` and ``firing`` give ``fir``; ``boxes`` gives ``box``); a
    word ending in ``ss`` keeps it (``loss`` and ``losses`` give ``loss``). A final ``y``
    after a consonant, ``ies`` and ``ied`` become ``i`` (``study``, ``studies``, ``studied``
    and ``studying`` give ``studi``). A consonant doubled before ``-ed`` or ``-ing`` is
    undoubled when four letters remain (``committed`` gives ``commit``, ``stopped``
    ``stop``); a shorter stem is left alone (``added`` gives ``add``, ``getting`` ``gett``:
    ``get``, ``set`` and ``put`` are nearly function words, and matching their forms measured
    worse in ``bench.verifier``). Words of three letters or fewer are kept whole, and no ending
    is cut that would leave fewer (``used`` keeps its ``ed``). French past participles lose
    their ``é``, ``ée``, ``és`` or ``ées`` (``coûté`` and ``coûtées`` match ``coût``).
    """
    if token.isdigit() or len(token) <= 3 or token in _UNCHANGED:
        return token
    for suffix in ("ées", "ée", "és", "é"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)]
    if token.endswith("ss"):
        return token
    if token.endswith(("ies", "ied")) and len(token) > 4:
        return token[:-2]  # studies, studied -> studi, as study
    for suffix in ("sses", "ing", "ed", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            token = token[: -len(suffix)] + ("ss" if suffix == "sses" else "")
            verb = suffix in ("ing", "ed") and len(token) >= 5
            if verb and token[-1] == token[-2] and token[-1] in _DOUBLED:
                token = token[:-1]  # stopped, stopping -> stop
            if suffix == "ed":
                return token  # the e before it is the word's own: agreed, agree -> agre
            break
    if token.endswith("y") and len(token) > 3 and token[-2] not in _VOWELS:
        return token[:-1] + "i"
    return token[:-1] if token.endswith("e") and len(token) > 3 else token


@dataclass(frozen=True)
class Sentence:
    """A sentence of a document with its exact character offsets."""

    text: str
    start: int
    end: int
    section: str | None


_HEADING_LINE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
"""A Markdown heading line (ATX): what the readers write a document's headings as."""

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
"""A line that opens or closes a fenced code block."""


def sentences(text: str) -> Iterator[Sentence]:
    """Split a document into sentences with offsets; headings name the section that follows.

    Lines starting with ``#`` are no sentences. They are headings as Markdown reads them: one
    to six ``#`` and a space, indented three spaces at most, outside a fenced code block; a
    shell prompt ``# apt install``, a comment in a configuration example or ``#include`` is
    none, and names no section. Each sentence is a verbatim slice:
    ``text[s.start:s.end] == s.text``.
    """
    section: str | None = None
    offset = 0
    fence: str | None = None  # the fence of the code block the line is in
    for line in text.split("\n"):
        stripped = line.strip()
        line_start = offset + (len(line) - len(line.lstrip()))
        offset += len(line) + 1
        if not stripped:
            continue
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = opened.group(1)[:3] if fence is None else None
        elif stripped.startswith("#"):  # a heading, or a comment or prompt of code: no sentence
            if fence is None and _HEADING_LINE.match(line):
                section = stripped.lstrip("#").strip() or section
            continue
        body = stripped.lstrip("-*+> ").lstrip()
        cursor = line_start + (len(stripped) - len(body))
        for piece in split_line(body):
            at = text.find(piece, cursor)
            if at < 0:  # pragma: no cover - pieces come from the same line
                continue
            cursor = at + len(piece)
            yield Sentence(piece, at, at + len(piece), section)


_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Inc|Ltd|Co|Corp|vs|approx|est|No|Fig|e\.g|i\.e|U\.S|U\.K)"
    r"|(?<!\d )\b[A-Z])\.$"
)
"""An abbreviation or an initial ending a piece: at most 7 characters, so searched for in the
piece's last 8 (the word boundary before it still sees the character ahead). A capital after
a number is a unit (``270 C.``, ``5 V.``), not an initial."""


_DAY_STOP = re.compile(r"(?<![\d.])\d{1,2}\.$")
_GERMAN_MONTH = re.compile(
    r"\s+(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|"
    r"Dezember)\b"
)
"""German writes a date's day with a stop (``am 3. März 2021``): no sentence ends there. The
day and its stop are a piece's last three characters at most, so only its last four (the
character before the day included) are searched."""


def _starts_sentence(line: str, at: int, *, markers: bool) -> bool:
    """Whether ``line`` from ``at`` (after a ``.!?`` and whitespace) opens a new sentence.

    It does when it starts (after an opening quote or bracket) with a capital, a digit, a
    letter of a script without case (Arabic, Devanagari, Han...), or, with ``markers``, a
    citation marker ``[@``.
    """
    if markers and line.startswith("[@", at):
        return True
    found = _FIRST_LETTER.match(line, at)
    first = found.group(1) if found else ""
    return first.isdigit() or (first.isalpha() and not first.islower())


_CONTINUING = "、，,；;：:"
"""Marks that continue a sentence: a full stop before one ends a quotation, not the sentence."""


def _full_stop_ends(line: str, match: re.Match[str]) -> bool:
    """Whether a full-width stop (with the closers and spacing ``match`` took) ends a sentence.

    A stop inside a quotation, its closing quote followed at once by more text
    (``「你好吗？」他问。``, ``「看医生」、「打雷怎么办？」等``), ends the quotation only; so does
    a stop followed by a continuing mark.
    """
    if line[match.end()] in _CONTINUING:
        return False
    return not match.group(1) or match.end(1) < match.end()


def _boundaries(line: str, *, markers: bool) -> list[tuple[int, int]]:
    """``(end of sentence, start of next)`` pairs of one line, in order."""
    found: list[tuple[int, int]] = []
    for match in _LATIN_END.finditer(line):
        cased = line[match.start()] in ".!?"  # the other stops end a sentence regardless
        if cased and not _starts_sentence(line, match.end(), markers=markers):
            continue
        found.append((match.end(1), match.end()))
    if any(stop in line for stop in FULL_STOPS):
        found.extend(
            (m.end(1), m.end())
            for m in _FULL_END.finditer(line)
            if m.end() < len(line) and _full_stop_ends(line, m)
        )
        found.sort()
    return found


def split_line(line: str, *, markers: bool = False) -> Iterator[str]:
    """The sentences of one line of prose, stripped, in order.

    A sentence ends at ``.``, ``!`` or ``?`` (closing quotes or brackets may follow) before
    whitespace and a capital, a digit or an uncased letter, but not after a known abbreviation,
    an initial or the day of a German date (``3. März``); at the Devanagari, Arabic or
    Ethiopic stops before whitespace; and at a full-width ``。！？`` wherever it stands. With
    ``markers``, a run of citation markers ``[@id]`` after the whitespace also starts a new
    piece (a draft's markers written after a period; see
    :func:`deep_research.verification.citations.split_sentences`).
    """
    last = 0
    for end, start in _boundaries(line, markers=markers):
        if end <= last:
            continue
        if _ABBREVIATION.search(ended := line[last:end].rstrip(CLOSERS), len(ended) - 8):
            continue
        if _DAY_STOP.search(ended, len(ended) - 4) and _GERMAN_MONTH.match(line, end):
            continue
        piece = line[last:end].strip()  # closing quotes stay with their sentence
        if piece:
            yield piece
        last = start
    tail = line[last:].strip()
    if tail:
        yield tail


def numbers(text: str) -> list[float]:
    """Numbers mentioned in the text (``1,200`` → 1200.0); years are numbers too."""
    found = []
    for raw in _NUMBER.findall(text):
        cleaned = raw.replace(",", "")
        try:
            found.append(float(cleaned))
        except ValueError:  # pragma: no cover - the regex admits only numerals
            continue
    return found


class BM25:
    """Okapi BM25 over a small in-memory collection (sentences, chunks)."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        self._setup([Counter(doc) for doc in documents], [len(doc) for doc in documents], k1, b)

    @classmethod
    def from_counts(
        cls,
        counts: Sequence[Mapping[str, int]],
        lengths: Sequence[int],
        k1: float = 1.5,
        b: float = 0.75,
    ) -> BM25:
        """The index of documents given as term counts (each above 0) and token lengths.

        A query's scores depend only on the counts of its own terms: counting only those (and
        each document's length) scores the query exactly as the whole token lists would.
        """
        bm25 = cls.__new__(cls)
        bm25._setup(counts, lengths, k1, b)
        return bm25

    def _setup(
        self, counts: Sequence[Mapping[str, int]], lengths: Sequence[int], k1: float, b: float
    ) -> None:
        self._docs = counts
        self._lengths = lengths
        self._avg = (sum(lengths) / len(lengths)) if lengths else 0.0
        df: Counter[str] = Counter()
        for doc in counts:
            df.update(doc.keys())
        n = len(counts)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._k1 = k1
        self._b = b

    def score(self, query: Sequence[str], index: int) -> float:
        """BM25 score of document ``index`` for the query tokens."""
        doc = self._docs[index]
        norm = self._k1 * (1 - self._b + self._b * self._lengths[index] / (self._avg or 1.0))
        total = 0.0
        for term in dict.fromkeys(query):  # in query order: float sums must not depend on hashing
            tf = doc.get(term, 0)
            if tf:
                total += self._idf.get(term, 0.0) * tf * (self._k1 + 1) / (tf + norm)
        return total


def jaccard(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two token sets (0 when both are empty)."""
    return len(a & b) / len(a | b) if a | b else 0.0


ANSWER_TERMS = frozenset(
    content_tokens(
        "cost costs price prices paid pay spend spent funding budget invested large big "
        "size sizes capacity year date timeline "
        # the same in French, Spanish, German and Chinese questions
        "coût coûts coûte coûté taille capacité année costo costó cuesta tamaño capacidad año "
        "kosten kostet gekostet groß größe kapazität jahr "
        "成本 造价 花费 价格 规模 容量"
    )
)
"""Question terms that name what is asked, not what it is asked about: never part of a name
(:func:`subject_names`, which conflict detection keeps to)."""


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
