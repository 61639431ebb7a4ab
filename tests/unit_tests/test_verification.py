"""Verification in the graph: verify, revise and finalize on constructed drafts.

Each draft has claims whose verdict is known in advance: supported, partial, unsupported,
contradicted by a number, a date or a negation, and uncited. The nodes are called directly in
the order ``route_after_verify`` picks, as the graph would run them.
"""

from __future__ import annotations

import asyncio
import importlib
import re
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import ClaimVerdict, Rewrite, VerdictBatch
from deep_research.graph.routing import route_after_verify
from deep_research.nodes import finalize, revise, verify
from deep_research.nodes.revise import revise_claim
from deep_research.report import verify as verifier
from deep_research.report.verify import (
    Memo,
    rank_alternates,
    verify_claims,
    verify_draft,
)
from deep_research.services import Services
from deep_research.state import Claim, EvidenceSpan, Report, State, Verdict
from deep_research.state.reducers import replace_claims
from deep_research.state.revision import needs_final_revision, needs_revision, revision_due
from deep_research.verification.checks import Analyses
from deep_research.verification.citations import normalize_draft
from tests.fakes import CountingEngine
from tests.unit_tests.scripted_model import ScriptedChatModel, structured

EVIDENCE = {
    "ev_cap": ("Hornsdale Power Reserve has a capacity of 150 MW.", "https://a.example/hpr"),
    "ev_exp": ("The expansion of Hornsdale was completed in 2020.", "https://a.example/hpr"),
    "ev_reg": ("The expansion was approved by the regulator.", "https://b.example/reg"),
    "ev_srv": ("The upgraded server delivers 300 tokens/s on a single GPU.", "https://c.example/s"),
    "ev_lfp": ("Most new grid batteries use LFP cells.", "https://d.example/lfp"),
}
SUPPORTED = "Hornsdale Power Reserve has a capacity of 150 MW"
PARTIAL = "Hornsdale Power Reserve has a capacity of 150 MW and cost A$90 million"
UNSUPPORTED = "Flywheels power forty remote cities across Norway"
WRONG_NUMBER = "The upgraded server delivers 3,000 tokens/s on a single GPU"
WRONG_DATE = "The expansion of Hornsdale was completed in 2019"
NEGATED = "The expansion was not approved by the regulator"
UNCITED = "Most new grid batteries use LFP cells"
DRAFT = f"""## Hornsdale

{SUPPORTED} [@ev_cap]. {PARTIAL} [@ev_cap]. {WRONG_DATE} [@ev_exp]. {NEGATED} [@ev_reg].

## Other

- {UNSUPPORTED} [@ev_cap].
- {WRONG_NUMBER} [@ev_srv].

{UNCITED}. The sources do not state what the expansion cost. We believe storage should grow.
"""
KNOWN = {
    SUPPORTED: Verdict.SUPPORTED,
    PARTIAL: Verdict.PARTIAL,
    UNSUPPORTED: Verdict.UNSUPPORTED,
    WRONG_NUMBER: Verdict.CONTRADICTED,
    WRONG_DATE: Verdict.CONTRADICTED,
    NEGATED: Verdict.CONTRADICTED,
}


def spans() -> list[EvidenceSpan]:
    return [
        EvidenceSpan(
            id=id,
            url=url,
            document_id=f"doc_{id}",
            step_id="s01",
            quote=quote,
            start=0,
            end=len(quote),
            relevance=0.5,
        )
        for id, (quote, url) in EVIDENCE.items()
    ]


def make_state(draft: str = DRAFT, depth: str = "light") -> State:
    config = resolve_config(Context(), depth=depth, engine="t", sources=["fake"])
    return State(question="Q?", draft=normalize_draft(draft), evidence=spans(), config=config)


