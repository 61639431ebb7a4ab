"""The simulated model's answers to our engine's tasks (one forced tool each)."""

from __future__ import annotations

import re
from collections.abc import Callable

from bench.sim import text
from bench.sim.requests import (
    SECTION_SENTENCES,
    Reply,
    Request,
    Scenario,
    step_title,
    tool,
    words,
)
from deep_research.text import content_tokens


def _ours_plan(request: Request, scenario: Scenario) -> Reply:
    r = text.rng("plan", scenario.plan_steps)
    steps = [
        {
            "title": step_title(i),
            "intent": words(r, text.subjects_of(step_title(i)), 14),
            "evidence_needed": words(r, text.subjects_of(step_title(i)), 12),
        }
        for i in range(scenario.plan_steps)
    ]
    brief = words(r, text.subjects_of(text.QUESTION), 45)
    return tool("plan", "ResearchPlan", {"brief": brief, "complexity": "complex", "steps": steps})


def _ours_queries(request: Request, scenario: Scenario) -> Reply:
    prompt = request.content()
    n = int(m.group(1)) if (m := re.search(r"Propose up to (\d+)", prompt)) else 2
    title = m.group(1) if (m := re.search(r"^\[s\d+\] (.+)$", prompt, re.M)) else "grid storage"
    issued = re.findall(r"^- (.+)$", prompt.split("Queries already issued:", 1)[-1], re.M)
    found = text.queries(title, min(n, scenario.queries_per_step), issued)
    return tool("research", "SearchQueries", {"queries": found})


PICK_OVERLAP = 2
"""Step terms a sentence must share for the simulated model to pick it."""

PICK_RUN = 2
"""Most consecutive sentences in one simulated pick."""

PICK_PER_PASSAGE = 2
"""Most picks the simulated model takes from one passage (the prompt asks for short picks,
one per fact; a model does not name the whole passage)."""

_SENTENCE = re.compile(r"^> \[s(\d+)\] (.*)$")


def _passages(prompt: str) -> list[tuple[str, list[tuple[int, str]]]]:
    """The passages shown: key, and the sentences numbered in it (number, text)."""
    found = []
    for key, body in re.findall(r"^\[(P\d+)\] \([^\n]*\n((?:> ?.*(?:\n|$))+)", prompt, re.M):
        numbered = [
            (int(m.group(1)), m.group(2)) for m in map(_SENTENCE.match, body.splitlines()) if m
        ]
        found.append((key, numbered))
    return found


def _ours_pick(request: Request, scenario: Scenario) -> Reply:
    """Name each passage's best runs of prose sentences on the step by their numbers.

    A run is up to :data:`PICK_RUN` consecutive sentences sharing :data:`PICK_OVERLAP` of the
    step's terms; a passage gives its :data:`PICK_PER_PASSAGE` runs sharing most, in order.
    The prompt numbers every sentence and asks for the numbers, not the text, as a model
    answers it: no quote is copied, so none is miscopied.
    """
    prompt = request.content()
    step = prompt.split("Research step:", 1)[-1].split("Untrusted data", 1)[0]
    wanted = set(content_tokens(step))
    picks: list[dict[str, object]] = []
    for key, numbered in _passages(prompt):
        for first, last, shared in _runs(numbered, wanted):
            relevance = round(min(1.0, shared / max(1, len(wanted))), 2)
            named = f"s{first}" if first == last else f"s{first}-s{last}"
            picks.append({"passage": key, "sentences": named, "relevance": relevance})
    return tool("reading", "EvidencePicks", {"quotes": picks})


def _runs(numbered: list[tuple[int, str]], wanted: set[str]) -> list[tuple[int, int, int]]:
    """A passage's best runs of on-step prose sentences, in order.

    Each run is its first and last sentence's number and the step's terms it shares.
    """
    runs: list[tuple[int, int, int]] = []
    run: list[int] = []
    shared = 0
    for n, sentence in [*numbered, (0, None)]:
        overlap = len(wanted.intersection(content_tokens(sentence))) if sentence else 0
        prose = (
            sentence is not None
            and len(sentence.split()) >= 5
            and sentence.endswith((".", "!", "?"))
        )
        if prose and overlap >= PICK_OVERLAP and len(run) < PICK_RUN:
            run.append(n)
            shared = max(shared, overlap)
            continue
        if run:
            runs.append((run[0], run[-1], shared))
            run, shared = [], 0
    best = sorted(runs, key=lambda r: (-r[2], r[0]))[:PICK_PER_PASSAGE]
    return sorted(best)


def _keys(prompt: str) -> list[str]:
    return sorted(set(re.findall(r"^\[(E\d+)\] \(", prompt, re.M)), key=lambda k: int(k[1:]))


