// The question, with the run's choices offered by the server (GET /options) and the user's
// preferences as defaults.

import { useId, useState } from "react";
import type { Options, Preferences, RunContext } from "./types";

export function AskForm({
  options,
  preferences,
  followUp,
  onAsk,
}: {
  options: Options;
  preferences: Preferences;
  followUp: boolean;
  onAsk: (question: string, run: RunContext) => void;
}) {
  const [question, setQuestion] = useState("");
  const [run, setRun] = useState<RunContext>({
    mode: preferences.mode ?? "deep_research",
    depth: preferences.depth ?? "auto",
    sources: "auto",
    model: options.default_model,
    allow_clarification: true,
    review_plan: false,
  });
  const id = useId();
  const set = <K extends keyof RunContext>(key: K, value: RunContext[K]) =>
    setRun((r) => ({ ...r, [key]: value }));
  const select = (key: "mode" | "depth" | "sources" | "model", label: string, choices: string[]) => (
    <label className="choice">
      {label}
      <select value={run[key]} onChange={(e) => set(key, e.target.value)}>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      className="ask"
      aria-label={followUp ? "Ask a follow-up question" : "Ask a question"}
      onSubmit={(event) => {
        event.preventDefault();
        if (question.trim()) {
          onAsk(question.trim(), run);
          setQuestion("");
        }
      }}
    >
      <label htmlFor={id}>{followUp ? "Follow-up question" : "Your question"}</label>
      <textarea
        id={id}
        rows={3}
        maxLength={4000}
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
        }}
      />
      <fieldset className="choices">
        <legend>How to research</legend>
        {select("mode", "Mode", options.modes)}
        {select("depth", "Depth", options.depths)}
        {select("sources", "Sources", options.sources)}
        {select("model", "Model", options.models)}
        <label className="check">
          <input
            type="checkbox"
            checked={run.allow_clarification}
            onChange={(e) => set("allow_clarification", e.target.checked)}
          />
          Ask me a clarifying question if needed
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={run.review_plan}
            onChange={(e) => set("review_plan", e.target.checked)}
          />
          Let me review the plan first
        </label>
      </fieldset>
      <button type="submit" disabled={!question.trim()}>
        {followUp ? "Ask" : "Research"}
      </button>
    </form>
  );
}
