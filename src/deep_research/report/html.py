"""report.html: one self-contained page where every claim shows its verdict and evidence.

:func:`render_html` turns a :class:`~deep_research.state.Report` into an HTML document that
needs no network to open: styles, script, the verdict chart (inline SVG) and the claims' data
are all inside it. Each claim of the report is a highlighted span coloured by its verdict;
clicking it (or focusing it and pressing Enter) fills the side panel with the verdict, the
confidence, the verifier's reasoning and every quote the claim cites, with its numbered
source. References are links. On a narrow screen (a phone) the panel sits below the article,
so a clicked claim's panel is pinned at the foot of the screen instead, with a close button
(Escape closes it too).

The page speaks the report's language, the question's
(:func:`~deep_research.text.language.language_of`): its headings, the verdicts' names, the tally,
the chart and the panel's words are the labels of :data:`~deep_research.text.labels.LABELS`, and
the verifier's reasons are shown translated (:func:`~deep_research.verification.reasons.words`).

Everything in a report comes from untrusted text (web pages, corpus files, model output), so
every piece of it is escaped; the claims' data travels as JSON inside a
``<script type="application/json">`` element with ``<`` escaped, and the script reads it with
``JSON.parse`` and writes it with ``textContent`` only.

The Markdown is rendered by a small line-based renderer that knows what reports contain
(headings, paragraphs, lists, quotes, tables, ``**bold**``, citation markers ``[n]``, and the
marks and footnotes of claims not fully supported), so
that claims' character offsets into the Markdown map exactly onto the page.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from deep_research.report.build import cited_at
from deep_research.state import Claim, Report, Verdict
from deep_research.text.labels import LABELS, Label, label
from deep_research.text.language import language_of
from deep_research.verification.blocks import cell_spans, layout
from deep_research.verification.reasons import words

VERDICT_COLOURS = {
    Verdict.SUPPORTED: "#1a7f37",
    Verdict.PARTIAL: "#9a6700",
    Verdict.UNSUPPORTED: "#cf222e",
    Verdict.CONTRADICTED: "#8250df",
}
"""Colour of each verdict, in the text's underline and in the chart."""

_UNCHECKED = "#6e7781"
_NAMES: dict[str, Label] = {
    Verdict.SUPPORTED.value: "verdict_supported",
    Verdict.PARTIAL.value: "verdict_partial",
    Verdict.UNSUPPORTED.value: "verdict_unsupported",
    Verdict.CONTRADICTED.value: "verdict_contradicted",
    "ANALYSIS": "verdict_analysis",
    "UNSOURCED": "verdict_unsourced",
    "UNCHECKED": "verdict_unchecked",
}
"""The label of each verdict's name, and of the two states of a claim without one."""
_MARKER = re.compile(r"\[(\d+)\]")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_FLAG = re.compile(r"\*\(([^()*\n]+)\)\*\[\^(v\d+)\]")
"""A claim's mark, ``*(partly supported)*[^v1]`` (see :mod:`deep_research.report.flags`)."""
_NOTE = re.compile(r"^\[\^(v\d+)\]:")
"""The start of the footnote that gives the mark's reason."""


@dataclass(frozen=True)
class _Block:
    """A block of the Markdown: its tag and the character range of its inline text."""

    tag: str
    start: int
    end: int


def _blocks(markdown: str) -> Iterator[_Block]:
    """The report's blocks, line by line; consecutive plain lines form one paragraph.

    Verbatim lines (code, math, HTML, images, link-only lines: :mod:`.verification.blocks`)
    form ``pre`` blocks, shown as written; table lines (header, separator, rows) are ``tr``.
    """
    offset = 0
    paragraph: _Block | None = None
    lines = markdown.split("\n")
    found = layout(lines)
    for index, text in enumerate(lines):
        start = offset
        offset += len(text) + 1
        stripped = text.strip()
        heading = re.match(r"(#{1,4}) ", text)
        item = re.match(r"(\s*)(?:[-*]|\d+[.)]) ", text)
        block: _Block | None = None
        if index in found.verbatim:
            if paragraph is not None and paragraph.tag == "pre" and paragraph.end == start - 1:
                paragraph = _Block("pre", paragraph.start, start + len(text))
                continue
            if paragraph is not None:
                yield paragraph
            paragraph = _Block("pre", start, start + len(text))
            continue
        if paragraph is not None and paragraph.tag == "pre":
            yield paragraph
            paragraph = None
        if index in found.rows or index in found.table_heads:
            block = _Block("tr", start, start + len(text))
        elif heading:
            block = _Block(f"h{len(heading.group(1))}", start + heading.end(), start + len(text))
        elif text.startswith("> "):
            block = _Block("blockquote", start + 2, start + len(text))
        elif item:
            block = _Block("li", start + item.end(), start + len(text))
        if block is not None or not stripped:
            if paragraph is not None:
                yield paragraph
                paragraph = None
            if block is not None:
                yield block
            continue
        if paragraph is None:
            paragraph = _Block("p", start, start + len(text))
        else:
            paragraph = _Block("p", paragraph.start, start + len(text))
    if paragraph is not None:
        yield paragraph


