// The live view's bench (bench/sections/webapp.py opens /app/bench.html): the events of a
// 16-step run, fed to the page's own reducer and view one at a time, each drawn before the
// next (flushSync), so the rate is what the view renders, not what React batches away.
// It calls no API; the result is written to <output id="result"> as JSON.

import { useReducer } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { LiveView } from "./LiveView";
import { apply, emptyProgress } from "./progress";
import type { TraceEvent } from "./types";
import "./styles.css";

const VERDICTS = ["SUPPORTED", "PARTIAL", "UNSUPPORTED", "CONTRADICTED"];

/** The events of a run with `steps` steps, each with searches and sources, then the claims. */
function run(steps: number, claims: number): TraceEvent[] {
  const events: TraceEvent[] = [
    { type: "research_started", data: { question: "A question", depth: "extended" } },
    {
      type: "plan_created",
      data: {
        brief: "What the report must answer",
        depth: "extended",
        steps: Array.from({ length: steps }, (_, i) => ({ id: `s${i + 1}`, title: `Step ${i + 1}` })),
      },
    },
  ];
  for (let i = 1; i <= steps; i += 1) {
    const step_id = `s${i}`;
    events.push({ type: "step_started", data: { step_id, title: `Step ${i}` } });
    for (let q = 0; q < 4; q += 1) events.push({ type: "query_issued", data: { step_id, query: `query ${q} of step ${i}` } });
    for (let s = 0; s < 10; s += 1) {
      events.push({
        type: "source_found",
        data: { step_id, url: `https://example.org/${i}/${s}`, title: `Source ${s} of step ${i}`, evidence: s % 4 },
      });
    }
    events.push({ type: "step_completed", data: { step_id, sufficient: i % 5 !== 0 } });
  }
  events.push({ type: "reflection_decision", data: { decision: "complete", reasoning: "enough" } });
  const piece = "A sentence of the draft, as the writer streams it [E1]. ".repeat(9);
  for (let c = 1; c <= 20; c += 1) {
    events.push({ type: "synthesis_progress", data: { characters: c * piece.length, text: piece } });
  }
  events.push({ type: "synthesis_progress", data: { characters: 21 * piece.length, text: piece, done: true } });
  for (let c = 0; c < claims; c += 1) {
    events.push({
      type: "claim_verified",
      data: { claim_id: `c${c}`, text: `Claim number ${c} of the report`, verdict: VERDICTS[c % 4], total: claims, passes: 1 },
    });
  }
  events.push({ type: "verification_summary", data: { supported: claims / 2, partial: claims / 4, unsupported: claims / 8, contradicted: claims / 8, passes: 1, final: true } });
  events.push({ type: "research_completed", data: { references: 40, claims, supported_ratio: 0.5 } });
  return events;
}

let feed: ((event: TraceEvent) => void) | null = null;

function Harness() {
  const [progress, dispatch] = useReducer(apply, undefined, emptyProgress);
  feed = dispatch;
  return <LiveView progress={progress} finished={false} />;
}

const root = createRoot(document.getElementById("root")!);
flushSync(() => root.render(<Harness />));
const events = run(16, 400);
const started = performance.now();
let longest = 0;
for (const event of events) {
  const before = performance.now();
  flushSync(() => feed!(event));
  longest = Math.max(longest, performance.now() - before);
}
const seconds = (performance.now() - started) / 1000;
const output = document.createElement("output");
output.id = "result";
output.textContent = JSON.stringify({
  events: events.length,
  seconds,
  events_per_second: events.length / seconds,
  longest_event_ms: longest,
  dom_nodes: document.querySelectorAll(".live *").length,
});
document.body.append(output);
