"""Claims not fully supported are marked in the Markdown, with footnotes giving the reason."""

from __future__ import annotations

from deep_research.report.flags import flag_claims, footnotes
from deep_research.state import Claim, Reason, Verdict
from deep_research.verification.reasons import reason, render

MARKDOWN = "# Q\n\nAlpha is one [1]. Beta is two [1][2]. Gamma is three. Delta is four [2].\n"


def claim(
    text: str, verdict: Verdict | None, reasoning: str = "", why: Reason | None = None
) -> Claim:
    start = MARKDOWN.index(text)
    return Claim(
        id=text[:5],
        text=text,
        position_start=start,
        position_end=start + len(text),
        verdict=verdict,
        reasoning=render(why) if why else reasoning,
        reason=why,
    )


def test_markers_follow_the_citations_and_offsets_stay_exact() -> None:
    claims = [
        claim("Alpha is one", Verdict.SUPPORTED),
        claim("Beta is two", Verdict.PARTIAL, "the evidence does not state\n the claim's two."),
        claim("Gamma is three", Verdict.UNSUPPORTED),
        claim("Delta is four", Verdict.CONTRADICTED, "the evidence gives 5, not 4"),
        claim("Delta is four", None),  # not checked: never marked
    ]
    flagged = flag_claims(MARKDOWN, claims)
    assert flagged.markdown == (
        "# Q\n\nAlpha is one [1]. Beta is two [1][2] *(partly supported)*[^v1]. "
        "Gamma is three *(unsupported)*[^v2]. "
        "Delta is four [2] *(contradicted by its evidence)*[^v3].\n"
    )
    for moved in flagged.claims:
        assert flagged.markdown[moved.position_start : moved.position_end] == moved.text
    assert footnotes(flagged.flags) == (
        "3 claims are marked in the text because the evidence does not fully support them; "
        "the notes give the reason.\n\n"
        "[^v1]: Partly supported: the evidence does not state the claim's two.\n\n"
        "[^v2]: Unsupported: no reason was given.\n\n"
        "[^v3]: Contradicted by its evidence: the evidence gives 5, not 4.\n"
    )


def test_a_fully_supported_report_has_no_markers_and_no_notes() -> None:
    flagged = flag_claims(MARKDOWN, [claim("Alpha is one", Verdict.SUPPORTED)])
    assert flagged.markdown == MARKDOWN and footnotes(flagged.flags) == ""


async def test_report_html_shows_the_mark_and_links_it_to_its_note() -> None:
    from deep_research.report.html import render_html
    from tests.unit_tests.test_verification import (
        PARTIAL,
        NeverFixes,
        Recording,
        make_state,
        run_verification,
    )

    report, _ = await run_verification(make_state(), NeverFixes(), Recording())
    page = render_html(report)
    assert (
        '<em class="flag">(partly supported)</em>'
        '<sup><a class="note-ref" href="#note-v1">v1</a></sup>'
    ) in page
    assert '<span class="note" id="note-v1">v1:</span> Partly supported:' in page
    assert PARTIAL in page and "[^v1]" not in page


def test_the_note_says_when_revision_ran_but_changed_nothing() -> None:
    from deep_research.report.build import verification_note
    from deep_research.state import VerificationSummary

    assert "No claim needed revision (1 verification pass)." in verification_note(
        VerificationSummary(supported=1, passes=1)
    )
    assert "Revision changed no claim (2 verification passes)." in verification_note(
        VerificationSummary(partial=1, passes=2)
    )


def test_markers_and_notes_are_in_the_reports_language() -> None:
    claims = [
        claim("Beta is two", Verdict.PARTIAL, why=reason("missing", figures="two")),
        claim("Gamma is three", Verdict.CONTRADICTED, "the evidence gives 4, not 3"),
    ]
    chinese = flag_claims(MARKDOWN, claims, "zh")
    assert "Beta is two [1][2] *(部分得到支持)*[^v1]." in chinese.markdown
    assert "Gamma is three *(与其证据相矛盾)*[^v2]." in chinese.markdown
    for moved in chinese.claims:
        assert chinese.markdown[moved.position_start : moved.position_end] == moved.text
    assert footnotes(chinese.flags, "zh") == (
        "文中标记了 2 条证据未能完全支持的陈述，脚注说明了原因。\n\n"
        "[^v1]: 部分得到支持：证据没有给出陈述中的two。\n\n"
        "[^v2]: 与其证据相矛盾：the evidence gives 4, not 3。\n"  # not the verifier's words
    )
    french = flag_claims(MARKDOWN, claims[:1], "fr")
    assert "*(partiellement étayée)*[^v1]" in french.markdown
    assert footnotes(french.flags, "fr").startswith(
        "1 affirmation est signalée dans le texte car les sources ne l'étayent pas "
        "entièrement ; la note en donne la raison.\n\n[^v1]: Partiellement étayée : "
    )


def test_an_english_lead_sentence_agrees_with_its_count() -> None:
    flagged = flag_claims(MARKDOWN, [claim("Gamma is three", Verdict.UNSUPPORTED)])
    assert footnotes(flagged.flags).startswith(
        "1 claim is marked in the text because the evidence does not fully support it; "
    )


def test_report_html_links_a_translated_mark_to_its_note() -> None:
    from deep_research.report.html import _inline

    assert _inline("Beta [1] *(部分得到支持)*[^v1].") == (
        'Beta <a class="cite" href="#ref-1">[1]</a> <em class="flag">(部分得到支持)</em>'
        '<sup><a class="note-ref" href="#note-v1">v1</a></sup>.'
    )


def test_the_verifiers_reasons_are_in_the_reports_language() -> None:
    from deep_research.verification.checks import check_one

    contradicted = check_one("储能容量为一百五十兆瓦时。", "储能容量为150兆瓦。")
    partial = check_one("La part est de 48,6 % en 2020.", "La part est de 48,6 %.")
    claims = [
        claim("Beta is two", Verdict.CONTRADICTED, why=contradicted.reason),
        claim("Gamma is three", Verdict.PARTIAL, why=partial.reason),
    ]
    chinese = footnotes(flag_claims(MARKDOWN, claims[:1], "zh").flags, "zh")
    assert "与其证据相矛盾：证据给出的是150兆瓦，而不是陈述中的一百五十兆瓦时。" in chinese
    french = footnotes(flag_claims(MARKDOWN, claims[1:], "fr").flags, "fr")
    assert (
        "Partiellement étayée : les sources ne donnent pas ce chiffre de l'affirmation : 2020."
    ) in french
    english = footnotes(flag_claims(MARKDOWN, claims[1:]).flags)
    assert "Partly supported: the evidence does not state the claim's 2020." in english
