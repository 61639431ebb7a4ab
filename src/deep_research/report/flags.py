"""Claims the evidence does not fully support, marked where a reader sees them.

Revision narrows, corrects or removes what verification found wanting, but a claim may still
be PARTIAL when the report is written (the budget was spent, or the narrowed claim is still
partial), or UNSUPPORTED or CONTRADICTED when no revision was allowed. Such a claim is never
left silent: right after its citations it carries a marker naming its verdict and a footnote
reference, ``… [2] *(partly supported)*[^v1].``, and the footnote, under the report's
Verification section, gives the reason: ``[^v1]: Partly supported: the evidence does not
state the claim's A$90 million.`` The markers, the footnotes' lead sentence and the verdict
names are in the report's language (:data:`deep_research.text.labels.LABELS`), and so are the
reasons the verifier gave as codes (:func:`deep_research.verification.reasons.words`); a
model's own reasoning is shown as it gave it.

:func:`flag_claims` inserts the markers and moves the claims' offsets so that
``markdown[claim.position_start:claim.position_end] == claim.text`` still holds;
:func:`footnotes` renders the notes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deep_research.state import Claim, Verdict
from deep_research.text.labels import Label, label
from deep_research.verification.reasons import REASONS, words

__all__ = ["MARKS", "Flagged", "flag_claims", "footnotes", "mark"]

_MARK_LABELS: dict[Verdict, Label] = {
    Verdict.PARTIAL: "mark_partial",
    Verdict.UNSUPPORTED: "mark_unsupported",
    Verdict.CONTRADICTED: "mark_contradicted",
}

MARKS: dict[Verdict, str] = {verdict: label("en", name) for verdict, name in _MARK_LABELS.items()}
"""The English marker text of each verdict that is flagged; SUPPORTED claims carry none."""


def mark(verdict: Verdict, language: str = "en") -> str:
    """The marker text of a flagged ``verdict`` in ``language`` (``partly supported``)."""
    return label(language, _MARK_LABELS[verdict])


_NUMBERS_RUN = re.compile(r"(?:\s?\[\d+\])*")
"""The rendered citation numbers that follow a claim's body (``[1][3]``)."""


@dataclass(frozen=True)
class Flag:
    """One marked claim: its footnote label, verdict and reason."""

    label: str
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class Flagged:
    """The Markdown with its markers, the claims with offsets into it, and the flags."""

    markdown: str
    claims: list[Claim]
    flags: list[Flag]


def _reason(claim: Claim, language: str) -> str:
    """The claim's reason as the footnote shows it, in ``language`` (see :func:`words`)."""
    templates = REASONS.get(language, REASONS["en"])
    return " ".join(words(claim, language).split()).rstrip(".") or templates["no_reason"]


def flag_claims(markdown: str, claims: Sequence[Claim], language: str = "en") -> Flagged:
    """Mark each claim whose verdict is in :data:`MARKS`, numbering the footnotes in order.

    Args:
        markdown: The report's Markdown, with the claims' offsets pointing into it and each
            claim's citations rendered as numbers after its body.
        claims: The report's claims, with their verdicts.
        language: The report's language, which the markers and the verifier's reasons are
            written in.

    Returns:
        The marked Markdown, the claims with their offsets moved into it, and one flag per
        marked claim in reading order.
    """
    inserts: list[tuple[int, str]] = []
    flags: list[Flag] = []
    for claim in sorted(claims, key=lambda c: c.position_start):
        if claim.verdict not in MARKS:
            continue
        note = f"v{len(flags) + 1}"
        numbers = _NUMBERS_RUN.match(markdown, claim.position_end)
        at = numbers.end() if numbers else claim.position_end
        inserts.append((at, f" *({mark(claim.verdict, language)})*[^{note}]"))
        flags.append(Flag(note, claim.verdict, _reason(claim, language)))
    pieces, last = [], 0
    for at, text in inserts:
        pieces += [markdown[last:at], text]
        last = at
    pieces.append(markdown[last:])

    def moved(position: int, *, end: bool) -> int:
        return position + sum(
            len(text) for at, text in inserts if at < position or (at == position and not end)
        )

    placed = [
        claim.model_copy(
            update={
                "position_start": moved(claim.position_start, end=False),
                "position_end": moved(claim.position_end, end=True),
            }
        )
        for claim in claims
    ]
    return Flagged(markdown="".join(pieces), claims=placed, flags=flags)


def footnotes(flags: Sequence[Flag], language: str = "en") -> str:
    """The paragraph announcing the marked claims and their footnotes, or ``""`` if none.

    Args:
        flags: The marked claims, in reading order.
        language: The report's language, which the lead sentence and verdicts are written in.
    """
    if not flags:
        return ""
    count = len(flags)
    lead = label(language, "marked_one" if count == 1 else "marked_many").format(count=count)
    notes = "\n\n".join(
        f"[^{flag.label}]: "
        + label(language, "mark_note").format(
            mark=mark(flag.verdict, language).capitalize(), reason=flag.reason
        )
        for flag in flags
    )
    return f"{lead}\n\n{notes}\n"
