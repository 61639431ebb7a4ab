// Sign in with a bearer token or a JWT; it is kept for this tab only (sessionStorage).

import { useId, useState } from "react";

export function SignIn({
  reason,
  onToken,
}: {
  reason: string;
  onToken: (token: string) => Promise<string | null>;
}) {
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState("");
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <main className="signin">
      <form
        aria-labelledby="signin-title"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          onToken(token.trim())
            .then((refused) => setProblem(refused ?? ""))
            .finally(() => setBusy(false));
        }}
      >
        <h1 id="signin-title">Deep Research</h1>
        {reason ? (
          <p className="notice" role="status">
            {reason}
          </p>
        ) : null}
        <label htmlFor={id}>Access token (a bearer token or a JWT from the server's operator)</label>
        <input
          id={id}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <p className="muted">It is kept in this tab only and forgotten when the tab closes.</p>
        <button type="submit" disabled={!token.trim() || busy}>
          Sign in
        </button>
        {problem ? (
          <p className="problem" role="alert">
            {problem}
          </p>
        ) : null}
      </form>
    </main>
  );
}
