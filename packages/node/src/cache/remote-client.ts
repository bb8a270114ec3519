/**
 * A client of the Turborepo Remote Cache HTTP API (issue 20 item 3), as Turborepo documents
 * it in "Remote Cache API" (https://turborepo.com/en/docs/openapi, the OpenAPI document at
 * https://turborepo.com/api/remote-cache-spec) and "Remote Caching"
 * (https://turborepo.com/docs/core-concepts/remote-caching, self-hosting): artifacts are
 * addressed by hash under the `/v8` base path,
 * - `GET /v8/artifacts/status` — whether remote caching is `enabled`;
 * - `HEAD /v8/artifacts/:hash` — whether an artifact exists (200 / 404);
 * - `GET /v8/artifacts/:hash` — download its bytes (`application/octet-stream`; 404 when absent);
 * - `PUT /v8/artifacts/:hash` — upload its bytes (`Content-Type: application/octet-stream`),
 * each with `Authorization: Bearer <token>` and the team as the `teamId` query parameter
 * (or `slug`, for a team given by slug). Tested against the `turborepo-remote-cache` server.
 * Network errors, timeouts and 5xx answers are returned as `{ok: false, reason}`, never
 * thrown: a cache that cannot be reached only means the check runs.
 */

/** How a remote cache is reached. */
export interface RemoteCacheOptions {
  /** Base URL of the server (`https://cache.example.com`; `/v8/...` is appended). */
  url: string;
  /** The bearer token (from the environment variable config `token_env` names), if any. */
  token?: string;
  /** The team: sent as `teamId`, or as `slug` when it starts with `slug:` (`slug:my-team`). */
  team: string;
  /** Bound of each request in ms (default {@link DEFAULT_REMOTE_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Default bound of one remote-cache request (ms): short, a turn never waits long on it. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 2000;

/** A request that could not give an answer: why (`timeout after 2000 ms`, `HTTP 503`, …). */
export type RemoteFailure = { ok: false; reason: string; status?: number };

/** Result of {@link RemoteCacheClient.get}. */
export type RemoteGet =
  | { ok: true; found: false }
  | { ok: true; found: true; bytes: Buffer }
  | RemoteFailure;

/** Largest artifact downloaded (bytes); a larger answer is a failure, not read to the end. */
export const MAX_REMOTE_ARTIFACT_BYTES = 1 << 20;

/** A Turborepo remote-cache client over Node's `fetch` (undici). */
export class RemoteCacheClient {
  readonly #base: string;
  readonly #token: string | undefined;
  readonly #query: string;
  readonly #timeoutMs: number;

  /**
   * Input: {@link RemoteCacheOptions}. Errors: `TypeError` naming `url` when it is not an
   * http(s) URL (a configuration error the caller reports), never a network error.
   */
  constructor(options: RemoteCacheOptions) {
    const url = new URL(options.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`cache.remote.url: not an http(s) URL: ${options.url}`);
    }
    this.#base = url.href.replace(/\/+$/, "");
    this.#token = options.token;
    const team = options.team;
    this.#query = team.startsWith("slug:")
      ? `slug=${encodeURIComponent(team.slice(5))}`
      : `teamId=${encodeURIComponent(team)}`;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  }

  /** `GET /v8/artifacts/status`: `{ok: true, status}` (`enabled`, `disabled`, …) or a failure. */
  async status(): Promise<{ ok: true; status: string } | RemoteFailure> {
    const answer = await this.#request("GET", "/v8/artifacts/status");
    if (!answer.ok) return answer;
    if (answer.response.status !== 200) return httpFailure(answer.response.status);
    try {
      const body = (await answer.response.json()) as { status?: unknown };
      return { ok: true, status: typeof body.status === "string" ? body.status : "unknown" };
    } catch (error) {
      return { ok: false, reason: `status answer is not JSON (${(error as Error).message})` };
    }
  }

  /** `HEAD /v8/artifacts/:hash`: `{ok: true, found}` or a failure. */
  async exists(hash: string): Promise<{ ok: true; found: boolean } | RemoteFailure> {
    const answer = await this.#request("HEAD", artifactPath(hash));
    if (!answer.ok) return answer;
    if (answer.response.status === 404) return { ok: true, found: false };
    if (answer.response.status === 200) return { ok: true, found: true };
    return httpFailure(answer.response.status);
  }

  /**
   * `GET /v8/artifacts/:hash`: the artifact's bytes, `found: false` on 404, or a failure
   * (other status, network error, timeout, more than {@link MAX_REMOTE_ARTIFACT_BYTES}).
   */
  async get(hash: string): Promise<RemoteGet> {
    const answer = await this.#request("GET", artifactPath(hash), undefined, async (response) => {
      if (response.status !== 200) return undefined;
      return readCapped(response, MAX_REMOTE_ARTIFACT_BYTES);
    });
    if (!answer.ok) return answer;
    if (answer.response.status === 404) return { ok: true, found: false };
    if (answer.response.status !== 200) return httpFailure(answer.response.status);
    const bytes = answer.body;
    if (bytes === undefined) {
      return { ok: false, reason: `artifact larger than ${MAX_REMOTE_ARTIFACT_BYTES} bytes` };
    }
    return { ok: true, found: true, bytes };
  }

  /** `PUT /v8/artifacts/:hash` with `bytes`: `{ok: true}` on 2xx, else a failure. */
  async put(
    hash: string,
    bytes: Uint8Array,
    durationMs?: number,
  ): Promise<{ ok: true } | RemoteFailure> {
    const headers: Record<string, string> = { "content-type": "application/octet-stream" };
    if (durationMs !== undefined) headers["x-artifact-duration"] = String(Math.round(durationMs));
    const answer = await this.#request("PUT", artifactPath(hash), { body: bytes, headers });
    if (!answer.ok) return answer;
    if (answer.response.status >= 200 && answer.response.status < 300) return { ok: true };
    return httpFailure(answer.response.status);
  }

  async #request(
    method: string,
    path: string,
    extra?: { body: Uint8Array; headers: Record<string, string> },
    read?: (response: Response) => Promise<Buffer | undefined>,
  ): Promise<{ ok: true; response: Response; body?: Buffer } | RemoteFailure> {
    const headers: Record<string, string> = { ...(extra?.headers ?? {}) };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    try {
      const response = await fetch(`${this.#base}${path}?${this.#query}`, {
        method,
        headers,
        ...(extra ? { body: extra.body } : {}),
        signal: controller.signal,
        redirect: "error",
      });
      const body = read ? await read(response) : undefined;
      if (!read && method !== "HEAD") await response.body?.cancel();
      return body === undefined ? { ok: true, response } : { ok: true, response, body };
    } catch (error) {
      if (controller.signal.aborted) {
        return { ok: false, reason: `timeout after ${this.#timeoutMs} ms` };
      }
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { ok: false, reason: cause?.code ?? cause?.message ?? (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}

function artifactPath(hash: string): string {
  return `/v8/artifacts/${encodeURIComponent(hash)}`;
}

function httpFailure(status: number): RemoteFailure {
  return { ok: false, reason: `HTTP ${status}`, status };
}

async function readCapped(response: Response, cap: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body === null) return Buffer.alloc(0);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > cap) {
      await response.body.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
