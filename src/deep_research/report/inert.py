"""The final report made inert: :func:`deep_research.text.inert.inert_markdown` on all it shows."""

from __future__ import annotations

from deep_research.report.build import sections
from deep_research.state import Report
from deep_research.text.inert import inert_markdown, inert_text, inert_title


def inert_report(report: Report) -> Report:
    """The report with its model-written and page-derived text made inert.

    The Markdown may show the report's references alone; its claims' offsets are moved with
    the edits, and its sections, summary, limitations, claims' text and the references' and
    sources' titles are made inert in the same way. Quotes stay verbatim: they are the
    evidence, checked against the pages, and they are not part of the Markdown.
    """
    allowed = {str(reference.url) for reference in report.references}
    markdown = inert_markdown(report.markdown, allowed)
    found = sections(markdown.text)
    return report.model_copy(
        update={
            "topic": inert_text(report.topic, allowed),
            "markdown": markdown.text,
            "sections": found,
            "outline": [section.title for section in found],
            "summary": inert_text(report.summary, allowed),
            "limitations": [
                item.model_copy(update={"text": inert_text(item.text, allowed)})
                for item in report.limitations
            ],
            "claims": [
                claim.model_copy(
                    update={
                        "text": inert_text(claim.text, allowed),
                        "reasoning": inert_text(claim.reasoning, allowed),
                        "position_start": markdown.moved(claim.position_start),
                        "position_end": markdown.moved(claim.position_end),
                    }
                )
                for claim in report.claims
            ],
            "references": [
                reference.model_copy(
                    update={
                        "title": inert_title(reference.title),
                        "citation": inert_text(reference.citation, allowed)
                        if reference.citation is not None
                        else None,
                    }
                )
                for reference in report.references
            ],
            "sources": [
                source.model_copy(update={"title": inert_title(source.title)})
                for source in report.sources
            ],
        }
    )
