"""Stand-ins for PubMed, Europe PMC, OpenAlex and ClinicalTrials.gov, faked at the transport.

Each answers in its API's documented format (E-utilities esearch/esummary JSON and efetch
XML, Europe PMC ``resultType=core`` JSON and JATS full text, OpenAlex works with an
``abstract_inverted_index``, ClinicalTrials.gov v2 studies), from a small library of works
written for these tests:

* ``ZINC``: a randomized trial article found by all three literature APIs (one DOI, PMID and
  PMC id), open access in Europe PMC, with a structured abstract;
* ``COHORT``: a PubMed record with a PMID only (no DOI); Europe PMC knows its DOI too;
* ``PREPRINT``: the medRxiv preprint of ``ZINC``, which PubMed links as updated by it;
* ``TRIAL``: the registered trial (an NCT id) behind ``ZINC``.

:class:`FakeApis` routes requests by host and path, records them, and can make an API fail
(a status for every request, or 429 with ``Retry-After`` for the first few).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx

from deep_research.sources.scholarly import ScholarlyConfig, provider_for
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.client import ApiClient, RateLimiter

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
EUROPEPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest"
OPENALEX = "https://api.openalex.org"
CTGOV = "https://clinicaltrials.gov/api/v2"
BASES = {"pubmed": EUTILS, "europepmc": EUROPEPMC, "openalex": OPENALEX, "clinicaltrials": CTGOV}

ZINC_DOI = "10.1000/jpeds.2023.0117"
ZINC_PMID = "36100117"
ZINC_PMCID = "PMC9900117"
ZINC_TITLE = "Zinc with oral rehydration for acute diarrhoea in young children: a randomized trial"
ZINC_SECTIONS = [
    (
        "BACKGROUND",
        "Acute diarrhoea remains a leading cause of death in children under five years old.",
    ),
    (
        "METHODS",
        "We randomly assigned 480 children aged 6 to 59 months to zinc with oral rehydration "
        "solution or to oral rehydration solution alone for 10 days.",
    ),
    (
        "RESULTS",
        "Zinc shortened the mean duration of diarrhoea by 21 hours and reduced stool output "
        "by 28 percent compared with oral rehydration alone.",
    ),
    (
        "CONCLUSIONS",
        "Zinc given with oral rehydration solution shortens acute diarrhoea in young children.",
    ),
]
ZINC_AUTHORS = [("Okafor", "Ngozi A", "NA"), ("Lindqvist", "Maria", "M"), ("Tanaka", "Hiro", "H")]

COHORT_PMID = "35200044"
COHORT_DOI = "10.4314/eamj.v99i1.3"
COHORT_TITLE = "Zinc supplementation and diarrhoea incidence in a rural cohort"
COHORT_ABSTRACT = (
    "Children who received zinc supplements had 15 percent fewer episodes of diarrhoea over "
    "one year in a rural cohort of 1200 children."
)

PREPRINT_DOI = "10.1101/2022.06.01.22275911"
PREPRINT_PMID = "35700911"
PREPRINT_TITLE = "Zinc and oral rehydration in acute childhood diarrhoea: preliminary results"
PREPRINT_ABSTRACT = (
    "In the first 200 children enrolled, zinc with oral rehydration shortened diarrhoea by "
    "about one day."
)

TRIAL_NCT = "NCT05100117"
TRIAL_TITLE = "Zinc and Oral Rehydration in Children With Acute Diarrhoea (ZORA)"
TRIAL_SUMMARY = (
    "This trial tests whether zinc added to oral rehydration solution shortens acute "
    "diarrhoea in children aged 6 to 59 months."
)


def _structured_html() -> str:
    return "".join(f"<h4>{label.title()}</h4>{text}" for label, text in ZINC_SECTIONS)


def _inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split(" ")):
        index.setdefault(word, []).append(position)
    return index


# ---------------------------------------------------------------- E-utilities


def esearch(ids: list[str], count: int | None = None, start: int = 0) -> dict[str, Any]:
    """An esearch JSON answer."""
    return {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {
            "count": str(count if count is not None else len(ids)),
            "retmax": str(len(ids)),
            "retstart": str(start),
            "idlist": ids,
            "translationset": [],
            "querytranslation": "zinc[All Fields] AND diarrhoea[All Fields]",
        },
    }


def _docsum(uid: str) -> dict[str, Any]:
    if uid == ZINC_PMID:
        return {
            "uid": uid,
            "pubdate": "2023 Apr",
            "epubdate": "2023 Feb 6",
            "source": "J Pediatr",
            "authors": [
                {"name": f"{last} {initials}", "authtype": "Author", "clusterid": ""}
                for last, _, initials in ZINC_AUTHORS
            ],
            "lastauthor": "Tanaka H",
            "title": ZINC_TITLE + ".",
            "volume": "255",
            "issue": "4",
            "pages": "112-120",
            "lang": ["eng"],
            "issn": "0022-3476",
            "pubtype": ["Journal Article", "Randomized Controlled Trial"],
            "articleids": [
                {"idtype": "pubmed", "idtypen": 1, "value": uid},
                {"idtype": "doi", "idtypen": 3, "value": ZINC_DOI.upper()},
                {"idtype": "pmc", "idtypen": 8, "value": ZINC_PMCID},
            ],
            "references": [
                {"refsource": "medRxiv. 2022 Jun 3", "reftype": "UpdateOf", "pmid": PREPRINT_PMID}
            ],
            "attributes": ["Has Abstract"],
            "fulljournalname": "The Journal of pediatrics",
            "elocationid": f"doi: {ZINC_DOI}",
            "sortpubdate": "2023/04/01 00:00",
        }
    if uid == PREPRINT_PMID:
        return {
            "uid": uid,
            "pubdate": "2022 Jun 3",
            "source": "medRxiv",
            "authors": [{"name": "Okafor NA", "authtype": "Author"}],
            "title": PREPRINT_TITLE,
            "pubtype": ["Preprint"],
            "articleids": [
                {"idtype": "pubmed", "value": uid},
                {"idtype": "doi", "value": PREPRINT_DOI},
            ],
            "references": [],
            "attributes": ["Has Abstract"],
            "fulljournalname": "medRxiv : the preprint server for health sciences",
            "sortpubdate": "2022/06/03 00:00",
        }
    return {
        "uid": uid,
        "pubdate": "2022 Jan-Feb",
        "source": "East Afr Med J",
        "authors": [{"name": "Mwangi P", "authtype": "Author"}],
        "title": COHORT_TITLE,
        "volume": "99",
        "issue": "1",
        "pages": "14-19",
        "pubtype": ["Journal Article"],
        "articleids": [{"idtype": "pubmed", "value": uid}],
        "attributes": ["Has Abstract"],
        "fulljournalname": "East African medical journal",
        "sortpubdate": "2022/01/01 00:00",
    }


def esummary(ids: list[str]) -> dict[str, Any]:
    """An esummary JSON answer for ``ids``."""
    return {"header": {"type": "esummary"}, "result": {"uids": ids, **{i: _docsum(i) for i in ids}}}


def efetch(pmid: str) -> str:
    """An efetch XML answer (PubmedArticleSet) for one PMID."""
    if pmid == ZINC_PMID:
        title = ZINC_TITLE + "."
        abstract = "".join(
            f'<AbstractText Label="{label}" NlmCategory="{label}">{text}</AbstractText>'
            for label, text in ZINC_SECTIONS
        )
    elif pmid == PREPRINT_PMID:
        title = PREPRINT_TITLE
        abstract = f"<AbstractText>{PREPRINT_ABSTRACT}</AbstractText>"
    else:
        title = COHORT_TITLE + "."
        abstract = f"<AbstractText>{COHORT_ABSTRACT}</AbstractText>"
    return f"""<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2023//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_230101.dtd">
