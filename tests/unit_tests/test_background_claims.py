"""Uncited background is kept and marked unsourced, never removed and never shown as verified.

An uncited sentence with no figure and no name the evidence lacks, that no evidence span
supports, is common background the writer added: it stays in the report as a ``background``
claim with no verdict (report.json says it is unsourced; report.html shows "Unsourced"). An
uncited sentence with a figure, or naming what no evidence mentions, is still judged, and
revised or removed when unsupported.
"""

from __future__ import annotations

import json

from deep_research.engines import OfflineEngine
from deep_research.report.html import render_html
from tests.fakes import CountingEngine
from tests.unit_tests.scripted_judge import make_state, run_verification
from tests.unit_tests.test_report_structure import spans

BACKGROUND = "Batteries slowly lose capacity as they age through many cycles"
NEW_NAME = "Flywheels power remote towns across Norway and Iceland"
FIGURE = "Grid batteries usually last about 15 years before replacement"
DRAFT = f"""## Storage

Hornsdale Power Reserve has a capacity of 150 MW [@ev_cap]. {BACKGROUND}.

{NEW_NAME}. {FIGURE}.
"""


async def test_uncited_background_stays_marked_unsourced_and_uncounted() -> None:
    state = await run_verification(make_state(DRAFT, spans()), OfflineEngine())
    report = state.report
    assert report is not None
    assert BACKGROUND in report.markdown
    assert NEW_NAME not in report.markdown and FIGURE not in report.markdown
    (claim,) = [c for c in report.claims if c.text == BACKGROUND]
    assert claim.claim_type == "background" and claim.verdict is None
    assert claim.reasoning.startswith("unsourced background")
    assert report.markdown[claim.position_start : claim.position_end] == claim.text
    exported = json.loads(report.model_dump_json(by_alias=True))
    (data,) = [c for c in exported["claims"] if c["text"] == BACKGROUND]
    assert data["claimType"] == "background" and data["verdict"] is None
    # not counted as checked: the summary counts the judged claims only
    assert report.verification.total == sum(1 for c in report.claims if c.verdict is not None)
    assert report.verification.removed + report.verification.corrected == 2  # the other two
    page = render_html(report)
    assert f'class="claim v-unsourced" data-claim="{claim.id}"' in page
    assert '"verdict": "UNSOURCED", "name": "Unsourced"' in page


async def test_background_is_not_judged_again_on_later_passes() -> None:
    engine = CountingEngine()
    await run_verification(make_state(DRAFT, spans()), engine)
    judged = [c.claim.text for (checks,) in engine.called("judge") for c in checks]
    # judged once against the best uncited spans, then kept: not asked about again
    assert judged.count(BACKGROUND) == 1


FILLER = "Please go ahead and upload the draft of your project proposal"


async def test_with_no_evidence_filler_is_judged_and_never_kept_unchecked() -> None:
    """Issue 42 (3): with no evidence, every uncited sentence passed as background."""
    state = await run_verification(make_state(f"## Answer\n\n{FILLER}.\n", []), OfflineEngine())
    report = state.report
    assert report is not None
    assert not [c for c in report.claims if c.claim_type == "background"]
    for claim in report.claims:
        if claim.text == FILLER:  # kept only as a claim with a verdict, marked in the text
            assert claim.verdict is not None
    if FILLER in report.markdown:
        (claim,) = [c for c in report.claims if c.text == FILLER]
        after = report.markdown[claim.position_end : claim.position_end + 80]
        assert "unsupported" in after


async def test_filler_beside_the_evidence_is_not_background() -> None:
    draft = f"{DRAFT}\n{FILLER}.\n"
    state = await run_verification(make_state(draft, spans()), OfflineEngine())
    report = state.report
    assert report is not None
    kinds = {c.text: c.claim_type for c in report.claims}
    assert kinds.get(BACKGROUND) == "background"  # the sentence on the evidence's topic
    assert kinds.get(FILLER) != "background"
