// The run as it happens: the plan's steps with their searches, sources and quotes, the
// reflection's decisions, the report being written, the claims as they are judged. Once the
// run is over it folds into one line that opens on a click, so that the report and the
// follow-up question are not pushed apart by it.

import { useEffect, useRef } from "react";
import { VERDICTS, type Progress } from "./progress";

const STATE_MARKS: Record<string, string> = {
  waiting: "·",
  researching: "…",
  done: "✓",
  thin: "✓",
};

/** The folded view's one line: how the run ended, and how many steps it took. */
function summaryOf(p: Progress): string {
  const end = p.confidence ? `Finished: ${p.confidence}` : `Ended while ${p.phase}`;
  const steps = p.order.length ? ` · ${p.order.length} step${p.order.length === 1 ? "" : "s"}` : "";
  return `${end}${steps}`;
}

export function LiveView({ progress, finished }: { progress: Progress; finished: boolean }) {
  const p = progress;
  const draft = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // the newest text in sight, as a terminal follows its output
    if (draft.current) draft.current.scrollTop = draft.current.scrollHeight;
  }, [p.draft]);
  const body = (
    <>
      <p className="phase" role="status">
        Now: <span data-testid="phase">{p.phase}</span>
        {p.depth ? <span className="muted"> · depth {p.depth}</span> : null}
      </p>
      {p.brief ? <p className="brief">{p.brief}</p> : null}
      {p.order.length ? (
        <ol className="steps" aria-label="Plan">
          {p.order.map((id) => {
            const s = p.steps[id];
            if (!s) return null;
            return (
              <li key={id} className={`step ${s.state}`} data-step={id}>
                <div className="step-head">
                  <span className="mark" aria-hidden="true">
                    {STATE_MARKS[s.state]}
                  </span>
                  <span className="title">{s.title}</span>
                  <span className="counts">
                    {s.searches} searches · {s.sources} sources · {s.evidence} quotes
                    <span className="sr-only"> ({s.state})</span>
                  </span>
                </div>
                {s.queries.length || s.recent.length ? (
                  <ul className="step-detail">
                    {s.queries.map((q, i) => (
                      <li key={`q${i}`} className="query">
                        search: {q}
                      </li>
                    ))}
                    {s.recent.map((source, i) => (
                      <li key={`s${i}`} className="source">
                        {source.title || source.url} — {source.quotes} quote
                        {source.quotes === 1 ? "" : "s"}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            );
          })}
        </ol>
      ) : null}
      {p.decisions.length ? (
        <ul className="decisions" aria-label="Reflection">
          {p.decisions.map((d, i) => (
            <li key={i}>{d}</li>
          ))}
        </ul>
      ) : null}
      {p.written ? (
        <p className="writing">Report written so far: {p.written} characters</p>
      ) : null}
      {p.draft ? (
        <section className="draft-box" aria-label="The report as it is written">
          <h3>{p.phase === "writing the report" ? "The draft, as it is written" : "The draft, now being checked"}</h3>
          <pre className="draft" tabIndex={0} ref={draft}>
            {p.draftCut ? "…" : ""}
            {p.draft}
          </pre>
        </section>
      ) : null}
      {p.toVerify ? (
        <div className="verifying">
          <label>
            Claims judged {p.verified}/{p.toVerify}
            {p.passes > 1 ? ` (pass ${p.passes})` : ""}{" "}
            <progress max={p.toVerify} value={p.verified} />
          </label>
          <p className="tally">
            {VERDICTS.map((v) => (
              <span key={v} className={`v-${v}`}>
                {p.tally[v]} {v.toLowerCase()}{" "}
              </span>
            ))}
          </p>
          <ul className="claims-live" aria-label="Claims as they are judged">
            {p.claims.map((c) => (
              <li key={c.id} className={`v-${c.verdict}`} data-verdict={c.verdict}>
                <span className="badge">{c.verdict.toLowerCase()}</span> {c.text}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {p.revised ? <p>{p.revised}</p> : null}
      {p.confidence ? <p className="final">Finished: {p.confidence}</p> : null}
      {p.problems.map((problem, i) => (
        <p key={i} className="problem">
          ! {problem}
        </p>
      ))}
    </>
  );
  return (
    <section className={finished ? "live finished" : "live"} aria-label="Research progress" data-events={p.events}>
      {finished ? (
        <details>
          <summary>{summaryOf(p)}</summary>
          {body}
        </details>
      ) : (
        body
      )}
    </section>
  );
}
