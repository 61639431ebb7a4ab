// The shapes of the server's answers the page reads (see src/deep_research/server/schemas.py
// and the report JSON, schema v1, camelCase).

export interface AppConfig {
  auth: boolean;
}

export interface Options {
  user: string;
  models: string[];
  default_model: string;
  sources: string[];
  modes: string[];
  depths: string[];
  store: boolean;
}

export interface Preferences {
  mode?: string | null;
  depth?: string | null;
  system_instructions?: string;
}

export interface ChatSummary {
  thread_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface Message {
  id: number;
  position: number;
  role: string;
  content: string;
  query_mode: string | null;
  is_clarification: boolean;
  session_id: number | null;
  created_at: string;
}

export interface Session {
  id: number;
  question_nr: number;
  question: string;
  status: string;
  query_mode: string | null;
  depth: string | null;
  error: string | null;
  started_at: string;
  completed_at: string | null;
}

export interface ChatDetail extends ChatSummary {
  messages: Message[];
  sessions: Session[];
}

export interface Feedback {
  message_id: number;
  rating: number;
  text: string | null;
}

export type Verdict = "SUPPORTED" | "PARTIAL" | "UNSUPPORTED" | "CONTRADICTED";

export interface Claim {
  id: string;
  text: string;
  positionStart: number;
  positionEnd: number;
  verdict: Verdict | null;
  confidence: number | null;
  reasoning: string;
  evidenceId: string | null;
  citationKeys: string[];
}

export interface Citation {
  claimId: string;
  evidenceId: string;
  isPrimary: boolean;
  referenceNumber: number | null;
  quote: string | null;
}

export interface Reference {
  number: number;
  url: string;
  title: string;
  location: string;
  citation: string | null;
}

export interface Limitation {
  kind: string;
  text: string;
}

export interface Report {
  question: string;
  markdown: string;
  claims: Claim[];
  citations: Citation[];
  references: Reference[];
  verification: {
    supported: number;
    partial: number;
    unsupported: number;
    contradicted: number;
    passes: number;
    total: number;
  };
  limitations: Limitation[];
  confidence: { level: string; basis: string } | null;
  extractive: boolean;
}

/** A progress event of the run's custom stream (src/deep_research/events.py). */
export interface TraceEvent {
  type: string;
  at?: string;
  data: Record<string, unknown>;
  session_id?: number | null;
  message_id?: number | null;
}

export interface ClarificationInterrupt {
  type: "clarification";
  question: string;
  error?: string | null;
}

export interface PlanStep {
  id: string;
  title: string;
  intent?: string;
}

export interface PlanReviewInterrupt {
  type: "plan_review";
  brief: string;
  steps: PlanStep[];
  max_steps: number;
  error?: string | null;
}

export type Interrupt = ClarificationInterrupt | PlanReviewInterrupt;

export interface RunContext {
  mode: string;
  depth: string;
  sources: string;
  model: string;
  allow_clarification: boolean;
  review_plan: boolean;
}
