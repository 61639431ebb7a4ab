"""Human-readable progress for the command line, from the graph's custom events."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from deep_research.settings import get_settings
from deep_research.text.inert import strip_controls

if TYPE_CHECKING:  # the storage commands print with this module and need neither
    from deep_research.context import Context
    from deep_research.state import Metrics, Report

_VERDICT_MARK = {"SUPPORTED": "✓", "PARTIAL": "~", "UNSUPPORTED": "✗", "CONTRADICTED": "!"}


def tokens_line(m: Metrics) -> str | None:
    """The run's tokens and calls, saying which counts are estimates; ``None`` with no call."""
    if not m.model_calls:
        return None
    estimated = (
        f" (estimated for {m.estimated_calls} of them: the endpoint sent no usage)"
        if m.estimated_calls
        else ""
    )
    unusable = sum(m.fallbacks.values())
    fallbacks = (
        f"; {unusable} unusable answer{'' if unusable == 1 else 's'}, fallbacks stood in ("
        + ", ".join(f"{task} {count}" for task, count in sorted(m.fallbacks.items()))
        + ")"
        if unusable
        else ""
    )
    return (
        f"tokens: {m.prompt_tokens:,} prompt, {m.completion_tokens:,} completion in "
        f"{m.model_calls} calls{estimated}{fallbacks}"
    )


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: "1 quote", "5 quotes", "0 quotes"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def printable(text: str) -> str:
    """``text`` with terminal escapes and control characters removed (tabs, newlines kept).

    Titles, questions, page titles and claims come from users, web pages and models; printed
    as they are, an escape sequence in one could rewrite the user's terminal.
    """
    return strip_controls(text)


def sources_line(context: Context) -> str:
    """The providers the run searches (``auto`` resolved), and the local corpus when one is."""
    from deep_research.context import resolved_sources  # not for the storage commands

    settings = get_settings()
    names = resolved_sources(
        context.sources,
        tavily=settings.tavily_api_key is not None,
        searxng=bool(settings.searxng_url),
    )
    used = "+".join(names)
    line = used if used == context.sources else f"{context.sources} → {used}"
    if "local" in names:
        line += f" (local corpus: {context.corpus_dir or 'bundled sample corpus'})"
    return line


class ProgressPrinter:
    """Prints one line per interesting event to stderr (or nothing when quiet)."""

    def __init__(self, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self._quiet = quiet
        self._stream = stream or sys.stderr

    def _say(self, text: str) -> None:
        if not self._quiet:
            print(printable(text), file=self._stream, flush=True)

    def note(self, text: str) -> None:
        """A free-form line."""
        self._say(text)

    def start(self, thread: str, context: Context) -> None:
        """The run's header: thread id, engine and sources."""
        settings = get_settings()
        model = context.model or settings.engine_model
        engine = "offline engine (extractive, no model)" if model == "offline" else model
        roles = {
            "judge": context.judge_model or settings.judge_model,
            "notes": context.notes_model or settings.notes_model,
        }
        if model != "offline":
            engine += "".join(f", {role}: {name}" for role, name in roles.items() if name)
        print(f"thread: {thread}", file=sys.stderr if self._quiet else self._stream)
        self._say(f"engine: {engine} · mode: {context.mode} · depth: {context.depth}")
        self._say(f"sources: {sources_line(context)}")

    def interrupt(self, payload: dict[str, Any]) -> str:
        """Show an interrupt's question and return the input prompt."""
        if payload.get("error"):
            print(printable(f"\n! {payload['error']}"), file=sys.stderr)
        if payload.get("type") == "plan_review":
            print("\nProposed plan:", file=sys.stderr)
            for i, step in enumerate(payload.get("steps", []), 1):
                print(printable(f"  {i}. {step.get('title')}"), file=sys.stderr)
            return "Enter to approve, or type new steps separated by ';': "
        print(printable(f"\n? {payload.get('question', payload)}"), file=sys.stderr)
        return "> "

    def event(self, event: dict[str, Any]) -> None:
        """Render one custom event."""
        kind, data = event.get("type"), event.get("data", {})
        if kind == "plan_created":
            self._say(f"plan ({data.get('depth')}):")
            for step in data.get("steps", []):
                self._say(f"  {step['id']}  {step['title']}")
        elif kind == "step_started":
            self._say(f"→ researching {data['step_id']}: {data['title']}")
        elif kind == "query_issued":
            self._say(f"    search [{data['step_id']}] {data['query']}")
        elif kind == "source_found":
            quotes = counted(data["evidence"], "quote")
            self._say(f"    read   [{data['step_id']}] {data['title']} ({quotes})")
        elif kind == "evidence_picked" and data.get("dropped"):
            self._say(
                f"    picked [{data['step_id']}] {counted(data['located'], 'quote')}; "
                f"{data['dropped']} not found verbatim in their passage, dropped"
            )
        elif kind == "step_completed":
            enough = "" if data.get("sufficient") else " (thin)"
            spans = counted(data["evidence"], "evidence span")
            self._say(f"✓ {data['step_id']} done: {spans}{enough}")
        elif kind == "reflection_decision":
            self._say(f"reflect: {data['decision']} — {data.get('reasoning', '')}")
        elif kind == "synthesis_progress" and data.get("done"):
            self._say(f"report drafted ({data['characters']} characters); verifying claims")
        elif kind == "claim_verified":
            mark = _VERDICT_MARK.get(str(data.get("verdict")), "?")
            self._say(f"    {mark} {data.get('verdict')}: {str(data.get('text'))[:90]}")
        elif kind == "verification_summary":
            self._say(
                f"verification pass {data['passes']}: {data['supported']} supported, "
                f"{data['partial']} partial, {data['unsupported']} unsupported, "
                f"{data['contradicted']} contradicted"
                + (f" ({data['fallback']} by the offline fallback)" if data.get("fallback") else "")
            )
        elif kind == "error":
            self._say(f"! {data.get('provider', '')}: {data.get('error')}")

    def stop(self) -> None:
        """Nothing to stop: lines are printed as they come (the live view stops drawing)."""

    def done(self, report: Report) -> None:
        """The closing summary."""
        v = report.verification
        checked = (
            f"{counted(v.total, 'claim')} checked, {v.supported_ratio:.0%} supported"
            if v.supported_ratio is not None
            else "no claim could be checked"
        )
        self._say(
            f"done: {counted(len(report.references), 'reference')}, {checked} "
            f"({v.removed} removed, {v.corrected} corrected, {v.recited} re-cited) in "
            f"{report.metrics.duration_seconds:.1f}s"
        )
        tokens = tokens_line(report.metrics)
        if tokens:
            self._say(tokens)
        if report.confidence is not None:
            limits = len(report.limitations)
            self._say(
                f"confidence: {report.confidence.level} ({limits} limitation"
                f"{'' if limits == 1 else 's'} stated) — {report.confidence.basis}"
            )
