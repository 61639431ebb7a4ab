"""The whole graph on the offline engine over the bundled sample corpus."""

from __future__ import annotations

import asyncio
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from deep_research.context import Context
from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.schemas import Rewrite
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.report import article_markdown
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Report, Verdict

QUESTION = (
    "How do LFP and NMC batteries compare for grid storage, and what did Hornsdale Power "
    "Reserve cost?"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> LocalCorpus:
    data = tmp_path_factory.mktemp("data")
    return LocalCorpus(SAMPLE_CORPUS, default_index_path(data, SAMPLE_CORPUS))


def _graph(corpus: LocalCorpus) -> CompiledStateGraph[Any, Any, Any, Any]:
    return build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )


def _config() -> dict[str, Any]:
    return {"configurable": {"thread_id": uuid.uuid4().hex}}


async def _ask(graph: Any, question: str, config: dict[str, Any], **context: Any) -> Any:
    return await graph.ainvoke(
        {"messages": [HumanMessage(question)]}, config, context=Context(**context)
    )


@pytest.fixture(scope="module")
def report(corpus: LocalCorpus) -> Report:
    out = asyncio.run(_ask(_graph(corpus), QUESTION, _config(), allow_clarification=False))
    result: Report = out["report"]
    return result


def test_report_cites_the_page_of_each_part_of_the_question(report: Report) -> None:
    # evidence ranks the sentences of a page whose title names the step's subject first, so
    # each part cites its own page rather than many pages' passing mentions
    urls = {r.url for r in report.references}
    assert len(urls) >= 3
    assert any(u.endswith("/lfp-vs-nmc-chemistry.md") for u in urls)
    assert any(u.endswith("/hornsdale-power-reserve.md") for u in urls)
    for reference in report.references:
        assert Path(reference.location).parent == SAMPLE_CORPUS
    assert report.extractive
    assert "offline extractive engine" in report.markdown


async def test_every_citation_resolves_to_a_verbatim_quote(
    report: Report, corpus: LocalCorpus
) -> None:
    # the quotes are in state; re-derive them from the claims' evidence through the corpus
    assert report.citations
    claims = {c.id: c for c in report.claims}
    for citation in report.citations:
        assert citation.claim_id in claims
    for claim in report.claims:
        assert claim.evidence_id is not None
    documents = {r.url: (await corpus.read(r.url)).text for r in report.references}
    assert documents


async def test_evidence_quotes_occur_at_their_offsets(corpus: LocalCorpus) -> None:
    graph = _graph(corpus)
    config = _config()
    await _ask(graph, QUESTION, config, allow_clarification=False, depth="light")
    state = (await graph.aget_state(config)).values
    evidence = {e.id: e for e in state["evidence"]}
    cited = {c.evidence_id for c in state["report"].citations}
    assert cited
    for evidence_id in cited:
        span = evidence[evidence_id]
        text = (await corpus.read(span.url)).text
        assert text[span.start : span.end] == span.quote


def test_every_claim_has_a_verdict_and_exact_offsets(report: Report) -> None:
    assert len(report.claims) >= 5
    for claim in report.claims:
        assert claim.verdict in set(Verdict)
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
    summary = report.verification
    assert summary.total == len(report.claims)
    assert summary.passes >= 1


def test_references_are_numbered_one_to_n_in_order_of_first_appearance(report: Report) -> None:
    numbers = [r.number for r in report.references]
    assert numbers == list(range(1, len(numbers) + 1))
    body = report.markdown.split("\n## References")[0]
    first_seen = [body.index(f"[{n}]") for n in numbers]
    assert first_seen == sorted(first_seen)


def test_report_metrics_and_config_are_filled(report: Report) -> None:
    assert report.metrics.sources_consulted > report.metrics.sources_cited >= 3
    assert report.metrics.searches > 0
    assert report.config.engine == "offline"
    assert report.schema_version == "v1"


async def test_ambiguous_question_interrupts_and_resumes_with_the_answer(
    corpus: LocalCorpus,
) -> None:
    graph, config = _graph(corpus), _config()
    first = await _ask(graph, "batteries", config, depth="light")
    interrupt = first["__interrupt__"][0].value
    assert interrupt["type"] == "clarification"
    assert "batteries" in interrupt["question"]
    out = await graph.ainvoke(
        Command(resume="safety of LFP grid batteries"), config, context=Context(depth="light")
    )
    assert out["report"].references
    state = (await graph.aget_state(config)).values
    assert state["clarification"] == "safety of LFP grid batteries"


async def test_clarification_can_be_switched_off(corpus: LocalCorpus) -> None:
    out = await _ask(
        _graph(corpus), "batteries", _config(), allow_clarification=False, depth="light"
    )
    assert "__interrupt__" not in out
    assert out["report"] is not None


async def test_plan_review_edits_replace_the_plan(corpus: LocalCorpus) -> None:
    graph, config = _graph(corpus), _config()
    first = await _ask(
        graph, QUESTION, config, allow_clarification=False, review_plan=True, depth="light"
    )
    payload = first["__interrupt__"][0].value
    assert payload["type"] == "plan_review" and payload["steps"]
    steps = ["Moss Landing battery capacity", "Thermal runaway in LFP cells"]
    await graph.ainvoke(
        Command(resume={"steps": steps}),
        config,
        context=Context(allow_clarification=False, review_plan=True, depth="light"),
    )
    state = (await graph.aget_state(config)).values
    assert [s.title for s in state["plan"]] == steps
    assert {f.step_id for f in state["findings"]} == {"s01", "s02"}


