"""How the offline engine fits its plan and its sections to the question and the evidence.

* :func:`facets_for`: the standard facets a question calls for. A broad question (a bare
  topic, "tell me about X") calls for an overview, so every facet; a definitional one ("what
  is X") for every facet but the key figures, which it does not ask; a specific question
  ("what did X cost", "how does git bisect find a commit") calls for none: its parts are its
  steps.
* :func:`arrange`: which quotes go under which heading. A quote goes under the heading it
  answers best (the words of the heading it states, and the kind of answer the heading asks
  for: a currency amount spent for a cost, a date for a timeline), so that a section about
  one subject is not filled with another subject's sentences; facet sections keep only quotes
  of their kind, so a facet the evidence does not call for gets no section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deep_research.state.models import EvidenceSpan, PlanStep
from deep_research.text.words import content_tokens
from deep_research.verification.quantities import quantities


@dataclass(frozen=True)
class Facet:
    """A standard facet of a subject: its step title, intent, and what a quote of it states."""

    title: str
    intent: str
    states: re.Pattern[str] | None = None
    """Words a quote of this facet holds; ``None`` when it is told by figures alone."""
    kinds: frozenset[str] = frozenset()
    """Kinds of figure (:func:`~deep_research.verification.quantities.quantities`) that mark
    a quote of this facet."""
    names: tuple[tuple[str, str, str], ...] = ()
    """``(language, title, intent)`` in other languages than English."""
    defines: bool = True
    """Whether a definitional question ("what is X") calls for it: it asks what X is, not
    its figures."""

    def named(self, language: str) -> tuple[str, str]:
        """The facet's step title and intent in ``language`` (English when it has none)."""
        return next(
            ((t, i) for lang, t, i in self.names if lang == language), (self.title, self.intent)
        )


FACETS = (
    Facet(
        "How it works",
        "Mechanisms and definitions",
        re.compile(r"\b(?:works?|uses?|consists?|made of|means?|defined|is an?|are)\b", re.I),
        names=(
            ("fr", "Fonctionnement", "Mécanismes et définitions"),
            ("zh", "工作原理", "机制与定义"),
            ("es", "Cómo funciona", "Mecanismos y definiciones"),
            ("de", "Funktionsweise", "Mechanismen und Begriffe"),
            ("ja", "仕組み", "仕組みと定義"),
            ("ko", "작동 방식", "원리와 정의"),
        ),
    ),
    Facet(
        "Key figures, costs and sizes",
        "Numbers that characterise the subject",
        kinds=frozenset({"money", "money/energy", "power", "energy", "percent", "count", "mass"}),
        defines=False,
        names=(
            ("fr", "Chiffres clés, coûts et tailles", "Les chiffres qui caractérisent le sujet"),
            ("zh", "关键数据、成本与规模", "描述该主题的数据"),
            ("es", "Cifras clave, costes y tamaños", "Las cifras que caracterizan el tema"),
            ("de", "Kennzahlen, Kosten und Größen", "Zahlen, die das Thema beschreiben"),
            ("ja", "主な数値・費用・規模", "主題を特徴づける数値"),
            ("ko", "주요 수치, 비용과 규모", "주제를 보여 주는 수치"),
        ),
    ),
    Facet(
        "History and timeline",
        "Dates and milestones",
        kinds=frozenset({"date", "decade"}),
        names=(
            ("fr", "Historique et chronologie", "Dates et étapes"),
            ("zh", "发展历程", "日期与里程碑"),
            ("es", "Historia y cronología", "Fechas e hitos"),
            ("de", "Geschichte und Zeitleiste", "Daten und Meilensteine"),
            ("ja", "歴史と年表", "日付と節目"),
            ("ko", "역사와 연표", "날짜와 주요 사건"),
        ),
    ),
    Facet(
        "Risks, limitations and disagreements",
        "Problems and points on which sources differ",
        re.compile(
            r"\b(?:risks?|fires?|failures?|failed|hazards?|unsafe|safety|dangers?|problems?|"
            r"limit(?:s|ed|ation|ations)?|drawbacks?|degrad\w*|penalt(?:y|ies)|disput\w*|"
            r"concerns?|cannot|can't|not)\b",
            re.I,
        ),
        names=(
            (
                "fr",
                "Risques, limites et désaccords",
                "Problèmes et points où les sources divergent",
            ),
            ("zh", "风险、局限与分歧", "问题以及来源之间的分歧"),
            (
                "es",
                "Riesgos, limitaciones y desacuerdos",
                "Problemas y puntos en que las fuentes difieren",
            ),
            (
                "de",
                "Risiken, Grenzen und Widersprüche",
                "Probleme und Punkte, in denen die Quellen abweichen",
            ),
            ("ja", "リスク・限界・見解の相違", "問題点と情報源の見解が分かれる点"),
            ("ko", "위험, 한계와 이견", "문제점과 출처 간에 의견이 갈리는 점"),
        ),
    ),
    Facet(
        "Outlook and trends",
        "What is expected next",
        re.compile(
            r"\b(?:expected|expects?|forecasts?|projected|outlook|future|will|trends?|"
            r"growing|by 20[3-9]\d)\b",
            re.I,
        ),
        names=(
            ("fr", "Perspectives et tendances", "Ce qui est attendu"),
            ("zh", "前景与趋势", "未来的预期"),
            ("es", "Perspectivas y tendencias", "Lo que se espera"),
            ("de", "Ausblick und Trends", "Was erwartet wird"),
            ("ja", "見通しと動向", "今後の見込み"),
            ("ko", "전망과 추세", "앞으로의 예상"),
        ),
    ),
)
"""The facets, in the order a broad question's plan lists them."""