class Recording:
    """A runtime whose custom events are kept."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.runtime: Runtime[Context] = Runtime(
            context=Context(), stream_writer=self.events.append
        )

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events if e["type"] == kind]


def apply(state: State, update: dict[str, Any]) -> None:
    """Apply a node's update as the graph's reducers do (usage adds up, claims replace)."""
    for key, value in update.items():
        if key == "usage":
            value = state.usage + value
        elif key == "claims":
            value = replace_claims(state.claims, [value])
        setattr(state, key, value)


async def run_verification(state: State, engine: Any, recording: Recording) -> tuple[Report, int]:
    """verify → (revise → verify)* → finalize, as the graph routes it; returns the revisions."""
    services = Services(engine=engine)
    apply(state, await verify(state, recording.runtime, services=services))
    while route_after_verify(state) == "revise":
        apply(state, await revise(state, recording.runtime, services=services))
        apply(state, await verify(state, recording.runtime, services=services))
    apply(state, await finalize(state, recording.runtime, services=services))
    assert state.report is not None
    return state.report, state.revisions


async def test_known_claims_get_their_verdicts_and_events() -> None:
    state, recording = make_state(), Recording()
    update = await verify(state, recording.runtime, services=Services(engine=OfflineEngine()))
    verdicts = {c.text: c.verdict for c in update["claims"]}
    assert {text: verdicts[text] for text in KNOWN} == KNOWN
    # the uncited claim is re-cited to the span that supports it; connective text and
    # opinions are not claims
    uncited = next(c for c in update["claims"] if c.text == UNCITED)
    assert uncited.citation_keys == [] and uncited.evidence_id == "ev_lfp"
    assert uncited.verdict is Verdict.SUPPORTED
    assert len(update["claims"]) == len(KNOWN) + 1
    for claim in update["claims"]:
        assert state.draft[claim.position_start : claim.position_end] == claim.text
    apply(state, update)
    assert [c.evidence_id for c in state.citations if not c.is_primary] == ["ev_lfp"]
    # one claim_verified event per claim, then the pass's summary
    assert {e["text"]: e["verdict"] for e in recording.of("claim_verified")} == {
        c.text: c.verdict.value for c in update["claims"] if c.verdict
    }
    (summary,) = recording.of("verification_summary")
    assert (summary["supported"], summary["partial"]) == (2, 1)
    assert (summary["unsupported"], summary["contradicted"]) == (1, 3)
    assert summary["total"] == 7 and summary["final"] is False and summary["passes"] == 1


async def test_revision_corrects_removes_and_recites_and_offsets_stay_exact() -> None:
    report, revisions = await run_verification(make_state(), OfflineEngine(), Recording())
    texts = [c.text for c in report.claims]
    for gone in (UNSUPPORTED, WRONG_NUMBER, WRONG_DATE, NEGATED):
        assert gone not in report.markdown
    # contradicted claims were corrected from their evidence, the unsupported one removed, the
    # uncited one re-cited; the partial one, narrowed to what its evidence states, would repeat
    # the claim before it, so it was removed rather than said twice
    assert "The upgraded server delivers 300 tokens/s on a single GPU" in texts
    assert "The expansion of Hornsdale was completed in 2020" in texts
    assert PARTIAL not in report.markdown and texts.count(SUPPORTED) == 1
    assert {c.verdict for c in report.claims} == {Verdict.SUPPORTED}
    assert "[^v" not in report.markdown  # nothing left to mark
    summary = report.verification
    assert (summary.corrected, summary.removed, summary.recited) == (3, 2, 1)
    assert summary.total == len(report.claims) and revisions == 1
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
    # one line at the end; the details are in report.json and report.html
    last = report.markdown.rstrip().splitlines()[-1]
    fixed = summary.removed + summary.corrected
    assert last.startswith("*Verification:") and f"{fixed} removed or corrected" in last
    assert "## Verification" not in report.markdown
    assert "Verification" not in report.outline and "References" not in report.outline
    assert report.outline == ["Hornsdale", "Other"]


@pytest.fixture
async def report() -> Report:
    revised, _ = await run_verification(make_state(), OfflineEngine(), Recording())
    return revised


def test_references_are_numbered_one_to_n_by_first_appearance(report: Report) -> None:
    numbers = [r.number for r in report.references]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len({r.url for r in report.references}) == len(numbers)
    body = report.markdown.split("\n## References")[0]
    cited = [int(n) for n in re.findall(r"\[(\d+)\]", body)]
    assert set(cited) == set(numbers)  # every number in the text is a reference, and back
    assert list(dict.fromkeys(cited)) == numbers  # first appearances in order 1..N
    by_number = {r.number: r.url for r in report.references}
    for citation in report.citations:
        if citation.is_primary:
            assert citation.reference_number in by_number
            assert citation.quote == EVIDENCE[citation.evidence_id][0]
            assert by_number[citation.reference_number] == EVIDENCE[citation.evidence_id][1]


class NeverFixes(OfflineEngine):
    """Judges like the offline engine; its rewrites change nothing, or say something new."""

    def __init__(self, *, vary: bool = False) -> None:
        self.vary = vary
        self.rewrites = 0

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        self.rewrites += 1
        text = f"{check.claim.text} in {1900 + self.rewrites}" if self.vary else check.claim.text
        return Reply(Rewrite(text=text, evidence_key="E1"))


async def test_the_loop_ends_within_its_budget_when_the_engine_never_fixes_anything() -> None:
    for vary in (False, True):
        engine, recording = NeverFixes(vary=vary), Recording()
        report, revisions = await run_verification(make_state(depth="medium"), engine, recording)
        # medium allows two rewriting passes, then one last pass removes what is left
        assert revisions == 3 and report.verification.passes == 4
        assert {c.verdict for c in report.claims} <= {Verdict.SUPPORTED, Verdict.PARTIAL}
        assert report.verification.removed == 4
        assert recording.of("verification_summary")[-1]["final"] is True
        for claim in report.claims:
            assert report.markdown[claim.position_start : claim.position_end] == claim.text


async def test_with_no_revision_budget_unsupported_claims_stay_flagged() -> None:
    state = make_state()
    assert state.config is not None
    state.config = state.config.model_copy(
        update={"budget": state.config.budget.model_copy(update={"max_revisions": 0})}
    )
    report, revisions = await run_verification(state, NeverFixes(), Recording())
    assert revisions == 0 and report.verification.contradicted == 3
    assert WRONG_NUMBER in report.markdown


def judged_texts(engine: CountingEngine) -> list[str]:
    return [check.claim.text for (checks,) in engine.called("judge") for check in checks]


async def test_unchanged_claims_keep_their_verdicts_without_being_judged_again() -> None:
    state, engine = make_state(), CountingEngine()
    services = Services(engine=engine)
    apply(state, await verify(state, Recording().runtime, services=services))
    first = judged_texts(engine)
    assert SUPPORTED in first
    state.draft = state.draft.replace(f"{SUPPORTED} [@ev_cap]", "Capacity is 150 MW [@ev_cap]")
    engine.calls.clear()
    update = await verify(state, Recording().runtime, services=services)
    assert judged_texts(engine) == ["Capacity is 150 MW"]
    claims = update["claims"]
    assert [c.verdict for c in claims][1:] == [c.verdict for c in state.claims][1:]
    # the others kept their ids, moved by the shorter first sentence
    assert [c.id for c in claims][1:] == [c.id for c in state.claims][1:]
    assert all(state.draft[c.position_start : c.position_end] == c.text for c in claims)


# --- the LLM engine, with scripted verdicts -------------------------------------------------


def _claims_in(prompt: str) -> list[tuple[str, str]]:
    return re.findall(r"claim_id: (cl_[0-9a-f]+)\nClaim:\n> (.*)", prompt)


def _verdicts(messages: list[BaseMessage], tools: Any) -> AIMessage:
    verdicts = []
    for claim_id, text in _claims_in(str(messages[1].content)):
        verdict = "SUPPORTED"  # even for the wrong number: the figure rule catches it
        if "not approved" in text or "2019" in text or "Flywheels" in text:
            verdict = "CONTRADICTED" if "Flywheels" not in text else "UNSUPPORTED"
        verdicts.append(
            {
                "claim_id": claim_id,
                "verdict": verdict,
                "confidence": 0.8,
                "reasoning": "scripted",
                "evidence_key": "E1",
                "quote": "a capacity of 150 MW" if "capacity" in text else None,
            }
        )
    return structured(VerdictBatch, verdicts=verdicts)


async def test_llm_verdicts_are_batched_retried_when_malformed_and_held_to_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one batch for every claim, as the replies below are scripted, and no rewrite asked ahead
    monkeypatch.setattr(
        importlib.import_module("deep_research.engines.llm.engine"), "JUDGE_BATCH", 99
    )
    monkeypatch.setattr(importlib.import_module("deep_research.nodes._ahead"), "ASK_AHEAD", False)
    malformed = structured(
        VerdictBatch, verdicts=[{"claim_id": "x", "verdict": "MAYBE", "confidence": 2}]
    )
    model = ScriptedChatModel(responses=[malformed, _verdicts, _verdicts])
    engine = LLMEngine(model, name="scripted")
    state = make_state(DRAFT.split("## Other")[0] + f"{WRONG_NUMBER} [@ev_srv].")
    update = await verify(state, Recording().runtime, services=Services(engine=engine))
    verdicts = {c.text: c for c in update["claims"]}
    assert verdicts[SUPPORTED].verdict is Verdict.SUPPORTED
    assert verdicts[SUPPORTED].evidence_id == "ev_cap"
    assert verdicts[WRONG_DATE].verdict is Verdict.CONTRADICTED
    assert verdicts[NEGATED].verdict is Verdict.CONTRADICTED
    # the model said SUPPORTED; the evidence says 300 tokens/s
    assert verdicts[WRONG_NUMBER].verdict is Verdict.CONTRADICTED
    assert "300 tokens/s" in verdicts[WRONG_NUMBER].reasoning
    assert verdicts[PARTIAL].verdict is Verdict.PARTIAL  # A$90 million is not in the evidence
    # the malformed batch was sent back with the problem named, then the batch answered;
    # the contradicted claims were judged once more against their alternates
    assert len(model.calls) == 3
    retry = str(model.calls[1][-1].content)
    assert "not usable" in retry and "VerdictBatch" in retry
    assert update["usage"].calls == 3


async def test_a_claim_without_evidence_is_unsupported_without_asking_the_engine() -> None:
    engine = CountingEngine()
    (judgement,) = (await verify_claims(engine, [("Hornsdale opened in 2017.", [])])).value
    assert engine.called("judge") == [] and judgement.verdict is Verdict.UNSUPPORTED
    assert judgement.evidence_index is None


def test_alternates_rank_real_support_above_word_overlap() -> None:
    claim = Claim(
        id="c", text=WRONG_NUMBER.replace("3,000", "300"), position_start=0, position_end=0
    )
    overlap = "The upgraded server on a single GPU delivers 900 tokens/s in benchmarks."
    evidence = [
        *spans(),
        *[
            s.model_copy(update={"id": "ev_ovl", "quote": overlap, "end": len(overlap)})
            for s in spans()[:1]
        ],
    ]
    ranked = rank_alternates(claim, evidence)
    assert [e.id for e in ranked][:2] == ["ev_srv", "ev_ovl"]


def test_alternates_ranked_with_shared_analyses_are_ranked_the_same() -> None:
    analyses = Analyses()
    for text, evidence_id in [(t, "ev_cap") for t in KNOWN] + [(UNCITED, "ev_reg")]:
        claim = Claim(
            id="c", text=text, position_start=0, position_end=0, citation_keys=[evidence_id]
        )
        alone = rank_alternates(claim, spans())
        assert rank_alternates(claim, spans(), analyses=analyses) == alone


def test_a_memo_ranks_each_claim_against_each_span_once_and_changes_no_ranking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[tuple[str, str]] = []
    real = verifier.support_rank

    def counting(claim: str, quote: str, analyses: Analyses | None = None) -> tuple[int, float]:
        checked.append((claim, quote))
        return real(claim, quote, analyses)

    monkeypatch.setattr(verifier, "support_rank", counting)
    claim = Claim(id="c", text=UNCITED, position_start=0, position_end=0, citation_keys=["ev_reg"])
    alone = rank_alternates(claim, spans())
    first = len(checked)
    assert first > 0
    memo = Memo()
    # a verify pass, then the revise pass after it, rank the same claim against the same spans
    assert rank_alternates(claim, spans(), memo=memo) == alone
    assert rank_alternates(claim, spans(), memo=memo) == alone
    assert len(checked) == 2 * first


def span_of(id: str, quote: str) -> EvidenceSpan:
    return EvidenceSpan(
        id=id,
        url=f"https://x.example/{id}",
        document_id=id,
        step_id="s01",
        quote=quote,
        start=0,
        end=len(quote),
    )


def test_only_the_spans_sharing_most_words_are_checked_ties_by_id_then_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[str] = []
    real = verifier.support_rank

    def counting(claim: str, quote: str, analyses: Analyses | None = None) -> tuple[int, float]:
        checked.append(quote)
        return real(claim, quote, analyses)

    monkeypatch.setattr(verifier, "support_rank", counting)
    words = ["hornsdale", "reserve", "capacity", "battery", "grid", "australia"]
    claim = Claim(
        id="c",
        text="Hornsdale reserve capacity battery grid Australia",
        position_start=0,
        position_end=0,
        citation_keys=["ev_00"],
    )
    # span i shares i % 6 + 1 words with the claim; ev_00 is cited, ev_none shares nothing; the
    # second ev_05 ties with ev_02, ev_08 and ev_14 for the last three places
    evidence = [
        span_of(f"ev_{i:02}", " ".join(words[: i % 6 + 1]) + f" item{i}") for i in range(20)
    ]
    evidence += [
        span_of("ev_none", "Flywheels in Norway"),
        span_of("ev_05", "Hornsdale reserve capacity again"),
    ]
    rank_alternates(claim, evidence, memo=Memo())
    shared = {
        (i, e.id): len(set(words) & set(e.quote.lower().split()))
        for i, e in enumerate(evidence)
        if e.id != "ev_00"
    }
    expected = sorted((k for k, n in shared.items() if n), key=lambda k: (-shared[k], k[1], k[0]))
    assert checked == [evidence[i].quote for i, _ in expected[: verifier.SHORTLIST]]
    assert len(checked) == verifier.SHORTLIST < len(expected)
    assert "Hornsdale reserve capacity again" in checked and not any("item14" in q for q in checked)


def test_a_claim_s_alternates_are_worked_out_once_per_evidence_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A revise pass asks for the alternates its verify pass ranked: they are kept."""
    worked_out: list[str] = []
    real = verifier._alternates

    def counting(claim: Claim, *args: Any) -> list[EvidenceSpan]:
        worked_out.append(claim.text)
        return real(claim, *args)

    monkeypatch.setattr(verifier, "_alternates", counting)
    memo = Memo()
    claim = Claim(id="c", text=UNCITED, position_start=0, position_end=0, citation_keys=["ev_reg"])
    first = rank_alternates(claim, spans(), memo=memo)
    assert first, "the uncited claim has alternates"
    first.clear()  # a caller's list is its own
    again = rank_alternates(claim, spans(), memo=memo)  # an equal list, as revise resolves it
    assert again == rank_alternates(claim, spans()) and worked_out == [UNCITED, UNCITED]
    # other citations, or another claim text, are ranked anew
    recited = claim.model_copy(update={"citation_keys": []})
    assert rank_alternates(recited, spans(), memo=memo) == rank_alternates(recited, spans())
    assert len(worked_out) == 4


