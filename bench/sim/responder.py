"""The simulated model's answers, by what each request asks for.

A request is an OpenAI chat request (messages, tool schemas, response schema). The responder
recognises the task from the schema it must fill (our engine forces one tool per structured
task; open_deep_research binds tools or asks for a JSON schema) or, for free text, from the
prompt, and answers it the way a model would (:mod:`bench.sim.ours`, :mod:`bench.sim.peer`):
the fields the schema asks for, text of a realistic length, citations to the evidence keys it
was shown.
"""

from __future__ import annotations

from bench.sim import text
from bench.sim.ours import OURS, ours_report
from bench.sim.peer import (
    PEER_SCHEMAS,
    peer_compress,
    peer_report,
    peer_researcher,
    peer_supervisor,
)
from bench.sim.requests import STAGES, Reply, Request, Scenario, words

__all__ = ["STAGES", "Reply", "Request", "Scenario", "respond"]


def respond(request: Request, scenario: Scenario) -> Reply:
    """Answer ``request`` as the simulated model.

    Raises:
        ValueError: the request is for no task the simulation knows (a new prompt or schema
            of either agent); the message names what was asked.
    """
    names = request.tool_names
    schema = request.schema_name
    if schema is not None and schema in PEER_SCHEMAS:
        return PEER_SCHEMAS[schema](request, scenario)
    if len(names) == 1 and names[0] in OURS:
        return OURS[names[0]](request, scenario)
    if "ConductResearch" in names:
        return peer_supervisor(request, scenario)
    if "ResearchComplete" in names:
        return peer_researcher(request, scenario)
    if names or schema:
        raise ValueError(f"the simulation has no answer for tools {names} / schema {schema}")
    system = request.content("system")
    last = str(request.messages[-1].get("content") or "") if request.messages else ""
    if "research report from evidence" in system:
        return ours_report(request, scenario)
    if "clean up these findings" in last:
        return peer_compress(request, scenario)
    if "Based on all the research conducted" in last:
        return peer_report(request, scenario)
    if "answer questions directly" in system:
        r = text.rng("answer")
        return Reply("report", "answer", words(r, text.subjects_of(text.QUESTION), 150))
    raise ValueError(f"the simulation has no answer for the text prompt {last[:120]!r}")
