"""What the figure rule lets verification ask before a model answers (issue #45).

A claim whose figure its own evidence does not state, or states otherwise, can never be
SUPPORTED by that evidence, whatever a model says (the verifier holds a model's verdict to the
figure rule). Verification uses that: a look at alternates that the rule would overrule is not
asked; a claim the rule finds contradicted has its alternates looked at beside its first
verdict, and an alternate that holds has its re-cited claim judged at once; a claim the rule
holds is shown to its rewrite with the rule's verdict and reason, so that the rewrite can be
asked as soon as the claim is written. The verdicts are those of asking in turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import pytest

from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import ClaimVerdict, Rewrite
from deep_research.nodes._ahead import RewritesAhead
from deep_research.nodes.revise import revise_claim
from deep_research.report.ahead import Ahead
from deep_research.report.revision import request_key, rewrite_check
from deep_research.report.verify import DraftVerification, Memo, verify_draft
from deep_research.state import Claim, EvidenceSpan, Verdict
from tests.fakes import quoted_spans
from tests.unit_tests.scripted_model import ScriptedChatModel, structured

QUOTES = {
    "ev_old": "In 2017 Hornsdale Power Reserve had a capacity of 100 MW.",
    "ev_cap": "Hornsdale Power Reserve has a capacity of 150 MW.",
    "ev_srv": "The upgraded server delivers 300 tokens/s on a single GPU.",
    "ev_gpu": "The upgraded server runs on a single GPU.",
    "ev_lfp": "Most new grid batteries use LFP cells.",
}
RECITABLE = "Hornsdale Power Reserve has a capacity of 150 MW"
"""Contradicted by the 2017 figure it cites; the span it leaves uncited states it."""
WRONG = "The upgraded server delivers 3,000 tokens/s on a single GPU"
"""Contradicted by its own span; no other span states 3,000."""
UNCITED_ELSEWHERE = "Most new grid batteries use LFP cells"
"""No figure: the figure rule has nothing to say of it."""


def evidence() -> list[EvidenceSpan]:
    return quoted_spans(QUOTES)


class Judge(OfflineEngine):
    """A model's judge, scripted: the first verdict on a claim its cited evidence is given by
    ``first`` (the first call waiting until ``answer`` is set); a look at alternates is
    SUPPORTED by the first alternate. Every call is noted when it is asked and answered."""

    def __init__(self, first: dict[str, Verdict]) -> None:
        super().__init__()
        self.first = first
        self.answer = asyncio.Event()
        self.noted: list[str] = []
        self.looked: list[str] = []
        """The claims whose alternates were looked at."""

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        cited = [c for c in checks if c.evidence[0].id in c.claim.citation_keys]
        kind = "verdicts" if cited else "look"
        self.noted.append(f"{kind} asked")
        self.looked += [c.claim.text for c in checks if not cited]
        if cited and not self.answer.is_set():
            await self.answer.wait()
        self.noted.append(f"{kind} answered")
        return Reply(
            [
                ClaimVerdict(
                    claim_id=c.claim.id,
                    verdict=self.first[c.claim.text] if cited else Verdict.SUPPORTED,
                    confidence=0.9,
                    reasoning="the model's own words",
                    evidence_key="E1",
                )
                for c in checks
            ]
        )

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        self.noted.append("rewrite asked")
        return Reply(Rewrite(text=check.claim.text.replace("3,000", "300"), evidence_key="E1"))


def _draft(*sentences: str) -> str:
    return "## Findings\n\n" + " ".join(sentences) + "\n"


async def _until(condition: Callable[[], bool]) -> None:
    """Let the calls in flight run until ``condition`` holds (a second at most)."""
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0.01)


def _verifying_ahead(
    engine: Judge, draft: str, ahead: Ahead, memo: Memo, *, rewrites: int
) -> asyncio.Task[DraftVerification]:
    """``draft`` being verified with every call it can ask ahead asked, for the run ``run``."""
    asking = RewritesAhead(engine, evidence(), memo, ahead, "run", rewrites=rewrites, asking=True)
    return asyncio.create_task(
        verify_draft(engine, draft, evidence(), memo=memo, overlap=True, ahead=asking)
    )


async def _verified(engine: Judge, draft: str, *, overlap: bool = False) -> list[Claim]:
    engine.answer.set()
    result = await verify_draft(engine, draft, evidence(), memo=Memo(), overlap=overlap)
    return result.claims


async def test_a_look_the_figure_rule_would_overrule_is_not_asked() -> None:
    # WRONG is unsupported; none of its alternates states 3,000, so the rule would overrule a
    # SUPPORTED look: it is not asked. A claim without a figure still has its look.
    draft = _draft(f"{WRONG} [@ev_srv].", f"{UNCITED_ELSEWHERE} [@ev_cap].")
    engine = Judge({WRONG: Verdict.UNSUPPORTED, UNCITED_ELSEWHERE: Verdict.UNSUPPORTED})
    wrong, lfp = await _verified(engine, draft)

    assert engine.looked == [UNCITED_ELSEWHERE]
    assert wrong.verdict is Verdict.UNSUPPORTED and wrong.evidence_id == "ev_srv"
    assert lfp.verdict is Verdict.SUPPORTED and lfp.evidence_id == "ev_lfp"


async def test_a_claim_the_rule_contradicts_has_its_look_beside_its_verdict() -> None:
    draft = _draft(f"{RECITABLE} [@ev_old].")
    plain = await _verified(Judge({RECITABLE: Verdict.SUPPORTED}), draft)
    engine = Judge({RECITABLE: Verdict.SUPPORTED})
    verifying = asyncio.create_task(verify_draft(engine, draft, evidence(), overlap=True))
    await _until(lambda: "look answered" in engine.noted)
    # the look was asked and answered while the first verdict was still awaited
    assert engine.noted == ["verdicts asked", "look asked", "look answered"]
    engine.answer.set()
    early = (await verifying).claims

    # the model's SUPPORTED is held to the rule (CONTRADICTED); the alternate that states
    # 150 MW supports it, as when asked in turn
    assert [(c.verdict, c.evidence_id) for c in early] == [(Verdict.SUPPORTED, "ev_cap")]
    assert early == plain


async def test_a_look_is_not_used_when_the_model_calls_the_claim_partial() -> None:
    # asked in turn, a PARTIAL claim's alternates are not looked at: the early look's answer
    # is dropped, and the claim stays PARTIAL on its own evidence
    draft = _draft(f"{RECITABLE} [@ev_old].")
    plain = await _verified(Judge({RECITABLE: Verdict.PARTIAL}), draft)
    early = await _verified(Judge({RECITABLE: Verdict.PARTIAL}), draft, overlap=True)

    assert [(c.verdict, c.evidence_id) for c in early] == [(Verdict.PARTIAL, "ev_old")]
    assert early == plain


async def _rewrite_prompt(text: str, cited: str) -> str:
    """What the model is shown to rewrite ``text``, citing ``cited``, that it found UNSUPPORTED."""
    model = ScriptedChatModel(responses=[structured(Rewrite, text=text)])
    said = Claim(
        id="c",
        text=text,
        position_start=0,
        position_end=len(text),
        citation_keys=[cited],
        verdict=Verdict.UNSUPPORTED,
        reasoning="the model's own words",
    )
    await revise_claim(LLMEngine(model, name="scripted"), said, evidence(), final=False)
    return str(model.calls[0][-1].content)


async def test_a_held_claim_is_rewritten_with_the_rule_s_verdict_and_reason() -> None:
    prompt = await _rewrite_prompt(WRONG, "ev_srv")

    assert "Verdict: CONTRADICTED" in prompt and "the model's own words" not in prompt
    shown = prompt.split("Reason:", 1)[1].split("Evidence", 1)[0]
    assert "gives 300 tokens/s, not the claim's 3,000 tokens/s" in shown
    assert "the engine said" not in shown  # the rule's own reason: the model said otherwise


async def test_a_claim_the_rule_does_not_hold_is_rewritten_with_the_model_s_reason() -> None:
    prompt = await _rewrite_prompt(UNCITED_ELSEWHERE, "ev_cap")

    assert "Verdict: UNSUPPORTED" in prompt and "the model's own words" in prompt


async def test_a_held_claim_s_rewrite_is_asked_before_its_verdict_and_taken_by_revise() -> None:
    draft = _draft(f"{WRONG} [@ev_srv].")
    engine = Judge({WRONG: Verdict.UNSUPPORTED})
    ahead, memo = Ahead(), Memo()
    verifying = _verifying_ahead(engine, draft, ahead, memo, rewrites=1)
    await _until(lambda: "rewrite asked" in engine.noted)
    # asked as the claim was read, while its verdict is awaited
    assert "rewrite asked" in engine.noted and "verdicts answered" not in engine.noted
    engine.answer.set()
    (claim,) = (await verifying).claims
    assert claim.verdict is Verdict.UNSUPPORTED  # the model's, worse than the rule's

    # revise asks the same request for the claim as judged (shown with the rule's verdict):
    # it takes the rewrite made ahead
    shown = rewrite_check(
        claim, evidence(), memo=memo, cell=None, spans={e.id: e for e in evidence()}
    )
    assert shown is not None and shown.claim.verdict is Verdict.CONTRADICTED
    assert ahead.peek("run", request_key(shown.claim, shown.evidence, None)) is not None
    sentence, outcome, _ = await revise_claim(
        engine,
        claim,
        evidence(),
        final=False,
        memo=memo,
        ahead=lambda asked: ahead.take("run", asked),
    )
    assert engine.noted.count("rewrite asked") == 1  # not asked again
    assert outcome == "corrected" and sentence is not None and "300 tokens/s" in sentence.body


async def test_a_re_cited_claim_is_judged_before_its_first_verdict_is_back() -> None:
    draft = _draft(f"{RECITABLE} [@ev_old].")
    engine = Judge({RECITABLE: Verdict.SUPPORTED})
    verifying = _verifying_ahead(engine, draft, Ahead(), Memo(), rewrites=0)
    await _until(lambda: engine.noted.count("verdicts asked") == 2)
    # the first verdict is still awaited; the look held, so the claim re-cited to ev_cap is
    # being judged already
    assert engine.noted[:4] == ["verdicts asked", "look asked", "look answered", "verdicts asked"]
    engine.answer.set()
    (claim,) = (await verifying).claims
    assert (claim.verdict, claim.evidence_id) == (Verdict.SUPPORTED, "ev_cap")


class FailingLook(Judge):
    """The judging of one call fails (``failing``: the first verdicts, or the look at one
    claim's alternates asked after them); the early look of another claim waits meanwhile."""

    def __init__(self, first: dict[str, Verdict], failing: str) -> None:
        super().__init__(first)
        self.failing = failing
        self.cancelled = False

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        first = any(c.evidence[0].id in c.claim.citation_keys for c in checks)
        look = any(
            c.claim.text == UNCITED_ELSEWHERE and c.evidence[0].id == "ev_lfp" for c in checks
        )
        if (self.failing == "first verdicts" and first) or (self.failing == "look" and look):
            await asyncio.sleep(0.01)  # the early look is asked meanwhile
            raise RuntimeError("the judge's server answered 500")
        if any(c.claim.text == RECITABLE and c.evidence[0].id == "ev_cap" for c in checks):
            try:
                await asyncio.Event().wait()  # the early look: never answered
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return await super().judge(checks)


@pytest.mark.parametrize("failing", ["first verdicts", "look"])
async def test_an_early_look_is_stopped_when_the_judging_beside_it_fails(failing: str) -> None:
    draft = _draft(f"{RECITABLE} [@ev_old].", f"{UNCITED_ELSEWHERE} [@ev_cap].")
    first = {RECITABLE: Verdict.SUPPORTED, UNCITED_ELSEWHERE: Verdict.UNSUPPORTED}
    engine = FailingLook(first, failing)
    engine.answer.set()

    with pytest.raises(RuntimeError, match="500"):
        await verify_draft(engine, draft, evidence(), memo=Memo(), overlap=True)
    await asyncio.sleep(0)  # the cancellation reaches the look
    assert engine.cancelled  # not left running, spending tokens, after the pass failed