def test_the_memo_indexes_each_evidence_list_once_and_never_serves_a_changed_one() -> None:
    memo = Memo()
    claim = Claim(id="c", text=UNCITED, position_start=0, position_end=0)
    index = memo.index(spans())
    assert memo.index(spans()) is index  # an equal list, built anew, is the same list
    assert rank_alternates(claim, spans(), memo=memo) == rank_alternates(claim, spans())
    # the same ids with another quote: indexed afresh, and ranked on the new quote
    changed = [
        e.model_copy(update={"quote": "Flywheels power remote cities."}) if e.id == "ev_lfp" else e
        for e in spans()
    ]
    assert memo.index(changed) is not index
    assert memo.index(changed) is memo.index(changed)  # the list last asked about, served again
    assert rank_alternates(claim, changed, memo=memo) == rank_alternates(claim, changed)
    assert "ev_lfp" not in [e.id for e in rank_alternates(claim, changed, memo=memo)]
    for n in range(verifier.INDEX_LIMIT * 2):  # bounded: old lists are forgotten
        memo.index(spans()[: n % 5])
        assert len(memo._indexes) <= verifier.INDEX_LIMIT
    # after another list, the first is served its own index, not the last one's
    first = spans()
    other = memo.index(changed)
    assert memo.index(first) is not other and memo.index(first).spans == list(first)