def _cited(sentence: str, key: str) -> str:
    return f"{sentence[:-1]} [{key}]."


def _ours_notes(request: Request, scenario: Scenario) -> Reply:
    prompt = request.content()
    keys = _keys(prompt) or ["E1"]
    title = m.group(1) if (m := re.search(r"^\[s\d+\] (.+)$", prompt, re.M)) else "grid"
    r = text.rng("notes", title)
    lines = [
        _cited(s, keys[i % len(keys)])
        for i, s in enumerate(text.prose(r, text.subjects_of(title), 110))
    ]
    return tool("notes", "StepNotes", {"notes": " ".join(lines), "sufficient": True})


def report_sections(titles: list[str], flag_every: int) -> list[tuple[str, list[str]]]:
    """Report sections (heading, sentences): a summary, then one section per plan step."""
    r = text.rng("report", *titles)
    sections = [("Summary", [text.sentence(r, s) for s in text.subjects_of(text.QUESTION)])]
    for title in titles:
        subjects = text.subjects_of(title)
        sections.append(
            (title, [text.sentence(r, subjects[i % 3]) for i in range(SECTION_SENTENCES)])
        )
    count = 0
    for heading, sentences in sections:
        for i, _sentence in enumerate(sentences):
            count += 1
            if flag_every and count % flag_every == 0:
                subject = text.subjects_of(heading)[i % 3]
                sentences[i] = (
                    f"{subject[:1].upper()}{subject[1:]} stood at {text.FLAG_FIGURE} MWh in "
                    f"{2010 + count % 15}."
                )
    return sections


def ours_report(request: Request, scenario: Scenario) -> Reply:
    """The report: a summary and a section per plan step, each sentence citing a key."""
    prompt = request.content()
    keys = _keys(prompt) or ["E1"]
    titles = re.findall(r"^\[s\d+\] (.+)$", prompt.split("Research plan:", 1)[-1], re.M)
    parts: list[str] = []
    k = 0
    for heading, sentences in report_sections(titles, scenario.flag_every):
        cited = []
        for sentence in sentences:
            cited.append(_cited(sentence, keys[k % len(keys)]))
            k += 1
        parts.append(f"## {heading}\n\n{' '.join(cited)}")
    return Reply(stage="report", call="report", content="\n\n".join(parts) + "\n")


def _ours_judge(request: Request, scenario: Scenario) -> Reply:
    blocks = re.findall(r"claim_id: (\S+)\nClaim:\n> (.*)", request.content())
    r = text.rng("judge", *(claim_id for claim_id, _ in blocks))
    verdicts = [
        {
            "claim_id": claim_id,
            "verdict": "UNSUPPORTED" if text.FLAG_FIGURE in claim else "SUPPORTED",
            "confidence": 0.9,
            "reasoning": text.sentence(r, "the cited evidence"),
            "evidence_key": "E1",
        }
        for claim_id, claim in blocks
    ]
    return tool("verify", "VerdictBatch", {"verdicts": verdicts}, items=tuple(c for c, _ in blocks))


def _ours_rewrite(request: Request, scenario: Scenario) -> Reply:
    claim = m.group(1) if (m := re.search(r"Claim:\n> (.*)", request.content())) else "It held"
    fixed = claim.replace(f"{text.FLAG_FIGURE} MWh", "129 MWh").rstrip(".")
    return tool("verify", "Rewrite", {"text": fixed, "evidence_key": "E1"})


OURS: dict[str, Callable[[Request, Scenario], Reply]] = {
    # The chat's title (asked beside the plan) counts in the clarify stage: the peer has none.
    "ChatTitle": lambda req, sc: tool(
        "clarify", "ChatTitle", {"title": "LFP vs NMC grid batteries and Hornsdale cost"}
    ),
    "ClarifyDecision": lambda req, sc: tool(
        "clarify", "ClarifyDecision", {"needs_clarification": False, "question": ""}
    ),
    "ResearchPlan": _ours_plan,
    "SearchQueries": _ours_queries,
    "EvidencePicks": _ours_pick,
    "StepNotes": _ours_notes,
    "Reflection": lambda req, sc: tool(
        "reflect",
        "Reflection",
        {"decision": "complete", "reasoning": text.sentence(text.rng("reflect"), "the findings")},
    ),
    "VerdictBatch": _ours_judge,
    "Rewrite": _ours_rewrite,
    "ReportAssessment": lambda req, sc: tool(
        "report",
        "ReportAssessment",
        {"summary": text.sentence(text.rng("assess"), "the report") + " [E1].", "limitations": []},
    ),
}