def _inline(text: str) -> str:
    """Escaped inline text with bold and citation markers rendered.

    Markdown's character references stand for their characters (``&lt;``, which the inert
    pass writes for a raw tag's ``<``, reads as ``<``), so they are escaped once, not twice.
    """
    escaped = html.escape(html.unescape(text), quote=False)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = _FLAG.sub(
        r'<em class="flag">(\1)</em><sup><a class="note-ref" href="#note-\2">\2</a></sup>', escaped
    )
    escaped = _NOTE.sub(r'<span class="note" id="note-\1">\1:</span>', escaped)
    return _MARKER.sub(r'<a class="cite" href="#ref-\1">[\1]</a>', escaped)


def _with_claims(markdown: str, block: _Block, claims: Sequence[Claim], language: str) -> str:
    """The block's inline HTML, each claim inside it wrapped in a span by verdict."""
    parts: list[str] = []
    position = block.start
    inside = [c for c in claims if block.start <= c.position_start and c.position_end <= block.end]
    for claim in sorted(inside, key=lambda c: c.position_start):
        if claim.position_start < position:
            continue  # overlapping claims: the first one keeps its span
        parts.append(_inline(markdown[position : claim.position_start]))
        verdict = _verdict(claim)
        name = label(language, _NAMES[verdict])
        parts.append(
            f'<span class="claim v-{verdict.lower()}" data-claim="{html.escape(claim.id)}" '
            f'tabindex="0" role="button" title="{html.escape(name)}">'
            f"{_inline(markdown[claim.position_start : claim.position_end])}</span>"
        )
        position = claim.position_end
    parts.append(_inline(markdown[position : block.end]))
    return "".join(parts)


_REFERENCES = re.compile(
    r"^## (?:" + "|".join(re.escape(labels["references"]) for labels in LABELS.values()) + r")\n",
    re.M,
)
"""The heading of the reference list, in any of the report languages."""
_LIST_ITEM = re.compile(r"\d+\. ")


def _split_references(markdown: str) -> tuple[str, str]:
    """The Markdown before the reference list, and what follows the list (notes, the note)."""
    found = _REFERENCES.search(markdown)
    if found is None:
        return markdown, ""
    after = markdown[found.end() :].split("\n\n")
    tail = [part for part in after if part.strip() and not _LIST_ITEM.match(part.strip())]
    return markdown[: found.start()].rstrip("\n") + "\n", "\n\n".join(tail)


def _after_references(report: Report) -> str:
    """The footnotes of marked claims and the verification line, as paragraphs."""
    tail = _split_references(report.markdown)[1]
    return "\n".join(f"<p>{_inline(part.strip())}</p>" for part in tail.split("\n\n") if part)


def _body(report: Report, language: str) -> str:
    """The report's Markdown as HTML, references section excluded (it is rendered apart)."""
    markdown = _split_references(report.markdown)[0]
    claims = report.claims
    out: list[str] = []
    open_list = open_table = False
    for block in _blocks(markdown):
        if block.tag != "li" and open_list:
            out.append("</ul>")
            open_list = False
        if block.tag != "tr" and open_table:
            out.append("</table>")
            open_table = False
        if block.tag == "li" and not open_list:
            out.append("<ul>")
            open_list = True
        if block.tag == "tr":
            row = markdown[block.start : block.end]
            if set(row) <= set("-:| "):
                continue  # the header separator
            if not open_table:
                out.append("<table>")
                open_table = True
            out.append(_row(markdown, block, claims, language))
            continue
        if block.tag == "pre":
            out.append(f"<pre>{html.escape(_shown(markdown[block.start : block.end]))}</pre>")
            continue
        out.append(f"<{block.tag}>{_with_claims(markdown, block, claims, language)}</{block.tag}>")
    out.append("</ul>" if open_list else "")
    out.append("</table>" if open_table else "")
    return "\n".join(part for part in out if part)


