"""ClinicalTrials.gov's API v2 (``DEEP_RESEARCH_CLINICALTRIALS_BASE_URL``), keyless.

* Search: ``studies?query.term=...`` (JSON), paged with ``pageToken`` / ``nextPageToken``.
* Read: ``studies/{NCT id}``. The document's text is the study's brief summary, then its
  registry facts, one per line (NCT id, official title, status, study type, phase,
  enrollment, conditions, interventions, lead sponsor and collaborators, start, primary
  completion and completion dates, first posting), then the detailed description.
* A trial's reference names its lead sponsor as author, ClinicalTrials.gov as venue, and the
  date it was first posted.
"""

from __future__ import annotations

from typing import Any

from deep_research.errors import SourceError
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.works import (
    Part,
    nct_id,
    parse_date,
    plain,
    result,
    work_document,
    work_text,
    year_of,
)
from deep_research.state.models import BibRecord, Document, SearchResult

REGISTRY = "ClinicalTrials.gov"


class ClinicalTrialsSearch(ScholarlyProvider):
    """Search and read ClinicalTrials.gov studies; see the module docstring."""

    name = "clinicaltrials"

    async def search_page(
        self, query: str, size: int, page: int, cursor: str | None, rank: int
    ) -> tuple[list[SearchResult], str | None]:
        """One page of studies; the next page's token."""
        params = {"query.term": query, "pageSize": str(size), "format": "json"}
        if cursor:
            params["pageToken"] = cursor
        payload = await self.client.get_json("studies", params)
        if not isinstance(payload, dict):
            raise SourceError("ClinicalTrials.gov answered with JSON that is not an object")
        studies = payload.get("studies") or []
        hits: list[SearchResult] = []
        for n, study in enumerate(studies):
            hit = self._hit(study, rank + n)
            if hit is not None:
                hits.append(hit)
                await self.remember(hit, study_text(study.get("protocolSection") or {}, hit.title))
        following = payload.get("nextPageToken")
        return hits, following if isinstance(following, str) and following else None

    def _hit(self, study: Any, rank: int) -> SearchResult | None:
        if not isinstance(study, dict):
            return None
        protocol = study.get("protocolSection") or {}
        summary = (protocol.get("descriptionModule") or {}).get("briefSummary") or ""
        return result(
            study_record(protocol),
            title=_title(protocol),
            text=str(summary),
            provider=self.name,
            rank=rank,
            richness=1,
        )

    async def read_work(self, hit: SearchResult) -> Document:
        """The study's record as text (see the module docstring).

        Raises:
            SourceError: the work is not a registered trial, or the request failed.
        """
        trial = (hit.bib or BibRecord()).nct_id
        if trial is None:
            raise SourceError(f"ClinicalTrials.gov reads studies by NCT id; {hit.url} has none")
        study = await self.client.get_json(f"studies/{trial}", {"format": "json"})
        if not isinstance(study, dict) or not isinstance(study.get("protocolSection"), dict):
            raise SourceError(f"ClinicalTrials.gov returned no study for {trial}")
        return work_document(self.name, hit, study_text(study["protocolSection"], hit.title))


def study_text(protocol: dict[str, Any], title: str) -> str:
    """A study's document text: its title, summary, registry facts and description."""
    return work_text(_title(protocol) or title, study_parts(protocol))


def _title(protocol: dict[str, Any]) -> str:
    ident = protocol.get("identificationModule") or {}
    return plain(ident.get("briefTitle") or ident.get("officialTitle") or "")


def study_record(protocol: dict[str, Any]) -> BibRecord:
    """The bibliographic record of one study's protocol section."""
    ident = protocol.get("identificationModule") or {}
    status = protocol.get("statusModule") or {}
    sponsor = ((protocol.get("sponsorCollaboratorsModule") or {}).get("leadSponsor") or {}).get(
        "name"
    )
    posted = parse_date((status.get("studyFirstPostDateStruct") or {}).get("date"))
    posted = posted or parse_date(status.get("studyFirstSubmitDate"))
    design = protocol.get("designModule") or {}
    return BibRecord(
        authors=[plain(sponsor)] if sponsor else [],
        year=year_of(posted),
        date=posted,
        venue=REGISTRY,
        venue_type="registry",
        publication_type=_label(design.get("studyType")) or None,
        nct_id=nct_id(ident.get("nctId")),
    )


def study_parts(protocol: dict[str, Any]) -> list[Part]:
    """The study's summary, registry facts and detailed description, as labelled parts."""
    ident = protocol.get("identificationModule") or {}
    status = protocol.get("statusModule") or {}
    design = protocol.get("designModule") or {}
    description = protocol.get("descriptionModule") or {}
    sponsors = protocol.get("sponsorCollaboratorsModule") or {}
    enrollment = design.get("enrollmentInfo") or {}
    arms = (protocol.get("armsInterventionsModule") or {}).get("interventions") or []
    interventions = [_intervention(i) for i in arms if isinstance(i, dict)]
    conditions = (protocol.get("conditionsModule") or {}).get("conditions") or []
    collaborators = sponsors.get("collaborators") or []
    facts = [
        ("Registry", f"{REGISTRY} {ident.get('nctId', '')}".strip()),
        ("Official title", ident.get("officialTitle")),
        ("Status", _label(status.get("overallStatus"))),
        ("Study type", _label(design.get("studyType"))),
        ("Phase", ", ".join(_label(p) for p in design.get("phases") or [])),
        ("Enrollment", _enrollment(enrollment)),
        ("Conditions", "; ".join(str(c) for c in conditions)),
        ("Interventions", "; ".join(interventions)),
        ("Lead sponsor", (sponsors.get("leadSponsor") or {}).get("name")),
        ("Collaborators", "; ".join(str(c.get("name", "")) for c in collaborators)),
        ("Start date", _dated(status.get("startDateStruct"))),
        ("Primary completion date", _dated(status.get("primaryCompletionDateStruct"))),
        ("Completion date", _dated(status.get("completionDateStruct"))),
        ("First posted", _dated(status.get("studyFirstPostDateStruct"))),
    ]
    lines = [f"{label}: {plain(value)}." for label, value in facts if value and plain(value)]
    return [
        ("Brief summary", str(description.get("briefSummary") or "")),
        ("Study record", "\n".join(lines)),
        ("Detailed description", str(description.get("detailedDescription") or "")),
    ]


def _label(value: object) -> str:
    """``PHASE2`` → ``Phase 2``, ``ACTIVE_NOT_RECRUITING`` → ``Active not recruiting``."""
    if not isinstance(value, str) or not value:
        return ""
    text = value.replace("_", " ").lower()
    if text.startswith("phase") and text[5:].strip().isdigit():
        return f"Phase {text[5:].strip()}"
    return text.capitalize()


def _enrollment(info: dict[str, Any]) -> str:
    count = info.get("count")
    if count is None:
        return ""
    kind = str(info.get("type") or "").lower()
    return f"{count} participants" + (f" ({kind})" if kind else "")


def _intervention(item: dict[str, Any]) -> str:
    kind = _label(item.get("type"))
    name = str(item.get("name") or "")
    return f"{kind}: {name}" if kind else name


def _dated(struct: object) -> str:
    if not isinstance(struct, dict) or not struct.get("date"):
        return ""
    kind = str(struct.get("type") or "").lower()
    return str(struct["date"]) + (f" ({kind})" if kind else "")
