"""Citation markers in the draft, claims located in it, and the final numbering.

Engines cite evidence with keys ``[E1]``; the draft stores evidence ids as ``[@ev_…]`` markers
in one canonical form per sentence, ``body [@a][@b].``, so that a claim's text (the body) is
a verbatim slice of both the draft and the final Markdown, where markers become ``[1][2]``.
Which sentences are claims, and of what type, is :mod:`.claim_types`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from deep_research.state.models import Claim, stable_id
from deep_research.text.words import (
    CLOSERS,
    FULL_STOPS,
    SENTENCE_PUNCT,
    has_cjk,
    is_cjk,
    numbers,
    split_line,
)
from deep_research.verification.blocks import Layout, cell_spans, cells, layout
from deep_research.verification.claim_types import (
    claim_type,
    is_claim,
)

_KEY = re.compile(r"\[(E\d+(?:\s*,\s*E\d+)*)\]")
MARKER = re.compile(r"\[@([A-Za-z0-9_]+)\]")
_MARKER_RUN = re.compile(r"(?:\s*\[@[A-Za-z0-9_]+\])+")
_WIDE = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_WIDE_PUNCT = "\u3000-\u303f\uff00-\uffef"
_CJK_GAP = re.compile(
    rf"(?<=[{_WIDE}{_WIDE_PUNCT}]) (?=[{_WIDE}{_WIDE_PUNCT}])"
    rf"|(?<=\S) (?=[{_WIDE_PUNCT}])|(?<=[{_WIDE_PUNCT}]) (?=\S)"
)
"""A space between two CJK characters, or beside a full-width mark (left where a marker was
cut); a space between CJK and Latin text (``使用 LFP 电池``) stays."""


def keys_to_markers(text: str, keys: Mapping[str, str]) -> str:
    """Replace engine keys (``[E3]``, ``[E3, E5]``) by id markers; unknown keys are dropped."""

    def replace(match: re.Match[str]) -> str:
        ids = [keys[k.strip()] for k in match.group(1).split(",") if k.strip() in keys]
        return "".join(f"[@{i}]" for i in ids)

    lines = text.split("\n")
    verbatim = layout(lines).verbatim  # code and the like keep their brackets
    return "\n".join(
        line if index in verbatim else _KEY.sub(replace, line) for index, line in enumerate(lines)
    )


_NO_PERIOD_AFTER = ":;,：；，、…" + FULL_STOPS
"""Marks after which a sentence gets no final period added."""
_EMPHASIS_ONLY = re.compile(r"(\*\*|__|\*|_).+\1")


@dataclass(frozen=True)
class CitedSentence:
    """A sentence of the draft: its body, the evidence ids it cites, and its punctuation."""

    body: str
    ids: tuple[str, ...]
    punct: str

    def render(self) -> str:
        """The canonical form: ``body [@a][@b].``, or ``正文[@a][@b]。`` in CJK text.

        Markers follow CJK text without a space, as Chinese and Japanese set footnote marks.
        """
        markers = "".join(f"[@{i}]" for i in self.ids)
        if not markers:
            return f"{self.body}{self.punct}"
        tight = bool(self.punct) and self.punct in FULL_STOPS or is_cjk(self.body[-1:] or " ")
        return (
            f"{self.body}{markers}{self.punct}" if tight else f"{self.body} {markers}{self.punct}"
        )


def final_mark(body: str) -> tuple[str, str]:
    """Split a sentence into its body and its final mark, choosing one if it has none.

    A sentence that ends with ``.!?`` or a full-width ``。！？`` keeps it. One that ends with
    a colon, a comma or other punctuation, or that is a bold or italic label only, gets none;
    CJK text gets ``。``; anything else gets ``.``.
    """
    stripped = body.rstrip()
    if stripped and stripped[-1] in SENTENCE_PUNCT:
        return stripped.rstrip(SENTENCE_PUNCT + " "), stripped[-1]  # "ways. ..." ends once
    if not stripped or stripped[-1] in _NO_PERIOD_AFTER or _EMPHASIS_ONLY.fullmatch(stripped):
        return stripped, ""
    if stripped[-1] in CLOSERS and stripped.rstrip(CLOSERS + " ")[-1:] in SENTENCE_PUNCT:
        return stripped, ""  # «Bonjour.» and 「好。」 already end inside their quotes
    return stripped, "。" if is_cjk(stripped[-1]) or _mostly_cjk(stripped) else "."


def _mostly_cjk(text: str) -> bool:
    cjk = sum(1 for char in text if is_cjk(char))
    return cjk > 0 and cjk * 2 >= sum(1 for char in text if char.isalnum())


def _join_words(text: str) -> str:
    """Collapse whitespace to single spaces, but none between two CJK characters or marks."""
    collapsed = " ".join(text.split())
    if not has_cjk(collapsed):
        return collapsed
    return _CJK_GAP.sub("", collapsed)


def split_sentences(line: str) -> list[CitedSentence]:
    """Split one line of prose into sentences, moving every marker to its sentence's end."""
    pieces: list[str] = []
    for piece in split_line(line.strip(), markers=True):
        leading = _MARKER_RUN.match(piece)
        if leading and pieces and _continues(pieces[-1], piece[leading.end() :].strip()):
            pieces[-1] = f"{pieces[-1]} {piece}"  # markers after a stop that ends no sentence
        else:
            pieces.append(piece)
    result: list[CitedSentence] = []
    for piece in pieces:
        leading = _MARKER_RUN.match(piece)
        if leading and result:  # markers written after the previous sentence's period
            prev = result[-1]
            extra = tuple(MARKER.findall(leading.group(0)))
            result[-1] = CitedSentence(prev.body, _unique(prev.ids + extra), prev.punct)
            piece = piece[leading.end() :].strip()
            if not piece:
                continue
        ids = tuple(MARKER.findall(piece))
        body, punct = final_mark(_join_words(MARKER.sub(" ", piece)))
        if body:
            result.append(CitedSentence(body, _unique(ids), punct))
    return result


