"""End to end: a biomedical question researched over the four scholarly APIs, faked.

The offline engine runs the whole graph with PubMed, Europe PMC, OpenAlex and
ClinicalTrials.gov answered at the transport (scholarly_apis.py); OpenAlex is down. The
report must cite the works with their bibliographic records, list them in Vancouver style,
and report OpenAlex's failure as an error event while the others go on.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.schemas import report_schema
from deep_research.state import Report
from tests.unit_tests.scholarly_apis import ZINC_DOI, ZINC_PMID, FakeApis

QUESTION = "Does zinc given with oral rehydration shorten acute diarrhoea in young children?"


async def _research(apis: FakeApis) -> tuple[Report, list[dict[str, Any]]]:
    graph: Any = build_graph(
        engine=OfflineEngine(),
        sources=apis.providers(),
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    events: list[dict[str, Any]] = []
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    async for _namespace, event in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        config,
        context=Context(allow_clarification=False, depth="light"),
        stream_mode="custom",
        subgraphs=True,
    ):
        events.append(event)
    state = await graph.aget_state(config)
    report: Report = state.values["report"]
    return report, events


async def test_a_biomedical_question_is_answered_from_scholarly_apis_with_full_references() -> None:
    apis = FakeApis(failing={"openalex": 503})
    report, events = await _research(apis)

    errors = [e["data"] for e in events if e["type"] == "error"]
    assert errors and {e["provider"] for e in errors} == {"openalex"}
    assert all("HTTP 503" in e["error"] for e in errors)

    assert report.references, report.markdown
    zinc = next(r for r in report.references if r.bib is not None and r.bib.doi == ZINC_DOI)
    assert zinc.url == f"https://doi.org/{ZINC_DOI}"
    assert zinc.bib is not None
    assert zinc.bib.pmid == ZINC_PMID and zinc.bib.venue == "J Pediatr"
    assert zinc.bib.authors == ["Okafor NA", "Lindqvist M", "Tanaka H"] and zinc.bib.year == 2023
    assert set(zinc.bib.found_by) == {"pubmed", "europepmc"}
    assert zinc.citation is not None
    assert zinc.citation.startswith("Okafor NA, Lindqvist M, Tanaka H. Zinc with oral")
    assert f"doi:{ZINC_DOI}." in zinc.citation
    assert f"{zinc.number}. {zinc.citation}" in report.markdown.split("## References", 1)[1]
    # every reference of a scholarly work carries authors, a year and a venue
    for reference in report.references:
        assert reference.bib is not None, reference
        assert reference.bib.authors and reference.bib.year and reference.bib.venue

    exported = report.model_dump(mode="json", by_alias=True)
    bib = next(r["bib"] for r in exported["references"] if r["url"] == zinc.url)
    assert bib["doi"] == ZINC_DOI and bib["foundBy"] and bib["venueType"] == "journal"
    source = next(s for s in exported["sources"] if s["url"] == zinc.url)
    assert source["bib"]["pmcid"] == "PMC9900117"
    schema = report_schema()
    assert "bib" in schema["$defs"]["Reference"]["properties"]


async def test_one_work_found_by_several_apis_is_read_and_listed_once() -> None:
    apis = FakeApis()
    report, _ = await _research(apis)
    dois = [s.bib.doi for s in report.sources if s.bib is not None and s.bib.doi]
    assert len(dois) == len(set(dois))
    urls = [r.url for r in report.references]
    assert len(urls) == len(set(urls))
    # the merged article was read once per step that found it, by Europe PMC (full text)
    assert apis.paths("europepmc").count("/PMC9900117/fullTextXML") >= 1


async def test_report_html_lists_a_work_by_its_whole_reference() -> None:
    import html

    from deep_research.report.html import render_html

    report, _ = await _research(FakeApis())
    page = render_html(report)
    zinc = next(r for r in report.references if r.bib is not None and r.bib.doi == ZINC_DOI)
    assert zinc.citation is not None
    assert f'<a href="{zinc.url}">{html.escape(zinc.citation)}</a></li>' in page