MIN_FIT_ELSEWHERE = 0.5
"""How well a quote must fit a heading it was not found for to go under it (half its words)."""

MARGIN = 0.25
"""How much better another heading must fit a quote to take it from the heading it was found
for."""

_DEFINITION = re.compile(
    r"^\s*(?:what|who) (?:is|are|was|were) (?:an? |the )?(?!\S+ of\b)\S+(?: \S+){0,2}\??\s*$",
    re.I,
)
_BROAD = re.compile(
    r"(?:tell me|teach me|learn) about\b|(?:an )?overview\b|explain\b|describe\b|summar", re.I
)
_QUESTION_WORD = re.compile(
    r"\b(?:what|how|why|when|where|which|who|whom|whether|is|are|was|were|does|do|did|can|"
    r"could|should|quel(?:le)?s?|comment|pourquoi|combien|quand|où|est-ce)\b|\?|？"
    r"|什么|哪些|哪个|如何|怎么|怎样|为什么|多少|是否|吗",
    re.I,
)

_SPENT = re.compile(
    r"\b(?:cost(?:s|ing)?|pric(?:e|es|ed)|paid for|spent|invest(?:ed|ment)|fund(?:s|ed|ing)|"
    r"contribut(?:ed|ion|ions)|grants?|capital|budget(?:ed)?|built for|financ(?:e|ed|ing)|"
    # French, Spanish, German
    r"co[uû]t(?:s|é|ait)?|financ(?:é|ement)|investi(?:ssement)?|subvention|"
    r"cost(?:o|ó|aron)|inversión|invirti[óe]|financiación|"
    r"kost(?:en|ete|eten)|gekostet|investi(?:ert|tion)|finanziert|förder(?:ung|te))(?!\w)"
    r"|成本|造价|花费|耗资|投资|资助|补贴|价格",
    re.I,
)
"""What a quote says when it tells what something cost: money spent, granted or invested."""

_COST_ASKED = re.compile(
    r"\b(?:cost(?:s|ed)?|pric(?:e|es)|paid|spent|invest|co[uû]t|combien a coûté|"
    r"cost(?:o|ó|aron)|cuesta|kost(?:en|et|ete)|gekostet)"
    r"|成本|造价|花费|费用|多少钱|价格|投资",
    re.I,
)
"""What a question says when it asks what something cost. A bare "how much" (or "cuánto",
"wie viel") asks a quantity of any kind ("how much free disk space does it need"), so it is not
enough: the verb says what is counted ("how much did it cost")."""
_WHEN_ASKED = re.compile(
    r"\b(?:when|(?:what|which) year|timeline|history|since|quand|historique|cuándo|historia|"
    r"wann|geschichte|seit wann)(?!\w)|何时|什么时候|哪一年|历史|历程",
    re.I,
)
_SIZE_ASKED = re.compile(
    r"\b(?:how (?:many|large|big)|capacity|sizes?|quelle taille|capacité|tamaño|capacidad|"
    r"wie (?:groß|viele)|größe|kapazität)(?!\w)|规模|容量|多大",
    re.I,
)
"""What a question asks for, in English, French, Spanish, German or Chinese."""
_SIZE_KINDS = frozenset({"power", "energy", "length", "mass", "count"})


def facets_for(question: str, parts: Sequence[str]) -> list[Facet]:
    """The facets ``question`` calls for (see the module docstring).

    All for a broad question of one part, all but the key figures for a definitional one,
    else none.
    """
    if len(parts) > 1:
        return []
    if _BROAD.search(question) or not _QUESTION_WORD.search(question):
        return list(FACETS)
    return [f for f in FACETS if f.defines] if _DEFINITION.search(question) else []


