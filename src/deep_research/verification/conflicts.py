"""Whether two quotes disagree: sentence by sentence, on one subject, on a figure or a fact.

:func:`disagreement` compares each sentence of one quote with each of the other (evidence
quotes may be windows of several sentences). Two sentences disagree when

* they share at least :data:`MIN_SHARED_TERMS` content words and speak of one subject (a name in
  common, or, unless both name things and none in common, the first :data:`SUBJECT_TERMS`
  content words of one stated in the other: "Pumped storage hydropower achieves 70 to 80
  percent" and "Huntorf achieves 42 percent" are two plants; "Microsoft Web Folders defaults to
  a timeout of 120 seconds" and "The default value of 30 seconds is recommended by RFC 1413"
  are two timeouts);
* they state figures of one kind other than a date, or neither states a figure (dates alone are
  not compared: "after August 2017" and "in the late 2010s" tell of two events more often than
  they disagree on one; sums of money only with a word in common on what they pay for);
* and the offline verifier, reading one as a claim and the other as its evidence, finds it
  CONTRADICTED (:func:`~deep_research.verification.checks.check_one`): a figure of the same
  kind stated differently, or a negation. Sentences whose only figures are dates may still
  disagree by a negation ("In 2017, IID used a lithium-ion battery to black start a gas
  turbine" and "Lithium-ion batteries have not been used to black start a power system").
  A negation counts only where the other sentence also has the words that lead up to it in
  its clause, what is denied of what (:func:`denies_what_is_stated`), and not where it only
  tells what a thing is ("a commit with no parents"): "LFP contains no nickel and no cobalt"
  denies what "LFP cells contain nickel" states, not "nickel, manganese and cobalt (in NMC)"
  nor "the shift to LFP removed the dependence on nickel and cobalt".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deep_research.state.models import Verdict
from deep_research.text.words import content_tokens, sentences, subject_names
from deep_research.verification.alignment import words
from deep_research.verification.checks import Analyses, check_one, negations
from deep_research.verification.quantities import quantities

MIN_SHARED_TERMS = 2
"""Content words (figures aside) two sentences must share to be compared."""

SUBJECT_TERMS = 2
"""Leading content words taken as a sentence's subject."""

_CLAUSE_MARK = re.compile(r"[,;:()]")
"""Marks that begin a new clause of a sentence, for the words leading up to a negation."""

_QUALIFIER = re.compile(r"\b(?:with|having)\s+$", re.I)
"""What leads up to a negation that tells what a thing is rather than denying a statement:
"A commit with no parents (a root commit) has topological level of one" denies nothing of
"Show only commits which have at least that many parent commits"."""

_DATES = frozenset({"date", "decade"})
_MONEY_WORDS = frozenset(
    content_tokens("million millions billion billions thousand dollars euros pounds money sum")
)


def _names(text: str) -> set[str]:
    return {term for name in subject_names(text) for term in name}


@dataclass(frozen=True)
class _Read:
    """What the comparison of two sentences reads from each of them alone."""

    terms: frozenset[str]
    """Content words, figures aside."""
    names: frozenset[str]
    """Words of the names it mentions."""
    lead: frozenset[str]
    """Its first :data:`SUBJECT_TERMS` content words: what it is about."""
    kinds: frozenset[str]
    """Kinds of the figures it states."""
    negates: bool
    """Whether it holds a negation (without one on either side, only figures can disagree)."""


def _read(text: str, analyses: Analyses | None = None) -> _Read:
    tokens = content_tokens(text)
    terms = {t for t in tokens if not t[0].isdigit()}
    figures = analyses.quantities(text) if analyses is not None else quantities(text)
    return _Read(
        frozenset(terms),
        frozenset(_names(text)),
        frozenset([t for t in tokens if t in terms][:SUBJECT_TERMS]),
        frozenset(q.kind for q in figures),
        bool(negations(text)),
    )


def same_subject(a: str, b: str) -> bool:
    """Whether two sentences speak of one thing: a name in common, or one's subject in the other."""
    return _same_subject(_read(a), _read(b))


def _same_subject(a: _Read, b: _Read) -> bool:
    if a.names & b.names:
        return True
    if a.names and b.names:
        return False  # each names what it is about, and they name different things
    return a.lead <= b.terms or b.lead <= a.terms


def comparable_figures(a: str, b: str) -> bool:
    """Whether two sentences state figures of one kind other than a date, or neither has any.

    Sums of money are many for one subject (a grant, a fine, a budget): two of them are
    compared only when the sentences also share a word that says what the money is for.
    """
    return _comparable_figures(_read(a), _read(b))


def _comparable_figures(a: _Read, b: _Read) -> bool:
    if not a.kinds and not b.kinds:
        return True  # a negation or an antonym is the only way they can disagree
    shared = (a.kinds & b.kinds) - _DATES
    if shared == {"money"}:
        purpose = (a.terms & b.terms) - a.names - b.names - _MONEY_WORDS
        return bool(purpose)
    return bool(shared)