_CONTINUING = "、，,；;：:" + CLOSERS.replace('"', "").replace("'", "")
"""Marks that cannot open a sentence (a straight quote can, so it is not one)."""


def _continues(before: str, rest: str) -> bool:
    """Whether ``rest`` (the text after markers that followed ``before``) is its sentence's.

    Markers written after a stop that ends no sentence (``NW Tr. [@a] is limited``,
    ``怎样做？[@a]」、「…``) split a line where its words do not: the text after them goes
    on with the sentence before.
    """
    if not rest:
        return False
    if rest[0] in _CONTINUING:
        return True
    return len(list(split_line(f"{MARKER.sub(' ', before)} {rest}"))) == 1


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _prefix(line: str) -> str:
    """A line's indent and list marker, kept as written: an indented paragraph stays put."""
    match = re.match(r"\s*(?:(?:[-*+]|\d+\.)\s+)?", line)
    return match.group(0) if match else ""


def join_sentences(rendered: Iterable[str]) -> str:
    """Join rendered sentences with a space, or with none after a full-width ``。！？``.

    A sentence opening with a straight quote gets its space even after ``。``: glued to the
    stop, the quote would read as closing the sentence before it.
    """
    text = ""
    for sentence in rendered:
        tight = text[-1:] in FULL_STOPS and not sentence.startswith(('"', "'"))
        gap = "" if not text or tight else " "
        text += gap + sentence
    return text


def table_row(line: str) -> CitedSentence:
    """A table's data row as one sentence: its cells, then its keys, with no final mark.

    The canonical form of a row gathers its markers at the end of its last cell, so that
    the row reads ``| LFP | 160 Wh/kg [@a] |``: the keys a row carries cite the whole row
    (see :func:`row_cells`). Its body is the cells joined by ``" | "``.
    """
    found = cells(line)
    ids = tuple(MARKER.findall(line))
    body = " | ".join(_join_words(MARKER.sub(" ", cell)) for cell in found)
    return CitedSentence(body.strip(), _unique(ids), "")


def _render_row(line: str) -> str:
    return f"| {table_row(line).render()} |"


EMPTY_CELL = "—"
"""What a cell whose content revision removed holds: the usual mark of "no data"."""
_TRAILING_MARKERS = re.compile(r"(?:\s*\[@[A-Za-z0-9_]+\])+$")