class SlowJudge(OfflineEngine):
    """The offline engine, answering a judge call after a model's round trip."""

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        await asyncio.sleep(1.0)
        return await super().judge(checks)


async def test_ranking_alternates_while_the_engine_judges_changes_no_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = await verify_draft(OfflineEngine(), DRAFT, spans())
    at_once = await verify_draft(OfflineEngine(), DRAFT, spans(), memo=Memo(), overlap=True)
    assert at_once.claims == plain.claims and at_once.citations == plain.citations
    memo = Memo()
    overlapped = await verify_draft(SlowJudge(), DRAFT, spans(), memo=memo, overlap=True)
    assert overlapped.claims == plain.claims and overlapped.citations == plain.citations
    # during the round trip every judged claim was ranked, the supported ones too: revise
    # finds them in the memo
    checked: list[str] = []
    real = verifier.support_rank

    def counting(claim: str, quote: str, analyses: Analyses | None = None) -> tuple[int, float]:
        checked.append(claim)
        return real(claim, quote, analyses)

    monkeypatch.setattr(verifier, "support_rank", counting)
    for claim in overlapped.judged:
        rank_alternates(claim, spans(), memo=memo)
    assert checked == []


def test_a_full_memo_starts_afresh() -> None:
    memo = Memo(limit=2)
    quotes = [text for text, _ in EVIDENCE.values()][:3]
    ranks = [memo.support_rank(SUPPORTED, quote) for quote in quotes]
    assert len(memo._ranks) == 1  # the third rank found the memo full and emptied it first
    assert memo.support_rank(SUPPORTED, quotes[2]) == ranks[2]


