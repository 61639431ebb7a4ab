"""One work, one source: merging scholarly results, and choosing sources with ``+``."""

from __future__ import annotations

import pytest

from deep_research.context import make_context, source_names
from deep_research.errors import ConfigurationError
from deep_research.sources import load_sources
from deep_research.sources.reading import interleave, read_result
from deep_research.sources.scholarly import merge_works
from deep_research.state.models import BibRecord, SearchResult
from tests.unit_tests.scholarly_apis import (
    PREPRINT_DOI,
    PREPRINT_PMID,
    TRIAL_NCT,
    ZINC_DOI,
    ZINC_PMCID,
    ZINC_PMID,
    FakeApis,
)


async def _found(apis: FakeApis, *names: str) -> list[SearchResult]:
    ranked = [await apis.provider(name).search("zinc diarrhoea", 5) for name in names]
    return merge_works(interleave(ranked))


async def test_one_article_found_by_three_apis_is_one_result_with_every_identifier() -> None:
    apis = FakeApis()
    merged = await _found(apis, "pubmed", "europepmc", "openalex")
    zinc = [r for r in merged if r.bib is not None and r.bib.doi == ZINC_DOI]
    assert len(zinc) == 1
    (work,) = zinc
    assert work.bib is not None
    assert work.url == f"https://doi.org/{ZINC_DOI}"
    assert work.bib.identifiers() == {
        "doi": ZINC_DOI,
        "pmid": ZINC_PMID,
        "pmcid": ZINC_PMCID,
        "openalex": "W4300000117",
    }
    # Europe PMC holds the open-access full text: it reads, the others stand by
    assert work.provider == "europepmc"
    assert work.bib.found_by == ["europepmc", "pubmed", "openalex"]
    assert work.bib.authors == ["Okafor NA", "Lindqvist M", "Tanaka H"]
    assert work.bib.date == "2023-02-06" and work.bib.year == 2023
    document = await read_result(work, {p.name: p for p in apis.providers()})
    assert "## Introduction" in document.text  # the full text, not an abstract


async def test_a_preprint_and_its_article_stay_two_works_linked_both_ways() -> None:
    merged = await _found(FakeApis(), "pubmed", "europepmc")
    by_doi = {r.bib.doi: r for r in merged if r.bib is not None and r.bib.doi}
    article, preprint = by_doi[ZINC_DOI], by_doi[PREPRINT_DOI]
    assert preprint.bib is not None and article.bib is not None
    assert preprint.bib.pmid == PREPRINT_PMID  # PubMed's and Europe PMC's preprint merged
    assert f"pmid:{ZINC_PMID}" in preprint.bib.versions
    assert f"pmid:{PREPRINT_PMID}" in article.bib.versions


def _hit(title: str, provider: str, rank: int = 0, **ids: str | int) -> SearchResult:
    bib = BibRecord.model_validate({**ids, "found_by": [provider]})
    return SearchResult(
        url=bib.link() or "https://example.org/",
        title=title,
        provider=provider,
        bib=bib,
        score=1 / (1 + rank),
    )


def test_works_without_shared_ids_merge_by_title_and_year() -> None:
    a = _hit("Zinc in Diarrhoea: A Trial.", "pubmed", pmid="1", year=2020)
    b = _hit("zinc in diarrhoea — a trial", "openalex", openalex_id="W9", year=2020)
    other_year = _hit("Zinc in diarrhoea: a trial", "openalex", openalex_id="W8", year=2019)
    merged = merge_works([a, b, other_year])
    assert len(merged) == 2
    assert merged[0].bib is not None
    assert merged[0].bib.identifiers() == {"pmid": "1", "openalex": "W9"}


def test_equal_titles_with_different_dois_are_different_works() -> None:
    a = _hit("Zinc in diarrhoea", "europepmc", doi="10.1101/1", year=2022)
    b = _hit("Zinc in diarrhoea", "openalex", doi="10.1000/2", year=2022)
    assert len(merge_works([a, b])) == 2


