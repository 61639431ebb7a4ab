"""Claims judged while the report is written: each paragraph once a blank line ends it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.schemas import ClaimVerdict
from deep_research.report.judging import InFlight, JudgeWhileWriting, draft_key
from deep_research.report.verify import Memo
from deep_research.state import Claim, EvidenceSpan, TokenUsage

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

    claims, _ = await judging.rest()

    assert [c.text for c in claims] == ["Hornsdale Power Reserve stores 129 MWh of energy"]


class HeldJudge(OfflineEngine):
    """The offline engine, whose judge answers only once ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.judged = 0

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        await self.release.wait()
        self.judged += len(checks)
        return await super().judge(checks)


async def test_judgements_in_flight_are_handed_over_and_reported_once_by_the_taker() -> None:
    # issue #45: synthesize returns while a paragraph is judged (its draft is checkpointed at
    # once); verify takes the judgement over and reports its verdicts, which the writer's node,
    # gone by then, must not
    engine = HeldJudge()
    by_writer: list[Claim] = []
    judging = JudgeWhileWriting(
        engine, evidence(), {"E1": "ev_1"}, Memo(), limit=2, on_judged=by_writer.extend
    )
    stream(judging, REPORT)
    await asyncio.sleep(0)  # the judgement has started and waits for the judge
    assert judging.in_flight and judging.finished() == ([], TokenUsage())
    assert judging.holds(REPORT) and not judging.holds("## Summary\n\nSomething else.\n\n")

    runs = InFlight()
    key = draft_key("thread-1", "the stored draft")
    runs.put(key, judging)
    assert runs.take(draft_key("thread-2", "the stored draft")) is None  # another run's
    taken = runs.take(key)
    assert taken is judging and runs.take(key) is None  # taken once

    by_taker: list[Claim] = []
    engine.release.set()
    claims, _ = await judging.rest(by_taker.extend)

    assert [c.text for c in claims] == ["Hornsdale Power Reserve stores 129 MWh of energy"]
    assert by_taker == claims and by_writer == []
    assert engine.judged == 1


async def test_a_full_register_cancels_the_oldest_judgements() -> None:
    engine = HeldJudge()
    runs = InFlight()
    kept = []
    for n in range(InFlight.LIMIT + 1):
        judging = JudgeWhileWriting(
            engine, evidence(), {"E1": "ev_1"}, Memo(), limit=1, on_judged=lambda _: None
        )
        stream(judging, REPORT)
        runs.put(draft_key(str(n), REPORT), judging)
        kept.append(judging)
    await asyncio.sleep(0)

    assert runs.take(draft_key("0", REPORT)) is None
    assert not kept[0].in_flight  # cancelled, not left running for nobody
    assert runs.take(draft_key("1", REPORT)) is kept[1] and kept[1].in_flight
    for judging in kept:
        judging.cancel()
