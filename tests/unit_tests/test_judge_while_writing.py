"""Claims judged while the report is written: the last paragraphs as soon as it is done."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.schemas import ClaimVerdict
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


async def test_the_last_paragraph_is_judged_when_the_writer_is_done() -> None:
    landed: list[Claim] = []
    judging = judge(landed)
    stream(judging, REPORT)
    judging.finished(REPORT)

    claims, _ = await judging.judged()

    # the last paragraph (no blank line after it) is judged too, each claim once
    assert [c.text[:12] for c in claims] == ["Hornsdale Po", "It is in Sou", "Hornsdale st"]
    assert all(c.verdict is not None for c in claims)
    assert [c.id for c in landed] == [c.id for c in claims]


async def test_without_the_end_only_finished_paragraphs_are_judged() -> None:
    judging = judge([])
    stream(judging, REPORT)

    claims, _ = await judging.judged()

    assert [c.text for c in claims] == ["Hornsdale Power Reserve stores 129 MWh of energy"]


async def test_a_report_that_does_not_continue_the_stream_is_left_to_verify() -> None:
    judging = judge([])
    stream(judging, REPORT)
    judging.finished("## Other\n\nA different report [E1].\n")

    claims, _ = await judging.judged()

    assert [c.text for c in claims] == ["Hornsdale Power Reserve stores 129 MWh of energy"]


class SlowJudge(OfflineEngine):
    """The offline engine, answering a judge call after a round trip; counts calls in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.most = 0

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.05)
        self.in_flight -= 1
        return await super().judge(checks)


async def test_the_writers_place_goes_to_the_last_paragraph_when_it_is_done() -> None:
    # a limit of one: one paragraph judged at a time while the writer writes; once it is
    # done, the last paragraph is judged beside the one in flight, not after it
    engine = SlowJudge()
    judging = JudgeWhileWriting(engine, evidence(), {"E1": "ev_1"}, Memo(), limit=1, on_judged=id)
    stream(judging, REPORT)
    judging.finished(REPORT)

    claims, _ = await judging.judged()

    assert len(claims) == 3 and engine.most == 2
