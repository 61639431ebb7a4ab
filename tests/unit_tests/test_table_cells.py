"""A table row is checked and revised cell by cell, never as one claim and never collapsed.

Each data cell that states something is its own claim, located by offsets, judged alone
against all the keys its row carries (the row's first cell, its label, is shown with it);
revision rewrites or empties that cell in place and keeps the row's other cells, its keys and
its column count; a row left with nothing it states goes whole, and a table left with no row
goes with its header.
"""

from __future__ import annotations

from collections.abc import Sequence

from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.schemas import ClaimVerdict, Rewrite
from deep_research.report.verify import verify_draft
from deep_research.state import EvidenceSpan, Verdict
from deep_research.verification.blocks import cells
from deep_research.verification.citations import (
    EMPTY_CELL,
    extract_claims,
    normalize_draft,
    rewrite_row,
    table_cells,
)
from tests.fakes import quoted_spans
from tests.unit_tests.scripted_judge import make_state, run_verification

TABLE = (
    "## Cells\n\n"
    "| Chemistry | Density | Cycle life | Note |\n"
    "|---|---|---|---|\n"
    "| LFP | 160 Wh/kg | 3,000 cycles | cheap [@ev_lfp] |\n"
    "| NMC | 250 Wh/kg [@ev_nmc] | — | dense [@ev_nmc2] |\n"
    "| Sodium | | - | early [@ev_na] |\n"
)
QUOTES = {
    "ev_lfp": "LFP cells store 160 Wh/kg and are cheap.",
    "ev_nmc": "NMC packs reach 250 Wh/kg.",
    "ev_nmc2": "NMC packs are dense.",
    "ev_na": "Sodium-ion cells are at an early stage.",
}


def spans() -> list[EvidenceSpan]:
    return quoted_spans(QUOTES)


