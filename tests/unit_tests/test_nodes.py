"""Each node called directly, with scripted models and fake providers."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Send

from deep_research.context import Context, resolve_config
from deep_research.engines import OfflineEngine
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import Reflection, ResearchPlan, SearchQueries
from deep_research.errors import SourceError
from deep_research.graph.routing import (
    route_after_dispatch,
    route_after_notes,
    route_after_reflect,
    route_after_verify,
)
from deep_research.nodes import (
    clarify,
    dispatch,
    finalize,
    plan,
    read_sources,
    reflect,
    revise,
    search_sources,
    synthesize,
    verify,
)
from deep_research.nodes.generate_queries import generate_queries
from deep_research.services import Services
from deep_research.state import (
    Document,
    EvidenceSpan,
    Finding,
    PlanStep,
    ResearcherState,
    SearchResult,
    State,
    Verdict,
)
from deep_research.state.models import stable_id
from deep_research.verification.citations import normalize_draft
from tests.unit_tests.scripted_model import ScriptedChatModel, invalid_json, structured

TEXT = (
    "# Notes\n\nHornsdale Power Reserve has a capacity of 150 MW. "
    "It was expanded in 2020 with support from ARENA. Pumped hydro is older than batteries.\n"
)


class FakeProvider:
    """A provider whose search results and documents are given up front."""

    name = "fake"

    def __init__(self, pages: dict[str, str], *, fail_reads: frozenset[str] = frozenset()) -> None:
        self.pages = pages
        self.fail_reads = fail_reads
        self.searches: list[str] = []

    async def search(self, query: str, k: int) -> list[SearchResult]:
        self.searches.append(query)
        return [
            SearchResult(url=url, title=url.rsplit("/", 1)[-1], provider=self.name, score=1.0)
            for url in list(self.pages)[:k]
        ]

    async def read(self, url: str) -> Document:
        if url in self.fail_reads:
            raise SourceError(f"cannot read {url}")
        text = self.pages[url]
        return Document(id=stable_id("doc", text), url=url, title="Page", text=text)


def runtime(**context: Any) -> Runtime[Context]:
    return Runtime(context=Context(**context))


def config(**context: Any) -> Any:
    return resolve_config(Context(**context), depth="light", engine="offline", sources=["fake"])


def span(id: str, quote: str, *, url: str = "https://a.example/1", step: str = "s01") -> Any:
    return EvidenceSpan(
        id=id,
        url=url,
        document_id="doc_1",
        step_id=step,
        quote=quote,
        start=0,
        end=len(quote),
        relevance=0.5,
    )


async def test_clarify_takes_the_last_human_message_and_resets_the_previous_question() -> None:
    state = State(
        messages=[HumanMessage("first question here"), HumanMessage("second question here")],
        question="first question here",
        round=3,
    )
    update = await clarify(state, runtime(allow_clarification=False), services=Services())
    assert update["question"] == "second question here"
    assert update["round"] == 0 and update["findings"].value == []
    assert update["history"] == [("user", "first question here")]


async def test_plan_numbers_steps_and_resolves_auto_depth_from_a_scripted_plan() -> None:
    model = ScriptedChatModel(
        responses=[
            invalid_json(ResearchPlan),  # malformed first: retried
            structured(
                ResearchPlan,
                brief="b",
                complexity="complex",
                steps=[{"title": f"step {i}"} for i in range(14)],
            ),
        ]
    )
    services = Services(engine=LLMEngine(model, name="m"), sources=[FakeProvider({})])
    update = await plan(State(question="q"), runtime(depth="auto"), services=services)
    assert update["config"].depth == "extended"  # complex questions get the extended budget
    # ... and are planned within it: up to 12 steps, not the 5 of medium
    assert "at most 12 independent research steps" in str(model.calls[0][0].content)
    assert [s.id for s in update["plan"]] == [f"s{i:02d}" for i in range(1, 13)]
    assert len(model.calls) == 2 and update["usage"].calls == 2


async def test_auto_cuts_the_plan_of_a_moderate_question_to_the_medium_budget() -> None:
    drafted = structured(
        ResearchPlan,
        brief="b",
        complexity="moderate",
        steps=[{"title": f"s {i}"} for i in range(9)],
    )
    services = Services(engine=LLMEngine(ScriptedChatModel(responses=[drafted]), name="m"))
    update = await plan(State(question="q"), runtime(depth="auto"), services=services)
    assert update["config"].depth == "medium" and len(update["plan"]) == 5


async def test_dispatch_sends_at_most_the_parallel_budget_in_plan_order() -> None:
    steps = [PlanStep(id=f"s0{i}", title=f"t{i}") for i in range(1, 6)]
    state = State(plan=steps, config=config(max_parallel_researchers=2))
    update = await dispatch(state, runtime(), services=Services())
    assert update["active"] == ["s01", "s02"] and update["round"] == 1
    after = State(plan=steps, config=state.config, **update)
    sends = route_after_dispatch(after)
    assert isinstance(sends, list) and all(isinstance(s, Send) for s in sends)
    assert [s.arg["step"].id for s in sends] == ["s01", "s02"]
    assert route_after_reflect(after) == "dispatch"  # the round's other steps wait their turn


async def test_reflect_adds_steps_for_the_next_round_and_stops_at_the_budget() -> None:
    steps = [PlanStep(id="s01", title="t")]
    model = ScriptedChatModel(
        responses=[
            structured(
                Reflection,
                decision="continue",
                new_steps=[{"title": "gap one"}],
                replaces=[],
                unmet=["the 2024 price", " "],
            )
        ]
    )
    services = Services(engine=LLMEngine(model, name="m"))
    state = State(plan=steps, dispatched=["s01"], round=1, config=config(max_rounds=2))
    state.config = state.config.model_copy(  # type: ignore[union-attr]
        update={"mode": "deep_research"}
    )
    update = await reflect(state, runtime(), services=services)
    assert [(s.id, s.title, s.round) for s in update["plan"][1:]] == [("s02", "gap one", 2)]
    assert update["unmet"] == ["the 2024 price"]  # the checklist's gaps, kept for the writer
    exhausted = State(plan=steps, dispatched=["s01"], round=2, config=state.config)
    assert await reflect(exhausted, runtime(), services=services) == {}
    assert route_after_reflect(exhausted) == "synthesize"


async def test_queries_retry_a_malformed_reply_and_drop_repeats() -> None:
    model = ScriptedChatModel(
        responses=[
            invalid_json(SearchQueries),
            structured(SearchQueries, queries=["old query", "new query", "NEW QUERY"]),
        ]
    )
    state = ResearcherState(
        step=PlanStep(id="s01", title="t"), question="q", config=config(), queries=["old query"]
    )
    update = await generate_queries(
        state, runtime(), services=Services(engine=LLMEngine(model, name="m"))
    )
    assert update["new_queries"] == ["new query"]
    assert update["queries"] == ["old query", "new query"]


async def test_search_dedupes_urls_and_caps_each_domain() -> None:
    pages = {f"https://www.site.example/{i}": TEXT for i in range(6)}
    pages["https://other.example/x"] = TEXT
    provider = FakeProvider(pages)
    state = ResearcherState(
        step=PlanStep(id="s01", title="t"),
        question="q",
        config=config(results_per_query=10, per_domain_cap=2),
        new_queries=["a", "b"],
    )
    update = await search_sources(
        state, runtime(), services=Services(engine=OfflineEngine(), sources=[provider])
    )
    urls = [r.url for r in update["results"]]
    assert len(urls) == len(set(urls)) == 3
    assert provider.searches == ["a", "b"]


async def test_a_failed_read_becomes_a_failed_source_not_an_exception() -> None:
    provider = FakeProvider(
        {"https://a.example/ok": TEXT, "https://a.example/bad": TEXT},
        fail_reads=frozenset({"https://a.example/bad"}),
    )
    hits = [SearchResult(url=u, title="x", provider="fake") for u in provider.pages]
    state = ResearcherState(
        step=PlanStep(id="s01", title="Hornsdale capacity"),
        question="q",
        config=config(),
        results=hits,
        queries=["hornsdale capacity"],
    )
    update = await read_sources(state, runtime(), services=Services(sources=[provider]))
    status = {s.url: (s.crawl_status, s.reason) for s in update["sources"]}
    assert status["https://a.example/bad"] == ("failed", "cannot read https://a.example/bad")
    first = update["evidence"][0].quote  # a window: its on-topic next sentence comes along
    assert first.startswith("Hornsdale Power Reserve has a capacity of 150 MW.")
    assert TEXT[update["evidence"][0].start : update["evidence"][0].end] == (
        update["evidence"][0].quote
    )


def test_researcher_searches_again_only_when_evidence_is_thin() -> None:
    base = {"step": PlanStep(id="s01", title="t"), "question": "q", "config": config()}
    thin = ResearcherState(
        **base, findings=[Finding(step_id="s01", notes="", sufficient=False)], iteration=1
    )
    assert route_after_notes(thin) == "generate_queries"
    thin.iteration = 2
    assert route_after_notes(thin) == "__end__"


async def test_synthesize_maps_engine_keys_to_evidence_ids() -> None:
    evidence = [span("ev_one", "Hornsdale Power Reserve has a capacity of 150 MW.")]
    state = State(
        question="q",
        plan=[PlanStep(id="s01", title="Hornsdale")],
        evidence=evidence,
        findings=[Finding(step_id="s01", notes="", evidence_ids=["ev_one"])],
        config=config(),
    )
    update = await synthesize(state, runtime(), services=Services(engine=OfflineEngine()))
    assert "[@ev_one]" in update["draft"] and "[E1]" not in update["draft"]


async def test_verify_finds_an_alternate_and_revise_recites_the_claim() -> None:
    right = span("ev_right", "Hornsdale Power Reserve has a capacity of 150 MW.")
    wrong = span("ev_wrong", "Pumped hydro is older than batteries.", url="https://b.example/2")
    draft = normalize_draft("Hornsdale Power Reserve has a capacity of 150 MW [@ev_wrong].")
    state = State(question="q", evidence=[right, wrong], draft=draft, config=config())
    services = Services(engine=OfflineEngine())
    verified = await verify(state, runtime(), services=services)
    claim = verified["claims"][0]
    assert claim.verdict is Verdict.SUPPORTED and claim.evidence_id == "ev_right"
    state.claims, state.verification = verified["claims"], verified["verification"]
    assert [(c.evidence_id, c.is_primary) for c in state.citations] == [
        ("ev_wrong", True),
        ("ev_right", False),
    ]
    assert route_after_verify(state) == "revise"
    revised = await revise(state, runtime(), services=services)
    assert "[@ev_right]" in revised["draft"] and "[@ev_wrong]" not in revised["draft"]
    assert revised["verification"].recited == 1


async def test_revise_removes_a_claim_no_evidence_supports() -> None:
    evidence = [span("ev_a", "Pumped hydro is older than batteries.")]
    draft = normalize_draft(
        "Pumped hydro is older than batteries [@ev_a]. Flywheels power 40 cities [@ev_a]."
    )
    state = State(question="q", evidence=evidence, draft=draft, config=config())
    services = Services(engine=OfflineEngine())
    state.claims = (await verify(state, runtime(), services=services))["claims"]
    assert [c.verdict for c in state.claims] == [Verdict.SUPPORTED, Verdict.UNSUPPORTED]
    revised = await revise(state, runtime(), services=services)
    assert "Flywheels" not in revised["draft"]
    assert revised["verification"].removed == 1 and revised["revisions"] == 1


async def test_finalize_numbers_sources_by_first_citation() -> None:
    a = span("ev_a", "Alpha fact number one is here.", url="https://a.example/1")
    b = span("ev_b", "Beta fact number two is here.", url="https://b.example/2")
    draft = normalize_draft("## S\n\nBeta first [@ev_b]. Alpha next [@ev_a][@ev_b].")
    state = State(question="Q?", evidence=[a, b], draft=draft, config=config())
    state.claims = (await verify(state, runtime(), services=Services(engine=OfflineEngine())))[
        "claims"
    ]
    update = await finalize(state, runtime(), services=Services())
    report = update["report"]
    assert [(r.number, r.url) for r in report.references] == [
        (1, "https://b.example/2"),
        (2, "https://a.example/1"),
    ]
    assert "Beta first [1]. Alpha next [1][2]." in report.markdown
    assert update["messages"][0].content == report.markdown
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text


@pytest.mark.parametrize("bad", ["", "   "])
async def test_clarify_refuses_an_empty_question(bad: str) -> None:
    from deep_research.errors import InvalidQuestionError

    with pytest.raises(InvalidQuestionError):
        await clarify(State(messages=[HumanMessage(bad)]), runtime(), services=Services())