<PubmedArticleSet>
<PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
    <PMID Version="1">{pmid}</PMID>
    <Article PubModel="Print-Electronic">
      <Journal><Title>Journal</Title><ISOAbbreviation>J</ISOAbbreviation></Journal>
      <ArticleTitle>{title}</ArticleTitle>
      <Abstract>{abstract}</Abstract>
      <AuthorList CompleteYN="Y">
        <Author ValidYN="Y">
          <LastName>Okafor</LastName><ForeName>Ngozi A</ForeName><Initials>NA</Initials>
        </Author>
      </AuthorList>
    </Article>
  </MedlineCitation>
  <PubmedData>
    <ArticleIdList><ArticleId IdType="pubmed">{pmid}</ArticleId></ArticleIdList>
  </PubmedData>
</PubmedArticle>
</PubmedArticleSet>
"""


# ---------------------------------------------------------------- Europe PMC


def europepmc_zinc() -> dict[str, Any]:
    """The core record of ``ZINC`` in Europe PMC."""
    return {
        "id": ZINC_PMID,
        "source": "MED",
        "pmid": ZINC_PMID,
        "pmcid": ZINC_PMCID,
        "fullTextIdList": {"fullTextId": [ZINC_PMCID]},
        "doi": ZINC_DOI,
        "title": ZINC_TITLE + ".",
        "authorString": "Okafor NA, Lindqvist M, Tanaka H.",
        "authorList": {
            "author": [
                {"fullName": f"{last} {ini}", "firstName": first, "lastName": last, "initials": ini}
                for last, first, ini in ZINC_AUTHORS
            ]
        },
        "journalInfo": {
            "issue": "4",
            "volume": "255",
            "dateOfPublication": "2023 Apr",
            "monthOfPublication": 4,
            "yearOfPublication": 2023,
            "printPublicationDate": "2023-04-01",
            "journal": {
                "title": "The Journal of pediatrics",
                "medlineAbbreviation": "J Pediatr",
                "isoabbreviation": "J Pediatr",
                "issn": "0022-3476",
            },
        },
        "pubYear": "2023",
        "pageInfo": "112-120",
        "abstractText": _structured_html(),
        "isOpenAccess": "Y",
        "inEPMC": "Y",
        "inPMC": "Y",
        "hasPDF": "Y",
        "pubTypeList": {"pubType": ["Randomized Controlled Trial", "Journal Article"]},
        "firstPublicationDate": "2023-02-06",
    }


def europepmc_preprint() -> dict[str, Any]:
    """The core record of ``PREPRINT`` (source PPR) in Europe PMC."""
    return {
        "id": "PPR512345",
        "source": "PPR",
        "doi": PREPRINT_DOI,
        "title": PREPRINT_TITLE,
        "authorString": "Okafor NA.",
        "authorList": {
            "author": [{"fullName": "Okafor NA", "lastName": "Okafor", "initials": "NA"}]
        },
        "bookOrReportDetails": {"publisher": "medRxiv", "yearOfPublication": 2022},
        "pubYear": "2022",
        "abstractText": PREPRINT_ABSTRACT,
        "isOpenAccess": "N",
        "pubTypeList": {"pubType": ["Preprint"]},
        "firstPublicationDate": "2022-06-03",
        "commentCorrectionList": {
            "commentCorrection": [
                {
                    "id": ZINC_PMID,
                    "source": "MED",
                    "reference": "J Pediatr. 2023",
                    "type": "Preprint of",
                    "orientation": "to",
                }
            ]
        },
    }


def europepmc_cohort() -> dict[str, Any]:
    """The core record of ``COHORT`` in Europe PMC, which has the DOI PubMed's record lacks."""
    return {
        "id": COHORT_PMID,
        "source": "MED",
        "pmid": COHORT_PMID,
        "doi": COHORT_DOI,
        "title": COHORT_TITLE + ".",
        "authorString": "Mwangi P.",
        "authorList": {
            "author": [{"fullName": "Mwangi P", "firstName": "Peter", "lastName": "Mwangi"}]
        },
        "journalInfo": {
            "issue": "1",
            "volume": "99",
            "dateOfPublication": "2022 Jan-Feb",
            "yearOfPublication": 2022,
            "journal": {
                "title": "East African medical journal",
                "medlineAbbreviation": "East Afr Med J",
                "isoabbreviation": "East Afr Med J",
            },
        },
        "pubYear": "2022",
        "pageInfo": "14-19",
        "abstractText": COHORT_ABSTRACT,
        "isOpenAccess": "N",
        "inEPMC": "N",
        "pubTypeList": {"pubType": ["Journal Article"]},
        "firstPublicationDate": "2022-01-15",
    }


