"""Verification respects a report's structure (issue 28, item 5).

Code, math, diagrams, HTML, images and link-only lines are never claims and come back byte for
byte; each cell of a table row that states something is its own claim, judged alone and
rewritten in its cell, never collapsed, and a row left with nothing to state goes whole; list
items stay list items; a rewrite keeps every valid key. (More on cells: test_table_cells.py.)
"""

from __future__ import annotations

import random
import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from deep_research.engines import ClaimCheck, OfflineEngine, Reply
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import Rewrite, VerdictBatch
from deep_research.nodes.revise import revise_claim, rewritten_cell
from deep_research.report.build import sections
from deep_research.report.html import render_html
from deep_research.report.verify import verify_draft
from deep_research.state import Claim, EvidenceSpan, Verdict
from deep_research.verification import blocks
from deep_research.verification.blocks import is_link_only, layout
from deep_research.verification.citations import (
    TableCell,
    drop_empty,
    extract_claims,
    locate_sentences,
    normalize_draft,
)
from tests.fakes import quoted_spans
from tests.unit_tests.scripted_judge import ScriptedJudge, make_state, run_verification
from tests.unit_tests.scripted_model import ScriptedChatModel, structured

VERBATIM = [
    "```bash\ngit status --short\ngit diff\n\n\n# not a heading\n- not a bullet\n"
    "| not | a row |\n```",
    "```mermaid\ngraph TD\n  A[Grid] --> B[Battery]\n```",
    "~~~\nThe tilde fence holds 3 lines.\nIt states 2 figures.\n~~~",
    "$$\nE = \\frac{1}{2} C V^2\n$$",
    "$$ P = V I $$",
    "<details>\n<summary>More</summary>\nThe cell costs 90 dollars.\n</details>",
    "![A battery farm at night](https://img.example/farm.png)",
    "[Hornsdale Power Reserve](https://hpr.example/) — [Tesla](https://tesla.example/)",
    "- <https://docs.example/storage>",
    "---",
]
ACTIVE = VERBATIM[5:9]
"""Raw HTML, an image and links to pages that are not references: verification keeps them as
written, and the final report makes them inert (deep_research.text.inert)."""
PASSIVE = [block for block in VERBATIM if block not in ACTIVE]
"""Code, diagrams, math and a rule: the same in the final report as in the draft."""
DRAFT = "\n\n".join(
    [
        "## Storage",
        "Hornsdale Power Reserve has a capacity of 150 MW [@ev_cap][@ev_reg].",
        *VERBATIM,
        "| Chemistry | Density | Note |\n|---|:---:|---|\n"
        "| LFP | 160 Wh/kg | cheap [@ev_lfp] |\n| NMC | 250 Wh/kg | dense [@ev_nmc] |",
        "- Most new grid batteries use LFP cells [@ev_lfp].\n  - NMC packs are denser [@ev_nmc].",
        "## After",
        "The expansion of Hornsdale was completed in 2020 [@ev_exp].",
    ]
)
QUOTES = {
    "ev_cap": "Hornsdale Power Reserve has a capacity of 150 MW.",
    "ev_reg": "Hornsdale Power Reserve was approved by the regulator.",
    "ev_lfp": "Most new grid batteries use LFP cells, which store 160 Wh/kg and are cheap.",
    "ev_nmc": "NMC packs are denser, at 250 Wh/kg.",
    "ev_exp": "The expansion of Hornsdale was completed in 2020.",
}


def spans() -> list[EvidenceSpan]:
    return quoted_spans(QUOTES)


def test_verbatim_blocks_come_back_byte_for_byte_and_hold_no_claims() -> None:
    draft = normalize_draft(DRAFT)
    for block in VERBATIM:
        assert block in draft
    assert normalize_draft(draft) == draft
    texts = [c.text for c in extract_claims(draft)]
    assert texts == [
        "Hornsdale Power Reserve has a capacity of 150 MW",
        "160 Wh/kg",
        "cheap",
        "250 Wh/kg",
        "dense",
        "Most new grid batteries use LFP cells",
        "NMC packs are denser",
        "The expansion of Hornsdale was completed in 2020",
    ]
    assert all(not any(t in block for block in VERBATIM) for t in texts)


def test_code_keeps_its_brackets_blank_lines_and_headings() -> None:
    draft = normalize_draft("```python\nx = keys[E1]\n\n\n\n# a comment\n```\nText here [E1].")
    assert "x = keys[E1]\n\n\n\n# a comment\n```" in draft
    assert (
        drop_empty("## Code\n\n```\n# only code\n-\n```\n")
        == "## Code\n\n```\n# only code\n-\n```\n"
    )


def test_lines_that_are_links_or_images_only_are_not_prose() -> None:
    assert is_link_only("![chart](a.png)")
    assert is_link_only("* [Docs](https://d.example) | [API](https://a.example)")
    assert is_link_only("https://example.org/page")
    assert not is_link_only("See [the docs](https://d.example) for 3 figures.")
    assert is_link_only("<https://example.org>") and is_link_only("![a][ref] [b][c]")
    found = layout(["| a | b |", "|---|---|", "| 1 | 2 |", "", "```", "| x |", "```"])
    assert found.rows == {2} and found.table_heads == {0, 1} and found.verbatim == {4, 5, 6}


