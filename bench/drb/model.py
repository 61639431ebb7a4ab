"""A simulated model that answers our engine's tasks for a DRB question, in its language.

It behaves like a careful model with no knowledge of its own: it plans one step per clause of
the question, searches with the step's words (and, on a second pass, what the notes say is
missing), restates the evidence it was shown with its keys, adds one sentence of analysis per
section and a conclusion, and judges claims with our lexical and numeric checks. Every
:data:`FLAG_EVERY`-th factual sentence carries a figure no evidence states, so that
verification and revision have something to catch. Deterministic: the same request always
gets the same answer.
"""

from __future__ import annotations

import re
from typing import Any

from bench.sim.model import SimulatedChatModel
from bench.sim.requests import Reply, Request, tool
from deep_research.engines.llm import SENTENCE_MARK
from deep_research.text import (
    SENTENCE_PUNCT,
    ends_sentence,
    is_cjk,
    language_of,
    split_line,
    word_count,
)
from deep_research.verification import check_claim

FLAG_EVERY = 4
"""Every n-th restated fact of a report gets a figure that no evidence states."""

_CLAUSES = re.compile(r"[，。；？！,;?!：:\n]|\band\b|\bet\b|以及|并且|并")
_HEADER = re.compile(r"^\[(E\d+)\] \(", re.M)

_ANALYSIS = {
    "zh": "因此，{topic}需要结合以上各方面综合判断。",
    "fr": "Ces éléments montrent donc que {topic} dépend de plusieurs facteurs à la fois.",
    "en": "Taken together, these findings suggest that {topic} depends on several factors.",
}
_CONCLUSION = {
    "zh": ("结论", "总体来看，现有证据回答了问题的主要部分，但仍有不确定之处。"),
    "fr": ("Conclusion", "Dans l'ensemble, les sources répondent à l'essentiel de la question."),
    "en": ("Conclusion", "Overall, the evidence answers the main parts of the question."),
}
_SUMMARY = {"zh": "摘要", "fr": "Résumé", "en": "Summary"}
_FLAG = {
    "zh": "相关规模在2019年达到约987654个单位",
    "fr": "Ce volume a atteint 987654 unités en 2019",
    "en": "This volume reached 987654 units in 2019",
}


def _line(prompt: str, label: str) -> str:
    match = re.search(rf"^{label}:\s*(.+)$", prompt, re.M)
    return match.group(1).strip() if match else ""


def _clauses(question: str, limit: int) -> list[str]:
    parts = [p.strip(" ，,。.") for p in _CLAUSES.split(question)]
    seen: dict[str, None] = {}
    for part in parts:
        if len(part) >= 4 and part not in seen:
            seen.setdefault(part[:60])
    return list(seen)[:limit] or [question[:60]]


def _body(quote: str) -> str:
    return quote.strip().rstrip(SENTENCE_PUNCT).strip()


def _cite(body: str, key: str, language: str) -> str:
    if language in ("zh", "ja") or is_cjk(body[-1:] or " "):
        return f"{body}[{key}]。"
    return f"{body} [{key}]."


def _evidence(block: str) -> list[tuple[str, str]]:
    """``(key, quote)`` pairs of a rendered evidence list, in order."""
    found = []
    for match in _HEADER.finditer(block):
        rest = block[match.end() :].split("\n", 1)[-1]
        quote = []
        for line in rest.split("\n"):
            if not line.startswith("> "):
                break
            quote.append(line[2:])
        found.append((match.group(1), " ".join(quote)))
    return found


def plan(prompt: str) -> Reply:
    """Steps from the question's clauses."""
    question = _line(prompt, "Question")
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) independent", prompt)) else 5
    clauses = _clauses(question, limit)
    steps = [{"title": c, "intent": c, "evidence_needed": c} for c in clauses]
    complexity = "complex" if len(clauses) >= 3 else "moderate"
    drafted = {"brief": question, "complexity": complexity, "steps": steps}
    return tool("plan", "ResearchPlan", drafted)


def queries(prompt: str) -> Reply:
    """The step's title, the question's first clause, and what the notes say is missing."""
    title = m.group(1) if (m := re.search(r"^\[s\d+\] (.+)$", prompt, re.M)) else ""
    question = _line(prompt, "Question")
    missing = m.group(1) if (m := re.search(r"missing: (.+)$", prompt, re.M)) else ""
    issued = set(re.findall(r"^- (.+)$", prompt.split("Queries already issued:", 1)[-1], re.M))
    wanted = [missing, title, f"{title} {_clauses(question, 1)[0]}"]
    fresh = [q for q in dict.fromkeys(w for w in wanted if w) if q not in issued]
    return tool("research", "SearchQueries", {"queries": fresh[:2]})


def notes(prompt: str) -> Reply:
    """The first three quotes restated with their keys; sufficient when there are two."""
    language = language_of(_line(prompt, "Question"))
    items = _evidence(prompt)
    text = "".join(_cite(_body(q), k, language) for k, q in items[:3])
    return tool(
        "notes",
        "StepNotes",
        {"notes": text, "sufficient": len(items) >= 2, "missing": "" if items else "evidence"},
    )


