"""The live terminal view of ``ask``: what it draws, and when it is chosen over plain lines."""

from __future__ import annotations

import io
import os
import pty
from typing import Any

from rich.console import Console

from deep_research.cli.live import LiveProgress, make_progress
from deep_research.cli.progress import ProgressPrinter


def _event(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def _screen(view: LiveProgress) -> str:
    console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
    console.print(view.render())
    return console.export_text()


def test_the_view_shows_steps_sources_the_claims_bar_and_the_tally() -> None:
    view = LiveProgress(Console(file=io.StringIO(), width=100))
    view.header = "offline engine · deep_research"
    for event in [
        _event(
            "plan_created", steps=[{"id": "s01", "title": "Cost"}, {"id": "s02", "title": "Size"}]
        ),
        _event("step_started", step_id="s01", title="Cost"),
        _event("query_issued", step_id="s01", query="cost"),
        _event("query_issued", step_id="s01", query="cost million"),
        _event("source_found", step_id="s01", title="A page\x1b[2J", evidence=2),
        _event("source_found", step_id="s01", title="B", evidence=3),
        _event("step_completed", step_id="s01", evidence=5, sufficient=True),
        _event("step_started", step_id="s03", title="Added \x1b]0;pwned\x07by reflection"),
        _event("claim_verified", verdict="SUPPORTED", passes=1, total=3),
        _event("claim_verified", verdict="CONTRADICTED", passes=1, total=3),
    ]:
        view.apply(event)
    screen = _screen(view)
    rows = {line.split()[1]: line.split() for line in screen.splitlines() if " s0" in line}
    assert rows["s01"][0] == "✓" and rows["s01"][-3:] == [
        "2",
        "2",
        "5",
    ]  # searches, sources, evidence
    assert rows["s02"][0] == "·"  # waiting
    assert "Added by reflection" in screen and "\x1b" not in screen and "pwned" not in screen
    assert "claims 2/3 (pass 1)" in screen and "now: verifying claims" in screen
    assert "✓ 1 supported" in screen and "! 1 contradicted" in screen

    # a second pass starts its bar and tally afresh; the summary is the pass's last word
    view.apply(
        _event(
            "verification_summary",
            passes=1,
            supported=2,
            partial=0,
            unsupported=0,
            contradicted=1,
            final=False,
        )
    )
    view.apply(_event("claim_verified", verdict="SUPPORTED", passes=2, total=1))
    screen = _screen(view)
    assert "claims 1/1 (pass 2)" in screen and "✓ 1 supported" in screen
    assert "! 0 contradicted" in screen


def test_plain_lines_when_not_a_terminal_or_asked_and_nothing_when_quiet() -> None:
    assert type(make_progress(quiet=False, plain=False, stream=io.StringIO())) is ProgressPrinter
    primary, secondary = pty.openpty()
    try:
        with os.fdopen(secondary, "w", closefd=False) as terminal:
            assert isinstance(
                make_progress(quiet=False, plain=False, stream=terminal), LiveProgress
            )
            assert type(make_progress(quiet=False, plain=True, stream=terminal)) is ProgressPrinter
            assert type(make_progress(quiet=True, plain=False, stream=terminal)) is ProgressPrinter
    finally:
        os.close(primary)
        os.close(secondary)


def test_nothing_is_drawn_before_the_plan_so_a_clarifying_question_comes_alone() -> None:
    from deep_research.context import Context

    out = io.StringIO()
    view = LiveProgress(Console(file=out, width=100, force_terminal=True))
    view.start("t1", Context(model="offline"))
    view.event(_event("research_started", question="batteries"))
    view.event(_event("clarification_requested", question="Which aspect?"))
    assert "searches" not in out.getvalue() and "thread: t1" in out.getvalue()
    view.event(_event("plan_created", steps=[{"id": "s01", "title": "Costs"}]))
    assert "searches" in out.getvalue() and "s01  Costs" in out.getvalue()
    view.stop()


def test_the_report_s_last_lines_show_as_text_while_it_is_written() -> None:
    view = LiveProgress(Console(file=io.StringIO(), width=100))
    view.apply(_event("plan_created", steps=[{"id": "s01", "title": "Cost"}]))
    view.apply(_event("synthesis_progress", characters=30, text="## Cost\n\nIt cost [bold]90"))
    view.apply(_event("synthesis_progress", characters=60, text=" million\x1b[2J dollars [E1]."))
    screen = _screen(view)
    assert "now: writing the report (60 characters)" in screen
    assert "## Cost" in screen  # the Markdown as it was written, not rendered
    assert "It cost [bold]90 million dollars [E1]." in screen  # no rich markup read in it
    assert "\x1b" not in screen
    view.apply(_event("synthesis_progress", characters=60, text="", done=True))
    screen = _screen(view)
    assert "## Cost" not in screen and "now: verifying claims" in screen


def test_the_token_counts_say_when_they_are_estimates() -> None:
    # a local server that streams no usage: the counts are the agent's own estimate
    from deep_research.cli.progress import tokens_line
    from deep_research.state import Metrics

    line = tokens_line(
        Metrics(model_calls=14, estimated_calls=14, prompt_tokens=10152, completion_tokens=416)
    )
    assert line == (
        "tokens: 10,152 prompt, 416 completion in 14 calls"
        " (estimated for 14 of them: the endpoint sent no usage)"
    )
    assert tokens_line(Metrics(model_calls=3, prompt_tokens=10)) == (
        "tokens: 10 prompt, 0 completion in 3 calls"
    )
    assert tokens_line(Metrics()) is None  # the offline engine calls no model


def test_the_token_line_says_how_many_answers_fallbacks_replaced() -> None:
    from deep_research.cli.progress import tokens_line
    from deep_research.state import Metrics

    metrics = Metrics(model_calls=9, prompt_tokens=900, fallbacks={"notes": 2, "plan": 1})
    assert tokens_line(metrics) == (
        "tokens: 900 prompt, 0 completion in 9 calls"
        "; 3 unusable answers, fallbacks stood in (notes 2, plan 1)"
    )
