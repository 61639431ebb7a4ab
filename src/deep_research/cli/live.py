"""The live terminal view of a run: the plan's steps, sources, verification, redrawn in place.

:class:`LiveProgress` takes the same calls as :class:`~deep_research.cli.progress.ProgressPrinter`
(``start``, ``note``, ``interrupt``, ``event``, ``done``) and draws, with ``rich``, one block
that it redraws as events arrive:

* the plan: each step with its state (waiting, researching, done, thin), its searches, the
  sources read and the evidence quoted;
* what the run is doing now (researching, reflecting, writing, verifying, revising);
* while the report is written, its last lines as they arrive (``synthesis_progress`` text);
* a bar over the claims of the verification pass, and the verdict tally.

Every text from users, pages and models goes through :func:`printable` and into ``rich.Text``
(never markup), so it cannot restyle or rewrite the terminal. :func:`make_progress` picks this
view in a terminal, and the plain lines when output is not a terminal or with ``--plain``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from deep_research.cli.progress import ProgressPrinter, counted, printable, tokens_line
from deep_research.context import Context
from deep_research.settings import get_settings
from deep_research.state import Report

VERDICT_STYLES = (
    ("SUPPORTED", "✓", "green"),
    ("PARTIAL", "~", "yellow"),
    ("UNSUPPORTED", "✗", "red"),
    ("CONTRADICTED", "!", "magenta"),
)
"""Each verdict's mark and colour in the tally."""

STATE_STYLES = {
    "waiting": ("·", "dim"),
    "researching": ("…", "cyan"),
    "done": ("✓", "green"),
    "thin": ("✓", "yellow"),
}

REDRAW_SECONDS = 0.1
"""Least time between two redraws (bursts of events are drawn once)."""

TITLE_CHARS = 60

DRAFT_LINES = 4
"""How many of the draft's last lines are shown while the report is written."""

DRAFT_KEEP_CHARS = 4000
"""How much of the draft's end the view keeps (what it shows is cut from it)."""

_BEFORE_THE_PLAN = frozenset({"research_started", "clarification_requested"})

_ALWAYS_DRAWN = frozenset({"verification_summary", "research_completed"})


@dataclass
class StepView:
    """What the view knows of one plan step."""

    title: str
    state: str = "waiting"
    searches: int = 0
    sources: int = 0
    evidence: int = 0