def europepmc_search(records: list[dict[str, Any]], next_mark: str = "AoE=") -> dict[str, Any]:
    """A Europe PMC search JSON answer."""
    return {
        "version": "6.9",
        "hitCount": len(records),
        "nextCursorMark": next_mark,
        "request": {"queryString": "zinc", "resultType": "core", "cursorMark": "*"},
        "resultList": {"result": records},
    }


def jats() -> str:
    """The JATS full text of ``ZINC`` (``fullTextXML``)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front><article-meta>
  <title-group><article-title>{ZINC_TITLE}</article-title></title-group>
  <abstract><sec><title>Background</title><p>{ZINC_SECTIONS[0][1]}</p></sec></abstract>
</article-meta></front>
<body>
  <sec><title>Introduction</title><p>Zinc deficiency is common where diarrhoea is common.</p></sec>
  <sec><title>Results</title><p>{ZINC_SECTIONS[2][1]}</p>
    <p>Vomiting was reported in 9 percent of children given <italic>zinc</italic>.</p></sec>
</body>
</article>
"""


# ---------------------------------------------------------------- OpenAlex


def openalex_zinc() -> dict[str, Any]:
    """The OpenAlex work of ``ZINC``."""
    abstract = " ".join(text for _, text in ZINC_SECTIONS)
    return {
        "id": "https://openalex.org/W4300000117",
        "doi": f"https://doi.org/{ZINC_DOI}",
        "title": ZINC_TITLE,
        "display_name": ZINC_TITLE,
        "publication_year": 2023,
        "publication_date": "2023-02-06",
        "ids": {
            "openalex": "https://openalex.org/W4300000117",
            "doi": f"https://doi.org/{ZINC_DOI}",
            "pmid": f"https://pubmed.ncbi.nlm.nih.gov/{ZINC_PMID}",
            "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/9900117",
        },
        "language": "en",
        "primary_location": {
            "is_oa": True,
            "landing_page_url": f"https://doi.org/{ZINC_DOI}",
            "source": {
                "id": "https://openalex.org/S100",
                "display_name": "The Journal of Pediatrics",
                "type": "journal",
            },
            "version": "publishedVersion",
        },
        "type": "article",
        "open_access": {"is_oa": True, "oa_status": "green"},
        "authorships": [
            {
                "author_position": "first" if n == 0 else "middle",
                "author": {"id": f"https://openalex.org/A{n}", "display_name": f"{first} {last}"},
                "raw_author_name": f"{first} {last}",
            }
            for n, (last, first, _) in enumerate(ZINC_AUTHORS)
        ],
        "biblio": {"volume": "255", "issue": "4", "first_page": "112", "last_page": "120"},
        "abstract_inverted_index": _inverted(abstract),
        "relevance_score": 812.5,
    }