def test_a_table_without_outer_pipes_is_a_table_too() -> None:
    draft = normalize_draft("Chemistry | Density\n--- | ---\nLFP | 160 Wh/kg [@a]\n")
    assert draft == "Chemistry | Density\n--- | ---\n| LFP | 160 Wh/kg [@a] |\n"
    (claim,) = extract_claims(draft)
    assert claim.text == "160 Wh/kg" and claim.citation_keys == ["a"]


def test_a_rewritten_cell_is_one_cell_and_several_are_none() -> None:
    assert rewritten_cell("165 Wh/kg") == "165 Wh/kg"
    assert rewritten_cell("| 165 Wh/kg |") == "165 Wh/kg"
    assert rewritten_cell("LFP cells store 165 Wh/kg.") == "LFP cells store 165 Wh/kg."
    assert rewritten_cell("LFP | 165 Wh/kg") is None
    assert rewritten_cell("165 Wh/kg \\| 170 Wh/kg") == "165 Wh/kg \\| 170 Wh/kg"


class _Rewriter(OfflineEngine):
    def __init__(self, text: str, key: str | None) -> None:
        super().__init__()
        self.reply = Rewrite(text=text, evidence_key=key)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        return Reply(self.reply)


def _claim(text: str, keys: list[str], verdict: Verdict) -> Claim:
    return Claim(
        id="c", text=text, position_start=0, position_end=0, citation_keys=keys, verdict=verdict
    )


async def test_a_rewrite_keeps_every_valid_key_and_adds_the_one_it_relies_on() -> None:
    claim = _claim(
        "Hornsdale has 150 MW and cost A$90 million",
        ["ev_cap", "ev_reg", "ev_gone"],
        Verdict.PARTIAL,
    )
    sentence, outcome, _ = await revise_claim(
        _Rewriter("Hornsdale has 150 MW", "E1"), claim, spans(), final=False
    )
    assert outcome == "corrected" and sentence is not None
    assert sentence.ids == ("ev_cap", "ev_reg")  # the unknown key is not valid


async def test_a_cell_rewritten_as_several_goes_or_stays_when_partial() -> None:
    text = "160 Wh/kg"
    row = _Rewriter("LFP | 160 Wh/kg | cheap", "E1")
    cell = TableCell(1, "Density", "LFP")
    for verdict, expected in ((Verdict.UNSUPPORTED, None), (Verdict.PARTIAL, text)):
        sentence, _, _ = await revise_claim(
            row, _claim(text, ["ev_lfp"], verdict), spans(), final=False, cell=cell
        )
        assert (sentence.body if sentence else None) == expected


async def test_rows_are_removed_whole_or_rewritten_cell_by_cell_in_the_report() -> None:
    rejected = {"cheap", "250 Wh/kg", "dense"}
    state = make_state(DRAFT, spans())
    state = await run_verification(state, ScriptedJudge(lambda text: text in rejected))
    assert state.report is not None
    markdown = state.report.markdown
    for block in VERBATIM:
        assert block in state.draft
    for block in PASSIVE:
        assert block in markdown
    for block in ACTIVE:
        assert block not in markdown, "made inert in the report"
    assert "&lt;details>\n&lt;summary>More&lt;/summary>\nThe cell costs 90 dollars." in markdown
    lines = markdown.splitlines()
    start = lines.index("| Chemistry | Density | Note |")
    table = lines[start : lines.index("", start)]
    assert table[:2] == ["| Chemistry | Density | Note |", "|---|:---:|---|"]
    for row in table[2:]:
        assert row.count("|") == 4, row  # three cells, never one
    # each rejected cell revised in its cell: "cheap" rewritten; "250 Wh/kg" (partial) and
    # "dense" (unsupported) given back as two cells, which is no cell: the partial one stays
    # and is marked, the unsupported one loses its content; the rows keep their keys
    assert table[2:] == [
        "| LFP | 160 Wh/kg | reportedly cheap [3] |",
        "| NMC | 250 Wh/kg *(partly supported)*[^v1] | — [4] |",
    ]
    assert "  - NMC packs are denser [" in markdown
    assert "## After" in markdown
    for located in locate_sentences(state.draft):
        assert state.draft[located.start : located.end] == located.sentence.body


async def test_report_html_shows_verbatim_blocks_as_written_and_rows_as_claims() -> None:
    state = await run_verification(make_state(DRAFT, spans()), ScriptedJudge())
    assert state.report is not None
    page = render_html(state.report)
    assert "<pre>```bash\ngit status --short\ngit diff\n\n\n# not a heading\n" in page
    assert "<h1>not a heading" not in page and "<li>not a bullet" not in page
    assert "<pre>$$\nE = \\frac{1}{2} C V^2\n$$</pre>" in page
    # raw HTML, made inert in the report, is shown as its characters, not run
    assert "&lt;details&gt;\n&lt;summary&gt;More&lt;/summary&gt;" in page
    assert "<details>" not in page and "&amp;lt;" not in page
    cell = next(c for c in state.report.claims if c.text == "160 Wh/kg")
    assert (
        f'<tr><td>LFP</td><td><span class="claim v-supported" data-claim="{cell.id}"' in page
    )  # each cell that is a claim is highlighted on its own, the label is not
    assert page.count('<td><span class="claim v-supported"') == 4