async def test_a_follow_up_in_the_same_thread_is_a_new_question(corpus: LocalCorpus) -> None:
    graph, config = _graph(corpus), _config()
    await _ask(graph, QUESTION, config, allow_clarification=False, depth="light")
    out = await _ask(
        graph,
        "What caused fires at Moss Landing?",
        config,
        allow_clarification=False,
        depth="light",
    )
    state = (await graph.aget_state(config)).values
    assert state["question"] == "What caused fires at Moss Landing?"
    assert list(state["history"][0]) == ["user", QUESTION]
    assert out["report"].question == "What caused fires at Moss Landing?"
    assert len([m for m in out["messages"] if m.type == "ai"]) == 2


async def test_web_search_mode_runs_one_researcher_for_one_round(corpus: LocalCorpus) -> None:
    graph, config = _graph(corpus), _config()
    out = await _ask(graph, QUESTION, config, mode="web_search")
    state = (await graph.aget_state(config)).values
    assert len(state["plan"]) == 1 and state["round"] == 1
    assert out["report"].references


async def test_simple_mode_answers_without_research(corpus: LocalCorpus) -> None:
    graph, config = _graph(corpus), _config()
    out = await _ask(graph, QUESTION, config, mode="simple")
    state = (await graph.aget_state(config)).values
    assert state["plan"] == [] and state["sources"] == []
    assert "offline engine answers only from sources" in out["report"].markdown


async def test_verification_off_skips_the_checks_and_the_report_says_so(
    corpus: LocalCorpus,
) -> None:
    # the setting for users who want speed: no verify pass, no verdict, and no claim of checking
    graph, config = _graph(corpus), _config()
    nodes: list[str] = []
    async for update in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        config,
        context=Context(allow_clarification=False, depth="light", verify=False),
        stream_mode="updates",
    ):
        nodes.extend(update)
    report: Report = (await graph.aget_state(config)).values["report"]
    assert "synthesize" in nodes and "finalize" in nodes
    assert "verify" not in nodes and "revise" not in nodes
    assert report.claims and all(c.verdict is None for c in report.claims)
    assert report.verification.passes == 0 and not report.config.verify
    assert report.markdown.rstrip().endswith(
        "*Verification: off for this run (the verify setting); no claim was checked against "
        "the evidence.*"
    )
    assert "checked claims fully supported" not in report.markdown
    assert "Verification: off" not in article_markdown(report)


async def test_progress_events_arrive_in_order(corpus: LocalCorpus) -> None:
    graph = _graph(corpus)
    kinds = []
    async for _namespace, event in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        _config(),
        context=Context(allow_clarification=False, depth="light"),
        stream_mode="custom",
        subgraphs=True,  # researcher events come from the subgraph
    ):
        kinds.append(event["type"])
    order = [
        "research_started",
        "plan_created",
        "step_started",
        "query_issued",
        "source_found",
        "step_completed",
        "synthesis_progress",
        "claim_verified",
        "verification_summary",
        "research_completed",
    ]
    positions = [kinds.index(k) for k in order]
    assert positions == sorted(positions)
    assert kinds[-1] == "research_completed"


async def test_empty_question_fails_with_a_clear_error(corpus: LocalCorpus) -> None:
    from deep_research.errors import InvalidQuestionError

    with pytest.raises(InvalidQuestionError, match="empty"):
        await _ask(_graph(corpus), "   ", _config())


class Embellishing(OfflineEngine):
    """Writes the offline report plus one claim its evidence only partly states.

    With ``narrows`` it rewrites like the offline engine (the claim is narrowed to the
    evidence sentence); without, its rewrites change nothing.
    """

    ADDED = "and it was inspected by 7 astronauts"

    def __init__(self, *, narrows: bool) -> None:
        self.narrows = narrows

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Any,
        evidence: Any,
        on_progress: Any = None,
        *,
        inputs: Any = None,
    ) -> Reply[str]:
        written = await super().write_report(question, brief, plan, evidence, on_progress)
        claim = f"{evidence[0].quote.rstrip().rstrip('.!?')} {self.ADDED} [E1]."
        return Reply(f"{written.value}\n## Also\n\n{claim}\n")

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        if self.narrows:
            return await super().rewrite(check)
        return Reply(Rewrite(text=check.claim.text, evidence_key="E1"))


@pytest.mark.parametrize("narrows", [True, False])
async def test_a_partial_claim_is_narrowed_or_else_marked_with_a_footnote(
    corpus: LocalCorpus, narrows: bool
) -> None:
    graph = build_graph(
        engine=Embellishing(narrows=narrows),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    out = await _ask(graph, QUESTION, _config(), allow_clarification=False, depth="light")
    report: Report = out["report"]
    added = [c for c in report.claims if Embellishing.ADDED in c.text]
    if narrows:
        # narrowed to the quote it embellished (removed instead when the report states it)
        summary = report.verification
        assert added == [] and summary.removed + summary.corrected >= 1
        assert "[^v" not in report.markdown
        assert all(c.verdict is Verdict.SUPPORTED for c in report.claims)
    else:
        (claim,) = added
        assert claim.verdict is Verdict.PARTIAL
        after = report.markdown[claim.position_end :]
        assert re.match(r"(?: ?\[\d+\])+ \*\(partly supported\)\*\[\^v1\]\.", after)
        assert "No claim needed revision" not in report.markdown  # it was tried
        assert (
            "[^v1]: Partly supported: the evidence does not state the claim's 7."
            in (report.markdown.split("\n## References\n")[1])
        )
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
