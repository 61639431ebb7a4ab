"""One work, one source across research steps: two steps find a work by two providers.

PubMed's record of ``COHORT`` has no DOI, so its link is PubMed's; Europe PMC's has the DOI,
so its link is the DOI's. The first step finds the work only through PubMed, the second only
through Europe PMC (the APIs are faked at the transport and answer by query). Where the
researchers' sources meet, the work must be one source known by its DOI link, with every
identifier, both providers and the PubMed link as an alias; its evidence from both steps
must cite one reference, and the domain store must hold one source row for it.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from sqlalchemy import select

from deep_research.context import Context
from deep_research.engines import OfflineEngine, Reply
from deep_research.engines.schemas import ResearchPlan, StepDraft, StepNotes
from deep_research.graph import build_graph
from deep_research.persistence import SqlRecorder, open_database
from deep_research.persistence import tables as tables
from deep_research.persistence.checkpointer import make_serde
from deep_research.state import PlanStep
from tests.unit_tests.scholarly_apis import (
    COHORT_DOI,
    COHORT_PMID,
    FakeApis,
    esearch,
    europepmc_cohort,
    europepmc_search,
)

QUESTION = "Does zinc supplementation prevent diarrhoea in children?"
DOI_LINK = f"https://doi.org/{COHORT_DOI}"
PUBMED_LINK = f"https://pubmed.ncbi.nlm.nih.gov/{COHORT_PMID}/"


def _json(payload: Any) -> httpx.Response:
    return httpx.Response(200, json=payload)


class SplitApis(FakeApis):
    """PubMed finds ``COHORT`` for queries about incidence, Europe PMC for queries about
    episodes; neither finds anything else."""

    def pubmed(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/esearch.fcgi":
            return _json(esearch([COHORT_PMID] if "incidence" in params["term"] else []))
        return super().pubmed(path, params)

    def europepmc(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/search":
            query = params["query"]
            found = COHORT_PMID in query if query.startswith("EXT_ID:") else "episodes" in query
            return _json(europepmc_search([europepmc_cohort()] if found else []))
        return super().europepmc(path, params)


class TwoStepEngine(OfflineEngine):
    """The offline engine with two steps, each asking one query of its own."""

    async def plan(self, question: str, history: Any, max_steps: int) -> Reply[ResearchPlan]:
        steps = [
            StepDraft(title="Zinc and the incidence of diarrhoea"),
            StepDraft(title="Zinc supplements and diarrhoea episodes"),
        ]
        return Reply(ResearchPlan(brief=question, complexity="complex", steps=steps))

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int, **_: Any
    ) -> Reply[list[str]]:
        topic = "incidence" if "incidence" in step.title else "episodes"
        return Reply([f"zinc diarrhoea {topic}"])

    async def notes(self, question: str, step: PlanStep, evidence: Any) -> Reply[StepNotes]:
        reply = await super().notes(question, step, evidence)
        return Reply(reply.value.model_copy(update={"sufficient": True}), reply.usage)


async def test_a_work_two_steps_found_by_two_providers_is_one_source_and_one_reference(
    tmp_path: Path,
) -> None:
    apis = SplitApis()
    async with open_database(f"sqlite:///{tmp_path / 'store.sqlite'}") as database:
        graph: Any = build_graph(
            engine=TwoStepEngine(),
            sources=[apis.provider("pubmed"), apis.provider("europepmc")],
            checkpointer=InMemorySaver(serde=make_serde()),
            recorder=SqlRecorder(database),
        )
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        context = Context(allow_clarification=False, depth="light", max_rounds=1)
        await graph.ainvoke({"messages": [HumanMessage(QUESTION)]}, config, context=context)
        state = (await graph.aget_state(config)).values
        async with database.session_scope() as session:
            rows = (await session.scalars(select(tables.Source))).all()
            spans = (await session.scalars(select(tables.EvidenceSpan))).all()

    # each step read the work by its own provider and quoted it under its own link
    assert {(e.step_id, e.url) for e in state["evidence"]} == {
        ("s01", PUBMED_LINK),
        ("s02", DOI_LINK),
    }, state["evidence"]
    report = state["report"]
    exported = report.model_dump(mode="json", by_alias=True)

    # one source: the DOI link kept, the PubMed link an alias, every identifier and provider
    (source,) = exported["sources"]
    assert (source["url"], source["aliases"]) == (DOI_LINK, [PUBMED_LINK])
    assert (source["bib"]["doi"], source["bib"]["pmid"]) == (COHORT_DOI, COHORT_PMID)
    assert set(source["bib"]["foundBy"]) == {"pubmed", "europepmc"}
    assert exported["metrics"]["sourcesConsulted"] == 1

    # one reference, which the evidence of both steps cites
    (reference,) = exported["references"]
    assert reference["number"] == 1 and reference["url"] == DOI_LINK
    assert reference["bib"]["pmid"] == COHORT_PMID and reference["bib"]["doi"] == COHORT_DOI
    assert f"doi:{COHORT_DOI}. PMID: {COHORT_PMID}." in reference["citation"]
    step_of = {e.id: e.step_id for e in state["evidence"]}
    cited = {step_of[c["evidenceId"]] for c in exported["citations"]}
    assert cited == {"s01", "s02"}, report.markdown
    assert {c["referenceNumber"] for c in exported["citations"]} == {1}
    listed = report.markdown.split("## References", 1)[1]
    assert listed.count(reference["citation"]) == 1 and "\n2. " not in listed

    # the domain store: one source row with both identifiers, every evidence row on it
    (row,) = rows
    assert (row.url, row.doi, row.pmid, row.is_cited) == (DOI_LINK, COHORT_DOI, COHORT_PMID, True)
    assert row.bibliography is not None
    assert set(row.bibliography["foundBy"]) == {"pubmed", "europepmc"}
    assert {span.url for span in spans} == {DOI_LINK}
    assert {span.step_id for span in spans} == {"s01", "s02"}