class CellJudge(OfflineEngine):
    """Rejects the texts of ``verdicts`` as told and rewrites them as ``rewrites`` says."""

    def __init__(
        self,
        verdicts: dict[str, Verdict] | None = None,
        rewrites: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.verdicts = verdicts or {}
        self.rewrites = rewrites or {}
        self.checks: list[ClaimCheck] = []

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        self.checks += checks
        return Reply(
            [
                ClaimVerdict(
                    claim_id=check.claim.id,
                    verdict=self.verdicts.get(check.claim.text, Verdict.SUPPORTED),
                    confidence=0.9,
                    reasoning="scripted",
                    evidence_key="E1",
                    checked_by="model",
                )
                for check in checks
            ]
        )

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        return Reply(Rewrite(text=self.rewrites.get(check.claim.text, ""), evidence_key="E1"))


def _rows(draft: str) -> list[list[str]]:
    """The cells of each data row of the first table of ``draft``."""
    lines = draft.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("| Chemistry"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(cells(line))
    return rows


def test_each_cell_that_states_something_is_a_claim_of_its_own() -> None:
    draft = normalize_draft(TABLE)
    claims = extract_claims(draft)
    # labels (the first column), empty and dash cells state nothing; every other cell does
    assert [c.text for c in claims] == [
        "160 Wh/kg",
        "3,000 cycles",
        "cheap",
        "250 Wh/kg",
        "dense",
        "early",
    ]
    for claim in claims:
        assert draft[claim.position_start : claim.position_end] == claim.text
    where = table_cells(draft)
    assert [(where[c.position_start].header, where[c.position_start].label) for c in claims] == [
        ("Density", "LFP"),
        ("Cycle life", "LFP"),
        ("Note", "LFP"),
        ("Density", "NMC"),
        ("Note", "NMC"),
        ("Note", "Sodium"),
    ]


def test_every_cell_is_cited_by_all_the_keys_its_row_carries() -> None:
    draft = normalize_draft(TABLE)
    assert "| NMC | 250 Wh/kg | — | dense [@ev_nmc][@ev_nmc2] |" in draft
    keys = {c.text: c.citation_keys for c in extract_claims(draft)}
    assert keys["250 Wh/kg"] == keys["dense"] == ["ev_nmc", "ev_nmc2"]
    assert keys["160 Wh/kg"] == keys["cheap"] == ["ev_lfp"]


async def test_a_judge_sees_each_cell_alone_never_with_its_neighbours() -> None:
    judge = CellJudge()
    await verify_draft(judge, normalize_draft(TABLE), spans())
    judged = [check.claim.text for check in judge.checks]
    assert judged == ["160 Wh/kg", "3,000 cycles", "cheap", "250 Wh/kg", "dense", "early"]
    assert not any("|" in text or "LFP" in text for text in judged)
    nmc = next(check for check in judge.checks if check.claim.text == "dense")
    assert [e.id for e in nmc.evidence] == ["ev_nmc", "ev_nmc2"]
    assert nmc.cell is not None and (nmc.cell.header, nmc.cell.label) == ("Note", "NMC")


async def test_a_figure_the_evidence_lacks_fails_its_cell_not_its_row() -> None:
    result = await verify_draft(OfflineEngine(), normalize_draft(TABLE), spans())
    verdicts = {c.text: c.verdict for c in result.claims}
    assert verdicts["160 Wh/kg"] is Verdict.SUPPORTED
    assert verdicts["3,000 cycles"] not in (Verdict.SUPPORTED, Verdict.PARTIAL)
    assert verdicts["cheap"] is Verdict.SUPPORTED


async def test_a_rejected_cell_is_rewritten_in_its_cell_and_the_row_keeps_the_rest() -> None:
    judge = CellJudge(
        {"3,000 cycles": Verdict.UNSUPPORTED, "dense": Verdict.PARTIAL},
        {"dense": "reportedly dense"},
    )
    state = await run_verification(make_state(TABLE, spans()), judge)
    assert _rows(state.draft) == [
        ["LFP", "160 Wh/kg", EMPTY_CELL, "cheap [@ev_lfp]"],
        ["NMC", "250 Wh/kg", "—", "reportedly dense [@ev_nmc][@ev_nmc2]"],
        ["Sodium", "", "-", "early [@ev_na]"],
    ]
    assert state.verification.removed == 1 and state.verification.corrected == 1


async def test_a_rewrite_of_several_cells_never_adds_a_column() -> None:
    judge = CellJudge(
        {"3,000 cycles": Verdict.CONTRADICTED, "cheap": Verdict.PARTIAL},
        {"3,000 cycles": "LFP | 2,000 cycles", "cheap": "cheap | widely used"},
    )
    state = await run_verification(make_state(TABLE, spans()), judge)
    rows = _rows(state.draft)
    assert all(len(row) == 4 for row in rows)
    # the contradicted cell is emptied; the partial one stays as it was (marked in the report)
    assert rows[0] == ["LFP", "160 Wh/kg", EMPTY_CELL, "cheap [@ev_lfp]"]
    assert state.report is not None and "cheap [1] *(partly supported)*" in state.report.markdown


async def test_a_row_left_with_nothing_it_states_goes_whole() -> None:
    judge = CellJudge({"250 Wh/kg": Verdict.UNSUPPORTED, "dense": Verdict.UNSUPPORTED})
    state = await run_verification(make_state(TABLE, spans()), judge)
    assert [row[0] for row in _rows(state.draft)] == ["LFP", "Sodium"]
    assert "NMC" not in state.draft and "ev_nmc" not in state.draft


async def test_a_table_left_with_no_row_goes_with_its_header() -> None:
    judge = CellJudge({text: Verdict.UNSUPPORTED for text in ("160 Wh/kg", "3,000 cycles")})
    judge.verdicts |= {text: Verdict.UNSUPPORTED for text in ("cheap", "250 Wh/kg")}
    judge.verdicts |= {"dense": Verdict.UNSUPPORTED, "early": Verdict.UNSUPPORTED}
    state = await run_verification(make_state(TABLE + "\nText stays [@ev_na].\n", spans()), judge)
    assert "|" not in state.draft and "Chemistry" not in state.draft
    assert "Text stays [@ev_na]." in state.draft


def test_a_revised_row_keeps_its_keys_and_adds_the_new_ones() -> None:
    row = "| NMC | 250 Wh/kg | — | dense [@a][@b] |"
    assert rewrite_row(row, {1: "260 Wh/kg"}, ["c", "a"]) == (
        "| NMC | 260 Wh/kg | — | dense [@a][@b][@c] |"
    )
    assert rewrite_row(row, {3: None}, []) == "| NMC | 250 Wh/kg | — | — [@a][@b] |"
    assert rewrite_row(row, {1: None, 3: None}, []) == "| |"  # nothing left: removed whole
    assert rewrite_row("| 电池 | 160瓦时[@a] |", {1: "170瓦时"}, []) == "| 电池 | 170瓦时[@a] |"