def test_a_heading_line_in_code_starts_no_section() -> None:
    markdown = "# T\n\n## One\n\n```md\n## Not a section\n```\n\n## Two\n\nText.\n\n## References\n"
    assert [(s.title, s.markdown) for s in sections(markdown)] == [
        ("One", "```md\n## Not a section\n```"),
        ("Two", "Text."),
    ]


def test_a_paragraph_indented_under_a_list_item_keeps_its_indent() -> None:
    draft = (
        "1. **Inflation**\n\n    Gold rises with inflation [@a]. It falls otherwise [@b]\n\n2. X."
    )
    assert "\n    Gold rises with inflation [@a]. It falls otherwise [@b].\n" in normalize_draft(
        draft
    )


async def test_a_model_is_asked_for_a_cell_back_knowing_its_column_and_row() -> None:
    model = ScriptedChatModel(responses=[structured(Rewrite, text="250 Wh/kg", evidence_key="E1")])
    claim = _claim("260 Wh/kg", ["ev_nmc"], Verdict.CONTRADICTED)
    engine = LLMEngine(model, name="scripted")
    cell = TableCell(1, "Density", "NMC")
    sentence, outcome, _ = await revise_claim(engine, claim, spans(), final=False, cell=cell)
    assert "is a cell of a table" in str(model.calls[0][0].content)
    shown = str(model.calls[0][1].content)
    assert "A table cell, judged alone; column 'Density', row 'NMC'" in shown
    assert outcome == "corrected" and sentence is not None
    assert (sentence.body, sentence.ids) == ("250 Wh/kg", ("ev_nmc",))


def _all_supported(messages: list[BaseMessage], tools: Any) -> AIMessage:
    ids = re.findall(r"claim_id: (cl_[0-9a-f]+)", str(messages[1].content))
    verdicts = [
        {
            "claim_id": i,
            "verdict": "SUPPORTED",
            "confidence": 0.9,
            "reasoning": "scripted",
            "evidence_key": "E1",
        }
        for i in ids
    ]
    return structured(VerdictBatch, verdicts=verdicts)


async def test_a_model_judges_each_cell_alone_knowing_its_column_and_row() -> None:
    model = ScriptedChatModel(responses=[_all_supported] * 8)
    draft = normalize_draft(DRAFT)
    await verify_draft(LLMEngine(model, name="scripted"), draft, spans())
    prompt = "\n".join(str(call[1].content) for call in model.calls)  # batches side by side
    cell = prompt.index("> 160 Wh/kg\n")
    where = prompt[cell:].split("\n")[1]
    assert where == "A table cell, judged alone; column 'Density', row 'LFP'"
    assert prompt.count("A table cell, judged alone;") == 4  # four cells, no sentence
    assert "LFP | 160 Wh/kg" not in prompt


def test_a_line_that_only_starts_with_an_inline_tag_is_prose_and_checked() -> None:
    draft = normalize_draft("<b>Note</b>: the plant cost $5 million [@a]\n\n<div>\nraw\n</div>\n")
    assert [c.text for c in extract_claims(draft)] == ["<b>Note</b>: the plant cost $5 million"]
    assert "<div>\nraw\n</div>" in draft


def test_an_underlined_heading_is_no_sentence() -> None:
    draft = "Storage\n=======\n\nThe plant opened in 2017 [@a].\n\nCosts\n-----\n\n"
    draft += "It cost $90 million [@b]."
    normalized = normalize_draft(draft)
    assert normalized.startswith("Storage\n=======\n\n") and "\nCosts\n-----\n" in normalized
    texts = [c.text for c in extract_claims(normalized)]
    assert texts == ["The plant opened in 2017", "It cost $90 million"]


def test_a_line_that_is_one_inline_code_span_gets_no_period() -> None:
    draft = normalize_draft(
        "Run:\n\n`git status --short`\n- `make test`\n\n`LFP` outlasts `NMC` [@a]"
    )
    assert "\n`git status --short`\n- `make test`\n" in draft
    assert [c.text for c in extract_claims(draft)] == ["`LFP` outlasts `NMC`"]


def test_the_link_pattern_matches_only_text_holding_a_link_mark() -> None:
    pieces = [
        "LFP cells",
        " [@ev_1]",
        "[@ev_1][@ev_2]",
        "[a](b)",
        "![x](y.png)",
        "[r][1]",
        "<b>",
        "<https://x.org>",
        "ftp://f.example/a",
        "HTTPS://X.ORG",
        "]",
        "(",
        "[",
        "|",
        " - ",
        ":",
        "42 %",
        "é",
    ]
    rng = random.Random(7)
    for _ in range(3000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        if blocks._LINK.search(line):  # the shortcut in is_link_only never hides a link
            assert any(mark in line for mark in blocks._LINK_MARKS), line
