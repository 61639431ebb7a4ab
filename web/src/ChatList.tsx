// The user's chats, newest first: open, rename, delete (undo while restorable), and the
// deleted ones, each purged for good after an explicit confirmation. A narrow window (a phone)
// folds the list behind a "Chats" button, so that the open chat or the question comes first.

import { useEffect, useRef, useState } from "react";
import type { ChatSummary } from "./types";

export function ChatList({
  chats,
  deleted,
  current,
  onOpen,
  onRename,
  onDelete,
  onRestore,
  onPurge,
}: {
  chats: ChatSummary[];
  deleted: ChatSummary[];
  current: string | null;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  onRestore: (id: string) => void;
  onPurge: (id: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const [confirming, setConfirming] = useState<string | null>(null);
  // folded or not, a wide window shows the list (styles.css); a narrow one folds it again
  // when another chat (or a new one) opens, to show that chat rather than the list
  const [unfolded, setUnfolded] = useState(false);
  useEffect(() => setUnfolded(false), [current]);
  // a keyboard user's focus goes back to the Rename button once the title field closes
  const renamed = useRef<string | null>(null);
  useEffect(() => {
    if (editing !== null || !renamed.current) return;
    const row = document.querySelector(`nav.chat-list li[data-thread="${CSS.escape(renamed.current)}"]`);
    row?.querySelector<HTMLButtonElement>("button.rename")?.focus();
    renamed.current = null;
  }, [editing]);
  const closeEditing = (id: string) => {
    renamed.current = id;
    setEditing(null);
  };
  return (
    <nav className={unfolded ? "chat-list unfolded" : "chat-list"} aria-label="Chats">
      <h2>Chats</h2>
      <button type="button" className="fold" aria-expanded={unfolded} onClick={() => setUnfolded(!unfolded)}>
        Chats ({chats.length})
      </button>
      {chats.length === 0 ? <p className="muted">No chats yet.</p> : null}
      <ul>
        {chats.map((chat) => (
          <li key={chat.thread_id} className={chat.thread_id === current ? "current" : ""} data-thread={chat.thread_id}>
            {editing === chat.thread_id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  if (title.trim()) onRename(chat.thread_id, title.trim());
                  closeEditing(chat.thread_id);
                }}
              >
                <label className="sr-only" htmlFor={`rename-${chat.thread_id}`}>
                  New title
                </label>
                <input
                  id={`rename-${chat.thread_id}`}
                  value={title}
                  maxLength={200}
                  autoFocus
                  onChange={(e) => setTitle(e.target.value)}
                  onKeyDown={(e) => e.key === "Escape" && closeEditing(chat.thread_id)}
                />
                <button type="submit">Save</button>
              </form>
            ) : (
              <>
                <button
                  type="button"
                  className="open"
                  aria-current={chat.thread_id === current ? "page" : undefined}
                  onClick={() => onOpen(chat.thread_id)}
                >
                  {chat.title || "Untitled chat"}
                  <time className="when" dateTime={chat.updated_at}>
                    {new Date(chat.updated_at).toLocaleString()}
                  </time>
                </button>
                <span className="row-actions">
                  <button
                    type="button"
                    className="rename"
                    aria-label={`Rename ${chat.title || "chat"}`}
                    onClick={() => {
                      setEditing(chat.thread_id);
                      setTitle(chat.title);
                    }}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    aria-label={`Delete ${chat.title || "chat"}`}
                    onClick={() => onDelete(chat.thread_id)}
                  >
                    Delete
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {deleted.length ? (
        <details className="deleted">
          <summary>Deleted ({deleted.length})</summary>
          <ul>
            {deleted.map((chat) => (
              <li key={chat.thread_id} data-thread={chat.thread_id}>
                <span className="title">{chat.title || "Untitled chat"}</span>
                <span className="row-actions">
                  <button type="button" aria-label={`Restore ${chat.title || "chat"}`} onClick={() => onRestore(chat.thread_id)}>
                    Restore
                  </button>
                  {confirming === chat.thread_id ? (
                    <span role="alertdialog" aria-label="Confirm erasing" className="confirm">
                      Erase for good? This cannot be undone.
                      <button type="button" className="danger" onClick={() => { setConfirming(null); onPurge(chat.thread_id); }}>
                        Erase
                      </button>
                      {/* the focus moves here (the safe choice) from the Erase… button it replaces */}
                      <button type="button" autoFocus onClick={() => setConfirming(null)}>
                        Keep
                      </button>
                    </span>
                  ) : (
                    <button type="button" aria-label={`Erase ${chat.title || "chat"} for good`} onClick={() => setConfirming(chat.thread_id)}>
                      Erase…
                    </button>
                  )}
                </span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </nav>
  );
}