def test_web_pages_pass_through_in_place() -> None:
    page = SearchResult(url="https://example.org/a", title="A page", provider="tavily")
    a = _hit("Zinc", "pubmed", pmid="1", year=2020)
    b = _hit("Zinc", "openalex", pmid="1", openalex_id="W1", year=2020)
    assert [r.url for r in merge_works([a, page, b])] == [
        "https://pubmed.ncbi.nlm.nih.gov/1/",
        "https://example.org/a",
    ]


async def test_a_reader_that_fails_hands_over_to_the_next_provider_that_found_the_work() -> None:
    apis = FakeApis()
    merged = await _found(apis, "pubmed", "europepmc", "openalex")
    work = next(r for r in merged if r.bib is not None and r.bib.doi == ZINC_DOI)
    broken = FakeApis(failing={"europepmc": 500})
    providers = {p.name: p for p in [broken.provider("europepmc"), *apis.providers()[:1]]}
    document = await read_result(work, providers)
    assert document.text.splitlines()[2] == "## Background"  # PubMed's labelled abstract
    assert document.metadata["provider"] == "pubmed"


# ---------------------------------------------------------------- choosing sources


def test_source_names_join_with_plus_and_academic_means_the_four() -> None:
    assert source_names("auto") == ["auto"]
    assert source_names("pubmed+openalex") == ["pubmed", "openalex"]
    assert source_names("local+tavily+europepmc") == ["local", "tavily", "europepmc"]
    assert source_names("academic") == ["pubmed", "europepmc", "openalex", "clinicaltrials"]
    assert source_names("PubMed+academic") == [
        "pubmed",
        "europepmc",
        "openalex",
        "clinicaltrials",
    ]


@pytest.mark.parametrize("bad", ["pubmd", "local+", "auto+local", "local++tavily", ""])
def test_an_unknown_source_is_refused_with_the_names_that_exist(bad: str) -> None:
    with pytest.raises(ConfigurationError, match="use 'auto', or names joined with '\\+'"):
        make_context(sources=bad)


def test_the_context_schema_offers_examples_to_studio() -> None:
    from pydantic import TypeAdapter

    from deep_research.context import Context

    schema = TypeAdapter(Context).json_schema()["properties"]["sources"]
    assert "academic" in schema["examples"] and "local+tavily" in schema["examples"]
    assert make_context(sources="Local+Academic").sources == "local+academic"


def test_load_sources_builds_the_named_scholarly_providers_and_the_local_corpus() -> None:
    names = [p.name for p in load_sources("local+academic", None)]
    assert names == ["local", "pubmed", "europepmc", "openalex", "clinicaltrials"]
    assert [p.name for p in load_sources("pubmed+clinicaltrials", None)] == [
        "pubmed",
        "clinicaltrials",
    ]


def test_base_urls_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from deep_research.settings import get_settings

    monkeypatch.setenv("DEEP_RESEARCH_CLINICALTRIALS_BASE_URL", "http://127.0.0.1:9/api/v2")
    get_settings.cache_clear()
    (provider,) = load_sources("clinicaltrials", None)
    assert provider.client.base_url == "http://127.0.0.1:9/api/v2"  # type: ignore[attr-defined]
    monkeypatch.setenv("DEEP_RESEARCH_OPENALEX_BASE_URL", "ftp://nope")
    get_settings.cache_clear()
    with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_OPENALEX_BASE_URL"):
        load_sources("openalex", None)


def test_a_trial_never_merges_with_the_article_that_reports_it() -> None:
    article = _hit("Zinc trial", "pubmed", pmid="1", year=2022)
    trial = _hit("Zinc trial", "clinicaltrials", nct_id=TRIAL_NCT, year=2022)
    assert len(merge_works([article, trial])) == 2