_PASSAGE = re.compile(r"^\[(P\d+)\] \(", re.M)


def pick(prompt: str) -> Reply:
    """Up to two whole sentences of each passage, copied verbatim, first passages first.

    The model copies the text rather than naming the sentences' numbers (the form the pick
    prompt asked for before, still accepted), so this simulation keeps checking that path.
    """
    quotes: list[dict[str, Any]] = []
    for match in _PASSAGE.finditer(prompt):
        rest = prompt[match.end() :].split("\n", 1)[-1]
        lines = []
        for line in rest.split("\n"):
            if not line.startswith("> "):
                break
            lines.append(SENTENCE_MARK.sub("", line[2:], count=1))
        picked = [
            piece
            for line in lines
            for piece in split_line(line)
            if ends_sentence(piece) and word_count(piece) >= 5
        ][:2]
        quotes += [{"passage": match.group(1), "quote": q, "relevance": 0.8} for q in picked]
    return tool("reading", "EvidencePicks", {"quotes": quotes})


def assess(prompt: str) -> Reply:
    """The report's first two cited sentences as its summary; no limitation added."""
    cited = re.findall(r"[^\n。.!?]+?(?:\[E\d+\])+[。.]", prompt)
    summary = "".join(c.strip() for c in cited[:2])
    return tool("report", "ReportAssessment", {"summary": summary, "limitations": []})


def judge(prompt: str) -> Reply:
    """Verdicts by our lexical and numeric checks, each claim against its own evidence."""
    verdicts: list[dict[str, Any]] = []
    for block in prompt.split("=== claim_id: ")[1:]:
        claim_id = block.split("\n", 1)[0].strip()
        claim = m.group(1) if (m := re.search(r"Claim:\n> (.*)", block)) else ""
        quotes = [q for _, q in _evidence(block)]
        result = check_claim(claim, quotes)
        verdicts.append(
            {
                "claim_id": claim_id,
                "verdict": result.verdict.value,
                "confidence": result.confidence,
                "reasoning": result.reasoning,
                "evidence_key": f"E{result.index + 1}" if result.index >= 0 else None,
            }
        )
    items = tuple(v["claim_id"] for v in verdicts)
    return tool("verify", "VerdictBatch", {"verdicts": verdicts}, items=items)


def report(prompt: str) -> Reply:
    """A summary, a section per step (its quotes restated, then analysis), and a conclusion."""
    question = _line(prompt, "Question")
    language = language_of(question)
    texts = language if language in _ANALYSIS else "en"
    sections: list[str] = []
    facts = 0
    summary: list[str] = []
    for chunk in prompt.split("### Step [")[1:]:
        title = chunk.split("\n", 1)[0].split("] ", 1)[-1].strip()
        lines = []
        for key, quote in _evidence(chunk)[:4]:
            facts += 1
            body = _FLAG[texts] if facts % FLAG_EVERY == 0 else _body(quote)
            lines.append(_cite(body, key, language))
        if not lines:
            continue
        summary = summary or lines[:1]
        lines.append(_ANALYSIS[texts].format(topic=title))
        gap = "" if texts == "zh" else " "
        sections.append(f"## {title}\n\n{gap.join(lines)}")
    heading, closing = _CONCLUSION[texts]
    parts = [f"## {_SUMMARY[texts]}\n\n{''.join(summary) or closing}", *sections]
    parts.append(f"## {heading}\n\n{closing}")
    return Reply(stage="report", call="report", content="\n\n".join(parts) + "\n")


def respond(request: Request) -> Reply:
    """Answer one request of our engine (the LLM engine's prompts and tool schemas).

    Raises:
        ValueError: a task this simulation does not know.
    """
    names = request.tool_names
    prompt = request.content()
    system = request.content("system")
    if names == ["ChatTitle"]:
        question = _line(prompt, "First question")
        return tool("clarify", "ChatTitle", {"title": _clauses(question, 1)[0][:60]})
    if names == ["ClarifyDecision"]:
        return tool("clarify", "ClarifyDecision", {"needs_clarification": False, "question": ""})
    if names == ["Reflection"]:
        return tool("reflect", "Reflection", {"decision": "complete", "reasoning": "covered"})
    if names == ["Rewrite"]:
        return tool("verify", "Rewrite", {"text": ""})
    handlers = {"ResearchPlan": plan, "SearchQueries": queries, "StepNotes": notes}
    handlers |= {"VerdictBatch": judge, "EvidencePicks": pick, "ReportAssessment": assess}
    if len(names) == 1 and names[0] in handlers:
        return handlers[names[0]](prompt)
    if "research report from evidence" in system:
        return report(prompt)
    raise ValueError(f"the DRB simulation has no answer for tools {names}")


class DrbChatModel(SimulatedChatModel):
    """The simulated chat model with :func:`respond` as its responder."""

    @property
    def _llm_type(self) -> str:
        return "simulated-drb"

    def _respond(self, request: Request) -> Reply:
        return respond(request)


__all__ = ["DrbChatModel", "respond"]