def _facet(step: PlanStep) -> Facet | None:
    return next(
        (f for f in FACETS if step.title == f.title or any(step.title == t for _, t, _ in f.names)),
        None,
    )


def _is_of(facet: Facet, quote: str) -> bool:
    """Whether ``quote`` states what ``facet`` is about."""
    if facet.kinds and any(q.kind in facet.kinds for q in quantities(quote)):
        return True
    return facet.states is not None and bool(facet.states.search(quote))


def asks_cost(title: str) -> bool:
    """Whether ``title`` asks what something cost."""
    return bool(_COST_ASKED.search(title))


def answers_kind(title: str, quote: str) -> float:
    """How well ``quote`` gives the kind of answer ``title`` asks for: 1, 0, or -1.

    A cost question is answered by money spent, granted or invested, not by a fine or a
    saving (-1: money of another kind); a "when" question by a date; a size question by a
    quantity of power, energy, length, mass or count.
    """
    kinds = {q.kind.split("/")[0] for q in quantities(quote)}
    if _COST_ASKED.search(title):
        if "money" not in kinds:
            return 0.0
        return 1.0 if _SPENT.search(quote) else -1.0
    if _WHEN_ASKED.search(title):
        return 1.0 if kinds & {"date", "decade"} else 0.0
    if _SIZE_ASKED.search(title):
        return 1.0 if kinds & _SIZE_KINDS else 0.0
    return 0.0


def borrowed(step: PlanStep) -> str:
    """The subject ``step`` borrows from the question's first part ("" when it has its own).

    The offline plan writes it after the part in the step's intent ("how long does it last:
    memory sqlite database"): such a step is searched, and its quotes judged, with it.
    """
    head, _, subject = step.intent.partition(": ")
    return subject if subject and head == step.title else ""


def fit(step: PlanStep, quote: str) -> float:
    """How well ``quote`` answers the heading of ``step`` (higher is better; 0: not at all).

    A facet's quote fits when it is of the facet's kind. Another heading's quote fits by the
    share of the heading's words it states (with the subject a part borrows, :func:`borrowed`),
    plus the kind of answer it gives.
    """
    facet = _facet(step)
    if facet is not None:
        return 0.5 if _is_of(facet, quote) else 0.0
    wanted = set(content_tokens(f"{step.title} {borrowed(step)}"))
    if not wanted:
        return 0.0
    share = len(wanted & set(content_tokens(quote))) / len(wanted)
    return share + 0.5 * answers_kind(step.title, quote) if share else 0.0


def _home(step_id: str, scores: dict[str, float], facets: set[str]) -> str | None:
    """The heading a quote found for ``step_id`` goes under (``None``: none takes it)."""
    own = scores.get(step_id)
    best_id = max(scores, key=lambda k: scores[k], default="")
    best = scores.get(best_id, 0.0)
    if own is not None and own > 0 and (step_id in facets or own >= best - MARGIN):
        return step_id  # it answers the heading it was found for
    if best >= MIN_FIT_ELSEWHERE or (own is None and best > 0 and best_id in facets):
        return best_id
    return step_id if own is not None and step_id not in facets else None


LOOSE_FIT = 1 / 3
"""A quote stating less of its heading's words than this comes after those that state more."""


def arrange(plan: Sequence[PlanStep], evidence: Sequence[EvidenceSpan]) -> dict[str, list[int]]:
    """Each step's quotes (positions in ``evidence``), best first, each quote under one heading.

    A quote stays under the heading it was found for when it answers it about as well as any
    (:func:`fit`, within :data:`MARGIN`); otherwise it goes to the heading it answers best. A
    facet heading takes only quotes of its kind, and no heading takes a quote of the wrong kind
    of answer (a fine for a cost). Within a heading, quotes that give the kind of answer asked
    for come first, then the most relevant (ordering by fit too put a quote that repeats a
    long heading's words before the one that answers it).
    """
    facets = {s.id for s in plan if _facet(s) is not None}
    titles = {s.id: s.title for s in plan}
    placed: dict[str, list[tuple[float, bool, float, int]]] = {s.id: [] for s in plan}
    for i, span in enumerate(evidence):
        scores = {s.id: fit(s, span.quote) for s in plan if answers_kind(s.title, span.quote) >= 0}
        home = _home(span.step_id, scores, facets)
        if home is None:
            continue
        kind = answers_kind(titles[home], span.quote)
        loose = home not in facets and scores.get(home, 0.0) < LOOSE_FIT
        placed[home].append((-kind, loose, -span.relevance, i))
    return {step_id: [i for *_, i in sorted(rows)] for step_id, rows in placed.items()}