def openalex_other(n: int) -> dict[str, Any]:
    """An unrelated OpenAlex work (for paging)."""
    text = f"Study {n} of micronutrients in child health."
    return {
        "id": f"https://openalex.org/W50000{n}",
        "doi": f"https://doi.org/10.2000/micro.{n}",
        "display_name": f"Micronutrients in child health, part {n}",
        "publication_year": 2020,
        "publication_date": "2020-05-01",
        "ids": {"openalex": f"https://openalex.org/W50000{n}"},
        "primary_location": {"source": {"display_name": "Nutrients", "type": "journal"}},
        "type": "article",
        "authorships": [{"author": {"display_name": "Ana Souza"}}],
        "biblio": {},
        "abstract_inverted_index": _inverted(text),
    }


def openalex_page(works: list[dict[str, Any]], next_cursor: str | None) -> dict[str, Any]:
    """An OpenAlex list answer."""
    return {
        "meta": {
            "count": 4,
            "db_response_time_ms": 12,
            "page": None,
            "per_page": len(works),
            "next_cursor": next_cursor,
            "groups_count": None,
        },
        "results": works,
        "group_by": [],
    }


# ---------------------------------------------------------------- ClinicalTrials.gov


def study() -> dict[str, Any]:
    """The ClinicalTrials.gov v2 study of ``TRIAL``."""
    return {
        "protocolSection": {
            "identificationModule": {
                "nctId": TRIAL_NCT,
                "orgStudyIdInfo": {"id": "ZORA-01"},
                "organization": {"fullName": "University of Nairobi", "class": "OTHER"},
                "briefTitle": TRIAL_TITLE,
                "officialTitle": "A Randomized Trial of Zinc With Oral Rehydration Solution",
                "acronym": "ZORA",
            },
            "statusModule": {
                "statusVerifiedDate": "2023-01",
                "overallStatus": "COMPLETED",
                "startDateStruct": {"date": "2021-09-01", "type": "ACTUAL"},
                "primaryCompletionDateStruct": {"date": "2022-08-30", "type": "ACTUAL"},
                "completionDateStruct": {"date": "2022-10-15", "type": "ACTUAL"},
                "studyFirstSubmitDate": "2021-08-20",
                "studyFirstPostDateStruct": {"date": "2021-08-27", "type": "ACTUAL"},
            },
            "sponsorCollaboratorsModule": {
                "responsibleParty": {"type": "SPONSOR"},
                "leadSponsor": {"name": "University of Nairobi", "class": "OTHER"},
                "collaborators": [{"name": "Karolinska Institutet", "class": "OTHER"}],
            },
            "descriptionModule": {
                "briefSummary": TRIAL_SUMMARY,
                "detailedDescription": "Children are followed daily until diarrhoea stops.",
            },
            "conditionsModule": {"conditions": ["Diarrhea", "Dehydration"]},
            "designModule": {
                "studyType": "INTERVENTIONAL",
                "phases": ["PHASE3"],
                "enrollmentInfo": {"count": 480, "type": "ACTUAL"},
            },
            "armsInterventionsModule": {
                "interventions": [
                    {"type": "DIETARY_SUPPLEMENT", "name": "Zinc sulfate"},
                    {"type": "OTHER", "name": "Oral rehydration solution"},
                ]
            },
        },
        "hasResults": False,
    }


