"""A stand-in for a strong model: it reads everything it is shown and quotes generously.

The LLM engine's reading, note-taking and writing on a large corpus cannot be measured with
:class:`~bench.sim.model.SimulatedChatModel`: that simulation answers its own battery scenario.
:class:`StrongStandIn` answers the three tasks that carry evidence to the report from the
prompt alone, the way a strong model with a large window would:

* **pick** (``EvidencePicks``): every sentence of the passages shown that shares a content
  term with the question or the research step, copied as it stands, consecutive ones joined
  up to :data:`RUN_SENTENCES` per quote;
* **notes** (``StepNotes``): the first sentence of each quote it was handed, with its key;
* **report** (streamed text): a section per step, writing every evidence quote it was handed
  with its key.

It sees nothing but the messages it is sent (no key facts, no answers): what reaches the
report is what the pipeline's budgets, quote location, notes and writer selection let
through. A plumbing measure, not a model's judgement. Any other task is refused: the engine
that drives it (:class:`StrongRun`) answers those offline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field

from bench.sim.model import usage
from deep_research.engines import Assessment, ClaimCheck, Reply, Turn, locate_quotes
from deep_research.engines.llm import SENTENCE_MARK, LLMEngine, ModelLimits, estimate_tokens
from deep_research.engines.schemas import (
    ClaimVerdict,
    ClarifyDecision,
    PickedQuote,
    Reflection,
    ReportAssessment,
    ResearchPlan,
    Rewrite,
)
from deep_research.state import Finding, Passage, PlanStep
from deep_research.testing import FakeToolChatModel
from deep_research.text import content_tokens, sentences

WINDOW_TOKENS = 128_000
"""The context window the stand-in is run at: a GPT-4o-class model's."""

RUN_SENTENCES = 3
"""Most consecutive sentences joined into one quote (the pick prompt asks for one to three)."""

NOTE_WORDS = 30
"""Words of a quote's first sentence the notes keep."""

_ITEM = re.compile(r"^\[([PE]\d+)\] \([^\n]*\n((?:>.*(?:\n|$))+)", re.M)
_STEP = re.compile(r"^### Step \[[^\]]*\] (.+)$", re.M)


def _items(text: str, kind: str) -> list[tuple[str, str, int]]:
    """The keyed items (``P#`` or ``E#``) of a rendered block: key, text, offset in ``text``."""
    found = []
    for match in _ITEM.finditer(text):
        if match.group(1).startswith(kind):
            lines = [
                SENTENCE_MARK.sub("", line[2:] if line.startswith("> ") else line[1:], count=1)
                for line in match.group(2).splitlines()
            ]
            found.append((match.group(1), "\n".join(lines), match.start()))
    return found


def _part(prompt: str, label: str, end: str) -> str:
    """The text after ``label`` up to ``end`` (or the prompt's end)."""
    return prompt.split(label, 1)[-1].split(end, 1)[0] if label in prompt else ""


def _cited(text: str, key: str) -> str:
    """``text`` on one line, its key before the final punctuation."""
    line = " ".join(text.split())
    if line[-1:] in ".!?:;":
        return f"{line[:-1]} [{key}]{line[-1]}"
    return f"{line} [{key}]."


def pick(prompt: str) -> dict[str, Any]:
    """The quotes a pick prompt's passages give: every sentence sharing a term with the step."""
    asked = _part(prompt, "Question:", "Untrusted data")  # the question and the step
    wanted = set(content_tokens(asked))
    quotes: list[dict[str, Any]] = []
    for key, body, _ in _items(prompt, "P"):
        run: list[str] = []
        shared = 0
        end = 0  # where the run's last sentence ends in the passage
        for sentence in [*sentences(body), None]:
            terms = wanted.intersection(content_tokens(sentence.text)) if sentence else set()
            next_to = sentence is not None and not body[end : sentence.start].strip()
            if sentence is not None and terms and (not run or next_to) and len(run) < RUN_SENTENCES:
                run.append(sentence.text)
                shared = max(shared, len(terms))
                end = sentence.end
                continue
            if run:
                relevance = round(min(1.0, shared / max(1, len(wanted))), 2)
                quotes.append({"passage": key, "quote": " ".join(run), "relevance": relevance})
                run, shared = [], 0
            if sentence is not None and terms:  # a run ended: this sentence starts the next
                run, shared, end = [sentence.text], len(terms), sentence.end
    return {"quotes": quotes}


def notes(prompt: str) -> dict[str, Any]:
    """Notes citing every quote handed: the first sentence of each, with its key."""
    lines = []
    for key, quote, _ in _items(prompt, "E"):
        first = next(iter(sentences(quote)), None)
        words = (first.text if first else quote).split()[:NOTE_WORDS]
        lines.append(_cited(" ".join(words), key))
    return {"notes": " ".join(lines), "sufficient": bool(lines), "missing": ""}


