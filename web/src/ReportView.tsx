// A report read from its JSON: the Markdown drawn line by line as text, each claim (located
// by its offsets, counted in code points as Python counts them) a button coloured by its
// verdict that opens its quoted evidence and source. Nothing is ever parsed as HTML.

import { useEffect, useMemo, useState } from "react";
import { Api, download } from "./api";
import type { Citation, Claim, Report } from "./types";
import { Feedback } from "./Feedback";

interface Segment {
  text: string;
  claim?: Claim;
}

interface Line {
  kind: "h1" | "h2" | "h3" | "quote" | "item" | "text" | "blank";
  segments: Segment[];
}

const VERDICT_NAMES: Record<string, string> = {
  SUPPORTED: "Supported",
  PARTIAL: "Partly supported",
  UNSUPPORTED: "Unsupported",
  CONTRADICTED: "Contradicted",
};

/** Text between claims without Markdown's emphasis marks (a claim's own text is kept whole). */
function plain(segment: Segment): Segment {
  return segment.claim ? segment : { text: segment.text.replace(/\*\*|(^|\s)\*(?=\S)|(?<=\S)\*($|\s)/g, "$1$2") };
}

/** The report's lines, each split into plain text and claims. */
export function layout(markdown: string, claims: Claim[]): Line[] {
  const chars = Array.from(markdown); // code points: the report's offsets count these
  const sorted = [...claims].sort((a, b) => a.positionStart - b.positionStart);
  const lines: Line[] = [];
  let start = 0;
  let next = 0; // the next claim that may start at or after the cursor
  while (start <= chars.length) {
    let end = chars.indexOf("\n", start);
    if (end < 0) end = chars.length;
    const raw = chars.slice(start, end).join("");
    const match = /^(#{1,3} |> ?|[-*] |\d+\. )/.exec(raw);
    const prefix = match ? Array.from(match[0]).length : 0;
    let kind: Line["kind"] = "text";
    if (!raw.trim()) kind = "blank";
    else if (match?.[0].startsWith("###")) kind = "h3";
    else if (match?.[0].startsWith("##")) kind = "h2";
    else if (match?.[0].startsWith("#")) kind = "h1";
    else if (match?.[0].startsWith(">")) kind = "quote";
    else if (match) kind = "item";
    const segments: Segment[] = [];
    let cursor = start + (kind === "item" && !/^[-*] /.test(raw) ? 0 : prefix);
    while (next < sorted.length && sorted[next].positionStart < cursor) next += 1;
    for (let i = next; i < sorted.length && sorted[i].positionStart < end; i += 1) {
      const claim = sorted[i];
      if (claim.positionEnd > end || claim.positionStart < cursor) continue;
      if (claim.positionStart > cursor) {
        segments.push({ text: chars.slice(cursor, claim.positionStart).join("") });
      }
      segments.push({ text: chars.slice(claim.positionStart, claim.positionEnd).join(""), claim });
      cursor = claim.positionEnd;
      next = i + 1;
    }
    if (cursor < end) segments.push({ text: chars.slice(cursor, end).join("") });
    lines.push({ kind, segments: segments.map(plain) });
    start = end + 1;
  }
  return lines;
}

/** The Markdown up to its reference list (drawn below from the references, with links). */
function bodyOf(markdown: string): string {
  const at = markdown.search(/^## (References|参考文献)\s*$/m);
  return at < 0 ? markdown : markdown.slice(0, at);
}

function safeLink(url: string): string | null {
  return /^https?:\/\//i.test(url) ? url : null;
}

function Evidence({ report, claim }: { report: Report; claim: Claim }) {
  const cites = report.citations.filter((c: Citation) => c.claimId === claim.id);
  const verdict = claim.verdict ? VERDICT_NAMES[claim.verdict] : "Not checked";
  const confidence = claim.confidence == null ? "" : ` (confidence ${claim.confidence.toFixed(2)})`;
  return (
    <section className="evidence" aria-live="polite" aria-label="Evidence of the selected claim">
      <h4 className={`verdict v-${claim.verdict ?? "NONE"}`}>
        {verdict}
        {confidence}
      </h4>
      <p className="claim-text">{claim.text}</p>
      {claim.reasoning ? <p className="reasoning">{claim.reasoning}</p> : null}
      {cites.length === 0 ? <p>This claim cites no evidence.</p> : null}
      {cites.map((cite) => {
        const ref = report.references.find((r) => r.number === cite.referenceNumber);
        const link = ref ? safeLink(ref.url) : null;
        return (
          <figure key={cite.evidenceId} className="quote">
            <blockquote>{cite.quote ?? "(quote not kept)"}</blockquote>
            {ref ? (
              <figcaption className="source">
                [{ref.number}]{" "}
                {link ? (
                  <a href={link} target="_blank" rel="noopener noreferrer nofollow">
                    {ref.title || ref.location}
                  </a>
                ) : (
                  <span>{ref.title || ref.location}</span>
                )}
                {ref.location && ref.location !== ref.title ? (
                  <span className="location"> · {ref.location}</span>
                ) : null}
              </figcaption>
            ) : null}
          </figure>
        );
      })}
    </section>
  );
}

/** A claim in the text: a keyboard-usable toggle that flows with the text it sits in. */
function ClaimMark({
  claim,
  text,
  active,
  toggle,
}: {
  claim: Claim;
  text: string;
  active: boolean;
  toggle: (id: string) => void;
}) {
  return (
    <span
      role="button"
      tabIndex={0}
      className={`claim v-${claim.verdict ?? "NONE"}${active ? " active" : ""}`}
      data-claim={claim.id}
      aria-pressed={active}
      onClick={() => toggle(claim.id)}
      onKeyDown={(event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle(claim.id);
        }
      }}
    >
      {text}
    </span>
  );
}

export function ReportView({
  api,
  sessionId,
  messageId,
}: {
  api: Api;
  sessionId: number;
  messageId: number | null;
}) {
  const [report, setReport] = useState<Report | null>(null);
  const [problem, setProblem] = useState("");
  const [active, setActive] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .json<Report>(`/sessions/${sessionId}/report`)
      .then((found) => live && setReport(found))
      .catch((error: Error) => live && setProblem(`The report could not be read: ${error.message}`));
    return () => {
      live = false;
    };
  }, [api, sessionId]);

  const lines = useMemo(() => (report ? layout(bodyOf(report.markdown), report.claims) : []), [report]);
  if (problem) return <p className="problem">{problem}</p>;
  if (!report) return <p className="muted">Loading the report…</p>;
  const claim = report.claims.find((c) => c.id === active) ?? null;
  const v = report.verification;
  const save = (path: string, name: string) => () => {
    download(api, path, name).catch((error: Error) => setProblem(error.message));
  };

  return (
    <article className="report" aria-label="Report">
      <div className="report-head">
        <p className="tally" data-testid="tally">
          <span className="v-SUPPORTED">{v.supported} supported</span> ·{" "}
          <span className="v-PARTIAL">{v.partial} partly</span> ·{" "}
          <span className="v-UNSUPPORTED">{v.unsupported} unsupported</span> ·{" "}
          <span className="v-CONTRADICTED">{v.contradicted} contradicted</span>
        </p>
        {report.confidence ? (
          <p className="confidence">
            <strong>Confidence: {report.confidence.level}</strong> — {report.confidence.basis}
          </p>
        ) : null}
        <div className="downloads" role="group" aria-label="Download the report">
          <button type="button" onClick={save(`/sessions/${sessionId}/report.md`, "report.md")}>
            report.md
          </button>
          <button
            type="button"
            onClick={save(`/sessions/${sessionId}/report.article.md`, "report.article.md")}
          >
            Article
          </button>
          <button type="button" onClick={save(`/sessions/${sessionId}/report`, "report.json")}>
            JSON
          </button>
          <button type="button" onClick={save(`/reports/${sessionId}.html`, "report.html")}>
            HTML
          </button>
        </div>
      </div>
      <div className="report-body">
        <div className="markdown">
          {lines.map((line, index) => {
            if (line.kind === "blank") return null;
            const body = line.segments.map((segment, i) =>
              segment.claim ? (
                <ClaimMark
                  key={i}
                  claim={segment.claim}
                  text={segment.text}
                  active={segment.claim.id === active}
                  toggle={(id) => setActive(id === active ? null : id)}
                />
              ) : (
                <span key={i}>{segment.text}</span>
              ),
            );
            switch (line.kind) {
              case "h1":
                return <h2 key={index}>{body}</h2>;
              case "h2":
                return <h3 key={index}>{body}</h3>;
              case "h3":
                return <h4 key={index}>{body}</h4>;
              case "quote":
                return (
                  <blockquote key={index} className="note">
                    {body}
                  </blockquote>
                );
              case "item":
                return (
                  <p key={index} className="item">
                    {body}
                  </p>
                );
              default:
                return <p key={index}>{body}</p>;
            }
          })}
        </div>
        <aside className={claim ? "panel showing" : "panel"} aria-label="Claim details">
          {claim ? (
            <>
              <button type="button" className="close" aria-label="Close the evidence" onClick={() => setActive(null)}>
                ×
              </button>
              <Evidence report={report} claim={claim} />
            </>
          ) : (
            <p className="muted">Select a highlighted claim to see its evidence and source.</p>
          )}
        </aside>
      </div>
      {report.limitations.length && !/^## Limitations/m.test(report.markdown) ? (
        <section className="limitations" aria-label="Limitations">
          <h3>Limitations</h3>
          <ul>
            {report.limitations.map((item, i) => (
              <li key={i}>{item.text}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="references" aria-label="References">
        <h3>References</h3>
        <ol>
          {report.references.map((ref) => {
            const link = safeLink(ref.url);
            return (
              <li key={ref.number} value={ref.number}>
                {link ? (
                  <a href={link} target="_blank" rel="noopener noreferrer nofollow">
                    {ref.title || ref.location}
                  </a>
                ) : (
                  <span>{ref.title || ref.location}</span>
                )}
              </li>
            );
          })}
        </ol>
      </section>
      {messageId != null ? <Feedback api={api} messageId={messageId} /> : null}
    </article>
  );
}
