"""References people can use: Vancouver citations, the report's fields, the store's columns."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from deep_research.persistence import SqlRecorder, open_database
from deep_research.persistence import tables as tables
from deep_research.persistence.recorder import Batch, RunScope
from deep_research.persistence.records import MessageKind, MessageRecord, SessionUpdate
from deep_research.report.bibliography import nlm_date, vancouver
from deep_research.report.build import number_references
from deep_research.state import BibRecord, EvidenceSpan, Source

ARTICLE = BibRecord(
    authors=["Okafor NA", "Lindqvist M", "Tanaka H"],
    year=2023,
    date="2023-02-06",
    venue="J Pediatr",
    venue_type="journal",
    volume="255",
    issue="4",
    pages="112-120",
    doi="10.1000/jpeds.2023.0117",
    pmid="36100117",
    pmcid="PMC9900117",
    found_by=["europepmc", "pubmed"],
)


def test_a_journal_article_in_vancouver_style() -> None:
    assert vancouver("Zinc for diarrhoea: a trial.", "https://doi.org/x", ARTICLE) == (
        "Okafor NA, Lindqvist M, Tanaka H. Zinc for diarrhoea: a trial. J Pediatr."
        " 2023;255(4):112-120. doi:10.1000/jpeds.2023.0117. PMID: 36100117; PMCID: PMC9900117."
    )


def test_more_than_six_authors_end_in_et_al_and_a_pmid_only_record_links_to_pubmed() -> None:
    bib = BibRecord(
        authors=[f"Author{n} A" for n in range(8)], year=2022, venue="East Afr Med J", pmid="1"
    )
    cited = vancouver("Title", "https://pubmed.ncbi.nlm.nih.gov/1/", bib)
    assert cited.startswith(
        "Author0 A, Author1 A, Author2 A, Author3 A, Author4 A, Author5 A, et al."
    )
    assert cited.endswith(
        "East Afr Med J. 2022. PMID: 1. Available from: https://pubmed.ncbi.nlm.nih.gov/1/"
    )


def test_preprints_trials_web_pages_and_files_have_their_own_forms() -> None:
    preprint = BibRecord(
        authors=["Okafor NA"],
        date="2022-06-03",
        year=2022,
        venue="medRxiv",
        venue_type="preprint",
        doi="10.1101/1",
    )
    assert vancouver("Early results", "https://doi.org/10.1101/1", preprint) == (
        "Okafor NA. Early results [Preprint]. medRxiv. 2022 Jun 3. doi:10.1101/1."
    )
    trial = BibRecord(
        authors=["University of Nairobi"],
        date="2021-08-27",
        year=2021,
        venue="ClinicalTrials.gov",
        venue_type="registry",
        nct_id="NCT05100117",
    )
    assert vancouver("ZORA", "https://clinicaltrials.gov/study/NCT05100117", trial) == (
        "University of Nairobi. ZORA. ClinicalTrials.gov identifier: NCT05100117."
        " First posted 2021 Aug 27. Available from: https://clinicaltrials.gov/study/NCT05100117"
    )
    page = BibRecord(
        authors=["Jane Doe"], date="2024-03", venue="Example News", venue_type="website"
    )
    assert vancouver("A page", "https://example.org/a", page) == (
        "Jane Doe. A page [Internet]. Example News; 2024 Mar. Available from: https://example.org/a"
    )
    assert vancouver("Notes", "docs/notes.md", None) == "Notes. Available from: docs/notes.md"
    assert nlm_date(None, 2020) == "2020" and nlm_date("2020-13") == "2020"


def test_references_carry_the_record_and_the_citation_of_their_source() -> None:
    url = "https://doi.org/10.1000/jpeds.2023.0117"
    source = Source(url=url, title="Zinc trial", provider="europepmc", bib=ARTICLE)
    span = EvidenceSpan(
        id="ev_1", url=url, document_id="doc_1", step_id="s01", quote="Zinc.", start=0, end=5
    )
    numbering = number_references("Zinc helps [@ev_1].", [span], [source])
    (reference,) = numbering.references
    assert reference.bib == ARTICLE
    assert reference.citation == vancouver("Zinc trial", url, ARTICLE)


async def test_source_rows_keep_identifiers_and_bibliographic_fields(tmp_path: Path) -> None:
    url = "https://doi.org/10.1000/jpeds.2023.0117"
    sources = [
        Source(url=url, title="Zinc trial", provider="europepmc", bib=ARTICLE),
        Source(url="https://example.org/page", title="Page", provider="tavily"),
    ]
    async with open_database(f"sqlite:///{tmp_path / 'store.sqlite'}") as database:
        recorder = SqlRecorder(database)
        batch = Batch(
            title="Zinc",
            session=SessionUpdate(question="Zinc?"),
            messages=[MessageRecord(MessageKind.QUESTION, "Zinc?")],
            sources=sources,
        )
        await recorder.write(RunScope("alice", "thread-1", 1), batch)
        async with database.session_scope() as session:
            rows = {r.url: r for r in (await session.scalars(select(tables.Source))).all()}
    row = rows[url]
    assert (row.doi, row.pmid, row.pmcid) == (ARTICLE.doi, ARTICLE.pmid, ARTICLE.pmcid)
    assert row.authors == ARTICLE.authors and row.year == 2023
    assert (row.published, row.venue) == ("2023-02-06", "J Pediatr")
    assert row.bibliography is not None and row.bibliography["issue"] == "4"
    page = rows["https://example.org/page"]
    assert page.doi is None and page.bibliography is None


def test_available_from_is_written_in_the_reports_language() -> None:
    assert vancouver("Notes", "docs/notes.md", None, "zh") == "Notes. 获取地址：docs/notes.md"
    assert (
        vancouver("Notes", "docs/notes.md", None, "fr") == "Notes. Disponible sur : docs/notes.md"
    )
    assert vancouver("Notes", "docs/notes.md", None, "es") == "Notes. Disponible en: docs/notes.md"
    assert vancouver("Notes", "docs/notes.md", None, "pt") == "Notes. Available from: docs/notes.md"
