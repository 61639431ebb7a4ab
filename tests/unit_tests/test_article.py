"""report.article.md: the report as an article, beside report.md, without verification text.

It holds the title, the body and the numbered references with their URLs; not the markers of
claims not fully supported, their notes, the Limitations section (with its confidence line)
or the verification line, which report.md keeps.
"""

from __future__ import annotations

import re

from deep_research.report.build import article_markdown
from deep_research.state import Reference, Report
from tests.unit_tests.scripted_judge import ScriptedJudge, make_state, run_verification
from tests.unit_tests.test_report_structure import ACTIVE, DRAFT, PASSIVE, spans

WRONG_YEAR = DRAFT.replace("completed in 2020 [@ev_exp]", "completed in 2019 [@ev_cap]")


async def _report() -> Report:
    state = await run_verification(make_state(WRONG_YEAR, spans()), ScriptedJudge())
    assert state.report is not None
    return state.report


async def test_the_article_is_the_body_and_references_without_verification_text() -> None:
    report = await _report()
    article = article_markdown(report)
    # report.md keeps everything: a marked claim, its note, Limitations, the verification line
    assert "*(partly supported)*[^v1]" in report.markdown and "\n[^v1]: " in report.markdown
    assert "## Limitations" in report.markdown and "*Verification:" in report.markdown
    for gone in ("*(partly", "[^v", "## Limitations", "Confidence:", "Verification:"):
        assert gone not in article
    body = report.markdown.split("\n## Limitations\n")[0]
    assert article.startswith(re.sub(r" \*\([^)]*\)\*\[\^v\d+\]", "", body).rstrip() + "\n")
    assert "The expansion of Hornsdale was completed in 2019 [1]." in article
    for block in PASSIVE:
        assert block in article
    for block in ACTIVE:
        assert block not in article, "the article is the report's inert text"
    listed = article.split("\n## References\n\n")[1].splitlines()
    assert listed == [f"{r.number}. {r.citation}" for r in report.references]
    assert all(r.url in line for r, line in zip(report.references, listed, strict=True))


async def test_references_cited_only_by_the_limitations_are_left_out() -> None:
    report = await _report()
    extra = Reference(
        number=5,
        url="https://only-limits.example/",
        title="Only limits",
        location="https://only-limits.example/",
        citation="Only limits [5].",
    )
    limited = report.markdown.replace("\n## References\n", "\n- A conflict [5].\n\n## References\n")
    article = article_markdown(
        report.model_copy(update={"markdown": limited, "references": [*report.references, extra]})
    )
    assert "only-limits" not in article and "A conflict" not in article


async def test_without_references_the_notes_and_the_verification_line_still_go() -> None:
    report = await _report()
    markdown = (
        "# T\n\nFlywheels power Norway *(unsupported)*[^v1].\n\n1 claim is marked in the text.\n\n"
        "[^v1]: Unsupported: there is no evidence for it.\n\n*Verification: 0 of 1 checked.*\n"
    )
    bare = report.model_copy(update={"markdown": markdown, "references": [], "confidence": None})
    assert article_markdown(bare) == "# T\n\nFlywheels power Norway.\n"
