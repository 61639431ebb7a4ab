"""The chat copy of a report: ``$`` and ``~`` escaped, rendering the same in CommonMark."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from markdown_it import MarkdownIt

import deep_research.report.chat
from deep_research.nodes._chat import split_chat
from deep_research.report.chat import chat_markdown, chat_plain

GOLDEN = Path(__file__).parent / "golden"

TRICKY = [
    "The Government contributed A$15 million, ARENA A$8 million [2].",
    "Prices fell ~30% from $139/kWh to ~$100/kWh; ~~not struck~~.",
    "Already escaped: \\$5 and \\~ stay; an escaped backslash \\\\$ then a dollar.",
    "Code `cost $x ~y` and ``a `$` b`` stay; so do <https://x.org/~a$b> and "
    "https://example.org/~user/$page.",
    "```python\nprice = '$5 ~ish'\n```\n\nAfter the fence: $5.\n",
    "~~~\n$ echo ~\n~~~\n",
    "Para $1.\n\n    indented code $2 ~3\n\nBack to $4.\n",
    '- item A$3\n  continued ~4\n- [link $](https://x.org/a~b) and ![img](a.png "t $")\n',
    "| cost | A$ |\n|---|---|\n| $15 | ~8 |\n",
    "$$x^2$$ and $y$ inline",
    "<span>$</span> raw",
    "A multi-line `code\nspan $x` ends.",
]


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


@pytest.mark.parametrize("markdown", TRICKY)
def test_commonmark_renders_the_chat_copy_as_the_report(markdown: str) -> None:
    assert _rendered(chat_markdown(markdown)) == _rendered(markdown)


def test_dollars_and_tildes_in_text_are_escaped() -> None:
    copy = chat_markdown(TRICKY[0] + "\n\n" + TRICKY[1])
    assert "A\\$15 million" in copy and "A\\$8 million" in copy
    assert "~30%" not in copy.replace("\\~30%", "")
    assert "\\~\\~not struck\\~\\~" in copy


def test_golden_reports_render_the_same_and_lose_their_math() -> None:
    """The reports the offline engine writes (A$15 million ... A$8 million among them)."""
    reports = [
        files["report.md"]
        for path in sorted(GOLDEN.glob("*.json"))
        for files in json.loads(path.read_text())["reports"]
    ]
    assert any("A$15" in r for r in reports)
    for report in reports:
        copy = chat_markdown(report)
        assert _rendered(copy) == _rendered(report)
        unescaped = copy.replace("\\$", "").replace("\\~", "")
        assert "$" not in unescaped and "~" not in unescaped


def test_the_module_example_holds() -> None:
    assert doctest.testmod(deep_research.report.chat).failed == 0


@pytest.mark.parametrize("markdown", TRICKY)
def test_the_plain_copy_undoes_the_escapes_and_renders_the_same(markdown: str) -> None:
    plain = chat_plain(chat_markdown(markdown))
    assert _rendered(plain) == _rendered(markdown)
    if "\\" not in markdown:  # nothing was escaped before: the report's own text comes back
        assert plain == markdown


def test_a_follow_up_reads_the_earlier_report_without_the_chat_escapes() -> None:
    """The history a follow-up's engine is given says A$15, not A\\$15."""
    report = "The Government contributed A$15 million, about ~8% of it [1]."
    messages = [HumanMessage("Who funded it?"), AIMessage(chat_markdown(report))]
    question, history = split_chat([*messages, HumanMessage("And how much did ARENA give?")])
    assert question == "And how much did ARENA give?"
    assert history == [("user", "Who funded it?"), ("assistant", report)]
