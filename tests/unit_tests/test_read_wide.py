"""Reading by the model's window: what a pick is shown, what a step keeps, what the writer sees.

The scripted model reads the way strong models do: it quotes every sentence of every passage
it is shown, some of them with another case, curly quotes or an ellipsis (which the engine's
check accepts), and invents one quote (which no page states).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines.llm import budgets
from deep_research.engines.llm.catalog import ModelLimits, limits_of
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.llm.prompts import SENTENCE_MARK
from deep_research.engines.schemas import EvidencePicks, StepNotes
from deep_research.nodes import read_sources, take_notes
from deep_research.services import Services
from deep_research.state import Document, PlanStep, ResearcherState, SearchResult
from deep_research.state.models import stable_id
from deep_research.text.words import split_line
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

STEP = PlanStep(id="s01", title="Grid battery storage capacity", intent="how large")
INVENTED = "Grid battery storage capacity reached one terawatt on the Moon."
PAGES = 12
SENTENCES = 100
"""Sentences per page: about 1,300 words a page, far more than one pick is shown."""


def page_text(page: int) -> str:
    words = ["north", "south", "coastal", "inland", "urban", "rural", "island", "mountain"]
    return "\n\n".join(
        f"Grid battery storage capacity in the {words[(page + i) % 8]} zone {page}-{i} reached "
        f"{page * 100 + i} megawatts after the utility added cells."
        for i in range(SENTENCES)
    )


class Pages:
    """A provider whose pages are :func:`page_text`, dated."""

    name = "fake"

    async def search(self, query: str, k: int) -> list[SearchResult]:
        return []

    async def read(self, url: str) -> Document:
        page = int(url.rsplit("/", 1)[-1])
        body = page_text(page)
        return Document(id=stable_id("doc", body), url=url, title=f"Storage {page}", text=body)


def shown_passages(prompt: str) -> list[tuple[str, str]]:
    """The passages of a pick prompt: key and text (its ``> `` quoting and sentence numbers
    undone: this model copies its quotes)."""
    return [
        (key, "\n".join(SENTENCE_MARK.sub("", line[2:], count=1) for line in body.splitlines()))
        for key, body in re.findall(r"^\[(P\d+)\] \([^\n]*\n((?:> .*(?:\n|$))+)", prompt, re.M)
    ]


def as_copied(sentence: str, n: int) -> str:
    """The sentence as a model copies it: now and then in lower case, with curly quotes or
    a middle part left out."""
    if n % 7 == 1:
        return sentence.lower()
    if n % 7 == 2:
        return f"“{sentence.rstrip('.')}”"
    if n % 7 == 3:
        head, tail = sentence.split(" reached ", 1)
        return f"{head} … {tail.split(' after ', 1)[1]}"
    return sentence


def strong_reader(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
    """Quote every sentence of every passage shown; note every key; write from every key."""
    prompt = str(messages[-1].content)
    tool = tools[0]["function"]["name"] if tools else None
    if tool == "EvidencePicks":
        quotes = []
        for key, body in shown_passages(prompt):
            for line in body.splitlines():
                for sentence in split_line(line):
                    quotes.append({"passage": key, "quote": as_copied(sentence, len(quotes))})
        for n, quote in enumerate(quotes):
            quote["relevance"] = round(1 - n / (2 * len(quotes)), 4)
        quotes.append({"passage": "P1", "quote": INVENTED, "relevance": 1.0})
        return structured(EvidencePicks, quotes=quotes)
    if tool == "StepNotes":
        keys = re.findall(r"^\[(E\d+)\] \(", prompt, re.M)
        return structured(StepNotes, notes=f"Capacity grew [{']['.join(keys)}].", sufficient=True)
    return text("## Capacity\n\nCapacity grew [E1].")


def engine(window: int) -> tuple[LLMEngine, ScriptedChatModel]:
    model = ScriptedChatModel(responses=[strong_reader] * 10)
    return LLMEngine(model, name="m", limits={"writer": ModelLimits(window)}), model


def words_shown(prompt: str) -> int:
    return sum(len(body.split()) for _, body in shown_passages(prompt))


async def read_step(window: int, depth: str = "extended") -> tuple[dict[str, Any], Any]:
    llm, model = engine(window)
    config = resolve_config(Context(depth=depth), depth=depth, engine="m", sources=["fake"])
    hits = [
        SearchResult(url=f"https://example.org/{n}", title=str(n), provider="fake")
        for n in range(PAGES)
    ]
    state = ResearcherState(
        step=STEP, question="How large is grid battery storage?", config=config, results=hits
    )
    services = Services(engine=llm, sources=[Pages()])
    update = await read_sources(state, Runtime(context=Context(depth=depth)), services=services)
    return update, model


def test_the_reading_budget_follows_the_window_and_the_depth() -> None:
    wide = limits_of("openai:gpt-4o")  # a 128k-token window
    assert wide.context_tokens == 128_000
    assert budgets.passage_words(wide, "extended") >= 8000
    sizes = [budgets.passage_words(wide, d) for d in ("light", "medium", "extended")]
    assert sizes == sorted(sizes) and len(set(sizes)) == 3
    # the operator's window (DEEP_RESEARCH_CONTEXT_TOKENS) wins; a small one reads less
    small = limits_of("openai:gpt-4o", context_tokens=32_768)
    assert budgets.passage_words(small, "extended") < budgets.passage_words(wide, "extended")
    # a model the table does not know is sized as the default window, never unbounded
    assert budgets.passage_words(ModelLimits(), "extended") == budgets.passage_words(
        limits_of("some-unknown-model"), "extended"
    )
    huge = limits_of("gpt-4.1")  # a million tokens: bounded all the same
    assert budgets.passage_words(huge, "extended") == budgets.MAX_PASSAGE_WORDS["extended"]


async def test_a_pick_of_a_128k_model_at_extended_depth_sees_8000_words_with_titles() -> None:
    update, model = await read_step(128_000)
    (prompt,) = [str(call[-1].content) for call in model.calls]
    assert words_shown(prompt) >= 8000
    assert prompt.count("Page: Storage ") == PAGES  # each page's title, once

    small_update, small_model = await read_step(32_768)
    assert words_shown(str(small_model.calls[0][-1].content)) < 3000
    assert len(small_update["evidence"]) < len(update["evidence"])


async def test_every_quote_the_check_accepts_becomes_evidence_and_drops_are_counted() -> None:
    update, model = await read_step(128_000)
    (call,) = model.calls
    picked = sum(
        len(list(split_line(line)))
        for _, body in shown_passages(str(call[-1].content))
        for line in body.splitlines()
    )
    evidence = update["evidence"]
    # case, curly quotes and ellipses are located, not dropped; the invented quote is
    assert len(evidence) == picked
    assert update["usage"].picks_dropped == {"not_found": 1}


async def test_every_located_quote_of_a_step_reaches_the_notes_and_the_finding() -> None:
    update, _ = await read_step(128_000)
    evidence = update["evidence"]
    assert len(evidence) > 12  # more than the old fixed count
    llm, model = engine(128_000)
    config = resolve_config(Context(depth="extended"), depth="extended", engine="m", sources=[])
    state = ResearcherState(step=STEP, question="q", config=config, evidence=evidence)
    done = await take_notes(state, Runtime(context=Context()), services=Services(engine=llm))
    (finding,) = done["findings"]
    prompt = str(model.calls[0][-1].content)
    assert len(re.findall(r"^\[E\d+\] \(", prompt, re.M)) == len(evidence)
    assert sorted(finding.evidence_ids) == sorted(e.id for e in evidence)


@pytest.mark.parametrize("window", [128_000, 16_384])
async def test_the_writer_sees_every_span_until_its_budget_is_full(window: int) -> None:
    update, _ = await read_step(128_000)
    evidence = update["evidence"]
    llm, model = engine(window)
    reply = await llm.write_report("q", "brief", [STEP], evidence)
    prompt = str(model.calls[0][-1].content)
    shown = {int(k) - 1 for k in re.findall(r"^\[E(\d+)\] \(", prompt, re.M)}
    left_out = len(evidence) - len(shown)
    assert reply.usage.evidence_left_out == left_out
    if window == 128_000:
        assert left_out == 0
    else:  # the writer's budget is full: the lowest-ranked go
        assert left_out > 0
        lowest_shown = min(evidence[i].relevance for i in shown)
        assert all(
            evidence[i].relevance <= lowest_shown for i in range(len(evidence)) if i not in shown
        )