# --- partial claims: narrowed, or kept and marked --------------------------------------------


def claim_with(verdict: Verdict, **update: Any) -> Claim:
    fields: dict[str, Any] = {
        "id": "c",
        "text": PARTIAL,
        "position_start": 0,
        "position_end": len(PARTIAL),
        "citation_keys": ["ev_cap"],
        "verdict": verdict,
        "evidence_id": "ev_cap",
        "reasoning": "the evidence does not state the claim's A$90 million",
    }
    return Claim(**(fields | update))


def test_partial_claims_are_revised_while_rewriting_passes_remain_and_kept_after() -> None:
    partial, contradicted = claim_with(Verdict.PARTIAL), claim_with(Verdict.CONTRADICTED)
    assert needs_revision(partial) and not needs_final_revision(partial)
    assert needs_revision(contradicted) and needs_final_revision(contradicted)
    assert not needs_revision(claim_with(Verdict.SUPPORTED))
    assert revision_due([partial], revisions=0, max_revisions=1)
    assert not revision_due([partial], revisions=1, max_revisions=1)  # only a last pass is left
    assert revision_due([contradicted], revisions=1, max_revisions=1)
    assert not revision_due([partial], revisions=0, max_revisions=0)


async def test_the_offline_engine_narrows_a_partial_claim_to_the_sentence_that_states_it() -> None:
    evidence = spans()[0].model_copy(
        update={"quote": "It opened in 2017. " + EVIDENCE["ev_cap"][0]}
    )
    sentence, outcome, _ = await revise_claim(
        OfflineEngine(), claim_with(Verdict.PARTIAL), [evidence], final=False
    )
    assert sentence is not None and outcome == "corrected"
    assert (sentence.body, sentence.ids) == (SUPPORTED, ("ev_cap",))


