// Every call to the server: our routes through `Api`, LangGraph's through the SDK's `Client`.
// Both carry the bearer token (kept by the App in sessionStorage, never in a URL or
// localStorage), and both report a 401 (sign in again) and an unreachable server (banner).

import { Client } from "@langchain/langgraph-sdk/client";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export class ServerGone extends Error {}

export interface Hooks {
  unauthorized: () => void;
  reachable: (ok: boolean) => void;
}

/** A `fetch` that adds the token and tells the hooks about 401s and lost connections. */
export function authedFetch(token: string | null, hooks: Hooks): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("Authorization", `Bearer ${token}`);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers, credentials: "omit" });
    } catch (error) {
      if ((error as Error).name !== "AbortError") hooks.reachable(false);
      throw error;
    }
    if (response.status === 401) hooks.unauthorized();
    hooks.reachable(true);
    return response;
  };
}

export async function detailOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === "string") return body.detail;
    if (body.detail !== undefined) return JSON.stringify(body.detail);
  } catch {
    // not JSON
  }
  return text.slice(0, 300) || `HTTP ${response.status}`;
}

export class Api {
  readonly fetch: typeof fetch;
  readonly client: Client;

  constructor(token: string | null, hooks: Hooks) {
    this.fetch = authedFetch(token, hooks);
    this.client = new Client({
      apiUrl: window.location.origin,
      apiKey: null,
      callerOptions: { fetch: this.fetch, maxRetries: 1 },
    });
  }

  async request(path: string, init?: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetch(path, init);
    } catch (error) {
      throw new ServerGone(String(error));
    }
    if (!response.ok) throw new HttpError(response.status, await detailOf(response));
    return response;
  }

  async json<T>(path: string, init?: RequestInit): Promise<T> {
    return (await (await this.request(path, init)).json()) as T;
  }

  send<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.json<T>(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async call(method: string, path: string): Promise<void> {
    await this.request(path, { method });
  }
}

/** Fetch a file with the token and hand it to the browser as a download (a blob URL). */
export async function download(api: Api, path: string, name: string): Promise<void> {
  const blob = await (await api.request(path)).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
