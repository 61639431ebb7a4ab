// The run's questions to the person: a clarifying question answered in place, and the plan
// to approve or edit (steps reworded, added, removed) before research starts.

import { useId, useState } from "react";
import type { ClarificationInterrupt, PlanReviewInterrupt } from "./types";

export function Clarification({
  request,
  answer,
}: {
  request: ClarificationInterrupt;
  answer: (text: string) => void;
}) {
  const [text, setText] = useState("");
  const id = useId();
  return (
    <form
      className="interrupt"
      aria-label="Clarifying question"
      onSubmit={(event) => {
        event.preventDefault();
        answer(text.trim());
      }}
    >
      <h3>A question before researching</h3>
      <p className="asked">{request.question}</p>
      {request.error ? <p className="problem">{request.error}</p> : null}
      <label htmlFor={id}>Your answer</label>
      <textarea id={id} rows={2} maxLength={4000} value={text} onChange={(e) => setText(e.target.value)} />
      <div className="actions">
        <button type="submit" disabled={!text.trim()}>
          Answer
        </button>
        <button type="button" onClick={() => answer("")}>
          Skip: research as asked
        </button>
      </div>
    </form>
  );
}

interface Draft {
  key: string;
  id: string | null;
  title: string;
}

let drafts = 0;

export function PlanReview({
  request,
  respond,
}: {
  request: PlanReviewInterrupt;
  respond: (value: unknown) => void;
}) {
  const [steps, setSteps] = useState<Draft[]>(() =>
    request.steps.map((s) => ({ key: s.id, id: s.id, title: s.title })),
  );
  const edited =
    steps.length !== request.steps.length ||
    steps.some((s, i) => s.id !== request.steps[i]?.id || s.title !== request.steps[i]?.title);
  const update = (key: string, title: string) =>
    setSteps((all) => all.map((s) => (s.key === key ? { ...s, title } : s)));
  const send = () =>
    respond(
      edited
        ? { steps: steps.filter((s) => s.title.trim()).map((s) => (s.id ? { id: s.id, title: s.title.trim() } : s.title.trim())) }
        : { approve: true },
    );
  return (
    <form
      className="interrupt"
      aria-label="Plan review"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <h3>Review the plan</h3>
      <p className="brief">{request.brief}</p>
      {request.error ? <p className="problem">{request.error}</p> : null}
      <ol className="plan-edit">
        {steps.map((s, i) => (
          <li key={s.key}>
            <label className="sr-only" htmlFor={`step-${s.key}`}>
              Step {i + 1}
            </label>
            <input
              id={`step-${s.key}`}
              value={s.title}
              maxLength={300}
              onChange={(e) => update(s.key, e.target.value)}
            />
            <button
              type="button"
              aria-label={`Remove step ${i + 1}`}
              onClick={() => setSteps((all) => all.filter((x) => x.key !== s.key))}
              disabled={steps.length <= 1}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <div className="actions">
        <button
          type="button"
          disabled={steps.length >= request.max_steps}
          onClick={() => {
            drafts += 1;
            setSteps((all) => [...all, { key: `new-${drafts}`, id: null, title: "" }]);
          }}
        >
          Add a step
        </button>
        <button type="submit">{edited ? "Research the edited plan" : "Approve the plan"}</button>
      </div>
    </form>
  );
}
