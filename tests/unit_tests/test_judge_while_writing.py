"""Claims judged while the report is written: each paragraph once a blank line ends it."""

from __future__ import annotations

from deep_research.engines import OfflineEngine
from deep_research.nodes._judging import JudgeWhileWriting
from deep_research.report.verify import Memo
from deep_research.state import Claim, EvidenceSpan

QUOTE = "Hornsdale Power Reserve stores 129 MWh of energy in South Australia."
REPORT = (
    "## Summary\n\nHornsdale Power Reserve stores 129 MWh of energy [E1].\n\n"
    "## Storage\n\nIt is in South Australia [E1]. Hornsdale stores 129 MWh [E1].\n"
)


def evidence() -> list[EvidenceSpan]:
    return [
        EvidenceSpan(
            id="ev_1",
            url="https://example.org/1",
            document_id="d1",
            step_id="s1",
            quote=QUOTE,
            start=0,
            end=len(QUOTE),
        )
    ]


def judge(landed: list[Claim]) -> JudgeWhileWriting:
    return JudgeWhileWriting(
        OfflineEngine(), evidence(), {"E1": "ev_1"}, Memo(), limit=2, on_judged=landed.extend
    )


def stream(judging: JudgeWhileWriting, text: str) -> None:
    for start in range(0, len(text), 7):
        judging.written(text[start : start + 7])


async def test_without_the_end_only_finished_paragraphs_are_judged() -> None:
    judging = judge([])
    stream(judging, REPORT)

    claims, _ = await judging.judged()

    assert [c.text for c in claims] == ["Hornsdale Power Reserve stores 129 MWh of energy"]
