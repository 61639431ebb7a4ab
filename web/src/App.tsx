// The page: sign-in, the chat list, the open chat or a new one, preferences; the banners of
// an open server, a server gone away, and a chat deleted elsewhere.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Api, HttpError } from "./api";
import { Chat } from "./Chat";
import { ChatList } from "./ChatList";
import { PreferencesPage } from "./PreferencesPage";
import { SignIn } from "./SignIn";
import type { AppConfig, ChatSummary, Options, Preferences } from "./types";

const TOKEN_KEY = "dr:token"; // sessionStorage: this tab only
const POLL_MS = 15_000;
const RETRY_MS = 2_000;

type Route = { page: "chat"; thread: string | null } | { page: "prefs" };

function readRoute(): Route {
  const hash = window.location.hash;
  if (hash === "#/preferences") return { page: "prefs" };
  const match = /^#\/chat\/([A-Za-z0-9_-]{1,128})$/.exec(hash);
  return { page: "chat", thread: match ? match[1] : null };
}

function go(hash: string) {
  if (window.location.hash !== hash) window.location.hash = hash;
}

export function App() {
  const [config, setConfig] = useState<AppConfig | null>(null);
  const [token, setToken] = useState<string | null>(() => sessionStorage.getItem(TOKEN_KEY));
  const [signInReason, setSignInReason] = useState("");
  const [offline, setOffline] = useState(false);
  const [options, setOptions] = useState<Options | null>(null);
  const [preferences, setPreferences] = useState<Preferences | null>(null);
  const [chats, setChats] = useState<ChatSummary[]>([]);
  const [deleted, setDeleted] = useState<ChatSummary[]>([]);
  const [route, setRoute] = useState<Route>(readRoute);
  const [menu, setMenu] = useState(false);
  const [toast, setToast] = useState<{ text: string; undo?: string } | null>(null);
  const channel = useRef<BroadcastChannel | null>(null);

  useEffect(() => {
    const onHash = () => {
      setRoute(readRoute());
      setMenu(false); // a page chosen from the menu closes it
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const loadConfig = useCallback(async () => {
    try {
      const response = await fetch("/app/config.json", { cache: "no-store", credentials: "omit" });
      setConfig((await response.json()) as AppConfig);
      setOffline(false);
      return true;
    } catch {
      setOffline(true);
      return false;
    }
  }, []);

  useEffect(() => {
    void loadConfig();
  }, [loadConfig]);

  const signOut = useCallback((reason: string) => {
    sessionStorage.removeItem(TOKEN_KEY);
    setToken(null);
    setOptions(null);
    setSignInReason(reason);
  }, []);

  const api = useMemo(
    () =>
      new Api(token, {
        unauthorized: () => signOut("Your token was refused or has expired: sign in again."),
        reachable: (ok) => setOffline(!ok),
      }),
    [token, signOut],
  );
  const signedIn = config !== null && (!config.auth || token !== null);

  const loadChats = useCallback(async () => {
    try {
      const all = await api.json<ChatSummary[]>("/chats?include_deleted=true");
      setChats(all.filter((c) => !c.deleted_at));
      setDeleted(all.filter((c) => c.deleted_at));
    } catch {
      // the banner or the sign-in says why
    }
  }, [api]);

  useEffect(() => {
    if (!signedIn) return;
    api.json<Options>("/options").then(setOptions).catch(() => undefined);
    api
      .json<Preferences>("/preferences")
      .then(setPreferences)
      .catch(() => setPreferences({})); // no store: the server's defaults
    void loadChats();
  }, [api, signedIn, loadChats]);

  // other tabs of this browser say when they delete a chat; the list is also read again now
  // and then, and when the tab comes back into view
  useEffect(() => {
    if (!signedIn) return;
    const bc = new BroadcastChannel("deep-research");
    channel.current = bc;
    bc.onmessage = () => void loadChats();
    const timer = window.setInterval(() => {
      if (document.visibilityState === "visible") void loadChats();
    }, POLL_MS);
    const onFocus = () => void loadChats();
    window.addEventListener("focus", onFocus);
    return () => {
      bc.close();
      window.clearInterval(timer);
      window.removeEventListener("focus", onFocus);
    };
  }, [signedIn, loadChats]);

  // while the server is away, ask again every few seconds
  useEffect(() => {
    if (!offline) return;
    const timer = window.setInterval(() => {
      void loadConfig().then((back) => {
        if (back && signedIn) void loadChats();
      });
    }, RETRY_MS);
    return () => window.clearInterval(timer);
  }, [offline, loadConfig, loadChats, signedIn]);

  // the open chat was deleted (here, in another tab, or by another client): close it
  const current = route.page === "chat" ? route.thread : null;
  const gone = useCallback((id: string) => {
    if (readRoute().page === "chat" && (readRoute() as { thread: string | null }).thread === id) {
      go("#/");
      setToast({ text: "That chat was deleted, or is not yours." });
    }
  }, []);
  useEffect(() => {
    if (current && deleted.some((c) => c.thread_id === current)) gone(current);
  }, [current, deleted, gone]);

  const announce = () => channel.current?.postMessage({ changed: true });
  const act = async (work: () => Promise<unknown>, done?: string, undo?: string) => {
    try {
      await work();
      if (done) setToast({ text: done, undo });
    } catch (error) {
      setToast({ text: `That did not work: ${(error as Error).message}` });
    }
    await loadChats();
    announce();
  };

  const submitToken = async (candidate: string): Promise<string | null> => {
    const trial = new Api(candidate, { unauthorized: () => undefined, reachable: (ok) => setOffline(!ok) });
    try {
      await trial.json<Options>("/options");
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) return "That token was refused.";
      return `The server could not be reached: ${(error as Error).message}`;
    }
    sessionStorage.setItem(TOKEN_KEY, candidate);
    setSignInReason("");
    setToken(candidate);
    return null;
  };

  const banner = offline ? (
    <div className="banner offline" role="alert">
      The server cannot be reached. Retrying… (a run in progress goes on without this page)
    </div>
  ) : null;

  if (config === null) {
    return (
      <>
        {banner}
        <main className="loading">
          <p>Connecting to the server…</p>
        </main>
      </>
    );
  }
  if (!signedIn) {
    return (
      <>
        {banner}
        <SignIn reason={signInReason} onToken={submitToken} />
      </>
    );
  }

  return (
    <div className="app">
      {banner}
      {!config.auth ? (
        <div className="banner open" role="note">
          Sign-in is off on this server: everyone who can reach it acts as the same user.
        </div>
      ) : null}
      <header className="top">
        <h1>Deep Research</h1>
        <nav aria-label="Pages">
          <a href="#/" aria-current={route.page === "chat" && !current ? "page" : undefined}>
            New research
          </a>
          {/* a narrow window folds the rest behind this button (styles.css), so the header
              is one line; a wide one never shows it */}
          <button
            type="button"
            className="menu"
            aria-expanded={menu}
            aria-controls="account"
            onClick={() => setMenu(!menu)}
          >
            Menu
          </button>
          <div id="account" className={menu ? "account unfolded" : "account"}>
            <a href="#/preferences" aria-current={route.page === "prefs" ? "page" : undefined}>
              Preferences
            </a>
            {options ? <span className="who">Signed in as {options.user}</span> : null}
            {config.auth ? (
              <button type="button" onClick={() => signOut("You signed out.")}>
                Sign out
              </button>
            ) : null}
          </div>
        </nav>
      </header>
      <div className="layout">
        <ChatList
          chats={chats}
          deleted={deleted}
          current={current}
          onOpen={(id) => go(`#/chat/${id}`)}
          onRename={(id, title) => void act(() => api.send("PATCH", `/chats/${id}`, { title }))}
          onDelete={(id) => {
            if (id === current) go("#/"); // this tab closes it; other tabs are told
            void act(() => api.call("DELETE", `/chats/${id}`), "Chat deleted.", id);
          }}
          onRestore={(id) => void act(() => api.send("POST", `/chats/${id}/restore`), "Chat restored.")}
          onPurge={(id) => void act(() => api.send("POST", `/chats/${id}/purge`), "Chat erased for good.")}
        />
        <main className="main" aria-labelledby={route.page === "prefs" ? "prefs-title" : "chat-title"}>
          {!options || !preferences ? (
            <p className="muted">Loading…</p>
          ) : route.page === "prefs" ? (
            <PreferencesPage
              options={options}
              preferences={preferences}
              onSave={async (p) => setPreferences(await api.send<Preferences>("PUT", "/preferences", p))}
            />
          ) : (
            <Chat
              api={api}
              threadId={current}
              options={options}
              preferences={preferences}
              onThread={(id) => go(`#/chat/${id}`)}
              onChanged={() => void loadChats()}
              onGone={gone}
            />
          )}
        </main>
      </div>
      {toast ? (
        <div className="toast" role="status">
          {toast.text}
          {toast.undo ? (
            // the focus moves here: the Delete button it was on went away with its chat
            <button
              type="button"
              autoFocus
              onClick={() => {
                const id = toast.undo!;
                setToast(null);
                void act(() => api.send("POST", `/chats/${id}/restore`), "Chat restored.");
              }}
            >
              Undo
            </button>
          ) : null}
          <button type="button" aria-label="Dismiss" onClick={() => setToast(null)}>
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
}
