// The live view's state, built from the run's typed progress events as the CLI's live view
// builds its own (src/deep_research/cli/live.py). Every list is bounded, so a 16-step run
// (hundreds of sources, hundreds of claims) keeps a DOM of constant size.

import type { TraceEvent, Verdict } from "./types";

export const VERDICTS: Verdict[] = ["SUPPORTED", "PARTIAL", "UNSUPPORTED", "CONTRADICTED"];

const KEEP_SOURCES = 5; // the last sources shown per step (the count covers them all)
const KEEP_QUERIES = 4;
const KEEP_CLAIMS = 12; // the last claims judged
const KEEP_DECISIONS = 4;
const KEEP_PROBLEMS = 3;
const KEEP_DRAFT_CHARS = 6000; // the draft's end shown while the report is written

export interface SourceSeen {
  url: string;
  title: string;
  quotes: number;
}

export interface StepState {
  id: string;
  title: string;
  state: "waiting" | "researching" | "done" | "thin";
  searches: number;
  queries: string[];
  sources: number;
  evidence: number;
  recent: SourceSeen[];
}

export interface ClaimSeen {
  id: string;
  text: string;
  verdict: string;
}

export interface Progress {
  question: string;
  brief: string;
  depth: string;
  steps: Record<string, StepState>;
  order: string[];
  phase: string;
  clarifying: string;
  decisions: string[];
  written: number;
  draft: string; // the report as it is written (its last KEEP_DRAFT_CHARS), plain text
  draftCut: boolean; // whether the draft's beginning was dropped
  draftDone: boolean; // whether the writer's last piece arrived
  verified: number;
  toVerify: number;
  passes: number;
  tally: Record<Verdict, number>;
  claims: ClaimSeen[];
  revised: string;
  confidence: string;
  done: boolean;
  problems: string[];
  events: number;
}

export function emptyProgress(): Progress {
  return {
    question: "",
    brief: "",
    depth: "",
    steps: {},
    order: [],
    phase: "starting",
    clarifying: "",
    decisions: [],
    written: 0,
    draft: "",
    draftCut: false,
    draftDone: false,
    verified: 0,
    toVerify: 0,
    passes: 0,
    tally: { SUPPORTED: 0, PARTIAL: 0, UNSUPPORTED: 0, CONTRADICTED: 0 },
    claims: [],
    revised: "",
    confidence: "",
    done: false,
    problems: [],
    events: 0,
  };
}

const text = (value: unknown): string => (value == null ? "" : String(value));
const num = (value: unknown): number => (typeof value === "number" ? value : Number(value) || 0);
const last = <T,>(items: T[], item: T, keep: number): T[] => [...items, item].slice(-keep);

function step(p: Progress, data: Record<string, unknown>): [Progress, StepState] {
  const id = text(data.step_id) || "?";
  const found = p.steps[id];
  if (found) return [p, found];
  const fresh: StepState = {
    id,
    title: text(data.title),
    state: "waiting",
    searches: 0,
    queries: [],
    sources: 0,
    evidence: 0,
    recent: [],
  };
  return [{ ...p, order: [...p.order, id], steps: { ...p.steps, [id]: fresh } }, fresh];
}

function put(p: Progress, s: StepState): Progress {
  return { ...p, steps: { ...p.steps, [s.id]: s } };
}