async def test_the_last_pass_keeps_a_partial_claim_and_removes_a_contradicted_one() -> None:
    state = make_state(f"## H\n\n{PARTIAL} [@ev_cap]. {WRONG_NUMBER} [@ev_srv].")
    apply(state, await verify(state, Recording().runtime, services=Services(engine=NeverFixes())))
    state.revisions = state.run_config.budget.max_revisions  # the rewriting passes are spent
    engine = NeverFixes()
    revised = await revise(state, Recording().runtime, services=Services(engine=engine))
    assert engine.rewrites == 0
    assert revised["draft"] == f"## H\n\n{PARTIAL} [@ev_cap].\n"
    assert revised["verification"].removed == 1


async def test_the_llm_rewrite_sees_the_verdict_and_its_reason_and_narrows_the_claim() -> None:
    model = ScriptedChatModel(
        responses=[
            structured(Rewrite, text=f"{SUPPORTED} (its cost is not stated)", evidence_key="E1")
        ]
    )
    sentence, outcome, usage = await revise_claim(
        LLMEngine(model, name="scripted"), claim_with(Verdict.PARTIAL), spans()[:1], final=False
    )
    prompt = str(model.calls[0][-1].content)
    assert "Verdict: PARTIAL" in prompt and "does not state the claim's A$90 million" in prompt
    assert "PARTIAL: narrow it" in str(model.calls[0][0].content)
    assert sentence is not None and outcome == "corrected" and usage.calls == 1
    assert sentence.body == f"{SUPPORTED} (its cost is not stated)"