def _shown(verbatim: str) -> str:
    """A verbatim block's text as a reader sees it.

    Code and math as written; outside them (a link line, an HTML block) Markdown's character
    references stand for their characters.
    """
    if verbatim.lstrip().startswith(("```", "~~~", "$$", "\\[")):
        return verbatim
    return html.unescape(verbatim)


def _row(markdown: str, block: _Block, claims: Sequence[Claim], language: str) -> str:
    """A table row, each of its cells that is a claim highlighted by its verdict.

    A claim that spans several cells (a row judged whole, in a report written before cells
    were judged one by one) highlights the row.
    """
    row = markdown[block.start : block.end]
    html_cells = "".join(
        "<td>"
        + _with_claims(
            markdown, _Block("td", block.start + start, block.start + end), claims, language
        )
        + "</td>"
        for start, end in cell_spans(row)
    )
    whole = next(
        (
            c
            for c in claims
            if block.start <= c.position_start
            and c.position_end <= block.end
            and len(cell_spans(markdown[c.position_start : c.position_end])) > 1
        ),
        None,
    )
    if whole is None:
        return f"<tr>{html_cells}</tr>"
    verdict = _verdict(whole)
    name = label(language, _NAMES[verdict])
    return (
        f'<tr class="claim v-{verdict.lower()}" data-claim="{html.escape(whole.id)}" '
        f'tabindex="0" role="button" title="{html.escape(name)}">{html_cells}</tr>'
    )


def _verdict(claim: Claim) -> str:
    """The claim's verdict, or what it is without one.

    ANALYSIS for a synthesis claim (checked for figures and names only), UNSOURCED for
    uncited background (kept, never shown as verified), else UNCHECKED.
    """
    if claim.verdict is not None:
        return claim.verdict.value
    return {"synthesis": "ANALYSIS", "background": "UNSOURCED"}.get(claim.claim_type, "UNCHECKED")


def _chart(report: Report, language: str) -> str:
    """An inline SVG bar chart of the verdict counts."""
    counts = [(v, sum(1 for c in report.claims if c.verdict is v)) for v in Verdict]
    rows = [(v.value, n, VERDICT_COLOURS[v]) for v, n in counts]
    for state in ("ANALYSIS", "UNSOURCED", "UNCHECKED"):
        count = sum(1 for c in report.claims if c.verdict is None and _verdict(c) == state)
        if count:
            rows.append((state, count, _UNCHECKED))
    most = max([n for _, n, _ in rows] + [1])
    bars = []
    for index, (verdict, count, colour) in enumerate(rows):
        y = index * 26
        width = round(220 * count / most)
        name = html.escape(label(language, _NAMES[verdict]))
        bars.append(
            f'<text x="0" y="{y + 15}" class="label">{name}</text>'
            f'<rect x="110" y="{y + 3}" width="{width}" height="16" fill="{colour}" rx="2"/>'
            f'<text x="{116 + width}" y="{y + 15}" class="count">{count}</text>'
        )
    height = len(rows) * 26
    return (
        f'<svg class="chart" role="img" aria-label="{html.escape(label(language, "chart"))}" '
        f'width="380" height="{height}" viewBox="0 0 380 {height}">{"".join(bars)}</svg>'
    )


