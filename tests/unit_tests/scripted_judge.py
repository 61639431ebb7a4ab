"""A scripted judge for structure tests: verdicts and rewrites decided by a rule, not a model.

:class:`ScriptedJudge` is the offline engine with ``judge`` and ``rewrite`` replaced: it rejects
the claims ``reject`` picks (deterministically, by the claim's text: half of them PARTIAL,
half UNSUPPORTED) and supports the rest,
and rewrites what it rejected the way a model may: it removes some claims, hedges others, and
gives a table cell back as a cell or, sometimes, as several cells (its row's label and its
text, which is no cell). A text it wrote itself is always supported, so revision converges.
:func:`run_verification` drives a state through verify, revise and finalize as the graph
routes them.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.schemas import ClaimVerdict, Rewrite
from deep_research.graph.routing import route_after_verify
from deep_research.nodes import finalize, revise, verify
from deep_research.services import Services
from deep_research.state import EvidenceSpan, State, Verdict
from deep_research.state.reducers import replace_claims
from deep_research.verification.citations import normalize_draft


def share(text: str, percent: int, salt: str = "") -> bool:
    """Whether ``text`` falls in the first ``percent`` of 100 buckets (stable across runs)."""
    return zlib.crc32((salt + text).encode()) % 100 < percent


def rejecting(percent: int) -> Callable[[str], bool]:
    """A rule that rejects ``percent`` % of claims, chosen by their text."""
    return lambda text: share(text, percent)


class ScriptedJudge(OfflineEngine):
    """The offline engine with a rule for verdicts and rewrites (see the module docstring)."""

    def __init__(self, reject: Callable[[str], bool] = lambda text: False) -> None:
        super().__init__()
        self.reject = reject
        self.written: set[str] = set()
        self.judged: list[str] = []
        self.rewritten: list[str] = []

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        verdicts = []
        for check in checks:
            text = check.claim.text
            self.judged.append(text)
            verdict = Verdict.SUPPORTED
            if text not in self.written and self.reject(text):
                partial = share(text, 50, "partial")
                verdict = Verdict.PARTIAL if partial else Verdict.UNSUPPORTED
            verdicts.append(
                ClaimVerdict(
                    claim_id=check.claim.id,
                    verdict=verdict,
                    confidence=0.9,
                    reasoning="scripted",
                    evidence_key="E1",
                    quote=check.evidence[0].quote,
                    checked_by="model",
                )
            )
        return Reply(verdicts)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        text = check.claim.text
        self.rewritten.append(text)
        if share(text, 34, "remove"):
            return Reply(Rewrite(text=""))
        if check.cell is not None and share(text, 50, "collapse"):
            return Reply(Rewrite(text=f"{check.cell.label} | {text}", evidence_key="E1"))
        if check.cell is not None:
            new = f"reportedly {text}"
        else:
            new = f"Reportedly, {text.lstrip('.… ')}"
        self.written.add(new)
        return Reply(Rewrite(text=new, evidence_key="E1"))


def make_state(draft: str, evidence: list[EvidenceSpan], *, depth: str = "light") -> State:
    """A state holding a writer's ``draft`` (normalized, as synthesize leaves it)."""
    config = resolve_config(Context(), depth=depth, engine="t", sources=["fake"])
    return State(question="Q?", draft=normalize_draft(draft), evidence=evidence, config=config)


def _apply(state: State, update: dict[str, Any]) -> None:
    """Apply a node's update as the graph's reducers do (usage adds up, claims replace)."""
    for key, value in update.items():
        if key == "usage":
            value = state.usage + value
        elif key == "claims":
            value = replace_claims(state.claims, [value])
        setattr(state, key, value)


async def run_verification(state: State, engine: OfflineEngine) -> State:
    """verify → (revise → verify)* → finalize, as the graph routes it; returns the state."""
    services = Services(engine=engine)
    runtime: Runtime[Context] = Runtime(context=Context(), stream_writer=lambda _: None)
    _apply(state, await verify(state, runtime, services=services))
    while route_after_verify(state) == "revise":
        _apply(state, await revise(state, runtime, services=services))
        _apply(state, await verify(state, runtime, services=services))
    _apply(state, await finalize(state, runtime, services=services))
    return state