async def test_a_partial_claim_that_cannot_be_narrowed_stays_marked_with_its_reason() -> None:
    engine = NeverFixes()
    report, revisions = await run_verification(make_state(), engine, Recording())
    assert revisions == 2 and engine.rewrites >= 1  # the partial claim was sent for rewriting
    partial = next(c for c in report.claims if c.text == PARTIAL)
    assert partial.verdict is Verdict.PARTIAL
    assert f"{PARTIAL} [1] *(partly supported)*[^v1]." in report.markdown
    notes = report.markdown.split("\n## References\n")[1]  # the footnotes follow the list
    assert "1 claim is marked in the text" in notes
    assert "[^v1]: Partly supported: the evidence does not state the claim's A$90 million." in notes
    assert notes.count("[^v") == 1  # every other claim is supported
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text


async def test_without_revision_every_claim_not_fully_supported_is_marked() -> None:
    state = make_state()
    assert state.config is not None
    state.config = state.config.model_copy(
        update={"budget": state.config.budget.model_copy(update={"max_revisions": 0})}
    )
    report, _ = await run_verification(state, NeverFixes(), Recording())
    flagged = [c for c in report.claims if c.verdict is not Verdict.SUPPORTED]
    assert len(flagged) == 5  # partial, unsupported and three contradicted
    body, notes = report.markdown.split("\n## References\n")
    for number, claim in enumerate(sorted(flagged, key=lambda c: c.position_start), start=1):
        after = report.markdown[claim.position_end :]
        assert re.match(rf"(?: ?\[\d\])* \*\([a-z ]+\)\*\[\^v{number}\]\.", after)
        assert f"[^v{number}]: " in notes
    assert "*(contradicted by its evidence)*" in body and "*(unsupported)*" in body
    assert "Contradicted by its evidence: the evidence gives 300 tokens/s" in notes
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text


