"""The four scholarly providers against stand-ins faked at the transport (scholarly_apis.py)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.scholarly.client import ApiClient, RateLimiter, retry_after
from deep_research.sources.scholarly.openalex import rebuild_abstract
from deep_research.sources.web.cache import PageCache
from deep_research.state.models import BibRecord, SearchResult
from tests.unit_tests.scholarly_apis import (
    COHORT_PMID,
    PREPRINT_DOI,
    PREPRINT_PMID,
    TRIAL_NCT,
    ZINC_DOI,
    ZINC_PMCID,
    ZINC_PMID,
    ZINC_TITLE,
    FakeApis,
)


def _params(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}


# ---------------------------------------------------------------- PubMed


async def test_pubmed_searches_with_esearch_then_describes_with_esummary() -> None:
    apis = FakeApis()
    results = await apis.provider("pubmed").search("zinc diarrhoea children", 5)
    assert apis.paths("pubmed") == ["/esearch.fcgi", "/esummary.fcgi"]
    search = _params(apis.requests[0])
    assert search["db"] == "pubmed" and search["term"] == "zinc diarrhoea children"
    assert search["retmode"] == "json" and search["tool"] == "deep-research"
    zinc, cohort, preprint = results
    assert zinc.url == f"https://doi.org/{ZINC_DOI}"
    assert zinc.title == ZINC_TITLE + "."
    assert zinc.bib is not None
    assert zinc.bib.authors == ["Okafor NA", "Lindqvist M", "Tanaka H"]
    assert (zinc.bib.venue, zinc.bib.volume, zinc.bib.issue, zinc.bib.pages) == (
        "J Pediatr",
        "255",
        "4",
        "112-120",
    )
    assert (zinc.bib.year, zinc.bib.date) == (2023, "2023-04")
    assert (zinc.bib.doi, zinc.bib.pmid, zinc.bib.pmcid) == (ZINC_DOI, ZINC_PMID, ZINC_PMCID)
    assert zinc.bib.versions == [f"pmid:{PREPRINT_PMID}"]
    assert zinc.richness == 2
    assert preprint.bib is not None and preprint.bib.venue_type == "preprint"
    assert cohort.bib is not None and cohort.bib.identifiers() == {"pmid": COHORT_PMID}


async def test_a_pmid_only_record_links_to_pubmed_and_reads_its_plain_abstract() -> None:
    apis = FakeApis()
    provider = apis.provider("pubmed")
    cohort = (await provider.search("zinc cohort", 5))[1]
    assert cohort.url == f"https://pubmed.ncbi.nlm.nih.gov/{COHORT_PMID}/"
    assert cohort.bib is not None and cohort.bib.date == "2022-01"
    document = await provider.read_hit(cohort)
    assert "## Abstract\nChildren who received zinc supplements had 15 percent" in document.text
    assert document.metadata["pmid"] == COHORT_PMID


async def test_pubmed_efetch_keeps_abstract_labels() -> None:
    apis = FakeApis()
    provider = apis.provider("pubmed")
    document = await provider.read(f"https://pubmed.ncbi.nlm.nih.gov/{ZINC_PMID}/")
    assert apis.paths("pubmed") == ["/efetch.fcgi"]
    fetch = _params(apis.requests[0])
    assert (fetch["db"], fetch["id"], fetch["retmode"]) == ("pubmed", ZINC_PMID, "xml")
    text = document.text
    assert text.startswith(ZINC_TITLE)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Background", "## Methods", "## Results", "## Conclusions"]
    assert "## Results\nZinc shortened the mean duration of diarrhoea by 21 hours" in text


async def test_ncbi_key_and_contact_email_go_with_every_request() -> None:
    from deep_research.sources.scholarly import ScholarlyConfig, provider_for

    apis = FakeApis()
    config = ScholarlyConfig(
        base_url="https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        timeout=5,
        max_attempts=1,
        api_key="k3y",
        email="me@example.org",
    )
    client = ApiClient("PubMed", config.base_url, transport=apis.transport())
    await provider_for("pubmed", client, config).search("zinc", 3)
    for request in apis.requests:
        assert _params(request)["api_key"] == "k3y"
        assert _params(request)["email"] == "me@example.org"


def test_ncbi_rate_is_three_a_second_without_a_key_and_ten_with_one() -> None:
    from deep_research.sources.scholarly import ScholarlyConfig, build_provider

    base = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    keyless = build_provider("pubmed", ScholarlyConfig(base, 5, 1))
    keyed = build_provider("pubmed", ScholarlyConfig(base, 5, 1, api_key="k"))
    assert keyless.client.limiter.interval == pytest.approx(1 / 3)
    assert keyed.client.limiter.interval == pytest.approx(1 / 10)


# ---------------------------------------------------------------- Europe PMC


async def test_europepmc_core_results_carry_abstracts_identifiers_and_preprint_links() -> None:
    apis = FakeApis()
    zinc, preprint = await apis.provider("europepmc").search("zinc diarrhoea", 5)
    params = _params(apis.requests[0])
    assert apis.paths("europepmc") == ["/search"]
    assert (params["resultType"], params["format"], params["cursorMark"]) == ("core", "json", "*")
    assert zinc.bib is not None and zinc.bib.open_access is True
    assert zinc.richness == 3  # open access with a PMC id: the full text is there
    assert zinc.snippet.startswith("Acute diarrhoea remains a leading cause")
    assert zinc.bib.venue == "J Pediatr" and zinc.bib.date == "2023-02-06"
    assert preprint.bib is not None
    assert (preprint.bib.venue, preprint.bib.venue_type) == ("medRxiv", "preprint")
    assert preprint.bib.versions == [f"pmid:{ZINC_PMID}"]
    assert preprint.url == f"https://doi.org/{PREPRINT_DOI}"


async def test_europepmc_reads_the_open_access_full_text_with_its_sections() -> None:
    apis = FakeApis()
    provider = apis.provider("europepmc")
    zinc = (await provider.search("zinc", 5))[0]
    document = await provider.read_hit(zinc)
    assert apis.paths("europepmc")[-1] == f"/{ZINC_PMCID}/fullTextXML"
    headings = [line for line in document.text.splitlines() if line.startswith("## ")]
    assert headings == ["## Background", "## Introduction", "## Results"]
    assert "Vomiting was reported in 9 percent of children given zinc." in document.text


async def test_europepmc_falls_back_to_the_abstract_when_no_full_text_is_served() -> None:
    apis = FakeApis()
    provider = apis.provider("europepmc")
    bib = BibRecord(pmid=ZINC_PMID, pmcid="PMC1", open_access=True, found_by=["europepmc"])
    hit = SearchResult(
        url=f"https://pubmed.ncbi.nlm.nih.gov/{ZINC_PMID}/",
        title="t",
        provider="europepmc",
        bib=bib,
    )
    document = await provider.read_hit(hit)
    assert apis.paths("europepmc") == ["/PMC1/fullTextXML", "/search"]
    assert _params(apis.requests[-1])["query"] == f"EXT_ID:{ZINC_PMID} AND SRC:MED"
    assert "## Methods\nWe randomly assigned 480 children" in document.text


# ---------------------------------------------------------------- OpenAlex


def test_an_inverted_index_is_rebuilt_in_word_order() -> None:
    index = {"Zinc": [0, 4], "helps": [1], "children;": [2], "give": [3], ".": [5]}
    assert rebuild_abstract(index) == "Zinc helps children; give Zinc ."
    assert rebuild_abstract(None) == ""


async def test_openalex_pages_with_its_cursor_and_joins_the_polite_pool() -> None:
    from deep_research.sources.scholarly import OpenAlexSearch

    apis = FakeApis()
    client = ApiClient("OpenAlex", "https://api.openalex.org", transport=apis.transport())
    provider = OpenAlexSearch(client, email="me@example.org", page_size=2)
    results = await provider.search("zinc", 3)
    assert len(results) == 3
    first, second = (_params(r) for r in apis.requests)
    assert first["cursor"] == "*" and second["cursor"] == "IlsxNjA5"
    assert first["per-page"] == "2" and first["mailto"] == "me@example.org"
    zinc = results[0]
    assert zinc.bib is not None
    assert zinc.bib.authors == ["Okafor NA", "Lindqvist M", "Tanaka H"]
    assert (zinc.bib.openalex_id, zinc.bib.pmid, zinc.bib.pmcid) == (
        "W4300000117",
        ZINC_PMID,
        ZINC_PMCID,
    )
    assert (zinc.bib.venue, zinc.bib.pages) == ("The Journal of Pediatrics", "112-120")
    assert zinc.snippet.startswith("Acute diarrhoea remains a leading cause of death")


async def test_openalex_reads_a_work_by_its_id() -> None:
    apis = FakeApis()
    provider = apis.provider("openalex")
    document = await provider.read("https://openalex.org/W4300000117")
    assert apis.paths("openalex") == ["/works/W4300000117"]
    assert "## Abstract\nAcute diarrhoea remains" in document.text


# ---------------------------------------------------------------- ClinicalTrials.gov


async def test_a_trial_becomes_a_registry_record_with_its_facts_as_text() -> None:
    apis = FakeApis()
    provider = apis.provider("clinicaltrials")
    (trial,) = await provider.search("zinc diarrhoea", 5)
    assert _params(apis.requests[0])["query.term"] == "zinc diarrhoea"
    assert trial.url == f"https://clinicaltrials.gov/study/{TRIAL_NCT}"
    assert trial.bib is not None
    assert trial.bib.authors == ["University of Nairobi"]
    assert (trial.bib.venue, trial.bib.venue_type) == ("ClinicalTrials.gov", "registry")
    assert (trial.bib.date, trial.bib.nct_id) == ("2021-08-27", TRIAL_NCT)
    document = await provider.read_hit(trial)
    assert apis.paths("clinicaltrials")[-1] == f"/studies/{TRIAL_NCT}"
    for line in (
        f"Registry: ClinicalTrials.gov {TRIAL_NCT}.",
        "Status: Completed.",
        "Phase: Phase 3.",
        "Enrollment: 480 participants (actual).",
        "Conditions: Diarrhea; Dehydration.",
        "Interventions: Dietary supplement: Zinc sulfate; Other: Oral rehydration solution.",
        "Lead sponsor: University of Nairobi.",
        "Start date: 2021-09-01 (actual).",
        "Completion date: 2022-10-15 (actual).",
    ):
        assert line in document.text.splitlines()
    assert "## Brief summary\nThis trial tests whether zinc" in document.text


# ---------------------------------------------------------------- failures and limits


async def test_an_api_that_keeps_failing_is_retried_then_reported() -> None:
    apis = FakeApis(failing={"openalex": 503})
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    with pytest.raises(
        SourceError, match="openalex request works failed after 3 attempts: HTTP 503"
    ):
        await apis.provider("openalex", sleep=sleep).search("zinc", 3)
    assert len(apis.requests) == 3
    assert len(waits) == 2


async def test_429_waits_as_long_as_retry_after_says_then_succeeds() -> None:
    apis = FakeApis(rate_limited={"clinicaltrials": 2})
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    results = await apis.provider("clinicaltrials", sleep=sleep).search("zinc", 3)
    assert [r.bib.nct_id for r in results if r.bib] == [TRIAL_NCT]
    assert waits == [2.0, 2.0]
    assert len(apis.requests) == 3


async def test_a_timeout_is_retried() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ReadTimeout("slow", request=request)
        return httpx.Response(200, json={"ok": True})

    async def no_wait(seconds: float) -> None:
        return None

    client = ApiClient(
        "X", "https://api.example.org", transport=httpx.MockTransport(handler), sleep=no_wait
    )
    assert await client.get_json("thing") == {"ok": True}
    assert len(calls) == 2


async def test_a_client_error_fails_at_once() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(400, text="bad query")

    client = ApiClient("X", "https://api.example.org/v2/", transport=httpx.MockTransport(handler))
    with pytest.raises(SourceError, match="HTTP 400"):
        await client.get("studies", {"q": "a"})
    assert seen == ["https://api.example.org/v2/studies?q=a"]


async def test_a_work_without_text_is_skipped_not_failed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "https://openalex.org/W1", "display_name": "T"})

    from deep_research.sources.scholarly import OpenAlexSearch

    client = ApiClient(
        "OpenAlex", "https://api.openalex.org", transport=httpx.MockTransport(handler)
    )
    with pytest.raises(FetchSkippedError, match="no abstract"):
        await OpenAlexSearch(client).read("https://openalex.org/W1")


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after("7") == 7.0
    assert retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert retry_after("soon") is None and retry_after(None) is None


async def test_the_rate_limiter_spaces_requests_evenly() -> None:
    clock = [100.0]
    limiter = RateLimiter(4, clock=lambda: clock[0])
    assert [limiter.claim() for _ in range(3)] == [0.0, 0.25, 0.5]
    clock[0] = 101.0
    assert limiter.claim() == 0.0
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    await limiter.wait(sleep)
    assert waits == [0.25]


# ---------------------------------------------------------------- the page cache


async def test_texts_that_came_with_search_results_are_read_without_asking_again(
    tmp_path: Path,
) -> None:
    apis = FakeApis()
    cache = PageCache(tmp_path / "pages.sqlite", ttl=3600)
    for name in ("openalex", "clinicaltrials"):
        provider = apis.provider(name, cache=cache)
        first = (await provider.search("zinc", 2))[0]
        asked = len(apis.requests)
        document = await provider.read_hit(first)
        assert len(apis.requests) == asked, name  # served from the cache
        uncached = await apis.provider(name).read_hit(first)
        assert document.text == uncached.text  # the same text the API gives on reading


async def test_an_article_read_once_is_not_asked_for_twice(tmp_path: Path) -> None:
    apis = FakeApis()
    provider = apis.provider("pubmed", cache=PageCache(tmp_path / "p.sqlite", ttl=3600))
    zinc = (await provider.search("zinc", 1))[0]
    await provider.read_hit(zinc)
    await provider.read_hit(zinc)
    assert apis.paths("pubmed").count("/efetch.fcgi") == 1


async def test_a_zero_ttl_keeps_nothing(tmp_path: Path) -> None:
    apis = FakeApis()
    provider = apis.provider("clinicaltrials", cache=PageCache(tmp_path / "p.sqlite", ttl=0))
    trial = (await provider.search("zinc", 1))[0]
    await provider.read_hit(trial)
    assert apis.paths("clinicaltrials") == ["/studies", f"/studies/{TRIAL_NCT}"]


async def test_clinicaltrials_and_europepmc_page_with_their_tokens() -> None:
    from tests.unit_tests.scholarly_apis import europepmc_search, europepmc_zinc, study

    seen: list[dict[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        params = _params(request)
        seen.append(params)
        if "clinicaltrials" in str(request.url):
            if "pageToken" not in params:
                return httpx.Response(200, json={"studies": [], "nextPageToken": "NF0g5"})
            return httpx.Response(200, json={"studies": [study()]})
        if params["cursorMark"] == "*":
            other = {**europepmc_zinc(), "doi": "10.1000/other", "pmid": "1", "pmcid": None}
            return httpx.Response(200, json=europepmc_search([other], next_mark="AoJ3"))
        return httpx.Response(200, json=europepmc_search([europepmc_zinc()], next_mark="AoJ3"))

    from deep_research.sources.scholarly import ClinicalTrialsSearch, EuropePmcSearch

    transport = httpx.MockTransport(handler)
    trials = ClinicalTrialsSearch(
        ApiClient("CT", "https://clinicaltrials.gov/api/v2", transport=transport), page_size=1
    )
    assert [r.bib.nct_id for r in await trials.search("zinc", 1) if r.bib] == [TRIAL_NCT]
    assert seen[1]["pageToken"] == "NF0g5"
    seen.clear()
    papers = EuropePmcSearch(
        ApiClient("EPMC", "https://www.ebi.ac.uk/europepmc/webservices/rest", transport=transport),
        page_size=1,
    )
    found = await papers.search("zinc", 2)
    assert [r.bib.doi for r in found if r.bib] == ["10.1000/other", ZINC_DOI]
    assert [p["cursorMark"] for p in seen] == ["*", "AoJ3"]


async def test_a_long_query_that_matches_nothing_is_asked_again_with_or() -> None:
    from deep_research.sources.scholarly import PubMedSearch
    from tests.unit_tests.scholarly_apis import esearch

    apis = FakeApis()

    def handler(request: httpx.Request) -> httpx.Response:
        term = _params(request).get("term")
        if term is not None and " OR " not in term:
            apis.requests.append(request)
            return httpx.Response(200, json=esearch([], count=0))
        return apis.handle(request)

    client = ApiClient(
        "PubMed",
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        transport=httpx.MockTransport(handler),
    )
    results = await PubMedSearch(client).search("key figures zinc oral rehydration", 3)
    assert len(results) == 3
    terms = [_params(r).get("term") for r in apis.requests if "/esearch.fcgi" in str(r.url)]
    assert terms == [
        "key figures zinc oral rehydration",
        "key OR figures OR zinc OR oral OR rehydration",
    ]
