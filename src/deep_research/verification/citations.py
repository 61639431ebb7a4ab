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
from deep_research.text import (
    CLOSERS,
    FULL_STOPS,
    SENTENCE_PUNCT,
    has_cjk,
    is_cjk,
    numbers,
    split_line,
)
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

    return _KEY.sub(replace, text)


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
        return stripped.rstrip(SENTENCE_PUNCT).rstrip(), stripped[-1]
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


def _is_prose(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("#", ">", "|", "```"))


def split_sentences(line: str) -> list[CitedSentence]:
    """Split one line of prose into sentences, moving every marker to its sentence's end."""
    pieces = list(split_line(line.strip(), markers=True))
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


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _prefix(line: str) -> str:
    match = re.match(r"\s*(?:[-*+]|\d+\.)\s+", line)
    return match.group(0) if match else ""


def join_sentences(rendered: Iterable[str]) -> str:
    """Join rendered sentences with a space, or with none after a full-width ``。！？``."""
    text = ""
    for sentence in rendered:
        gap = "" if not text or text[-1] in FULL_STOPS else " "
        text += gap + sentence
    return text


_TABLE_SEPARATOR = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*")


def _table_rows(lines: Sequence[str]) -> set[int]:
    """Indexes of the data rows of Markdown tables: ``|`` lines, not headers or separators."""
    rows: set[int] = set()
    for i, line in enumerate(lines):
        if not line.strip().startswith("|") or _TABLE_SEPARATOR.fullmatch(line):
            continue
        header = i + 1 < len(lines) and bool(_TABLE_SEPARATOR.fullmatch(lines[i + 1]))
        if not header and line.strip().endswith("|"):
            rows.add(i)
    return rows


def table_row(line: str) -> CitedSentence:
    """A table's data row as one sentence: its cells, then its keys, with no final mark.

    A row is checked like a sentence; its markers go to the end of its last cell, so that
    the row reads ``| LFP | 160 Wh/kg [@a] |``.
    """
    inner = line.strip()[1:-1]
    ids = tuple(MARKER.findall(inner))
    body = " | ".join(_join_words(MARKER.sub(" ", cell)) for cell in inner.split("|"))
    return CitedSentence(body.strip(), _unique(ids), "")


def _render_row(line: str) -> str:
    return f"| {table_row(line).render()} |"


def normalize_draft(text: str) -> str:
    """Rewrite every prose line of a draft into canonical cited sentences, and table rows."""
    lines = []
    raw = text.replace("\r\n", "\n").split("\n")
    rows = _table_rows(raw)
    for index, line in enumerate(raw):
        if index in rows:
            line = _render_row(line)
        elif _is_prose(line):
            prefix = _prefix(line)
            line = prefix + join_sentences(s.render() for s in split_sentences(line[len(prefix) :]))
        lines.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


@dataclass(frozen=True)
class Located:
    """A canonical sentence of the draft with the offsets of its body and its whole."""

    sentence: CitedSentence
    start: int
    end: int
    """End of the body (exclusive)."""
    full_end: int
    """End of the sentence including markers and punctuation."""


def locate_sentences(draft: str) -> Iterator[Located]:
    """Yield every canonical sentence of a normalized draft with exact offsets."""
    offset = 0
    lines = draft.split("\n")
    rows = _table_rows(lines)
    for index, line in enumerate(lines):
        line_start = offset
        offset += len(line) + 1
        if index in rows:
            row = table_row(line)
            if row.body.strip(" |"):
                at = line_start + line.index(row.body)
                yield Located(row, at, at + len(row.body), at + len(row.render()))
            continue
        if not _is_prose(line):
            continue
        cursor = line_start + len(_prefix(line))
        for sentence in split_sentences(line[len(_prefix(line)) :]):
            rendered = sentence.render()
            at = draft.find(rendered, cursor)
            if at < 0:
                raise ValueError(f"draft is not normalized near: {sentence.body[:60]!r}")
            cursor = at + len(rendered)
            yield Located(sentence, at, at + len(sentence.body), cursor)


def extract_claims(draft: str) -> list[Claim]:
    """Claims of a normalized draft, one per factual sentence (see :func:`is_claim`).

    A claim's text is the sentence body, ``draft[position_start:position_end]``; its type is
    ``synthesis`` when it is uncited analysis (:func:`is_analysis`), ``estimate`` when hedged
    or forecast, else ``fact``; ``numeric`` when it states a figure. An uncited factual claim
    is kept so that verify judges it UNSUPPORTED and revise cites, corrects or removes it; a
    synthesis claim is checked for figures and names only.
    """
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    headings = [(m.start(), m.group(1)) for m in _HEADING_LINE.finditer(draft)]
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


_HEADING_LINE = re.compile(r"^#{1,6}\s+(.*)$", re.M)


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
    """Remove bullets and headed sections that revision left without any text."""
    kept: list[str] = []
    for line in reversed(draft.split("\n")):
        if _EMPTY_BULLET.fullmatch(line):
            continue
        level = _level(line)
        if level:
            following = next((x for x in reversed(kept) if x.strip()), None)
            if following is None or 0 < _level(following) <= level:
                continue
        kept.append(line)
    return "\n".join(reversed(kept))


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
    gap = tail[: len(tail) - len(stripped)]
    linker = _LINKER.match(stripped)
    if linker:
        rest = stripped[linker.end() :]
        stripped = rest[:1].upper() + rest[1:]
    return head + gap + stripped