def report(prompt: str) -> str:
    """A section per step of the research shown, writing every quote handed with its key."""
    research = prompt.split("### Step", 1)
    if len(research) < 2:
        return "## Findings\n\nThe research found no evidence.\n"
    body = "### Step" + research[1]
    heads = [(m.start(), m.group(1).strip()) for m in _STEP.finditer(body)]
    sections: dict[str, list[str]] = {}
    for key, quote, at in _items(body, "E"):
        title = next((t for start, t in reversed(heads) if start < at), "Findings")
        sections.setdefault(title, []).append(_cited(quote, key))
    parts = [f"## {title}\n\n" + "\n\n".join(cited) for title, cited in sections.items()]
    return "\n\n".join(parts or ["## Findings\n\nThe research found no evidence."]) + "\n"


def writer_quotes(prompt: str) -> list[str]:
    """The evidence quotes a writer's prompt holds (what was handed to the writer)."""
    research = prompt.split("### Step", 1)
    return [quote for _, quote, _ in _items(research[1], "E")] if len(research) > 1 else []


class StrongStandIn(FakeToolChatModel):
    """A chat model that picks, takes notes and writes from its prompt alone (module docstring).

    Prompt and completion tokens are estimated (:func:`estimate_tokens`) and reported as the
    reply's usage; the writer's prompts are kept in :attr:`written_from`.
    """

    written_from: list[str] = Field(default_factory=list)
    """The human message of each report request, in order."""

    @property
    def _llm_type(self) -> str:
        return "strong-stand-in"

    def reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        """A pick, notes or the report, read from the prompt alone."""
        tools: list[dict[str, Any]] = kwargs.get("tools") or []
        prompt = "\n\n".join(m.text for m in messages if m.type == "human")
        sent = sum(estimate_tokens(m.text) for m in messages)
        names = [tool["function"]["name"] for tool in tools]
        if not names:  # a streamed report
            self.written_from.append(prompt)
            text = report(prompt)
            return AIMessage(content=text, usage_metadata=usage(sent, estimate_tokens(text)))
        if names == ["EvidencePicks"]:
            args = pick(prompt)
        elif names == ["StepNotes"]:
            args = notes(prompt)
        else:
            raise AssertionError(f"the strong stand-in answers picks, notes and reports: {names}")
        reply = str(args)
        return AIMessage(
            content="",
            tool_calls=[{"name": names[0], "args": args, "id": f"call_{names[0]}"}],
            usage_metadata=usage(sent, estimate_tokens(reply)),
        )


class StrongRun(LLMEngine):
    """The LLM engine on :class:`StrongStandIn` at a 128k window, planning offline.

    The plan, queries, reflection, verification and the rest come from the offline engine
    (the stand-in cannot plan for a corpus it does not know); picking evidence, taking notes
    and writing the report are the LLM engine's, with its window-sized budgets, prompts,
    checks and quote location. The passages shown to each pick are kept, and the quotes
    picked and dropped counted.
    """

    def __init__(self, window: int = WINDOW_TOKENS) -> None:
        """Drive a fresh stand-in with a window of ``window`` tokens."""
        self.stand_in = StrongStandIn()
        super().__init__(
            self.stand_in, name="strong-stand-in", limits={"writer": ModelLimits(window)}
        )
        self.shown: list[Passage] = []
        self.picked: list[str] = []
        """The quotes the stand-in picked, as it wrote them."""
        self.quotes = 0
        self.dropped = 0
        """Quotes picked, and those the researchers could not locate in their passages."""

    async def title(self, question: str) -> Reply[str]:
        """The offline title."""
        return await self._offline.title(question)

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """The offline decision."""
        return await self._offline.clarify(question, history)

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """The offline plan."""
        return await self._offline.plan(question, history, max_steps)

    async def queries(
        self,
        question: str,
        step: PlanStep,
        previous: Sequence[str],
        n: int,
        *,
        finding: Finding | None = None,
    ) -> Reply[list[str]]:
        """The offline queries."""
        return await self._offline.queries(question, step, previous, n, finding=finding)

    async def pick_evidence(
        self, question: str, step: PlanStep, queries: Sequence[str], passages: Sequence[Passage]
    ) -> Reply[list[PickedQuote]]:
        """The LLM engine's pick, its passages kept and its quotes counted."""
        self.shown.extend(passages)
        reply = await super().pick_evidence(question, step, queries, passages)
        self.picked.extend(pick.quote for pick in reply.value)
        self.quotes += len(reply.value)
        self.dropped += locate_quotes(reply.value, passages, step).dropped
        return reply

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
        *,
        brief: str = "",
    ) -> Reply[Reflection]:
        """The offline decision."""
        return await self._offline.reflect(question, plan, findings, max_new_steps, brief=brief)

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """The offline answer."""
        return await self._offline.answer(question, history)

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """The offline verdicts."""
        return await self._offline.judge(checks)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """The offline rewrite."""
        return await self._offline.rewrite(check)

    async def assess(self, facts: Assessment) -> Reply[ReportAssessment]:
        """The offline assessment."""
        return await self._offline.assess(facts)
