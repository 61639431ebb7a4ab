"""The simulated model's answers to open_deep_research's tasks."""

from __future__ import annotations

import re
from collections.abc import Callable

from bench.sim import text
from bench.sim.ours import report_sections
from bench.sim.requests import (
    COMPRESS_SHARE,
    SUMMARY_SHARE,
    Reply,
    Request,
    Scenario,
    call,
    json_reply,
    step_title,
    tool,
    words,
)


def _topic_title(request: Request) -> str:
    """The step title a peer researcher was given: the first sentence of its topic."""
    humans = [m for m in request.messages if m.get("role") == "user"]
    topic = str(humans[0].get("content") or "") if humans else ""
    return topic.split(".", 1)[0].strip() or "grid storage"


def peer_supervisor(request: Request, scenario: Scenario) -> Reply:
    """The supervisor: one ConductResearch per plan step, then ResearchComplete."""
    if request.has_tool_results:
        return tool("reflect", "ResearchComplete", {})
    r = text.rng("topics", scenario.plan_steps)
    calls = []
    for i in range(scenario.plan_steps):
        title = step_title(i)
        topic = f"{title}. " + words(r, text.subjects_of(title), 70)
        calls.append(call("ConductResearch", {"research_topic": topic}, i))
    return Reply(stage="plan", call="ConductResearch", tool_calls=calls)


def peer_researcher(request: Request, scenario: Scenario) -> Reply:
    """A researcher: one search with the step's queries, then ResearchComplete."""
    if request.has_tool_results:
        return tool("notes", "ResearchComplete", {})
    title = _topic_title(request)
    search = next(n for n in request.tool_names if n != "ResearchComplete")
    found = text.queries(title, scenario.queries_per_step, [])
    return tool("research", search, {"queries": found})


def _page_sentences(page_text: str) -> list[str]:
    body = [line for line in page_text.splitlines() if line and not line.startswith("#")]
    return re.split(r"(?<=\.)\s+", " ".join(body))


def _take(sentences: list[str], n_words: int) -> list[str]:
    out: list[str] = []
    total = 0
    for sentence in sentences:
        if total >= n_words:
            break
        out.append(sentence)
        total += len(sentence.split())
    return out


def _peer_summary(request: Request, scenario: Scenario) -> Reply:
    prompt = request.content()
    page = prompt.split("<webpage_content>", 1)[-1].split("</webpage_content>", 1)[0]
    sentences = _page_sentences(page)
    n_words = int(len(page.split()) * SUMMARY_SHARE)
    summary = " ".join(_take(sentences[::2], n_words))
    excerpts = ", ".join(sentences[1:10:2])
    return json_reply("reading", "Summary", {"summary": summary, "key_excerpts": excerpts})


def _urls(prompt: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"https?://[^\s)\]>]+", prompt)))


def peer_compress(request: Request, scenario: Scenario) -> Reply:
    """A researcher's cleaned-up findings: its search results kept verbatim, with sources."""
    results = "\n".join(
        str(m.get("content") or "") for m in request.messages if m.get("role") == "tool"
    )
    urls = _urls(results)
    sentences = [s for s in _page_sentences(results) if not s.startswith(("URL", "---", "SUMMARY"))]
    kept = _take(sentences, int(len(results.split()) * COMPRESS_SHARE))
    calls = [m for m in request.messages if m.get("role") == "assistant"]
    queries = "\n".join(f"- {c.get('tool_calls')}" for c in calls)
    body = " ".join(f"{s} [{i % max(1, len(urls)) + 1}]" for i, s in enumerate(kept))
    sources = "\n".join(f"[{i + 1}] Source: {url}" for i, url in enumerate(urls))
    content = (
        f"**List of Queries and Tool Calls Made**\n{queries}\n\n"
        f"**Fully Comprehensive Findings**\n{body}\n\n"
        f"**List of All Relevant Sources (with citations in the report)**\n### Sources\n{sources}\n"
    )
    return Reply(stage="notes", call="compress", content=content)


def peer_report(request: Request, scenario: Scenario) -> Reply:
    """The final report: the same sections as ours, numbered citations, a source list."""
    prompt = request.content()
    urls = _urls(prompt)
    titles = [step_title(i) for i in range(scenario.plan_steps)]
    parts = [f"# {text.QUESTION}"]
    k = 0
    for heading, sentences in report_sections(titles, 0):
        cited = []
        for sentence in sentences:
            cited.append(f"{sentence[:-1]} [{k % max(1, len(urls)) + 1}].")
            k += 1
        parts.append(f"## {heading}\n\n{' '.join(cited)}")
    parts.append("### Sources\n" + "\n".join(f"[{i + 1}] Source: {u}" for i, u in enumerate(urls)))
    return Reply(stage="report", call="final_report", content="\n\n".join(parts) + "\n")


PEER_SCHEMAS: dict[str, Callable[[Request, Scenario], Reply]] = {
    "ClarifyWithUser": lambda req, sc: json_reply(
        "clarify",
        "ClarifyWithUser",
        {
            "need_clarification": False,
            "question": "",
            "verification": words(text.rng("verify-msg"), text.subjects_of(text.QUESTION), 35),
        },
    ),
    "ResearchQuestion": lambda req, sc: json_reply(
        "plan",
        "ResearchQuestion",
        {"research_brief": words(text.rng("brief"), text.subjects_of(text.QUESTION), 110)},
    ),
    "Summary": _peer_summary,
}
