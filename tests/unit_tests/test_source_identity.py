"""One work, one source where research steps meet: the sources reducer, evidence, the pool.

Each research step merges what its own searches found; these tests give the main graph's
reducer what two steps handed back, and check that one work is one source (every identifier
and link kept, the DOI link first), that its evidence cites one reference, that a chat's pool
keeps it once (the domain store's rows: tests/integration_tests/test_recording.py).
"""

from __future__ import annotations

import itertools

from deep_research.report.build import number_references
from deep_research.sources.pool import extend_pool
from deep_research.state import BibRecord, EvidenceSpan, Source
from deep_research.state.identity import on_kept_sources
from deep_research.state.reducers import merge_sources

DOI = "10.4314/eamj.v99i1.3"
DOI_LINK = f"https://doi.org/{DOI}"
PUBMED_LINK = "https://pubmed.ncbi.nlm.nih.gov/35200044/"
OPENALEX_LINK = "https://openalex.org/W4300000044"
TITLE = "Zinc supplementation and diarrhoea incidence in a rural cohort"


def _work(
    provider: str,
    status: str = "ok",
    title: str = TITLE,
    url: str | None = None,
    **ids: str | int,
) -> Source:
    bib = BibRecord.model_validate({"year": 2022, **ids, "found_by": [provider]})
    return Source(
        url=url or bib.link() or "https://example.org/",
        title=title,
        provider=provider,
        crawl_status=status,  # type: ignore[arg-type]
        document_id=f"doc_{provider}" if status == "ok" else None,
        bib=bib,
    )


def _span(id: str, url: str, step: str) -> EvidenceSpan:
    return EvidenceSpan(
        id=id, url=url, document_id="doc_1", step_id=step, quote="Fewer.", start=0, end=6
    )


PUBMED = _work("pubmed", pmid="35200044", authors=["Mwangi P"], venue="East Afr Med J")
EUROPEPMC = _work("europepmc", pmid="35200044", doi=DOI, date="2022-01-15")


def test_a_work_two_steps_found_under_two_links_is_one_source_known_by_its_doi() -> None:
    for left, right in ([PUBMED], [EUROPEPMC]), ([EUROPEPMC], [PUBMED]):
        (work,) = merge_sources(left, right)
        assert (work.url, work.aliases) == (DOI_LINK, [PUBMED_LINK])
        assert work.bib is not None
        assert work.bib.identifiers() == {"doi": DOI, "pmid": "35200044"}
        assert work.bib.authors == ["Mwangi P"] and work.bib.date == "2022-01-15"
        assert set(work.bib.found_by) == {"pubmed", "europepmc"}
        assert work.provider == right[0].provider  # two good reads: the later is kept
        assert work.bib.found_by[0] == work.provider  # the reader first


def test_the_successful_read_of_a_work_is_kept_whichever_link_it_came_by() -> None:
    skipped = _work("openalex", "skipped", pmid="35200044", openalex_id="W4300000044")
    for order in itertools.permutations([skipped, PUBMED]):
        (work,) = merge_sources([order[0]], [order[1]])
        assert (work.provider, work.crawl_status) == ("pubmed", "ok")
        assert work.document_id == "doc_pubmed"
        assert (work.url, work.aliases) == (PUBMED_LINK, [])  # both had PubMed's link


def test_a_source_naming_two_earlier_ones_joins_them_into_one() -> None:
    by_pmid = _work("pubmed", pmid="35200044")
    by_doi = _work("crossref", doi=DOI)
    both = _work("europepmc", pmid="35200044", doi=DOI, pmcid="PMC9000044")
    (work,) = merge_sources(merge_sources([], [by_pmid]), [by_doi, both])
    assert work.url == DOI_LINK and work.aliases == [PUBMED_LINK]
    assert work.bib is not None and work.bib.pmcid == "PMC9000044"


def test_works_without_a_shared_identifier_merge_by_title_and_year() -> None:
    pubmed = _work("pubmed", pmid="35200044")
    openalex = _work("openalex", title=TITLE.upper() + ".", openalex_id="W4300000044")
    (work,) = merge_sources([openalex], [pubmed])
    assert (work.url, work.aliases) == (PUBMED_LINK, [OPENALEX_LINK])
    assert work.bib is not None and work.bib.openalex_id == "W4300000044"


def test_a_preprint_a_trial_another_year_and_web_pages_stay_apart_by_title() -> None:
    article = _work("pubmed", pmid="35200044", doi=DOI)
    preprint = _work("europepmc", doi="10.1101/2021.11.02.21265800")  # one title, two DOIs
    trial = _work("clinicaltrials", nct_id="NCT05100044")
    later = _work("openalex", openalex_id="W1", year=2023)
    page = Source(url="https://example.org/a", title=TITLE, provider="tavily", bib=BibRecord())
    dated = BibRecord(year=2022, venue="Example News", venue_type="website")
    pages = [page, page.model_copy(update={"url": "https://example.org/b", "bib": dated})]
    merged = merge_sources([article, preprint], [trial, later, *pages])
    assert len(merged) == 6


def test_a_web_page_at_a_link_of_a_work_is_that_work() -> None:
    page = Source(url=PUBMED_LINK, title="Zinc cohort - PubMed", provider="tavily")
    failed = EUROPEPMC.model_copy(update={"crawl_status": "failed", "document_id": None})
    (work,) = merge_sources([page], [failed])
    assert (work.url, work.aliases, work.provider) == (DOI_LINK, [PUBMED_LINK], "tavily")
    assert work.bib is not None and work.bib.doi == DOI


def test_evidence_quoted_under_a_merged_link_cites_the_works_one_reference() -> None:
    sources = merge_sources([PUBMED], [EUROPEPMC])
    evidence = [_span("ev_1", PUBMED_LINK, "s01"), _span("ev_2", DOI_LINK, "s02")]
    moved = on_kept_sources(evidence, sources)
    assert [e.url for e in moved] == [DOI_LINK, DOI_LINK]
    assert moved[1] is evidence[1]  # spans already on the kept URL are not copied
    numbering = number_references("Fewer [@ev_1]. Fewer still [@ev_2].", moved, sources)
    (reference,) = numbering.references
    assert reference.url == DOI_LINK and reference.bib is not None
    assert reference.bib.pmid == "35200044"
    assert numbering.number_of == {"ev_1": 1, "ev_2": 1}


def test_a_chats_pool_keeps_a_work_once_whichever_link_each_question_read() -> None:
    pool = extend_pool([], [PUBMED])
    pool = extend_pool(pool, [EUROPEPMC])
    assert [s.url for s in pool] == [DOI_LINK]  # the newer read replaces the older
