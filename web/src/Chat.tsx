// One chat: its messages and research sessions, the question form, the live run (streamed
// with the SDK's useStream, re-joined after a reload), its interrupts and its reports.

import { useStream } from "@langchain/langgraph-sdk/react";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { Api, HttpError } from "./api";
import { AskForm } from "./AskForm";
import { Clarification, PlanReview } from "./Interrupt";
import { LiveView } from "./LiveView";
import { apply, emptyProgress, type Progress } from "./progress";
import { ReportView } from "./ReportView";
import type {
  ChatDetail,
  Interrupt,
  Options,
  Preferences,
  RunContext,
  TraceEvent,
} from "./types";

const GRAPH = "deep_research";

type Action = { kind: "event"; event: TraceEvent } | { kind: "reset" };

function reduce(state: Progress, action: Action): Progress {
  return action.kind === "reset" ? emptyProgress() : apply(state, action.event);
}

/** One line saying why a run failed, and what to do. */
export function describeFailure(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error ?? "");
  let text = raw;
  try {
    const body = JSON.parse(raw) as { message?: string; detail?: string };
    text = body.message ?? body.detail ?? raw;
  } catch {
    // not JSON
  }
  // a task's error as the server keeps it, ErrorName('reason') or ErrorName: reason → reason
  const named = /^\s*[A-Z]\w*(?:Error|Exception)(?:\((['"])([\s\S]*)\1\)|: ([\s\S]*))\s*$/.exec(text);
  if (named) text = named[2] ?? named[3] ?? text;
  const line = (text.trim().split("\n")[0] || "unknown error").slice(0, 300);
  return `The run failed: ${line}. Check the model and sources, then ask again.`;
}

function contextKey(thread: string): string {
  return `dr:context:${thread}`;
}

function toContext(run: RunContext): Record<string, unknown> {
  return { ...run };
}

export function Chat({
  api,
  threadId,
  options,
  preferences,
  onThread,
  onChanged,
  onGone,
}: {
  api: Api;
  threadId: string | null;
  options: Options;
  preferences: Preferences;
  onThread: (id: string) => void;
  onChanged: () => void;
  onGone: (id: string) => void;
}) {
  const [progress, dispatch] = useReducer(reduce, undefined, emptyProgress);
  const [detail, setDetail] = useState<ChatDetail | null>(null);
  const [notice, setNotice] = useState("");
  const [failure, setFailure] = useState("");
  const [watching, setWatching] = useState(false);
  const created = useRef<string | null>(null);
  const lastContext = useRef<RunContext | null>(null);

  const shown = useRef<string | null>(threadId);
  shown.current = threadId ?? created.current;
  // reads the chat shown now, whichever render's callback calls it (the stream keeps its own)
  const refresh = useCallback(async () => {
    const id = shown.current;
    if (!id) return;
    try {
      const found = await api.json<ChatDetail>(`/chats/${id}`);
      if (shown.current === id) setDetail(found);
    } catch (error) {
      if (error instanceof HttpError && error.status === 404 && created.current !== id) {
        onGone(id);
      }
    }
  }, [api, onGone]);

  const stream = useStream({
    assistantId: GRAPH,
    client: api.client,
    threadId,
    fetchStateHistory: false,
    reconnectOnMount: true,
    onThreadId: (id: string) => {
      created.current = id;
      onThread(id);
    },
    onCustomEvent: (data: unknown) => {
      dispatch({ kind: "event", event: data as TraceEvent });
    },
    onFinish: (state: unknown) => {
      void state; // named, so the hook reads the thread's state (its interrupt) once done
      setWatching(false);
      void refresh();
      onChanged();
    },
    onError: (error: unknown) => {
      setWatching(false);
      setFailure(describeFailure(error));
      void refresh();
    },
  });

  // a thread opened from the list (not the one this view just created) starts afresh
  useEffect(() => {
    if (threadId && threadId === created.current) return;
    // useStream drops the stream of the chat left (calling neither onFinish nor onError): its
    // run goes on in the server, and this view no longer watches it; opening that chat again
    // joins it like any other
    created.current = null;
    setWatching(false);
    dispatch({ kind: "reset" });
    setDetail(null);
    setNotice("");
    setFailure("");
    const saved = threadId ? sessionStorage.getItem(contextKey(threadId)) : null;
    lastContext.current = saved ? (JSON.parse(saved) as RunContext) : null;
    void refresh();
  }, [threadId, refresh]);

  // a new chat's row is written as its run starts: read it once the plan is there
  useEffect(() => {
    if (progress.order.length && !detail) void refresh();
  }, [progress.order.length, detail, refresh]);

  // the last run of a chat opened here: re-join it while it runs, say how it ended
  useEffect(() => {
    if (!threadId || threadId === created.current) return;
    let live = true;
    api.client.runs
      .list(threadId, { limit: 1 })
      .then((runs) => {
        const run = runs[0];
        if (!live || !run) return;
        if (run.status === "running" || run.status === "pending") {
          if (!sessionStorage.getItem(`lg:stream:${threadId}`)) {
            setWatching(true);
            void stream.joinStream(run.run_id, "-1", { streamMode: ["custom"] });
          }
        } else if (run.status === "interrupted") {
          setNotice("cancelled");
        } else if (run.status === "error" || run.status === "timeout") {
          setNotice("failed");
          // why: the error the failed task left in the thread's state
          return api.client.threads.getState(threadId).then((state) => {
            const error = state.tasks.map((task) => task.error).find(Boolean);
            if (live && error) setFailure(describeFailure(error));
          });
        }
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, threadId]);

  const start = (question: string, run: RunContext) => {
    dispatch({ kind: "reset" });
    setFailure("");
    setNotice("");
    setWatching(true);
    lastContext.current = run;
    void stream
      .submit(
        { messages: [{ type: "human", content: question }] },
        {
          context: toContext(run),
          streamMode: ["custom"],
          streamSubgraphs: true,
          onDisconnect: "continue",
          streamResumable: true,
          onError: (error: unknown) => setFailure(describeFailure(error)),
        },
      )
      .then(() => {
        const id = created.current ?? threadId;
        if (id) sessionStorage.setItem(contextKey(id), JSON.stringify(run));
      });
  };

  const resume = (value: unknown) => {
    setFailure("");
    setWatching(true);
    const run = lastContext.current;
    void stream.submit(null, {
      command: { resume: value },
      context: run ? toContext(run) : undefined,
      streamMode: ["custom"],
      streamSubgraphs: true,
      onDisconnect: "continue",
      streamResumable: true,
    });
  };

  const cancel = async () => {
    await stream.stop();
    setWatching(false);
    setNotice("cancelled");
    void refresh();
  };

  const toFollowUp = () => {
    const box = document.querySelector<HTMLTextAreaElement>("form.ask textarea");
    box?.scrollIntoView({ block: "center" });
    box?.focus({ preventScroll: true });
  };

  const running = stream.isLoading || watching;
  const pending = (running ? undefined : stream.interrupt) as { value?: Interrupt } | undefined;
  const request = pending?.value;
  const sessions = detail?.sessions ?? [];
  const lastSession = sessions[sessions.length - 1];
  const failedSession = lastSession?.status === "failed" ? lastSession : null;

  return (
    <div className="chat">
      {detail ? (
        <header className="chat-head">
          <h2 id="chat-title">{detail.title || "Untitled chat"}</h2>
          {sessions.length ? (
            <details className="sessions">
              <summary>{sessions.length} research session{sessions.length === 1 ? "" : "s"}</summary>
              <ul>
                {sessions.map((s) => (
                  <li key={s.id}>
                    #{s.question_nr} {s.question} — {s.status}
                    {s.depth ? `, depth ${s.depth}` : ""}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          {/* the follow-up box is under the report, a long way down on a phone: one tap away */}
          {detail.messages.length && !running && !request ? (
            <button type="button" className="to-follow-up" onClick={toFollowUp}>
              Ask a follow-up ↓
            </button>
          ) : null}
        </header>
      ) : threadId ? (
        <p className="muted">Loading the chat…</p>
      ) : (
        <h2 id="chat-title">New research</h2>
      )}

      <ol className="messages" aria-label="Messages">
        {(detail?.messages ?? []).map((m) => {
          const session = sessions.find((s) => s.id === m.session_id);
          const isReport = m.role === "assistant" && !m.is_clarification && session?.status === "completed";
          return (
            <li key={m.id} className={`message ${m.role}`}>
              <span className="who">{m.role === "user" ? "You" : "Agent"}</span>
              {isReport && session ? (
                <ReportView api={api} sessionId={session.id} messageId={m.id} />
              ) : (
                <p className="content">{m.content}</p>
              )}
            </li>
          );
        })}
      </ol>

      {/* above the live view, which grows as the run goes on: the button does not move */}
      {running ? (
        <button type="button" className="stop" onClick={() => void cancel()}>
          Stop the run
        </button>
      ) : null}
      {running || progress.events ? <LiveView progress={progress} finished={!running && !request} /> : null}

      {failure ? (
        <p className="problem" role="alert">
          {failure}
        </p>
      ) : failedSession && !running ? (
        <p className="problem" role="alert">
          {describeFailure(failedSession.error ?? "unknown error")}
        </p>
      ) : notice === "failed" && !running ? (
        <p className="problem" role="alert">
          The last run failed. Ask again, perhaps with another model or sources.
        </p>
      ) : null}
      {notice === "cancelled" && !running && !request ? (
        <p className="notice" role="status">
          The run was cancelled. Ask again to continue.
        </p>
      ) : null}

      {request?.type === "clarification" ? (
        <Clarification request={request} answer={(text) => resume(text)} />
      ) : request?.type === "plan_review" ? (
        <PlanReview request={request} respond={resume} />
      ) : null}

      {!running && !request ? (
        <AskForm
          options={options}
          preferences={preferences}
          followUp={Boolean(threadId)}
          onAsk={start}
        />
      ) : null}
    </div>
  );
}
