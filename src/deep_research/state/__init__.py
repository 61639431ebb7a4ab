"""Graph state, domain models and reducers.

The domain models are imported with the package; the graph state classes, which load
LangGraph's graph machinery, on first use (see :mod:`deep_research._exports`).
"""

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports
from deep_research.state.models import (
    DEPTH_BUDGETS,
    BibRecord,
    Budget,
    Chunk,
    Citation,
    Claim,
    Config,
    Document,
    EvidenceSpan,
    Finding,
    Limitation,
    Metrics,
    PartJudgement,
    Passage,
    PlanStep,
    Reason,
    Reference,
    Report,
    ReportConfidence,
    ReportSection,
    Requirements,
    SearchResult,
    Source,
    TokenUsage,
    TraceEvent,
    Verdict,
    VerificationSummary,
    stable_id,
)

__all__ = [
    "stable_id",
    "DEPTH_BUDGETS",
    "BibRecord",
    "Budget",
    "Chunk",
    "Citation",
    "Claim",
    "Config",
    "Document",
    "EvidenceSpan",
    "Finding",
    "InputState",
    "Limitation",
    "Metrics",
    "OutputState",
    "Passage",
    "PartJudgement",
    "PlanStep",
    "Reason",
    "Reference",
    "Report",
    "Requirements",
    "ReportConfidence",
    "ReportSection",
    "ResearcherInput",
    "ResearcherOutput",
    "ResearcherState",
    "ResearcherTask",
    "SearchResult",
    "Source",
    "State",
    "TokenUsage",
    "TraceEvent",
    "Verdict",
    "VerificationSummary",
]

_GRAPH_STATE = "deep_research.state.graph_state"
__getattr__ = lazy_exports(
    __name__,
    dict.fromkeys(
        [
            "InputState",
            "OutputState",
            "ResearcherInput",
            "ResearcherOutput",
            "ResearcherState",
            "ResearcherTask",
            "State",
        ],
        _GRAPH_STATE,
    ),
)

if TYPE_CHECKING:
    from deep_research.state.graph_state import (
        InputState,
        OutputState,
        ResearcherInput,
        ResearcherOutput,
        ResearcherState,
        ResearcherTask,
        State,
    )
