"""What kind of claim a sentence of a report states, if any.

A sentence is a claim when it states something checkable (:func:`is_claim`); its type says
how it is checked (:func:`claim_type`): facts and estimates against the evidence they cite,
synthesis (analysis drawn from cited facts) for figures and names only.
"""

from __future__ import annotations

import re

from deep_research.state.models import ClaimType
from deep_research.text.words import content_word_count, numbers

_ESTIMATE = re.compile(
    r"\b(?:about|approximately|around|roughly|estimated?|expected|projected|forecasts?|"
    r"likely|could|may|might|environ|près de|prévu|probablement|pourrait)\b"
    r"|约|大约|左右|预计|预期|可能|估计",
    re.I,
)
_OPINION = re.compile(
    r"\b(?:we believe|in our view|in my view|arguably|should|ought|we think|i think|"
    r"it seems|perhaps|à notre avis|selon nous|peut-être)\b"
    r"|我们认为|笔者认为|应该|或许",
    re.I,
)
_CONNECTIVE = re.compile(
    r"^(?:in (?:summary|short|conclusion|sum)|overall|to (?:sum up|summari[sz]e|conclude)|"
    r"the (?:following|next|sections?)|below|see |as (?:noted|shown|discussed)|"
    r"en (?:résumé|conclusion|somme)|ci-dessous|voir )\b"
    r"|^(?:总之|综上所述?|总的来说|如下|下文|以下)",
    re.I,
)
_ABSENCE = re.compile(
    r"\b(?:no|little|limited|insufficient) (?:information|data|evidence|sources?)\b"
    r"|\bnot (?:covered|addressed|stated|mentioned|specified|available|found)\b"
    r"|\bdo(?:es)? not (?:state|say|mention|give|report|cover|specify)\b"
    r"|\bles sources (?:ne|n')"
    r"|(?:资料|证据|来源)(?:未|没有|不足)|未(?:提及|找到|涉及)",
    re.I,
)
"""A sentence saying what the sources do not state: a limit of the report, not a claim."""
_ABOUT_REPORT = re.compile(
    r"\b(?:this|the|these|our|available) (?:report|section|summary|analysis|evidence|sources?|"
    r"documents?|research|literature|quotes?)\b"
    r"|\b(?:ce|le) (?:rapport|présent rapport)\b"
    r"|本报告|本节|现有(?:资料|证据|来源)",
    re.I,
)
"""A sentence about the report or its sources; a claim all the same when it states a figure or
a name ("The report shows that Edwards and Sanborn is a hybrid project")."""
_ANALYSIS = re.compile(
    r"\b(?:because|therefore|thus|hence|consequently|as a result|due to|driven by|leads? to|"
    r"led to|suggests?|implies|implications?|means that|indicates?|whereas|while|unlike|"
    r"in contrast|by contrast|compared (?:to|with)|(?:more|less|higher|lower|greater|smaller|"
    r"faster|slower|cheaper|larger) than|both|overall|taken together|trade-?offs?|"
    r"parce que|donc|ainsi|en raison|par conséquent|alors que|tandis que|contrairement|"
    r"en revanche|par rapport|plus .{1,40} que|moins .{1,40} que|ce qui)\b"
    r"|因此|所以|因为|由于|导致|相比|相较|对比|而言|表明|意味着|说明|总体|整体来看|综合来看|"
    r"然而|但是|反之|优于|劣于|高于|低于|取决于",
    re.I,
)
"""Words of comparison, cause, consequence and conclusion: the marks of analysis."""

ANALYSIS_SECTIONS = re.compile(
    r"conclusion|implication|analysis|discussion|comparison|outlook|takeaway|synthesis|"
    r"analyse|comparaison|perspectives?|结论|总结|分析|讨论|比较|对比|展望|启示",
    re.I,
)
"""Headings of sections whose uncited sentences are analysis."""

_NAME = re.compile(r"(?<!^)(?<![.!?:] )\b(?:[A-Z][\w'’&.-]*|[\w-]*\d[\w-]*)")
"""A capitalised word not at the start of the sentence, or a word holding a digit."""
MIN_CLAIM_WORDS = 4
"""Uncited sentences with fewer content words (and no figure) are connective, not claims."""


def names(text: str) -> list[str]:
    """The names a sentence states: capitalised words past its first word, codes and models.

    Scripts without capitals (Chinese, Arabic...) state no names this way; their analysis
    sentences are held to figures only.
    """
    return [m.group(0).strip(".'’") for m in _NAME.finditer(text) if len(m.group(0)) > 1]


def is_analysis(body: str, section: str | None = None) -> bool:
    """Whether an uncited sentence is analysis: no figure, and a comparison, cause or conclusion.

    A sentence states analysis when it uses a word of comparison, cause or consequence, or
    when it stands in a section whose heading announces analysis (conclusions, implications,
    comparison). Either way it must state no figure: figures are facts and need a citation.
    Whether it names only what the evidence names is for the verifier to check
    (:func:`deep_research.report.verify.verify_draft`).
    """
    if numbers(body):
        return False
    return bool(_ANALYSIS.search(body)) or bool(section and ANALYSIS_SECTIONS.search(section))


def is_claim(body: str, *, cited: bool, punct: str = ".") -> bool:
    """Whether a sentence states a checkable fact.

    Every cited sentence does, unless it is an opinion. An uncited one does unless it is an
    opinion, a question, connective, a limit of the sources ("The sources do not state the
    cost."), about the report itself with no figure or name of its own ("This section compares
    the two chemistries."), or too short to state anything (fewer than
    :data:`MIN_CLAIM_WORDS` content words and no figure). A sentence framed as the report's
    ("The report shows that Moss Landing burned in 2021") is a claim: the frame does not
    exempt what it states.
    """
    if _OPINION.search(body):
        return False
    if cited:
        return True
    if punct in ("?", "？") or _CONNECTIVE.match(body) or _ABSENCE.search(body):
        return False
    states = bool(numbers(body)) or bool(names(body))
    if _ABOUT_REPORT.search(body) and not states:
        return False
    return states or content_word_count(body) >= MIN_CLAIM_WORDS


def claim_type(body: str, *, cited: bool, section: str | None = None) -> ClaimType:
    """``synthesis`` for uncited analysis, ``estimate`` when hedged or forecast, else ``fact``."""
    if not cited and is_analysis(body, section):
        return "synthesis"
    return "estimate" if _ESTIMATE.search(body) else "fact"
