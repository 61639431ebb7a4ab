"""report.html: one self-contained page where every claim shows its verdict and evidence.

:func:`render_html` turns a :class:`~deep_research.state.Report` into an HTML document that
needs no network to open: styles, script, the verdict chart (inline SVG) and the claims' data
are all inside it. Each claim of the report is a highlighted span coloured by its verdict;
clicking it (or focusing it and pressing Enter) fills the side panel with the verdict, the
confidence, the verifier's reasoning and every quote the claim cites, with its numbered
source. References are links.

Everything in a report comes from untrusted text (web pages, corpus files, model output), so
every piece of it is escaped; the claims' data travels as JSON inside a
``<script type="application/json">`` element with ``<`` escaped, and the script reads it with
``JSON.parse`` and writes it with ``textContent`` only.

The Markdown is rendered by a small line-based renderer that knows what reports contain
(headings, paragraphs, lists, quotes, tables, ``**bold**`` and citation markers ``[n]``), so
that claims' character offsets into the Markdown map exactly onto the page.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from deep_research.state import Claim, Report, Verdict

VERDICT_COLOURS = {
    Verdict.SUPPORTED: "#1a7f37",
    Verdict.PARTIAL: "#9a6700",
    Verdict.UNSUPPORTED: "#cf222e",
    Verdict.CONTRADICTED: "#8250df",
}
"""Colour of each verdict, in the text's underline and in the chart."""

_UNCHECKED = "#6e7781"
_MARKER = re.compile(r"\[(\d+)\]")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


@dataclass(frozen=True)
class _Block:
    """A block of the Markdown: its tag and the character range of its inline text."""

    tag: str
    start: int
    end: int


def _blocks(markdown: str) -> Iterator[_Block]:
    """The report's blocks, line by line; consecutive plain lines form one paragraph."""
    offset = 0
    paragraph: _Block | None = None
    for line in markdown.splitlines(keepends=True):
        start, text = offset, line.rstrip("\n")
        offset += len(line)
        stripped = text.strip()
        heading = re.match(r"(#{1,4}) ", text)
        item = re.match(r"(\s*)(?:[-*]|\d+[.)]) ", text)
        block: _Block | None = None
        if heading:
            block = _Block(f"h{len(heading.group(1))}", start + heading.end(), start + len(text))
        elif text.startswith("> "):
            block = _Block("blockquote", start + 2, start + len(text))
        elif item:
            block = _Block("li", start + item.end(), start + len(text))
        elif stripped.startswith("|") and stripped.endswith("|"):
            block = _Block("tr", start, start + len(text))
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
    """Escaped inline text with bold and citation markers rendered."""
    escaped = html.escape(text, quote=False)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    return _MARKER.sub(r'<a class="cite" href="#ref-\1">[\1]</a>', escaped)


def _with_claims(markdown: str, block: _Block, claims: Sequence[Claim]) -> str:
    """The block's inline HTML, each claim inside it wrapped in a span by verdict."""
    parts: list[str] = []
    position = block.start
    inside = [c for c in claims if block.start <= c.position_start and c.position_end <= block.end]
    for claim in sorted(inside, key=lambda c: c.position_start):
        if claim.position_start < position:
            continue  # overlapping claims: the first one keeps its span
        parts.append(_inline(markdown[position : claim.position_start]))
        verdict = claim.verdict.value if claim.verdict else "UNCHECKED"
        parts.append(
            f'<span class="claim v-{verdict.lower()}" data-claim="{html.escape(claim.id)}" '
            f'tabindex="0" role="button" title="{html.escape(verdict)}">'
            f"{_inline(markdown[claim.position_start : claim.position_end])}</span>"
        )
        position = claim.position_end
    parts.append(_inline(markdown[position : block.end]))
    return "".join(parts)


def _body(report: Report) -> str:
    """The report's Markdown as HTML, references section excluded (it is rendered apart)."""
    markdown = report.markdown.split("\n## References\n", 1)[0]
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
            row = markdown[block.start : block.end].strip().strip("|")
            if set(row) <= set("-:| "):
                continue  # the header separator
            if not open_table:
                out.append("<table>")
                open_table = True
            cells = "".join(f"<td>{_inline(cell.strip())}</td>" for cell in row.split("|"))
            out.append(f"<tr>{cells}</tr>")
            continue
        out.append(f"<{block.tag}>{_with_claims(markdown, block, claims)}</{block.tag}>")
    out.append("</ul>" if open_list else "")
    out.append("</table>" if open_table else "")
    return "\n".join(part for part in out if part)


def _chart(report: Report) -> str:
    """An inline SVG bar chart of the verdict counts."""
    counts = [(v, sum(1 for c in report.claims if c.verdict is v)) for v in Verdict]
    unchecked = sum(1 for c in report.claims if c.verdict is None)
    rows = [(v.value, n, VERDICT_COLOURS[v]) for v, n in counts]
    if unchecked:
        rows.append(("UNCHECKED", unchecked, _UNCHECKED))
    most = max([n for _, n, _ in rows] + [1])
    bars = []
    for index, (label, count, colour) in enumerate(rows):
        y = index * 26
        width = round(220 * count / most)
        bars.append(
            f'<text x="0" y="{y + 15}" class="label">{label.title()}</text>'
            f'<rect x="110" y="{y + 3}" width="{width}" height="16" fill="{colour}" rx="2"/>'
            f'<text x="{116 + width}" y="{y + 15}" class="count">{count}</text>'
        )
    height = len(rows) * 26
    return (
        f'<svg class="chart" role="img" aria-label="claims by verdict" width="380" '
        f'height="{height}" viewBox="0 0 380 {height}">{"".join(bars)}</svg>'
    )


