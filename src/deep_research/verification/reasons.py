"""The verifier's reasons: stored as codes with values, worded in the reader's language.

The offline checks and the figure rule give each verdict a :class:`~deep_research.state.Reason`
(:func:`reason`): the code of one of the templates of :data:`REASONS` and the values that fill
it (figures as the texts wrote them). The claim keeps it beside its reasoning in English (what
report.json, the events and the database give programs), and what a person reads, report.md's
footnotes and report.html's claim panel, words it again in the report's language
(:func:`words`). A model's own reasoning has no code and is shown as the model gave it; so is
the reasoning of claims stored before reasons had codes.
"""

from __future__ import annotations

from deep_research.state import Claim, Reason
from deep_research.state.models import ReasonCode

__all__ = ["REASONS", "figure_check", "reason", "render", "words"]

REASONS: dict[str, dict[ReasonCode, str]] = {
    "en": {
        "no_evidence": "there is no evidence for it",
        "not_aligned": "the evidence does not state it",
        "conflict": "the evidence gives {stated}, not the claim's {figure}",
        "missing": "the evidence does not state the claim's {figures}",
        "negation": "the evidence states the opposite (negation differs)",
        "antonym": "the evidence says '{other}…' where the claim says '{said}…'",
        "stated": "stated: the evidence states {share} of the claim's terms and figures",
        "partly_stated": (
            "only partly stated: the evidence states {share} of the claim's terms and figures"
        ),
        "not_stated": "not stated: the evidence states {share} of the claim's terms and figures",
        "figure_check": "{reason} (figure check; the engine said SUPPORTED)",
        "analysis": "analysis: states no figure and names only what the evidence names",
        "background": (
            "unsourced background: cites nothing, states no "
            "figure and names only what the evidence names"
        ),
        "no_reason": "no reason was given",
    },
    "fr": {
        "no_evidence": "aucune source n'est citée à l'appui",
        "not_aligned": "les sources ne l'énoncent pas",
        "conflict": "les sources donnent {stated}, et non {figure} comme l'affirmation",
        "missing": "les sources ne donnent pas ce chiffre de l'affirmation : {figures}",
        "negation": "les sources disent le contraire (une négation diffère)",
        "antonym": "les sources disent « {other}… » là où l'affirmation dit « {said}… »",
        "stated": "énoncée : les sources énoncent {share} des termes et chiffres de l'affirmation",
        "partly_stated": (
            "énoncée en partie : les sources énoncent {share} des termes et chiffres de "
            "l'affirmation"
        ),
        "not_stated": (
            "non énoncée : les sources n'énoncent que {share} des termes et chiffres de "
            "l'affirmation"
        ),
        "figure_check": "{reason} (contrôle des chiffres ; le moteur la jugeait étayée)",
        "analysis": "analyse : ne donne aucun chiffre et ne nomme que ce que nomment les sources",
        "background": (
            "contexte sans source : ne cite rien, ne donne aucun "
            "chiffre et ne nomme que ce que nomment les sources"
        ),
        "no_reason": "aucune raison n'a été donnée",
    },
    "es": {
        "no_evidence": "ninguna fuente la respalda",
        "not_aligned": "las fuentes no lo afirman",
        "conflict": "las fuentes dan {stated}, no {figure} como la afirmación",
        "missing": "las fuentes no dan esta cifra de la afirmación: {figures}",
        "negation": "las fuentes dicen lo contrario (difiere una negación)",
        "antonym": "las fuentes dicen «{other}…» donde la afirmación dice «{said}…»",
        "stated": (
            "afirmada: las fuentes recogen el {share} de los términos y cifras de la afirmación"
        ),
        "partly_stated": (
            "afirmada solo en parte: las fuentes recogen el {share} de los términos y cifras "
            "de la afirmación"
        ),
        "not_stated": (
            "no afirmada: las fuentes solo recogen el {share} de los términos y cifras de la "
            "afirmación"
        ),
        "figure_check": "{reason} (control de cifras; el motor la daba por respaldada)",
        "analysis": "análisis: no da ninguna cifra y solo nombra lo que nombran las fuentes",
        "background": (
            "contexto sin fuente: no cita nada, no da ninguna "
            "cifra y solo nombra lo que nombran las fuentes"
        ),
        "no_reason": "no se dio ningún motivo",
    },
    "de": {
        "no_evidence": "es gibt keinen Beleg dafür",
        "not_aligned": "die Belege sagen das nicht aus",
        "conflict": "die Belege nennen {stated}, nicht {figure} wie die Aussage",
        "missing": "die Belege nennen diese Zahl der Aussage nicht: {figures}",
        "negation": "die Belege sagen das Gegenteil (eine Verneinung weicht ab)",
        "antonym": "die Belege sagen „{other}…“, wo die Aussage „{said}…“ sagt",
        "stated": "belegt: die Belege enthalten {share} der Begriffe und Zahlen der Aussage",
        "partly_stated": (
            "nur teilweise belegt: die Belege enthalten {share} der Begriffe und Zahlen der Aussage"
        ),
        "not_stated": (
            "nicht belegt: die Belege enthalten nur {share} der Begriffe und Zahlen der Aussage"
        ),
        "figure_check": "{reason} (Zahlenprüfung; das Modul hielt sie für belegt)",
        "analysis": "Analyse: nennt keine Zahl und nur, was die Belege nennen",
        "background": (
            "Hintergrund ohne Quelle: zitiert nichts, nennt "
            "keine Zahl und nur, was die Belege nennen"
        ),
        "no_reason": "es wurde kein Grund angegeben",
    },
    "zh": {
        "no_evidence": "没有任何证据支持",
        "not_aligned": "证据中没有这一内容",
        "conflict": "证据给出的是{stated}，而不是陈述中的{figure}",
        "missing": "证据没有给出陈述中的{figures}",
        "negation": "证据的说法与陈述相反（否定不同）",
        "antonym": "证据说“{other}…”，而陈述说“{said}…”",
        "stated": "已陈述：证据涵盖了陈述中 {share} 的词语和数字",
        "partly_stated": "仅部分陈述：证据涵盖了陈述中 {share} 的词语和数字",
        "not_stated": "未陈述：证据只涵盖了陈述中 {share} 的词语和数字",
        "figure_check": "{reason}（数字核查；引擎原判为完全支持）",
        "analysis": "分析：不含数字，且只提及证据中提及的名称",
        "background": ("无来源的背景：未引用来源，不含数字，且只提及证据中提及的名称"),
        "no_reason": "未给出原因",
    },
    "ja": {
        "no_evidence": "裏付けとなる証拠がありません",
        "not_aligned": "証拠にその記述がありません",
        "conflict": "証拠では{stated}であり、主張の{figure}ではありません",
        "missing": "証拠に主張の{figures}が記載されていません",
        "negation": "証拠は主張と反対のことを述べています（否定の有無が異なる）",
        "antonym": "証拠は「{other}…」と述べ、主張は「{said}…」と述べています",
        "stated": "記載あり：証拠は主張の語句と数値の {share} を含んでいます",
        "partly_stated": "一部のみ記載：証拠は主張の語句と数値の {share} を含んでいます",
        "not_stated": "記載なし：証拠は主張の語句と数値の {share} しか含んでいません",
        "figure_check": "{reason}（数値チェック。エンジンの判定は「裏付けあり」）",
        "analysis": "分析：数値を含まず、証拠に出てくる名称だけを挙げています",
        "background": (
            "出典のない背景説明：何も引用せず、数値を含まず、証拠に出てくる名称だけを挙げています"
        ),
        "no_reason": "理由は示されていません",
    },
    "ko": {
        "no_evidence": "뒷받침하는 근거가 없습니다",
        "not_aligned": "근거에 그 내용이 없습니다",
        "conflict": "근거의 수치는 {stated}, 주장의 수치는 {figure}입니다",
        "missing": "근거에 주장의 다음 수치가 없습니다: {figures}",
        "negation": "근거는 주장과 반대되는 내용을 말합니다(부정 여부가 다름)",
        "antonym": "근거는 ‘{other}…’라고 하지만 주장은 ‘{said}…’라고 합니다",
        "stated": "기술됨: 근거가 주장의 용어와 수치 중 {share}를 담고 있습니다",
        "partly_stated": "일부만 기술됨: 근거가 주장의 용어와 수치 중 {share}를 담고 있습니다",
        "not_stated": "기술되지 않음: 근거가 주장의 용어와 수치 중 {share}만 담고 있습니다",
        "figure_check": "{reason} (수치 확인; 엔진은 ‘뒷받침됨’으로 판정)",
        "analysis": "분석: 수치를 제시하지 않으며 근거에 나오는 이름만 언급합니다",
        "background": (
            "출처 없는 배경: 아무것도 인용하지 않고 수치를 "
            "제시하지 않으며 근거에 나오는 이름만 언급합니다"
        ),
        "no_reason": "이유가 제시되지 않았습니다",
    },
}
"""Each reason the verifier gives, by language."""