def denies_what_is_stated(denying: str, stating: str) -> bool:
    """Whether a negation of ``denying`` opposes ``stating``, as far as the words show.

    The first negation that governs a word both sentences have is read with what leads up to
    it in its clause (from the last comma, semicolon, colon or parenthesis before it): its
    subject and verb, "LFP contains" in "LFP contains no nickel". ``stating`` must have all of
    those words too; otherwise it states the governed word of another thing ("nickel and
    cobalt (in NMC)") or in another relation ("removed the dependence on nickel"). A negation
    after "with" or "having" tells what a thing is ("a commit with no parents"), and denies
    nothing. ``True`` when no negation of ``denying`` governs a shared word (there is nothing to
    oppose), unless one that only tells what a thing is does.
    """
    shared = words(denying) & words(stating)
    qualifies = False
    for start, governed in negations(denying):
        if governed & shared:
            before = denying[:start]
            if _QUALIFIER.search(before):  # "a commit with no parents": what a thing is
                qualifies = True
                continue
            marks = list(_CLAUSE_MARK.finditer(before))
            lead = before[marks[-1].end() :] if marks else before
            return words(lead) <= words(stating)
    return not qualifies


def _opposed(
    claim: str, other: str, comparisons: Comparisons, *, negation_only: bool = False
) -> bool:
    """Whether the offline check of ``claim`` against ``other`` finds it CONTRADICTED.

    A contradiction by negation counts only if the denial is of what the other sentence
    states, read both ways (:func:`denies_what_is_stated`).
    """
    check = check_one(claim, other, analyses=comparisons.analyses)
    if check.verdict is not Verdict.CONTRADICTED:
        return False
    if check.reason.code != "negation":
        return not negation_only
    return denies_what_is_stated(claim, other) and denies_what_is_stated(other, claim)


def _contradict(a: str, b: str, comparisons: Comparisons) -> bool:
    read_a, read_b = comparisons.read(a), comparisons.read(b)
    if len(read_a.terms & read_b.terms) < MIN_SHARED_TERMS:
        return False
    if not _same_subject(read_a, read_b):
        return False
    figures = _comparable_figures(read_a, read_b)
    if not figures and not (read_a.kinds | read_b.kinds) <= _DATES:
        return False
    if not figures and not (read_a.negates or read_b.negates):
        return False  # dates alone, and no negation to deny the event they date
    # dates alone are not compared, but a negation can still deny the event they date
    return any(
        _opposed(claim, other, comparisons, negation_only=not figures)
        for claim, other in ((a, b), (b, a))
    )


class Comparisons:
    """Each quote's sentences, what each sentence says and each pair's outcome, worked out once.

    Finding the conflicts of a report compares each cited quote with every other one, so each
    quote is in many pairs and, when both are cited, a pair is compared twice; one instance
    shared by those calls splits each quote, reads each sentence (its words, names and figures,
    and the checks' analyses) and compares each pair of sentences once. Every entry is a pure
    function of its texts.
    """

    def __init__(self, analyses: Analyses | None = None) -> None:
        """Start with nothing worked out but what ``analyses`` holds.

        Args:
            analyses: What the checks already read from texts (the verifier's, whose
                passes read the same quotes' figures; see
                :class:`~deep_research.report.verify.Memo`).
        """
        self._sentences: dict[str, list[str]] = {}
        self._reads: dict[str, _Read] = {}
        self._pairs: dict[tuple[str, str], bool] = {}
        self.analyses = analyses if analyses is not None else Analyses()
        """Shared by the offline checks of every pair, and the sentences' figures."""

    def sentences(self, quote: str) -> list[str]:
        """The quote's sentences (the quote itself when it has none)."""
        if quote not in self._sentences:
            self._sentences[quote] = [s.text for s in sentences(quote)] or [quote]
        return self._sentences[quote]

    def read(self, text: str) -> _Read:
        """What the comparison reads from one sentence alone."""
        if text not in self._reads:
            self._reads[text] = _read(text, self.analyses)
        return self._reads[text]

    def contradict(self, a: str, b: str) -> bool:
        """:func:`_contradict` of two sentences (symmetric, so one entry serves both orders)."""
        if len(self.read(a).terms & self.read(b).terms) < MIN_SHARED_TERMS:
            return False  # the cheap test first, before the pair is looked up
        key = (a, b) if a <= b else (b, a)
        if key not in self._pairs:
            self._pairs[key] = _contradict(a, b, self)
        return self._pairs[key]


def disagreement(a: str, b: str, comparisons: Comparisons | None = None) -> tuple[str, str] | None:
    """The first sentence of ``a`` and of ``b`` that disagree (see the module), or ``None``.

    ``comparisons`` keeps the quotes' sentences and the pairs' outcomes for further calls.
    """
    comparisons = comparisons or Comparisons()
    for one in comparisons.sentences(a):
        for other in comparisons.sentences(b):
            if comparisons.contradict(one, other):
                return one, other
    return None