/** The state after one more event (a pure function: React's reducer). */
export function apply(before: Progress, event: TraceEvent): Progress {
  const data = event.data ?? {};
  let p: Progress = { ...before, events: before.events + 1 };
  switch (event.type) {
    case "research_started":
      return { ...p, question: text(data.question), depth: text(data.depth), phase: "starting" };
    case "clarification_requested":
      return { ...p, clarifying: text(data.question), phase: "waiting for your answer" };
    case "plan_created":
    case "plan_reviewed": {
      const steps = (data.steps as { id: unknown; title: unknown }[] | undefined) ?? [];
      const kept: Record<string, StepState> = {};
      const order: string[] = [];
      for (const item of steps) {
        const id = text(item.id);
        order.push(id);
        kept[id] = { ...(p.steps[id] ?? step(p, { step_id: id })[1]), title: text(item.title) };
      }
      const brief = event.type === "plan_created" ? text(data.brief) : p.brief;
      const depth = event.type === "plan_created" ? text(data.depth) : p.depth;
      const phase = event.type === "plan_created" ? "planned" : "researching";
      return { ...p, brief, depth, steps: kept, order, phase };
    }
    case "step_started": {
      let s: StepState;
      [p, s] = step(p, data);
      return { ...put(p, { ...s, state: "researching" }), phase: "researching" };
    }
    case "query_issued": {
      let s: StepState;
      [p, s] = step(p, data);
      return put(p, {
        ...s,
        searches: s.searches + 1,
        queries: last(s.queries, text(data.query), KEEP_QUERIES),
      });
    }
    case "source_found": {
      let s: StepState;
      [p, s] = step(p, data);
      const quotes = num(data.evidence);
      const seen = { url: text(data.url), title: text(data.title), quotes };
      return put(p, {
        ...s,
        sources: s.sources + 1,
        evidence: s.evidence + quotes,
        recent: last(s.recent, seen, KEEP_SOURCES),
      });
    }
    case "step_completed": {
      let s: StepState;
      [p, s] = step(p, data);
      const state = data.sufficient === false ? "thin" : "done";
      const evidence = data.evidence === undefined ? s.evidence : num(data.evidence);
      return put(p, { ...s, state, evidence });
    }
    case "reflection_decision": {
      const added = (data.new_steps as unknown[] | undefined)?.length ?? 0;
      const line =
        `${text(data.decision)}: ${text(data.reasoning)}` +
        (added ? ` (${added} new step${added === 1 ? "" : "s"})` : "");
      return {
        ...p,
        decisions: last(p.decisions, line, KEEP_DECISIONS),
        phase: `reflecting: ${text(data.decision)}`,
      };
    }
    case "synthesis_progress": {
      // Each event carries the text written since the one before and the count written so
      // far. A stream joined again (a reload, a retried connection) sends events already seen:
      // their text is here already, and only what lies beyond the count shown is added.
      const done = data.done === true;
      const at = num(data.characters);
      const piece = text(data.text);
      const fresh = done
        ? p.draftDone
          ? ""
          : piece
        : piece.slice(Math.max(0, piece.length - Math.max(0, at - p.written)));
      const whole = p.draft + fresh;
      const draft = whole.slice(-KEEP_DRAFT_CHARS);
      const draftCut = p.draftCut || draft.length < whole.length;
      const phase = done || p.draftDone ? "verifying claims" : "writing the report";
      const written = done ? at : Math.max(p.written, at);
      return { ...p, written, draft, draftCut, draftDone: p.draftDone || done, phase };
    }
    case "claim_verified": {
      const passes = num(data.passes);
      if (passes !== p.passes) {
        p = { ...p, passes, verified: 0, tally: { ...emptyProgress().tally }, claims: [] };
      }
      const verdict = text(data.verdict);
      const tally = { ...p.tally };
      if (verdict in tally) tally[verdict as Verdict] += 1;
      const verified = p.verified + 1;
      const claim = { id: text(data.claim_id), text: text(data.text), verdict };
      return {
        ...p,
        verified,
        toVerify: Math.max(num(data.total), verified),
        tally,
        claims: last(p.claims, claim, KEEP_CLAIMS),
        // claims are judged while the report is still being written: it is still writing
        phase: p.phase === "writing the report" ? p.phase : "verifying claims",
      };
    }
    case "verification_summary": {
      const tally = {
        SUPPORTED: num(data.supported),
        PARTIAL: num(data.partial),
        UNSUPPORTED: num(data.unsupported),
        CONTRADICTED: num(data.contradicted),
      };
      const total = VERDICTS.reduce((sum, v) => sum + tally[v], 0);
      const changed = num(data.removed) + num(data.corrected) + num(data.recited);
      const revised = changed
        ? `revision: ${num(data.corrected)} corrected, ${num(data.removed)} removed, ${num(data.recited)} re-cited`
        : p.revised;
      return {
        ...p,
        passes: num(data.passes) || p.passes,
        tally,
        verified: total,
        toVerify: total,
        revised,
        phase: data.final ? "finishing the report" : "revising claims",
      };
    }
    case "research_completed": {
      const ratio = data.supported_ratio;
      const references = `${num(data.references)} reference${num(data.references) === 1 ? "" : "s"}`;
      const confidence =
        typeof ratio === "number"
          ? `${num(data.claims)} claims, ${Math.round(ratio * 100)}% supported, ${references}`
          : references;
      return { ...p, confidence, done: true, phase: "done" };
    }
    case "error":
      return { ...p, problems: last(p.problems, text(data.error), KEEP_PROBLEMS) };
    default:
      return p;
  }
}