async def test_the_researcher_merges_works_ignores_the_domain_cap_and_skips_known_works() -> None:
    from typing import Any

    from langgraph.runtime import Runtime

    from deep_research.context import Context, resolve_config
    from deep_research.nodes import search_sources
    from deep_research.services import Services
    from deep_research.state import PlanStep, ResearcherState, Source

    apis = FakeApis()
    context = Context(per_domain_cap=1)
    config = resolve_config(context, depth="light", engine="offline", sources=["academic"])
    # the preprint was read in an earlier pass, under its PubMed link
    known = Source(
        url=f"https://pubmed.ncbi.nlm.nih.gov/{PREPRINT_PMID}/",
        title="Preprint",
        provider="pubmed",
        bib=BibRecord(pmid=PREPRINT_PMID),
    )
    state = ResearcherState(
        step=PlanStep(id="s01", title="Zinc"),
        question="zinc",
        config=config,
        new_queries=["zinc diarrhoea"],
        sources=[known],
    )
    events: list[Any] = []
    runtime = Runtime(context=context, stream_writer=events.append)
    update = await search_sources(state, runtime, services=Services(sources=apis.providers()))
    results = update["results"]
    dois = [r.bib.doi for r in results if r.bib is not None and r.bib.doi]
    assert dois.count(ZINC_DOI) == 1 and PREPRINT_DOI not in dois
    assert sum(1 for r in results if r.url.startswith("https://doi.org/")) > 1  # no domain cap
    assert any(r.bib is not None and r.bib.nct_id == TRIAL_NCT for r in results)
    assert not [e for e in events if e["type"] == "error"]


async def test_a_follow_up_reads_a_pooled_work_from_the_content_store_keeping_its_record() -> None:
    from functools import partial

    from langgraph.store.memory import InMemoryStore

    from deep_research.persistence.content import get_document_text, put_document
    from deep_research.sources.pool import ChatPool
    from deep_research.state import Document, Source

    apis = FakeApis()
    url = f"https://doi.org/{ZINC_DOI}"
    store = InMemoryStore()
    document = Document(id="doc_zinc", url=url, title="Zinc trial", text="Zinc shortens diarrhoea.")
    await put_document(store, document)
    bib = BibRecord(doi=ZINC_DOI, found_by=["europepmc"])
    pooled = Source(
        url=url, title="Zinc trial", provider="europepmc", document_id="doc_zinc", bib=bib
    )
    pool = ChatPool([pooled], partial(get_document_text, store))
    (hit,) = await pool.search("zinc diarrhoea", 3)
    assert hit.bib == bib
    found = await apis.provider("europepmc").search("zinc", 5)
    (merged,) = [r for r in merge_works([hit, *found]) if r.url == url]
    assert merged.provider == "chat"  # the pool has the text: no API needs asking
    asked = len(apis.requests)
    read = await read_result(merged, {p.name: p for p in [pool, *apis.providers()]})
    assert read.text == "Zinc shortens diarrhoea." and len(apis.requests) == asked


def test_a_doi_with_unsafe_characters_links_and_reads_back_the_same() -> None:
    from deep_research.sources.scholarly.works import ids_from_url

    odd = "10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2"
    link = BibRecord(doi=odd).link()
    assert link is not None and "<" not in link and ">" not in link
    stored = SearchResult(url=link, title="t", provider="pubmed").url
    assert ids_from_url(stored).doi == odd


def test_dates_and_names_come_out_in_canonical_form() -> None:
    from deep_research.sources.scholarly.works import author_from_display, parse_date

    assert parse_date("2024-03-05T10:00:00Z") == "2024-03-05"
    assert parse_date("2019 Jan-Feb") == "2019-01"
    assert parse_date("2020 Dec 31") == "2020-12-31"
    assert parse_date("Spring 2020") is None
    assert author_from_display("Fernando P. Polack") == "Polack FP"
    assert author_from_display("Smith, Jane Ann") == "Smith JA"