# ---------------------------------------------------------------- the fake


@dataclass
class FakeApis:
    """Routes requests to the four stand-ins; see the module docstring."""

    failing: dict[str, int] = field(default_factory=dict)
    """Provider → HTTP status every request to it gets."""
    rate_limited: dict[str, int] = field(default_factory=dict)
    """Provider → how many first requests get 429 with ``Retry-After: 2``."""
    requests: list[httpx.Request] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        """The transport every faked client uses."""
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer ``request`` as its API would."""
        self.requests.append(request)
        url = str(request.url)
        name = next(n for n, base in BASES.items() if url.startswith(base))
        if name in self.failing:
            return httpx.Response(self.failing[name], text="Service Unavailable")
        if self.rate_limited.get(name, 0) > 0:
            self.rate_limited[name] -= 1
            return httpx.Response(429, headers={"Retry-After": "2"}, text="Too Many Requests")
        path = url.removeprefix(BASES[name]).split("?", 1)[0]
        params = {k: v[0] for k, v in parse_qs(request.url.query.decode()).items()}
        return getattr(self, name)(path, params)

    def pubmed(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/esearch.fcgi":
            return _json(esearch([ZINC_PMID, COHORT_PMID, PREPRINT_PMID]))
        if path == "/esummary.fcgi":
            return _json(esummary(params["id"].split(",")))
        if path == "/efetch.fcgi":
            return httpx.Response(200, text=efetch(params["id"]))
        return httpx.Response(404)

    def europepmc(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/search":
            query = params["query"]
            if query.startswith(("EXT_ID:", "PMCID:", "DOI:")):  # one work, by identifier
                records = [europepmc_zinc(), europepmc_preprint()]
                named = [r for r in records if any(v and v in query for v in _ids(r))]
                return _json(europepmc_search(named[:1]))
            return _json(europepmc_search([europepmc_zinc(), europepmc_preprint()]))
        if path == f"/{ZINC_PMCID}/fullTextXML":
            return httpx.Response(200, text=jats(), headers={"Content-Type": "application/xml"})
        return httpx.Response(404)

    def openalex(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/works":
            if params.get("cursor") == "*":
                return _json(openalex_page([openalex_zinc(), openalex_other(1)], "IlsxNjA5"))
            return _json(openalex_page([openalex_other(2), openalex_other(3)], None))
        if path.startswith("/works/W50000"):
            return _json(openalex_other(int(path.removeprefix("/works/W50000"))))
        if path.startswith("/works/"):
            return _json(openalex_zinc())
        return httpx.Response(404)

    def clinicaltrials(self, path: str, params: dict[str, str]) -> httpx.Response:
        if path == "/studies":
            return _json({"studies": [study()], "nextPageToken": None})
        if path == f"/studies/{TRIAL_NCT}":
            return _json(study())
        return httpx.Response(404)

    def provider(self, name: str, **client: Any) -> ScholarlyProvider:
        """Provider ``name`` over this fake, retrying at once (no real waits)."""
        config = ScholarlyConfig(base_url=BASES[name], timeout=5.0, max_attempts=3)
        api = ApiClient(
            name,
            BASES[name],
            max_attempts=client.pop("max_attempts", 3),
            backoff=0.0,
            limiter=client.pop("limiter", RateLimiter(0)),
            transport=self.transport(),
            sleep=client.pop("sleep", _no_wait),
        )
        return provider_for(name, api, config, cache=client.pop("cache", None))

    def providers(self) -> list[ScholarlyProvider]:
        """All four providers over this fake."""
        return [self.provider(name) for name in BASES]

    def paths(self, name: str) -> list[str]:
        """The paths requested of API ``name``, in order."""
        return [
            str(r.url).removeprefix(BASES[name]).split("?", 1)[0]
            for r in self.requests
            if str(r.url).startswith(BASES[name])
        ]


def _ids(record: dict[str, Any]) -> list[str]:
    ids = [str(record.get(k) or "") for k in ("pmid", "pmcid", "doi")]
    if record.get("source") == "PPR":
        ids.append(PREPRINT_PMID)  # PubMed indexes the preprint too
    return ids


async def _no_wait(seconds: float) -> None:
    return None


def _json(payload: Any) -> httpx.Response:
    return httpx.Response(
        200, content=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
