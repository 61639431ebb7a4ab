// Thumbs up or down on an answer, with an optional comment, through PUT
// /messages/{id}/feedback; read back when the chat is opened again.

import { useEffect, useId, useState } from "react";
import { Api, HttpError } from "./api";
import type { Feedback as Stored } from "./types";

export function Feedback({ api, messageId }: { api: Api; messageId: number }) {
  const [rating, setRating] = useState<number>(0);
  const [comment, setComment] = useState("");
  const [status, setStatus] = useState("");
  const commentId = useId();

  useEffect(() => {
    let live = true;
    api
      .json<Stored>(`/messages/${messageId}/feedback`)
      .then((found) => {
        if (!live) return;
        setRating(found.rating);
        setComment(found.text ?? "");
        setStatus("Your feedback is saved.");
      })
      .catch((error: unknown) => {
        if (live && !(error instanceof HttpError && error.status === 404)) {
          setStatus(`Feedback could not be read: ${(error as Error).message}`);
        }
      });
    return () => {
      live = false;
    };
  }, [api, messageId]);

  const save = async (value: number) => {
    setRating(value);
    try {
      await api.send("PUT", `/messages/${messageId}/feedback`, {
        rating: value,
        text: comment.trim() || null,
      });
      setStatus("Your feedback is saved.");
    } catch (error) {
      setStatus(`Feedback was not saved: ${(error as Error).message}`);
    }
  };

  return (
    <section className="feedback" aria-label="Feedback on this answer">
      <div role="group" aria-label="Rate this answer">
        <button type="button" aria-pressed={rating === 1} onClick={() => void save(1)}>
          <span aria-hidden="true">👍</span> Helpful
        </button>
        <button type="button" aria-pressed={rating === -1} onClick={() => void save(-1)}>
          <span aria-hidden="true">👎</span> Not helpful
        </button>
      </div>
      <label htmlFor={commentId}>Comment (optional)</label>
      <textarea
        id={commentId}
        rows={2}
        maxLength={4000}
        value={comment}
        onChange={(event) => setComment(event.target.value)}
      />
      <button type="button" disabled={!rating} onClick={() => void save(rating)}>
        Save comment
      </button>
      <p className="status" role="status">
        {status}
      </p>
    </section>
  );
}