@dataclass(frozen=True)
class TableCell:
    """Where a claim that is a table cell stands: its column, and what its row is about."""

    column: int
    """0-based."""
    header: str
    """The column's name (empty in a table without a header line)."""
    label: str
    """The row's label: its first cell, which names what the row is about."""


def states(cell: str, column: int, width: int) -> bool:
    """Whether a table cell states something of its own: it may then be a claim.

    A cell with no letter or digit in any script (empty, ``-``, ``—``, ``✓``) states
    nothing. The first cell of a row of several is the row's label: the item the row is
    about (a comparison table's ``LFP``, a year), the subject of the other cells rather than
    a fact, and shown to the judge with each of them. Everything else is judged on its own.
    """
    if column == 0 and width > 1:
        return False
    return any(char.isalnum() for char in MARKER.sub("", cell))


def _text_spans(line: str) -> list[tuple[int, int]]:
    """The cells of a canonical row, without the markers that end its last cell."""
    spans = cell_spans(line)
    if spans:
        start, end = spans[-1]
        trailing = _TRAILING_MARKERS.search(line, start, end)
        spans[-1] = (start, trailing.start() if trailing else end)
    return spans


def row_cells(line: str, headers: Sequence[str] = ()) -> Iterator[tuple[int, int, TableCell]]:
    """The cells of a canonical data row that state something (:func:`states`).

    Each as ``(start, end, cell)``, offsets into ``line``. Every cell of a row is judged
    against all the keys the row carries: a writer cites a row as a whole (the markers end
    its last cell), and a key written in one cell is gathered there with the others when
    the draft is normalized.
    """
    spans = _text_spans(line)
    first = line[spans[0][0] : spans[0][1]] if spans else ""
    for column, (start, end) in enumerate(spans):
        if states(line[start:end], column, len(spans)):
            header = headers[column] if column < len(headers) else ""
            yield start, end, TableCell(column, header, first if len(spans) > 1 else "")


def rewrite_row(line: str, changes: Mapping[int, str | None], ids: Sequence[str]) -> str:
    """A canonical data row with the cells of ``changes`` replaced, and ``ids`` cited too.

    A cell mapped to ``None`` loses its content (it holds :data:`EMPTY_CELL`); the row keeps
    every other cell and every key it cited, so that its column count never changes. A row
    left with no cell that states anything is emptied (``| |``), and goes whole.
    """
    spans = _text_spans(line)
    texts = [line[start:end] for start, end in spans]
    for column, text in changes.items():
        texts[column] = EMPTY_CELL if text is None else text
    if not any(states(text, column, len(texts)) for column, text in enumerate(texts)):
        return "| |"
    cited = _unique(tuple(MARKER.findall(line)) + tuple(ids))
    return f"| {CitedSentence(' | '.join(texts), cited, '').render()} |"


def _prose_line(line: str) -> str:
    prefix = _prefix(line)
    return prefix + join_sentences(s.render() for s in split_sentences(line[len(prefix) :]))


def normalize_draft(text: str) -> str:
    """Rewrite every prose line of a draft into canonical cited sentences, and table rows.

    Verbatim blocks (code, math, HTML, images, link-only lines: :mod:`.blocks`) and table
    headers are kept byte for byte; runs of blank lines outside them become one.
    """
    raw = text.replace("\r\n", "\n").split("\n")
    found = layout(raw)
    lines: list[str] = []
    for index, line in enumerate(raw):
        if index in found.verbatim:
            lines.append(line)
            continue
        if index in found.rows:
            line = _render_row(line)
        elif found.is_prose(index, line):
            line = _prose_line(line)
        line = line.rstrip()
        if not line and (not lines or not lines[-1]):
            continue  # one blank line between blocks is enough
        lines.append(line)
    return "\n".join(lines).strip("\n") + "\n"


@dataclass(frozen=True)
class Located:
    """A canonical sentence of the draft with the offsets of its body and its whole."""

    sentence: CitedSentence
    start: int
    end: int
    """End of the body (exclusive)."""
    full_end: int
    """End of the sentence including markers and punctuation."""
    cell: TableCell | None = None
    """Where it stands when it is a table cell (its ids are its row's)."""


