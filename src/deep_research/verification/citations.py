"""Citation markers in the draft, claims located in it, and the final numbering.

Engines cite evidence with keys ``[E1]``; the draft stores evidence ids as ``[@ev_…]`` markers
in one canonical form per sentence, ``body [@a][@b].``, so that a claim's text (the body) is
a verbatim slice of both the draft and the final Markdown, where markers become ``[1][2]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from deep_research.state.models import Claim, stable_id
from deep_research.text import content_tokens, numbers, split_line

_KEY = re.compile(r"\[(E\d+(?:\s*,\s*E\d+)*)\]")
MARKER = re.compile(r"\[@([A-Za-z0-9_]+)\]")
_MARKER_RUN = re.compile(r"(?:\s*\[@[A-Za-z0-9_]+\])+")
_ESTIMATE = re.compile(
    r"\b(?:about|approximately|around|roughly|estimated?|expected|projected|forecasts?|"
    r"likely|could|may|might)\b",
    re.I,
)
_OPINION = re.compile(
    r"\b(?:we believe|in our view|in my view|arguably|should|ought|we think|i think|"
    r"it seems|perhaps)\b",
    re.I,
)
_CONNECTIVE = re.compile(
    r"^(?:in (?:summary|short|conclusion|sum)|overall|to (?:sum up|summari[sz]e|conclude)|"
    r"the (?:following|next|sections?)|below|see |as (?:noted|shown|discussed))\b",
    re.I,
)
_META = re.compile(
    r"\b(?:this|the|these|our|available) (?:report|section|summary|analysis|evidence|sources?|"
    r"documents?|research|literature|quotes?)\b"
    r"|\b(?:no|little|limited|insufficient) (?:information|data|evidence|sources?)\b"
    r"|\bnot (?:covered|addressed|stated|mentioned|specified|available|found)\b",
    re.I,
)
MIN_CLAIM_WORDS = 4
"""Uncited sentences with fewer content words (and no figure) are connective, not claims."""


def keys_to_markers(text: str, keys: Mapping[str, str]) -> str:
    """Replace engine keys (``[E3]``, ``[E3, E5]``) by id markers; unknown keys are dropped."""

    def replace(match: re.Match[str]) -> str:
        ids = [keys[k.strip()] for k in match.group(1).split(",") if k.strip() in keys]
        return "".join(f"[@{i}]" for i in ids)

    return _KEY.sub(replace, text)


@dataclass(frozen=True)
class CitedSentence:
    """A sentence of the draft: its body, the evidence ids it cites, and its punctuation."""

    body: str
    ids: tuple[str, ...]
    punct: str

    def render(self) -> str:
        """The canonical form: ``body [@a][@b].``."""
        markers = "".join(f"[@{i}]" for i in self.ids)
        return f"{self.body} {markers}{self.punct}" if markers else f"{self.body}{self.punct}"


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
        body = " ".join(MARKER.sub(" ", piece).split())
        punct = body[-1] if body and body[-1] in ".!?" else ""
        body = body.rstrip(".!?").rstrip() if punct else body
        if body:
            result.append(CitedSentence(body, _unique(ids), punct or "."))
    return result


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _prefix(line: str) -> str:
    match = re.match(r"\s*(?:[-*+]|\d+\.)\s+", line)
    return match.group(0) if match else ""


def normalize_draft(text: str) -> str:
    """Rewrite every prose line of a draft into canonical cited sentences."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _is_prose(line):
            prefix = _prefix(line)
            line = prefix + " ".join(s.render() for s in split_sentences(line[len(prefix) :]))
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
    for line in draft.split("\n"):
        line_start = offset
        offset += len(line) + 1
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


def is_claim(sentence: CitedSentence) -> bool:
    """Whether a sentence states a checkable fact.

    Every cited sentence does, unless it is an opinion. An uncited one does unless it is an
    opinion, a question, connective or about the report itself ("The sources do not state
    the cost."), or too short to state anything (fewer than :data:`MIN_CLAIM_WORDS` content
    words and no figure).
    """
    body = sentence.body
    if _OPINION.search(body):
        return False
    if sentence.ids:
        return True
    if sentence.punct == "?" or _CONNECTIVE.match(body) or _META.search(body):
        return False
    return bool(numbers(body)) or len(content_tokens(body)) >= MIN_CLAIM_WORDS


def extract_claims(draft: str) -> list[Claim]:
    """Claims of a normalized draft, one per factual sentence (see :func:`is_claim`).

    A claim's text is the sentence body, ``draft[position_start:position_end]``; its type is
    ``estimate`` when hedged or forecast, else ``fact``; ``numeric`` when it states a figure.
    An uncited claim is kept so that verify judges it UNSUPPORTED and revise cites, corrects
    or removes it.
    """
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for located in locate_sentences(draft):
        sentence = located.sentence
        if not is_claim(sentence):
            continue
        nth = seen.get(sentence.body, 0)
        seen[sentence.body] = nth + 1
        claims.append(
            Claim(
                id=stable_id("cl", sentence.body, nth),
                text=sentence.body,
                position_start=located.start,
                position_end=located.end,
                claim_type="estimate" if _ESTIMATE.search(sentence.body) else "fact",
                numeric=bool(numbers(sentence.body)),
                citation_keys=list(sentence.ids),
            )
        )
    return claims


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


_EMPTY_BULLET = re.compile(r"\s*(?:[-*+]|\d+\.)\s*")
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
