"""The report, from the writer's draft to the verified, assembled and rendered report.

In the order a report is made: ``verify.py`` judges the draft's claims against their evidence
(the checks it runs live in :mod:`deep_research.verification`), ``judging.py`` does so for each
paragraph while the writer still writes, ``limits.py`` writes what the
report cannot answer and how confident it is, ``flags.py`` marks the claims that failed,
``bibliography.py`` formats the references, ``build.py`` assembles the report, ``inert.py``
makes a stored report's text inert before it is shown, ``html.py`` renders it as HTML, and
``chat.py`` escapes the chat's copy of it for chat clients' Markdown extensions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.report.build import (
        article_markdown,
        build_report,
        render_markdown,
        report_evidence,
    )
    from deep_research.report.flags import flag_claims
    from deep_research.report.html import render_html
    from deep_research.report.inert import inert_report
    from deep_research.report.limits import Limits, off_subject
    from deep_research.report.verify import DraftVerification, verify_claims, verify_draft

__all__ = [
    "verify_claims",
    "DraftVerification",
    "Limits",
    "off_subject",
    "article_markdown",
    "build_report",
    "flag_claims",
    "inert_report",
    "render_html",
    "render_markdown",
    "report_evidence",
    "verify_draft",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "verify_draft": "deep_research.report.verify",
        "verify_claims": "deep_research.report.verify",
        "DraftVerification": "deep_research.report.verify",
        "Limits": "deep_research.report.limits",
        "off_subject": "deep_research.report.limits",
        "flag_claims": "deep_research.report.flags",
        "build_report": "deep_research.report.build",
        "article_markdown": "deep_research.report.build",
        "render_markdown": "deep_research.report.build",
        "report_evidence": "deep_research.report.build",
        "inert_report": "deep_research.report.inert",
        "render_html": "deep_research.report.html",
    },
)