def locate_sentences(draft: str) -> Iterator[Located]:
    """Yield every canonical sentence of a normalized draft with exact offsets."""
    offset = 0
    lines = draft.split("\n")
    found = layout(lines)
    headers = _headers(lines, found)
    for index, line in enumerate(lines):
        line_start = offset
        offset += len(line) + 1
        if index in found.rows:  # one claim per cell that states something
            ids = _unique(tuple(MARKER.findall(line)))
            for start, end, cell in row_cells(line, headers.get(index, ())):
                text = CitedSentence(line[start:end], ids, "")
                yield Located(text, line_start + start, line_start + end, line_start + end, cell)
            continue
        if not found.is_prose(index, line):
            continue
        cursor = line_start + len(_prefix(line))
        for sentence in split_sentences(line[len(_prefix(line)) :]):
            rendered = sentence.render()
            at = draft.find(rendered, cursor, offset)  # on this line, never a later one
            if at < 0:
                raise ValueError(f"draft is not normalized near: {sentence.body[:60]!r}")
            cursor = at + len(rendered)
            yield Located(sentence, at, at + len(sentence.body), cursor)


def _headers(lines: Sequence[str], found: Layout) -> dict[int, tuple[str, ...]]:
    """The column names of each data row of a table with a header line, by line index."""
    names: dict[int, tuple[str, ...]] = {}
    for header, end in found.tables:
        row = tuple(MARKER.sub("", cell).strip() for cell in cells(lines[header]))
        names.update((index, row) for index in range(header + 2, end))
    return names


def table_cells(draft: str) -> dict[int, TableCell]:
    """The table cells of a normalized draft that may be claims, by the offset of their text.

    A cell's claim starts at that offset (``claim.position_start``), so a judge can be told
    which column and row the cell stands in.
    """
    return {s.start: s.cell for s in locate_sentences(draft) if s.cell is not None}


def extract_claims(draft: str) -> list[Claim]:
    """Claims of a normalized draft, one per factual sentence (see :func:`is_claim`).

    A table's data row gives one claim per cell that states something (:func:`row_cells`),
    judged on its own against the row's keys. A claim's text is the sentence body (or the
    cell's text), ``draft[position_start:position_end]``; its type is
    ``synthesis`` when it is uncited analysis (:func:`is_analysis`), ``estimate`` when hedged
    or forecast, else ``fact``; ``numeric`` when it states a figure. An uncited factual claim
    is kept so that verify judges it UNSUPPORTED and revise cites, corrects or removes it; a
    synthesis claim is checked for figures and names only.
    """
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    headings = _headings(draft)
    for located in locate_sentences(draft):
        sentence = located.sentence
        if not is_claim(sentence.body, cited=bool(sentence.ids), punct=sentence.punct):
            continue
        nth = seen.get(sentence.body, 0)
        seen[sentence.body] = nth + 1
        section = next((h for at, h in reversed(headings) if at < located.start), None)
        claims.append(
            Claim(
                id=stable_id("cl", sentence.body, nth),
                text=sentence.body,
                position_start=located.start,
                position_end=located.end,
                claim_type=claim_type(sentence.body, cited=bool(sentence.ids), section=section),
                numeric=bool(numbers(sentence.body)),
                citation_keys=list(sentence.ids),
            )
        )
    return claims


_HEADING_LINE = re.compile(r"#{1,6}\s+(.*)")


def _headings(draft: str) -> list[tuple[int, str]]:
    """The offset and title of every heading of ``draft`` (a ``#`` line in code is none)."""
    lines = draft.split("\n")
    verbatim = layout(lines).verbatim
    found, offset = [], 0
    for index, line in enumerate(lines):
        match = _HEADING_LINE.fullmatch(line)
        if match and index not in verbatim:
            found.append((offset, match.group(1)))
        offset += len(line) + 1
    return found


def cited_ids_in_order(draft: str) -> list[str]:
    """Evidence ids in order of first appearance in the draft."""
    return list(dict.fromkeys(MARKER.findall(draft)))


def _numbered(run: str, number_of: Mapping[str, int]) -> str:
    found = sorted({number_of[i] for i in MARKER.findall(run) if i in number_of})
    if not found:
        return ""
    return (" " if run[0].isspace() else "") + "".join(f"[{n}]" for n in found)