def _claims_data(report: Report, language: str) -> str:
    """The claims' verdicts and evidence as JSON safe to embed in a script element.

    ``verdict`` is the verdict's value (``SUPPORTED``), ``name`` what the page calls it; the
    verifier's reasons are shown in the report's language (see
    :func:`~deep_research.verification.reasons.words`).
    """
    titles = {r.number: (r.title, r.url) for r in report.references}
    evidence: dict[str, list[dict[str, object]]] = defaultdict(list)
    for citation in report.citations:
        if citation.quote is None:
            continue
        title, url = titles.get(citation.reference_number or 0, ("", ""))
        evidence[citation.claim_id].append(
            {
                "quote": citation.quote,
                "locator": citation.locator,
                "number": citation.reference_number,
                "title": title,
                "url": url,
                "primary": citation.is_primary,
            }
        )
    data = {}
    for claim in report.claims:
        verdict = _verdict(claim)
        data[claim.id] = {
            "text": claim.text,
            "verdict": verdict,
            "name": label(language, _NAMES[verdict]),
            "confidence": claim.confidence,
            "reasoning": words(claim, language),
            "evidence": evidence[claim.id],
        }
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _references(report: Report, language: str) -> str:
    items = "".join(
        f'<li id="ref-{r.number}" value="{r.number}"><a href="{html.escape(r.url)}">'
        + (
            f"{html.escape(r.citation)}</a>"  # a work: its whole reference is the link
            if r.bib is not None and r.citation
            else f'{html.escape(r.title)}</a> <span class="where">{html.escape(r.location)}</span>'
        )
        + _pages(r.locators)
        + "</li>"
        for r in report.references
    )
    heading = html.escape(label(language, "references"))
    return f"<h2>{heading}</h2><ol>{items}</ol>" if items else ""


def _pages(locators: list[str]) -> str:
    """The pages or slides a reference is cited at, after it: `` (pp. 3, 12)``."""
    return f' <span class="pages">({html.escape(cited_at(locators))})</span>' if locators else ""


def _with_summary(body: str, report: Report, language: str) -> str:
    """The body with the report's summary under its title, when it has one."""
    if not report.summary:
        return body
    lead = html.escape(label(language, "summary"))
    summary = f'<p id="summary"><strong>{lead}</strong> {_inline(report.summary)}</p>'
    title, found, rest = body.partition("</h1>")
    return f"{title}</h1>\n{summary}{rest}" if found else f"{summary}\n{body}"


def _confidence(report: Report, language: str) -> str:
    """The overall confidence, its basis and the count of stated limits, for the side panel."""
    confidence = report.confidence
    if confidence is None:
        return ""
    limits = len(report.limitations)
    stated = label(language, "limits_one" if limits == 1 else "limits_many").format(count=limits)
    level = html.escape(label(language, confidence.level))
    heading = html.escape(label(language, "confidence_heading")).format(
        name=html.escape(label(language, "confidence")),
        level=f'<span class="level level-{confidence.level}">{level}</span>',
    )
    return (
        f'<section id="confidence"><h2>{heading}</h2>'
        f"<p>{html.escape(confidence.basis)}</p><p>{html.escape(stated)}</p></section>"
    )


_STYLE = """
body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
main{display:grid;grid-template-columns:minmax(0,1fr) 24rem;gap:2rem;max-width:78rem;
margin:0 auto;padding:1.5rem}
article{min-width:0}aside{position:sticky;top:1rem;align-self:start}
.claim{border-bottom:3px solid;cursor:pointer;border-radius:2px}
.claim:focus,.claim.active{outline:2px solid #0969da;background:#ddf4ff}
.v-supported{border-color:#1a7f37}.v-partial{border-color:#9a6700;background:#fff8c5}
.v-unsupported{border-color:#cf222e;background:#ffebe9}
.v-contradicted{border-color:#8250df;background:#fbefff}.v-unchecked{border-color:#6e7781}.v-analysis{border-color:#6e7781;border-bottom-style:dotted}
#panel{border:1px solid #d0d7de;border-radius:6px;padding:1rem;margin-top:1rem}
#panel blockquote{margin:.5rem 0;padding:.25rem .75rem;border-left:3px solid #d0d7de}
.chart .label,.chart .count{font:12px system-ui,sans-serif;fill:#1f2328}
blockquote{color:#57606a}table{border-collapse:collapse}td{border:1px solid #d0d7de;
padding:.25rem .5rem}.where{color:#57606a;font-size:.85em}a.cite{text-decoration:none}
#summary{border-left:4px solid #0969da;padding:.25rem .75rem;background:#f6f8fa}
.level{padding:0 .4rem;border-radius:4px;color:#fff}.level-high{background:#1a7f37}
.level-medium{background:#9a6700}.level-low{background:#cf222e}
article,aside{overflow-wrap:anywhere}.chart{max-width:100%;height:auto}
#panel .close{display:none}
@media (max-width:60rem){main{grid-template-columns:minmax(0,1fr)}aside{position:static}
#panel.pinned{position:fixed;left:0;right:0;bottom:0;z-index:1;margin:0;max-height:45vh;
overflow:auto;background:#fff;border-radius:6px 6px 0 0;box-shadow:0 -2px 8px rgb(0 0 0/.2)}
#panel.pinned .close{display:block;float:right;min-width:44px;min-height:44px;
margin:0 0 .5rem .5rem;font:inherit;font-size:1.25rem;background:#f6f8fa;
border:1px solid #d0d7de;border-radius:6px}
body.pinned{padding-bottom:45vh}}
@media (max-width:30rem){main{padding:1rem .75rem}}
"""

