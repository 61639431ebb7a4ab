"""A report states its limits: uncovered parts, conflicts with both sides cited, confidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter

from deep_research.engines.schemas import ReportAssessment
from deep_research.report.limits import (
    NO_LIMITS,
    assessment_input,
    find_conflicts,
    limitations_markdown,
    report_confidence,
    uncovered_steps,
)
from deep_research.schemas import shipped_report_schema
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import (
    Claim,
    EvidenceSpan,
    Finding,
    Limitation,
    PartJudgement,
    PlanStep,
    Reference,
    Report,
    Verdict,
    VerificationSummary,
)
from deep_research.verification import alignment
from deep_research.verification.checks import Analyses
from deep_research.verification.quantities import Quantity
from tests.fakes import offline_report
from tests.unit_tests.test_report_schema import _export, violations

HORNSDALE_NOW = "Hornsdale Power Reserve has a capacity of 150 MW and 193.5 MWh."
HORNSDALE_2017 = (
    "Hornsdale Power Reserve, a 100 MW / 129 MWh Tesla battery in South Australia, is the "
    "best-known example of a battery earning much of its income from FCAS."
)


def span(n: int, quote: str, url: str, step: str = "s01") -> EvidenceSpan:
    return EvidenceSpan(
        id=f"ev_{n}",
        url=url,
        document_id=f"doc_{url[-6:]}",
        step_id=step,
        quote=quote,
        start=0,
        end=len(quote),
    )


def claim(n: int, evidence_id: str, verdict: Verdict | None) -> Claim:
    return Claim(
        id=f"cl_{n}",
        text="x",
        position_start=0,
        position_end=1,
        citation_keys=[evidence_id],
        verdict=verdict,
    )


def test_a_figure_two_sources_state_differently_is_a_conflict() -> None:
    evidence = [
        span(1, HORNSDALE_NOW, "file:///c/hornsdale.md"),
        span(2, "The South Australian Government contributed A$15 million.", "file:///c/h.md"),
        span(3, HORNSDALE_2017, "file:///c/fcas.md"),
        # same wording, other plants: no conflict
        span(4, "Pumped storage hydropower achieves an efficiency of 70 percent.", "file:///p"),
        span(5, "Huntorf achieves an efficiency of about 42 percent.", "file:///caes"),
    ]
    cited = {"ev_1", "ev_2", "ev_4"}
    assert find_conflicts(evidence, cited) == [(0, 2)]
    # a conflict needs one side the report cites
    assert find_conflicts(evidence, {"ev_2"}) == []
    # a quote of several sentences (a window) disagrees by one of them
    window = span(6, f"{HORNSDALE_NOW} It stands next to a 315 MW wind farm.", "file:///c/w.md")
    assert find_conflicts([window, evidence[2]], {"ev_6"}) == [(0, 1)]
    # two sentences of one document never conflict
    same = [span(1, HORNSDALE_NOW, "file:///c/h.md"), span(3, HORNSDALE_2017, "file:///c/h.md")]
    assert find_conflicts(same, {"ev_1"}) == []


def test_a_step_is_uncovered_unless_a_supported_claim_cites_its_evidence() -> None:
    plan = [PlanStep(id="s01", title="Size"), PlanStep(id="s02", title="Cost")]
    evidence = [span(1, "a b c", "file:///a", "s01"), span(2, "d e f", "file:///b", "s02")]
    claims = [claim(1, "ev_1", Verdict.SUPPORTED), claim(2, "ev_2", Verdict.UNSUPPORTED)]
    assert [s.id for s in uncovered_steps(plan, evidence, claims)] == ["s02"]
    # nothing verified (verification off): citing is covering
    unchecked = [claim(1, "ev_1", None), claim(2, "ev_2", None)]
    assert uncovered_steps(plan, evidence, unchecked) == []
    # a supported claim under the step's heading answers it, whatever step found its quote
    draft = "## Size\n\nBig [@ev_1].\n\n## Cost\n\nCheap [@ev_1]."
    under_cost = claim(3, "ev_1", Verdict.SUPPORTED).model_copy(
        update={"position_start": draft.index("Cheap"), "position_end": draft.index(" [@ev_1].")}
    )
    assert uncovered_steps(plan, evidence, [*claims, under_cost], draft) == []
    # reflection replaced s02 by s03 (whose intent names it); s04 repeats s03's title
    later = [
        PlanStep(id="s03", title="Cost figures", intent="Cost", round=2),
        PlanStep(id="s04", title="cost figures", intent="Cost figures", round=3),
    ]
    assert [s.id for s in uncovered_steps([*plan, *later], evidence, claims)] == ["s04"]


def test_a_step_whose_research_ended_thin_is_uncovered_though_a_claim_cites_it() -> None:
    # the run: both parts quoted and supported, both thin after broadening
    plan = [
        PlanStep(id="s01", title="What is WAL"),
        PlanStep(id="s02", title="what does it cost"),
        PlanStep(id="s03", title="cost wal", intent="what does it cost", round=2),
    ]
    evidence = [span(1, "a b", "file:///a", "s01"), span(2, "c d", "file:///b", "s03")]
    claims = [claim(1, "ev_1", Verdict.SUPPORTED), claim(2, "ev_2", Verdict.SUPPORTED)]
    findings = [
        Finding(step_id="s01", notes="a b", sufficient=True),
        Finding(step_id="s02", notes="", sufficient=False),
        Finding(step_id="s03", notes="c d", sufficient=False),
    ]
    assert [s.id for s in uncovered_steps(plan, evidence, claims)] == []
    assert [s.id for s in uncovered_steps(plan, evidence, claims, "", findings)] == ["s03"]
    # the limitation names the part of the question the rewording stood for
    facts = assessment_input(
        "What is WAL and what does it cost?", "", evidence, claims, plan[::2], findings
    )
    assert [s.title for s in facts.uncovered] == ["what does it cost"]
    # a thin first round that a second pass or a rewording made sufficient is covered
    findings.append(Finding(step_id="s03", notes="c d e", sufficient=True))
    assert uncovered_steps(plan, evidence, claims, "", findings) == []


async def test_an_offline_report_with_a_thin_part_says_so_and_is_not_confident(
    corpus: LocalCorpus,
) -> None:
    # a part the sample corpus cannot answer: the Limitations name it and confidence is low
    report = await _report(
        corpus, "What is a flow battery, and what is the airspeed velocity of an unladen swallow?"
    )
    assert report.confidence is not None and report.confidence.uncovered >= 1
    assert report.confidence.level == "low"
    assert NO_LIMITS not in report.markdown
    assert "Not covered:" in report.markdown


def test_the_engine_sees_the_report_with_keys_and_the_other_side_of_a_conflict() -> None:
    evidence = [
        span(1, HORNSDALE_NOW, "file:///c/hornsdale.md"),
        span(3, HORNSDALE_2017, "file:///c/fcas.md", "s02"),
    ]
    plan = [PlanStep(id="s01", title="Size"), PlanStep(id="s02", title="Market")]
    facts = assessment_input(
        "How big is Hornsdale?",
        "## Size\n\nIt is big [@ev_1].",
        evidence,
        [claim(1, "ev_1", Verdict.SUPPORTED)],
        plan,
    )
    assert facts.report == "## Size\n\nIt is big [E1]."
    assert [e.id for e in facts.evidence] == ["ev_1", "ev_3"]  # cited first, then the other side
    assert facts.conflicts == [(0, 1)]
    assert [s.id for s in facts.uncovered] == ["s02"]


def _refs(*urls: str) -> list[Reference]:
    return [Reference(number=n, url=u, title=u, location=u) for n, u in enumerate(urls, 1)]


@pytest.mark.parametrize(
    ("supported", "unsupported", "urls", "limits", "level"),
    [
        (9, 1, ("https://a.org/1", "https://b.org/", "https://c.org/"), [], "high"),
        (9, 1, ("https://a.org/1", "https://b.org/", "https://c.org/"), ["conflict"], "medium"),
        # a part of the question unanswered: never medium, however well the rest is supported
        (9, 1, ("https://a.org/1", "https://b.org/", "https://c.org/"), ["uncovered"], "low"),
        (7, 3, ("https://a.org/", "https://b.org/"), ["uncovered"], "low"),
        # three pages of one site are one independent source
        (9, 1, ("https://a.org/1", "https://a.org/2", "https://www.a.org/3"), [], "low"),
        (7, 3, ("https://a.org/", "https://b.org/"), [], "medium"),
        (5, 5, ("https://a.org/", "https://b.org/", "https://c.org/"), [], "low"),
        (0, 0, (), [], "low"),
    ],
)
def test_confidence_rests_on_verdicts_independent_sources_and_limits(
    supported: int, unsupported: int, urls: tuple[str, ...], limits: list[str], level: str
) -> None:
    verification = VerificationSummary(supported=supported, unsupported=unsupported, passes=1)
    found = [Limitation.model_validate({"kind": k, "text": "t"}) for k in limits]
    confidence = report_confidence(verification, _refs(*urls), found)
    assert confidence.level == level
    assert confidence.independent_sources == len(
        {u.split("/")[2].removeprefix("www.") for u in urls}
    )
    assert confidence.basis.startswith(
        f"{supported} of {supported + unsupported} checked claims fully supported"
        if urls
        else "no claim could be checked"
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> LocalCorpus:
    data = tmp_path_factory.mktemp("data")
    return LocalCorpus(SAMPLE_CORPUS, default_index_path(data, SAMPLE_CORPUS))


_report = offline_report


KESTREL = {
    "kestrel-dam.md": (
        "# Kestrel Dam\n\nKestrel Dam is a concrete gravity dam on the Marra River in the "
        "province of Lowen. Kestrel Dam has a storage capacity of 840 gigalitres. The dam was "
        "completed in 1974 after eight years of construction. Its spillway can pass a flood of "
        "12,000 cubic metres per second.\n\nThe reservoir behind Kestrel Dam covers about 95 "
        "square kilometres when full. The provincial water authority has operated Kestrel Dam "
        "since 1981.\n"
    ),
    "lowen-water-supply.md": (
        "# Water supply in Lowen\n\nThe province of Lowen draws most of its drinking water "
        "from reservoirs in the Marra valley. Kestrel Dam, with a storage capacity of 620 "
        "gigalitres, is the largest of these reservoirs. Two smaller dams upstream hold the "
        "rest of the valley's stored water.\n\nWater use in Lowen fell by a fifth between 2010 "
        "and 2020 after household meters were installed.\n"
    ),
}
"""Two pages that disagree on one figure, with no date to explain it (the sample's 100 MW and
150 MW of Hornsdale are a change over time, which its own page states)."""


async def test_the_offline_report_states_a_conflict_of_the_corpus_with_both_sides_cited(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in KESTREL.items():
        (folder / name).write_text(text)
    corpus = LocalCorpus(folder, default_index_path(tmp_path / "data", folder))
    report = await _report(corpus, "What is the storage capacity of Kestrel Dam?")
    conflicts = [item for item in report.limitations if item.kind == "conflict"]
    sizes = [c for c in conflicts if "840 gigalitres" in c.text and "620 gigalitres" in c.text]
    assert sizes, report.limitations
    sides = {r.number: r.location for r in report.references if r.number in sizes[0].references}
    assert len(sizes[0].references) == 2
    assert {Path(p).name for p in sides.values()} == set(KESTREL)
    for number in sizes[0].references:
        assert f"[{number}]" in sizes[0].text
    section = report.markdown.split("\n## Limitations\n\n", 1)[1].split("\n## ", 1)[0]
    assert sizes[0].text in section
    assert report.confidence is not None and report.confidence.conflicts == len(conflicts)
    assert f"**Confidence: {report.confidence.level}.** " in section
    assert "Limitations" not in report.outline
    # the summary answers from the first section, with its citations
    assert report.summary and report.summary.split(" [")[0] in report.sections[0].markdown


async def test_simple_answers_state_no_limits(corpus: LocalCorpus) -> None:
    report = await _report(corpus, "What is a flow battery?", mode="simple")
    assert report.limitations == [] and report.confidence is None and report.summary == ""
    assert "## Limitations" not in report.markdown


def test_a_report_without_limits_says_so() -> None:
    facts = assessment_input("q", "## A\n\nIt is [@ev_1].", [], [], [])
    section = limitations_markdown(ReportAssessment(summary="", limitations=[]), facts)
    assert section == f"## Limitations\n\n{NO_LIMITS}"


async def test_a_report_exported_before_limits_existed_still_loads_and_validates() -> None:
    _, data = await _export()
    for key in ("summary", "limitations", "confidence"):
        data.pop(key)
    schema = shipped_report_schema()
    assert violations(data, schema, schema) == []
    old = TypeAdapter(Report).validate_python(data)
    assert old.limitations == [] and old.confidence is None


def test_finding_conflicts_compares_each_pair_of_sentences_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deep_research.verification import conflicts

    compared: list[tuple[str, str]] = []
    read: list[str] = []
    real, real_read = conflicts._contradict, conflicts._read

    def counting(a: str, b: str, comparisons: conflicts.Comparisons) -> bool:
        compared.append((a, b) if a <= b else (b, a))
        return real(a, b, comparisons)

    def reading(text: str, analyses: Analyses | None = None) -> conflicts._Read:
        read.append(text)
        return real_read(text, analyses)

    monkeypatch.setattr(conflicts, "_contradict", counting)
    monkeypatch.setattr(conflicts, "_read", reading)
    evidence = [  # three sources agreeing, all cited: every pair is compared in both orders
        span(1, HORNSDALE_NOW, "file:///c/hornsdale.md"),
        span(2, HORNSDALE_NOW.replace(".", ", its owner says."), "file:///c/owner.md"),
        span(3, HORNSDALE_NOW.replace(".", ", the regulator says."), "file:///c/aemo.md"),
    ]
    assert find_conflicts(evidence, {"ev_1", "ev_2", "ev_3"}) == []
    assert len(compared) == 3 == len(set(compared))
    assert sorted(read) == sorted(e.quote for e in evidence)  # each sentence read once
    # the conflict the shared comparisons find is the one a fresh comparison finds
    disagreeing = [*evidence[:1], span(4, HORNSDALE_2017, "file:///c/fcas.md")]
    assert find_conflicts(disagreeing, {"ev_1"}) == [(0, 1)]
    assert conflicts.disagreement(HORNSDALE_NOW, HORNSDALE_2017) is not None
    # what a comparison reads from a sentence is what the plain functions read
    assert conflicts.same_subject(HORNSDALE_NOW, HORNSDALE_2017)
    assert conflicts.comparable_figures(HORNSDALE_NOW, HORNSDALE_2017)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "1 conflict between sources; 1 part of the question not covered."),
        ("de", "Widersprüche zwischen Quellen: 1; nicht abgedeckte Teile der Frage: 1."),
        ("fr", "désaccords entre sources : 1; parties de la question non couvertes : 1."),
        ("es", "discrepancias entre fuentes: 1; partes de la pregunta sin cubrir: 1."),
    ],
)
def test_the_confidence_basis_reads_right_with_a_count_of_one(language: str, expected: str) -> None:
    # "1 Widersprüche" is wrong German: languages without a singular form here name the count
    verification = VerificationSummary(supported=1, passes=1)
    found = [Limitation.model_validate({"kind": k, "text": "t"}) for k in ("conflict", "uncovered")]
    confidence = report_confidence(verification, _refs("https://a.org/"), found, language)
    assert confidence.basis.endswith(expected), confidence.basis


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "2 parts of the question: 0 answered, 2 partly answered, 0 not answered."),
        (
            "de",
            "Teile der Frage: 2 (beantwortet: 0, teilweise beantwortet: 2, nicht beantwortet: 0).",
        ),
        ("zh", "问题共 2 个部分：已回答 0 个，部分回答 2 个，未回答 0 个。"),
    ],
)
def test_the_confidence_basis_says_how_each_part_was_answered(language: str, expected: str) -> None:
    # "0 parts not covered; 0 of 2 parts answered" read as a contradiction: with the parts
    # judged, the basis counts them by how they were answered, in the report's language
    parts = [
        PartJudgement(part="How do LFP and NMC compare", status="partly"),
        PartJudgement(part="what did Hornsdale cost", status="partly"),
    ]
    verification = VerificationSummary(total=4, supported=4, passes=1)
    refs = _refs("https://a.org/", "https://b.org/", "https://c.org/")
    confidence = report_confidence(verification, refs, [], language, parts)
    assert confidence.basis.endswith(expected), confidence.basis
    assert "not covered" not in confidence.basis and confidence.level != "high"


def test_finding_conflicts_reads_figures_through_the_analyses_it_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deep_research.verification import conflicts

    evidence = [
        span(1, HORNSDALE_NOW, "file:///c/hornsdale.md"),
        span(4, HORNSDALE_2017, "file:///c/fcas.md"),
    ]
    fresh = find_conflicts(evidence, {"ev_1"})
    analyses = Analyses()  # the verifier's, which read the same texts before
    assert find_conflicts(evidence, {"ev_1"}, analyses) == fresh == [(0, 1)]
    read: list[str] = []
    real = conflicts.quantities

    def reading(text: str) -> list[Quantity]:
        read.append(text)
        return real(text)

    monkeypatch.setattr(conflicts, "quantities", reading)
    monkeypatch.setattr(alignment, "quantities", reading)
    assert find_conflicts(evidence, {"ev_1"}, analyses) == fresh
    assert read == []  # every figure came from the analyses
    assert find_conflicts(evidence, {"ev_1"}) == fresh
    assert read  # without them, the figures are read again


def test_unsourced_background_under_a_step_heading_does_not_cover_the_step() -> None:
    """Only checked text answers a step: "every step has a supported claim" must be true."""
    from deep_research.report.limits import uncovered_steps
    from deep_research.state import Claim, PlanStep

    draft = "## Costs\n\nBatteries slowly lose capacity as they age through many cycles.\n"
    text = "Batteries slowly lose capacity as they age through many cycles"
    start = draft.index(text)
    background = Claim(
        id="c1",
        text=text,
        position_start=start,
        position_end=start + len(text),
        claim_type="background",
    )
    step = PlanStep(id="s1", title="Costs")

    assert uncovered_steps([step], [], [background], draft) == [step]
