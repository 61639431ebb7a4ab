// The user's preferences: the defaults of their runs (PUT /preferences).

import { useId, useState } from "react";
import type { Options, Preferences } from "./types";

export function PreferencesPage({
  options,
  preferences,
  onSave,
}: {
  options: Options;
  preferences: Preferences;
  onSave: (p: Preferences) => Promise<void>;
}) {
  const [draft, setDraft] = useState<Preferences>(preferences);
  const [status, setStatus] = useState("");
  const ids = { mode: useId(), depth: useId(), text: useId() };
  return (
    <form
      className="preferences"
      aria-labelledby="prefs-title"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(draft)
          .then(() => setStatus("Saved: your next runs use them."))
          .catch((error: Error) => setStatus(`Not saved: ${error.message}`));
      }}
    >
      <h2 id="prefs-title">Preferences</h2>
      <p className="muted">Defaults of your runs; each question can still choose otherwise.</p>
      <label htmlFor={ids.mode}>Mode</label>
      <select id={ids.mode} value={draft.mode ?? ""} onChange={(e) => setDraft({ ...draft, mode: e.target.value || null })}>
        <option value="">(server default)</option>
        {options.modes.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <label htmlFor={ids.depth}>Depth</label>
      <select id={ids.depth} value={draft.depth ?? ""} onChange={(e) => setDraft({ ...draft, depth: e.target.value || null })}>
        <option value="">(server default)</option>
        {options.depths.map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
      <label htmlFor={ids.text}>Standing instructions (language, focus, style)</label>
      <textarea
        id={ids.text}
        rows={4}
        maxLength={4000}
        value={draft.system_instructions ?? ""}
        onChange={(e) => setDraft({ ...draft, system_instructions: e.target.value })}
      />
      <button type="submit">Save preferences</button>
      <p role="status" className="status">
        {status}
      </p>
    </form>
  );
}