_SHARE = {"fr": " %", "es": " %", "de": " %"}
"""How a language writes the percent sign of a share: ``85 %`` in French, Spanish and German."""


def reason(code: ReasonCode, **params: str) -> Reason:
    """The reason ``code`` with the values its template names."""
    return Reason(code=code, params=params)


def figure_check(cause: Reason) -> Reason:
    """The figure rule overruling an engine's SUPPORTED, for the figure rule's ``cause``."""
    return Reason(code="figure_check", params={**cause.params, "cause": cause.code})


def render(why: Reason, language: str = "en") -> str:
    """``why`` in words, in ``language`` (English when the language has no templates)."""
    templates = REASONS.get(language, REASONS["en"])
    values = dict(why.params)
    if why.code == "figure_check":
        cause = values.pop("cause", "no_reason")
        inner = Reason.model_validate({"code": cause, "params": values})
        return templates["figure_check"].format(reason=render(inner, language))
    if "share" in values and language in _SHARE and language in REASONS:
        values["share"] = values["share"].replace("%", _SHARE[language])
    return templates[why.code].format(**values)


def words(claim: Claim, language: str = "en") -> str:
    """Why the claim got its verdict, as a reader of ``language`` is shown it.

    The verifier's reason in that language; a model's reasoning as the model gave it.
    """
    if claim.reason is not None:
        return render(claim.reason, language)
    return claim.reasoning