def render_numbers(draft: str, number_of: Mapping[str, int]) -> str:
    """Replace each run of markers by its reference numbers, ``[1][3]``, deduplicated."""
    return render_with_offsets(draft, number_of)[0]


@dataclass(frozen=True)
class OffsetMap:
    """Maps a position of the draft outside marker runs to the same place in the rendering."""

    shifts: tuple[tuple[int, int], ...]
    """``(end of a marker run in the draft, total shift after it)``, in order."""

    def __call__(self, position: int) -> int:
        """The rendered position of draft ``position``."""
        shift = 0
        for end, total in self.shifts:
            if end > position:
                break
            shift = total
        return position + shift


def render_with_offsets(draft: str, number_of: Mapping[str, int]) -> tuple[str, OffsetMap]:
    """:func:`render_numbers`, and where each draft position (outside markers) ends up."""
    pieces: list[str] = []
    shifts: list[tuple[int, int]] = []
    last = shift = 0
    for match in _MARKER_RUN.finditer(draft):
        replacement = _numbered(match.group(0), number_of)
        pieces += [draft[last : match.start()], replacement]
        shift += len(replacement) - len(match.group(0))
        shifts.append((match.end(), shift))
        last = match.end()
    pieces.append(draft[last:])
    return "".join(pieces), OffsetMap(tuple(shifts))


_EMPTY_BULLET = re.compile(r"\s*(?:[-*+]|\d+\.)\s*|\s*\|[\s|]*\|\s*")
_HEADING = re.compile(r"(#{1,6})\s")


def _level(line: str) -> int:
    match = _HEADING.match(line)
    return len(match.group(1)) if match else 0


def drop_empty(draft: str) -> str:
    """Remove bullets, table rows, tables and headed sections that revision left empty.

    Verbatim blocks (code, math, HTML: :mod:`.blocks`) are kept as they are, and count as
    text: a section holding only a code block stays. A table whose rows were all removed
    goes with its header.
    """
    lines = draft.split("\n")
    found = layout(lines)
    gone: set[int] = set()
    for header, end in found.tables:
        emptied = all(_EMPTY_BULLET.fullmatch(lines[i]) for i in range(header + 2, end))
        if end > header + 2 and emptied:
            gone.update(range(header, end))
    kept: list[tuple[int, str]] = []
    for index in reversed(range(len(lines))):
        line = lines[index]
        if index not in found.verbatim:
            if index in gone or _EMPTY_BULLET.fullmatch(line):
                continue
            if _level(line) and not _has_body(line, kept, found):
                continue
        kept.append((index, line))
    return "\n".join(line for _, line in reversed(kept))


def _has_body(heading: str, after: Sequence[tuple[int, str]], found: Layout) -> bool:
    """Whether the kept lines ``after`` a heading (in reverse order) give it any text."""
    following = next(((i, x) for i, x in reversed(after) if x.strip()), None)
    if following is None:
        return False
    index, line = following
    return index in found.verbatim or not 0 < _level(line) <= _level(heading)


_LINKER = re.compile(
    r"(?:However|Moreover|Furthermore|In addition|Additionally|Also|Similarly|Likewise|"
    r"By contrast|In contrast|Cependant|De plus|En outre|Par ailleurs|De même|En revanche)"
    r",\s+"
    r"|(?:此外|然而|另外|同时|与此同时|相比之下|不过)[，,]\s*"
)
"""A linking word that ties a sentence to the one before it, with its comma."""


def remove_sentence(draft: str, start: int, end: int) -> str:
    """``draft`` without ``draft[start:end]`` (a sentence), its paragraph smoothed.

    The sentence that followed the removed one loses a leading linking word ("However,",
    "此外，") that pointed back at it, and starts with a capital; spacing is left to
    :func:`normalize_draft`.
    """
    head, tail = draft[:start], draft[end:]
    stripped = tail.lstrip(" ")
    gap = "" if head[-1:] in ("", " ", "\n") else tail[: len(tail) - len(stripped)]
    linker = _LINKER.match(stripped)
    if linker:
        rest = stripped[linker.end() :]
        stripped = rest[:1].upper() + rest[1:]
    return head + gap + stripped