def _claims_data(report: Report) -> str:
    """The claims' verdicts and evidence as JSON safe to embed in a script element."""
    titles = {r.number: (r.title, r.url) for r in report.references}
    data = {}
    for claim in report.claims:
        evidence = []
        for citation in report.citations:
            if citation.claim_id != claim.id or citation.quote is None:
                continue
            title, url = titles.get(citation.reference_number or 0, ("", ""))
            evidence.append(
                {
                    "quote": citation.quote,
                    "number": citation.reference_number,
                    "title": title,
                    "url": url,
                    "primary": citation.is_primary,
                }
            )
        data[claim.id] = {
            "text": claim.text,
            "verdict": claim.verdict.value if claim.verdict else "UNCHECKED",
            "confidence": claim.confidence,
            "reasoning": claim.reasoning,
            "evidence": evidence,
        }
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _references(report: Report) -> str:
    items = "".join(
        f'<li id="ref-{r.number}" value="{r.number}"><a href="{html.escape(r.url)}">'
        f'{html.escape(r.title)}</a> <span class="where">{html.escape(r.location)}</span></li>'
        for r in report.references
    )
    return f"<h2>References</h2><ol>{items}</ol>" if items else ""


_STYLE = """
body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
main{display:grid;grid-template-columns:minmax(0,1fr) 24rem;gap:2rem;max-width:78rem;
margin:0 auto;padding:1.5rem}
article{min-width:0}aside{position:sticky;top:1rem;align-self:start}
.claim{border-bottom:3px solid;cursor:pointer;border-radius:2px}
.claim:focus,.claim.active{outline:2px solid #0969da;background:#ddf4ff}
.v-supported{border-color:#1a7f37}.v-partial{border-color:#9a6700;background:#fff8c5}
.v-unsupported{border-color:#cf222e;background:#ffebe9}
.v-contradicted{border-color:#8250df;background:#fbefff}.v-unchecked{border-color:#6e7781}
#panel{border:1px solid #d0d7de;border-radius:6px;padding:1rem;margin-top:1rem}
#panel blockquote{margin:.5rem 0;padding:.25rem .75rem;border-left:3px solid #d0d7de}
.chart .label,.chart .count{font:12px system-ui,sans-serif;fill:#1f2328}
blockquote{color:#57606a}table{border-collapse:collapse}td{border:1px solid #d0d7de;
padding:.25rem .5rem}.where{color:#57606a;font-size:.85em}a.cite{text-decoration:none}
@media (max-width:60rem){main{grid-template-columns:1fr}aside{position:static}}
"""

_SCRIPT = """
const claims = JSON.parse(document.getElementById("claims-data").textContent);
const panel = document.getElementById("panel");
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}
function show(span) {
  const claim = claims[span.dataset.claim];
  if (!claim) return;
  document.querySelectorAll(".claim.active").forEach(s => s.classList.remove("active"));
  span.classList.add("active");
  panel.replaceChildren();
  const confidence = claim.confidence === null ? "" : ` (confidence ${claim.confidence})`;
  panel.append(el("h3", claim.verdict + confidence, "verdict"));
  panel.append(el("p", claim.text, "claim-text"));
  if (claim.reasoning) panel.append(el("p", claim.reasoning, "reasoning"));
  if (!claim.evidence.length) panel.append(el("p", "No evidence is cited.", "none"));
  for (const item of claim.evidence) {
    panel.append(el("blockquote", item.quote, "quote"));
    const source = el("p", "", "source");
    const link = el("a", `[${item.number}] ${item.title}`);
    link.href = item.url;
    source.append(link);
    if (!item.primary) source.append(el("span", " (found by the verifier)"));
    panel.append(source);
  }
}
document.querySelectorAll(".claim").forEach(span => {
  span.addEventListener("click", () => show(span));
  span.addEventListener("mouseenter", () => show(span));
  span.addEventListener("keydown", e => { if (e.key === "Enter") show(span); });
});
"""


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (see the module docstring)."""
    summary = report.verification
    checked = summary.total
    tally = (
        f"{checked} claims checked: {summary.supported} supported, {summary.partial} partial, "
        f"{summary.unsupported} unsupported, {summary.contradicted} contradicted."
        if checked
        else "No claim could be checked."
    )
    return f"""<!DOCTYPE html>
<html lang="en">
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
{_body(report)}
{_references(report)}
</article>
<aside>
<h2>Verification</h2>
<p id="tally">{html.escape(tally)}</p>
{_chart(report)}
<div id="panel"><p>Click a highlighted claim to see its evidence.</p></div>
</aside>
</main>
<script type="application/json" id="claims-data">{_claims_data(report)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