class LiveProgress:
    """The live view; see the module docstring."""

    def __init__(self, console: Console | None = None) -> None:
        """Draw on ``console`` (default: standard error)."""
        self.console = console or Console(stderr=True)
        self.header = ""
        self.steps: dict[str, StepView] = {}
        self.phase = "starting"
        self.verified = 0
        self.to_verify = 0
        self.passes = 0
        self.tally = {verdict: 0 for verdict, _, _ in VERDICT_STYLES}
        self.problems: list[str] = []
        self.draft = ""
        """The end of the report as it is written (until it is written)."""
        self._drawn_at = 0.0
        self._live = Live(
            console=self.console,
            get_renderable=self.render,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    # --- the calls ProgressPrinter takes ------------------------------------------------------

    def note(self, text: str) -> None:
        """A free-form line, printed above the view."""
        self.console.print(Text(printable(text)))

    def start(self, thread: str, context: Context) -> None:
        """Print the thread id; drawing starts with the first event after the question."""
        model = context.model or get_settings().engine_model
        engine = "offline engine" if model == "offline" else model
        self.console.print(Text(f"thread: {thread}"))
        self.header = printable(
            f"{engine} · {context.mode} · depth {context.depth} · sources {context.sources}"
        )

    def interrupt(self, payload: dict[str, Any]) -> str:
        """Stop drawing, show the question, and return the prompt (drawing resumes after)."""
        self._live.stop()
        return ProgressPrinter().interrupt(payload)

    def event(self, event: dict[str, Any]) -> None:
        """Take one custom event and redraw (at most every :data:`REDRAW_SECONDS`)."""
        self.apply(event)
        if event.get("type") in _BEFORE_THE_PLAN:
            return  # nothing to draw yet (a clarifying question may come first)
        if not self._live.is_started:
            self._live.start()
        now = time.monotonic()
        if now - self._drawn_at >= REDRAW_SECONDS or event.get("type") in _ALWAYS_DRAWN:
            self._drawn_at = now
            self._live.refresh()

    def done(self, report: Report) -> None:
        """Print the closing line under the view (which the run's end has stopped)."""
        self._live.stop()
        v = report.verification
        checked = (
            f"{counted(v.total, 'claim')} checked, {v.supported_ratio:.0%} supported"
            if v.supported_ratio is not None
            else "no claim could be checked"
        )
        confidence = f", confidence {report.confidence.level}" if report.confidence else ""
        self.console.print(
            Text(
                f"done: {counted(len(report.references), 'reference')}, {checked}{confidence} "
                f"in {report.metrics.duration_seconds:.1f}s"
            )
        )
        tokens = tokens_line(report.metrics)
        if tokens:
            self.console.print(Text(tokens))

    def stop(self) -> None:
        """Stop drawing (on an interruption or an error), leaving the last view on screen."""
        self._live.stop()

    # --- state ---------------------------------------------------------------------------------

    def _step(self, data: dict[str, Any]) -> StepView:
        step_id = str(data.get("step_id", "?"))
        return self.steps.setdefault(step_id, StepView(title=printable(str(data.get("title", "")))))

    def apply(self, event: dict[str, Any]) -> None:
        """Update the view's state from one event."""
        kind, data = event.get("type"), event.get("data", {})
        if kind == "plan_created":
            for step in data.get("steps", []):
                self.steps.setdefault(str(step["id"]), StepView(printable(str(step["title"]))))
            self.phase = "researching"
        elif kind == "step_started":
            self._step(data).state = "researching"
            self.phase = "researching"
        elif kind == "query_issued":
            self._step(data).searches += 1
        elif kind == "source_found":
            step = self._step(data)
            step.sources += 1
            step.evidence += int(data.get("evidence", 0))
        elif kind == "step_completed":
            step = self._step(data)
            step.state = "done" if data.get("sufficient", True) else "thin"
            step.evidence = int(data.get("evidence", step.evidence))
        elif kind == "reflection_decision":
            self.phase = printable(f"reflecting: {data.get('decision')}")
        elif kind == "synthesis_progress":
            self.draft = "" if data.get("done") else (self.draft + str(data.get("text", "")))
            self.draft = self.draft[-DRAFT_KEEP_CHARS:]
            self.phase = (
                "verifying claims"
                if data.get("done")
                else f"writing the report ({data.get('characters', 0)} characters)"
            )
        else:
            self._verification(kind, data)

    def _verification(self, kind: Any, data: dict[str, Any]) -> None:
        if kind == "claim_verified":
            if int(data.get("passes", 0)) != self.passes:
                self.passes = int(data.get("passes", 0))
                self.verified = 0
                self.tally = dict.fromkeys(self.tally, 0)
            self.verified += 1
            self.to_verify = max(int(data.get("total", 0)), self.verified)
            verdict = str(data.get("verdict"))
            if verdict in self.tally:
                self.tally[verdict] += 1
            if not self.phase.startswith("writing"):  # verdicts land while the report is written
                self.phase = "verifying claims"
        elif kind == "verification_summary":
            self.passes = int(data.get("passes", self.passes))
            self.tally = {verdict: int(data.get(verdict.lower(), 0)) for verdict in self.tally}
            self.verified = self.to_verify = sum(self.tally.values())
            self.phase = "finishing the report" if data.get("final") else "revising claims"
        elif kind == "research_completed":
            self.phase = "done"
        elif kind == "error":
            self.problems = [*self.problems, printable(str(data.get("error")))][-3:]

    # --- drawing -------------------------------------------------------------------------------

    def _plan(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
        table.add_column("")
        table.add_column("step")
        table.add_column("searches", justify="right")
        table.add_column("sources", justify="right")
        table.add_column("evidence", justify="right")
        for step_id, step in self.steps.items():
            mark, style = STATE_STYLES.get(step.state, ("?", ""))
            title = step.title if len(step.title) <= TITLE_CHARS else step.title[:59] + "…"
            table.add_row(
                Text(mark, style=style),
                Text(f"{step_id}  {title}", style=style if step.state == "waiting" else ""),
                str(step.searches),
                str(step.sources),
                str(step.evidence),
            )
        return table

    def _claims(self) -> RenderableType:
        total = max(self.to_verify, 1)
        bar = ProgressBar(total=total, completed=self.verified if self.to_verify else 0, width=30)
        label = f"claims {self.verified}/{self.to_verify}" if self.to_verify else "claims —"
        pass_note = f" (pass {self.passes})" if self.passes else ""
        row = Table.grid(padding=(0, 1))
        row.add_row(Text(label + pass_note), bar)
        tally = Text()
        for verdict, mark, colour in VERDICT_STYLES:
            tally.append(f"{mark} {self.tally[verdict]} {verdict.lower()}  ", style=colour)
        return Group(row, tally)

    def render(self) -> RenderableType:
        """The whole view, as it stands."""
        parts: list[RenderableType] = [
            Text(self.header, style="bold"),
            self._plan(),
            Text(f"now: {self.phase}", style="cyan"),
        ]
        lines = [line for line in self.draft.splitlines() if line.strip()][-DRAFT_LINES:]
        parts += [
            Text(f"  {printable(line)}", style="dim", no_wrap=True, overflow="ellipsis")
            for line in lines
        ]
        parts.append(self._claims())
        parts += [Text(f"! {problem}", style="red") for problem in self.problems]
        return Group(*parts)


def make_progress(
    *, quiet: bool, plain: bool, stream: TextIO | None = None
) -> ProgressPrinter | LiveProgress:
    """The live view in a terminal; plain lines when quiet, asked to, or not in a terminal."""
    target = stream or sys.stderr
    if quiet or plain or not target.isatty():
        return ProgressPrinter(quiet=quiet, stream=stream)
    return LiveProgress(Console(file=target))