async def test_a_revision_that_changes_nothing_writes_no_draft_and_its_pass_no_claims() -> None:
    """The checkpoints keep each write of the draft and claims (docs/decisions.md): a value
    that did not change is not written again; citations are the claims' and never written."""
    state, recording = (
        make_state(f"## H\n\n{SUPPORTED} [@ev_cap]. {PARTIAL} [@ev_cap]."),
        Recording(),
    )
    services = Services(engine=NeverFixes())
    first = await verify(state, recording.runtime, services=services)
    assert first["claims"] and "citations" not in first
    apply(state, first)
    assert route_after_verify(state) == "revise"
    revised = await revise(state, recording.runtime, services=services)
    assert "draft" not in revised and revised["revisions"] == 1, "the rewrite changed nothing"
    apply(state, revised)
    again = await verify(state, recording.runtime, services=services)
    assert "claims" not in again and "citations" not in again
    assert again["verification"].passes == 2


async def test_a_rewrite_the_engine_left_unchanged_is_not_asked_again() -> None:
    """The second rewriting pass sends only the requests the first did not answer with the
    claim as it was; the report is the one a pass asking everything again would give."""
    engine, recording = NeverFixes(), Recording()
    report, revisions = await run_verification(make_state(depth="medium"), engine, recording)
    assert revisions == 3  # two rewriting passes, then the last one
    state = make_state(depth="medium")
    services = Services(engine=NeverFixes())
    apply(state, await verify(state, recording.runtime, services=services))
    first = await revise(state, recording.runtime, services=services)
    asked = services.engine.rewrites  # type: ignore[union-attr]
    assert asked > 0 and len(first["unchanged_rewrites"]) == asked
    assert engine.rewrites == asked, "the second pass asked again what the first had asked"
    # asking everything again (nothing remembered) gives the same report, at twice the calls
    forgetful, again = NeverFixes(), make_state(depth="medium")
    services = Services(engine=forgetful)
    apply(again, await verify(again, recording.runtime, services=services))
    while route_after_verify(again) == "revise":
        apply(again, await revise(again, recording.runtime, services=services))
        again.unchanged_rewrites = []
        apply(again, await verify(again, recording.runtime, services=services))
    apply(again, await finalize(again, recording.runtime, services=services))
    assert again.report is not None and forgetful.rewrites == 2 * asked
    assert again.report.markdown == report.markdown
    assert again.report.claims == report.claims


async def test_a_fallback_rewrite_is_asked_again() -> None:
    """A model that gave nothing usable gets its request again in the next pass."""

    class FallsBack(NeverFixes):
        async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
            self.rewrites += 1
            return Reply(Rewrite(text=check.claim.text), fallback=True)

    state, recording = make_state(depth="medium"), Recording()
    services = Services(engine=FallsBack())
    apply(state, await verify(state, recording.runtime, services=services))
    first = await revise(state, recording.runtime, services=services)
    asked = services.engine.rewrites  # type: ignore[union-attr]
    assert asked > 0 and "unchanged_rewrites" not in first
    apply(state, first)
    apply(state, await verify(state, recording.runtime, services=services))
    await revise(state, recording.runtime, services=services)
    assert services.engine.rewrites == 2 * asked  # type: ignore[union-attr]
