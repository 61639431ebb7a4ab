"""Analysis survives verification: synthesis claims are kept and checked for figures and names."""

from __future__ import annotations

import pytest

from deep_research.engines import OfflineEngine
from deep_research.report.verify import verify_draft
from deep_research.verification.citations import extract_claims, normalize_draft
from deep_research.verification.claim_types import is_analysis, is_claim
from tests.fakes import quoted_spans

EVIDENCE = quoted_spans(
    {
        "a": "LFP cells cost less than NMC cells per kilowatt-hour.",
        "b": "NMC cells store more energy per kilogram than LFP cells.",
    }
)


def test_analysis_needs_a_cue_or_an_analysis_section_and_no_figure() -> None:
    assert is_analysis("LFP therefore suits stationary storage better")
    assert is_analysis("因此，磷酸铁锂更适合储能")
    assert is_analysis("Storage matters for grids everywhere", "Conclusion")
    assert not is_analysis("Storage matters for grids everywhere", "History")
    assert not is_analysis("LFP is 20% cheaper than NMC")


async def test_synthesis_is_kept_unjudged_and_new_names_make_it_a_fact() -> None:
    draft = normalize_draft(
        "## Comparison\n\n"
        "LFP cells cost less than NMC cells per kilowatt-hour [@a]. "
        "Cheaper LFP therefore suits storage, while NMC suits vehicles. "
        "Cheaper cells therefore helped Tesla win the market. "
        "LFP is therefore 30% cheaper than NMC.\n"
    )
    types = [c.claim_type for c in extract_claims(draft)]
    assert types == ["fact", "synthesis", "synthesis", "fact"]

    result = await verify_draft(OfflineEngine(), draft, EVIDENCE)
    by_text = {c.text: c for c in result.claims}
    kept = by_text["Cheaper LFP therefore suits storage, while NMC suits vehicles"]
    assert kept.claim_type == "synthesis"
    assert kept.verdict is None
    assert "analysis" in kept.reasoning
    named = by_text["Cheaper cells therefore helped Tesla win the market"]
    assert named.claim_type == "fact"  # Tesla is in no evidence: a fact to judge
    assert named.verdict is not None
    figured = by_text["LFP is therefore 30% cheaper than NMC"]
    assert figured.verdict is not None


def test_removing_a_sentence_smooths_the_next_one() -> None:
    from deep_research.verification.citations import remove_sentence

    draft = "Costs fell [@a]. Prices rose sharply. However, demand held up [@b].\n"
    start = draft.index("Prices")
    end = draft.index("However")
    assert normalize_draft(remove_sentence(draft, start, end - 1)) == (
        "Costs fell [@a]. Demand held up [@b].\n"
    )
    chinese = "成本下降[@a]。价格上涨。此外，需求保持稳定[@b]。\n"
    at = chinese.index("价格")
    assert normalize_draft(remove_sentence(chinese, at, chinese.index("此外"))) == (
        "成本下降[@a]。需求保持稳定[@b]。\n"
    )


def test_table_cells_are_claims_and_removed_rows_leave_no_trace() -> None:
    from deep_research.verification.citations import drop_empty, rewrite_row

    draft = normalize_draft(
        "| Chemistry | Density |\n|---|---|\n| LFP | 160 Wh/kg [@a] |\n|NMC|250 Wh/kg|\n"
    )
    assert "| LFP | 160 Wh/kg [@a] |" in draft
    claims = extract_claims(draft)
    assert [(c.text, c.citation_keys) for c in claims] == [
        ("160 Wh/kg", ["a"]),
        ("250 Wh/kg", []),
    ]
    assert all(draft[c.position_start : c.position_end] == c.text for c in claims)
    lines = draft.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("| NMC"))
    lines[row] = rewrite_row(lines[row], {1: None}, [])  # its one stated cell removed
    kept = drop_empty(normalize_draft("\n".join(lines)))
    assert "NMC" not in kept and "| LFP |" in kept and "| |" not in kept
    assert normalize_draft("The drivers are: [@a]") == "The drivers are: [@a]\n"


@pytest.mark.parametrize(
    "sentence",
    [
        # a small model's whole report was sentences framed as the report's: each states a fact
        "The report also provides evidence to support the claim that Edwards and Sanborn is a"
        " hybrid project.",
        "This report shows that Moss Landing stored 1,600 MWh.",
        "The sources describe how Hornsdale Power Reserve was expanded by Neoen.",
    ],
)
def test_a_fact_framed_as_the_reports_is_still_a_claim(sentence: str) -> None:
    assert is_claim(sentence, cited=False)


@pytest.mark.parametrize(
    "sentence",
    [
        "The sources do not state the cost.",
        "The sources do not state what Hornsdale Power Reserve cost.",
        "No information was found on recycling rates in Chile.",
        "This section compares the two chemistries on cost and safety.",
    ],
)
def test_limits_of_the_sources_and_sentences_about_the_report_are_not_claims(
    sentence: str,
) -> None:
    assert not is_claim(sentence, cited=False)
