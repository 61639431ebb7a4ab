"""A keyless stand-in for DRB's judge: it answers DRB's own prompts in DRB's output formats.

It recognises which DRB prompt it was sent by reading it back against the templates
(:func:`bench.drb.prompts.parse`) and answers by plain text rules, so that the harness can
run, and be tested, end to end without keys. It measures nothing about quality:

* cleaning: citation marks, Markdown links and the reference list removed;
* scoring: each article scores a criterion 10 × the share of the criterion's words
  (criterion and explanation) that it uses (coverage, not quality);
* extraction: each sentence that cites ``[n]`` is a statement of reference ``n``'s URL;
* deduplication: statements that are the same text are one;
* validation: a statement is supported when most of its words are on the page, unknown
  when the page is empty.

:class:`StandinJudge` is that stand-in as a LangChain chat model (``--judge sim``);
:func:`answer` is what an HTTP stand-in serves (``tests/bench_tests``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from bench.drb.prompts import LANGUAGES, DrbPrompts, parse
from bench.sim.model import SimulatedChatModel
from bench.sim.requests import Reply, Request
from deep_research.text import content_tokens

SUPPORT_SHARE = 0.5
"""Share of a statement's words a page must hold for the stand-in to call it supported."""

_MARK = re.compile(r"\s?\[(\d+(?:\s*[,，]\s*\d+)*)\]")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_REFERENCE = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)\.)\s+.*?(https?://\S+?)[.)\s]*$", re.M)
_REFERENCES_HEADING = re.compile(
    r"^#+\s*(?:References|Sources|Références|参考文献|参考资料)\s*$", re.M
)
_SENTENCE = re.compile(r"[^。！？.!?\n]+(?:[。！？!?]|\.(?=\s|$)|\n|$)")


def recognise(prompts: DrbPrompts, text: str) -> tuple[str, dict[str, str]] | None:
    """Which DRB prompt ``text`` is (its kind) and the values it was filled with."""
    for kind, by_language in prompts.templates.items():
        for language in LANGUAGES:
            fields = parse(by_language[language], text)
            if fields is not None:
                return kind, fields
    return None


def _body(article: str) -> str:
    return _REFERENCES_HEADING.split(article, 1)[0]


def clean(article: str) -> str:
    """The article without citation marks, link targets and reference list."""
    return _MARK.sub("", _LINK.sub(r"\1", _body(article))).strip() + "\n"


def coverage(text: str, wanted: str) -> float:
    """Share of the words of ``wanted`` that ``text`` uses."""
    words = set(content_tokens(wanted))
    return len(words & set(content_tokens(text))) / len(words) if words else 0.0


def score(fields: dict[str, str]) -> str:
    """DRB's scoring format: per dimension, per criterion, both articles' scores."""
    criteria: dict[str, list[dict[str, str]]] = json.loads(fields["criteria_list"])
    out: dict[str, list[dict[str, Any]]] = {}
    for dimension, items in criteria.items():
        out[dimension] = []
        for item in items:
            wanted = f"{item['criterion']} {item['explanation']}"
            out[dimension].append(
                {
                    "criterion": item["criterion"],
                    "analysis": "coverage of the criterion's words (stand-in judge)",
                    "article_1_score": round(10 * coverage(fields["article_1"], wanted), 2),
                    "article_2_score": round(10 * coverage(fields["article_2"], wanted), 2),
                }
            )
    return "```json\n" + json.dumps(out, ensure_ascii=False, indent=1) + "\n```"


def extract(report: str) -> str:
    """DRB's extraction format: ``[{"fact", "ref_idx", "url"}]``, one per citation."""
    urls = {int(m[1] or m[2]): m[3] for m in _REFERENCE.finditer(report)}
    pairs = []
    for sentence in _SENTENCE.findall(_body(report)):
        fact = _MARK.sub("", sentence).strip()
        for group in _MARK.findall(sentence):
            for key in re.split(r"\s*[,，]\s*", group):
                if int(key) in urls and fact:
                    pairs.append({"fact": fact, "ref_idx": key, "url": urls[int(key)]})
    return json.dumps(pairs, ensure_ascii=False)


def _numbered(statements: str) -> list[str]:
    return [re.sub(r"^\d+\.\s*", "", line) for line in statements.splitlines() if line.strip()]


def dedupe(statements: str) -> str:
    """DRB's deduplication format: the numbers of the statements kept."""
    seen: dict[str, int] = {}
    for i, statement in enumerate(_numbered(statements)):
        seen.setdefault(statement, i + 1)
    return json.dumps(list(seen.values()))


def validate(reference: str, statements: str) -> str:
    """DRB's validation format: ``[{"idx", "result"}]``."""
    results = []
    for i, statement in enumerate(_numbered(statements)):
        if not reference.strip():
            result = "unknown"
        elif coverage(reference, statement) >= SUPPORT_SHARE:
            result = "supported"
        else:
            result = "unsupported"
        results.append({"idx": i + 1, "result": result})
    return "```json\n" + json.dumps(results) + "\n```"


def answer(prompts: DrbPrompts, text: str) -> str | None:
    """The stand-in's reply to a DRB prompt; ``None`` when ``text`` is none of them."""
    found = recognise(prompts, text)
    if found is None:
        return None
    kind, fields = found
    if kind == "clean":
        return clean(fields["article"])
    if kind == "score":
        return score(fields)
    if kind == "extract":
        return extract(fields["report_text"])
    if kind == "dedupe":
        return dedupe(fields["statements"])
    return validate(fields["reference"], fields["statements"])


class StandinJudge(SimulatedChatModel):
    """The stand-in as a chat model (no latency; tokens counted as the simulation counts)."""

    prompts: DrbPrompts

    @property
    def _llm_type(self) -> str:
        return "drb-standin-judge"

    def _respond(self, request: Request) -> Reply:
        """Answer a DRB prompt.

        Raises:
            ValueError: the request is not one of DRB's prompts.
        """
        text = answer(self.prompts, request.content("user"))
        if text is None:
            raise ValueError("the stand-in judge answers DRB's prompts only")
        return Reply(stage="judge", call="drb", content=text)