_SCRIPT = """
const claims = JSON.parse(document.getElementById("claims-data").textContent);
const panel = document.getElementById("panel");
const words = panel.dataset;
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}
function close() {
  const span = document.querySelector(".claim.active");
  panel.classList.remove("pinned");
  document.body.classList.remove("pinned");
  if (span) span.focus();
}
function show(span, pin) {
  const claim = claims[span.dataset.claim];
  if (!claim) return;
  document.querySelectorAll(".claim.active").forEach(s => s.classList.remove("active"));
  span.classList.add("active");
  panel.replaceChildren();
  const button = el("button", "\u00d7", "close");
  button.type = "button";
  button.setAttribute("aria-label", words.close);
  button.addEventListener("click", close);
  panel.append(button);
  if (pin) {  // shown at the foot of a narrow screen (the style sheet), else in the side panel
    panel.classList.add("pinned");
    document.body.classList.add("pinned");
  }
  const confidence = claim.confidence === null
    ? "" : words.confidence.replace("{value}", claim.confidence);
  panel.append(el("h3", claim.name + confidence, "verdict"));
  panel.append(el("p", claim.text, "claim-text"));
  if (claim.reasoning) panel.append(el("p", claim.reasoning, "reasoning"));
  if (!claim.evidence.length) panel.append(el("p", words.none, "none"));
  for (const item of claim.evidence) {
    panel.append(el("blockquote", item.quote, "quote"));
    const source = el("p", "", "source");
    const link = el("a", `[${item.number}] ${item.title}`);
    link.href = item.url;
    source.append(link);
    if (item.locator) source.append(el("span", `, ${item.locator}`, "page"));
    if (!item.primary) source.append(el("span", words.found));
    panel.append(source);
  }
  // the claim stays in sight above a pinned panel
  const below = span.getBoundingClientRect().bottom - panel.getBoundingClientRect().top;
  if (pin && getComputedStyle(panel).position === "fixed" && below > 0) scrollBy(0, below + 8);
}
document.querySelectorAll(".claim").forEach(span => {
  span.addEventListener("click", () => show(span, true));
  span.addEventListener("mouseenter", () => show(span, panel.classList.contains("pinned")));
  span.addEventListener("keydown", e => { if (e.key === "Enter") show(span, true); });
});
document.addEventListener("keydown", e => {
  if (e.key === "Escape" && panel.classList.contains("pinned")) close();
});
"""


def _tally(report: Report, language: str) -> str:
    """The sentence above the chart: how many claims were checked, and their verdicts."""
    summary = report.verification
    if summary.total:
        return label(language, "tally").format(
            total=summary.total,
            supported=summary.supported,
            partial=summary.partial,
            unsupported=summary.unsupported,
            contradicted=summary.contradicted,
        )
    none = label(language, "basis_unchecked")
    return f"{none[:1].upper()}{none[1:]}{'。' if language in ('zh', 'ja') else '.'}"


def _panel(language: str) -> str:
    """The empty claim panel, carrying the words the script writes into it."""
    words = {
        "confidence": label(language, "claim_confidence"),
        "none": label(language, "no_evidence"),
        "found": label(language, "found_by_verifier"),
        "close": label(language, "close"),
    }
    data = "".join(f' data-{key}="{html.escape(text)}"' for key, text in words.items())
    return f'<div id="panel"{data}><p>{html.escape(label(language, "panel_hint"))}</p></div>'


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (see the module docstring)."""
    language = language_of(report.question)
    return f"""<!DOCTYPE html>
<html lang="{language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{html.escape(report.question[:200])}</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
<article id="report">
{_with_summary(_body(report, language), report, language)}
{_references(report, language)}
{_after_references(report)}
</article>
<aside>
{_confidence(report, language)}
<h2>{html.escape(label(language, "verification"))}</h2>
<p id="tally">{html.escape(_tally(report, language))}</p>
{_chart(report, language)}
{_panel(language)}
</aside>
</main>
<script type="application/json" id="claims-data">{_claims_data(report, language)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
