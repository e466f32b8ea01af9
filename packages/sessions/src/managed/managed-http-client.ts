import { ConfigurationError, SessionError } from "@agentkit/core";
import { AbortScope, readBodyLimited } from "@agentkit/core/internal";

/** A Google-style error body: `{ error: { code, message, status } }`. */
interface ApiErrorBody {
  error?: { code?: number; message?: string; status?: string };
}

/** An HTTP failure of the managed session API, with its status for callers to map. */
export class ManagedSessionApiError extends SessionError {
  readonly status: number;
  readonly apiStatus: string | undefined;

  constructor(
    method: string,
    path: string,
    status: number,
    body: ApiErrorBody | undefined,
    options: { cause?: unknown } = {},
  ) {
    const detail = body?.error?.message ?? "no error message";
    const code =
      status === 401 || status === 403
        ? "MANAGED_SESSION_AUTH"
        : status === 429 || status >= 500
          ? "MANAGED_SESSION_UNAVAILABLE"
          : "MANAGED_SESSION_API_ERROR";
    super(
      `Managed session API ${method} ${path} failed with ` +
        `HTTP ${status}${body?.error?.status ? ` ${body.error.status}` : ""}: ${detail}`,
      { ...options, code },
    );
    this.status = status;
    this.apiStatus = body?.error?.status;
  }
}

export interface ManagedHttpClientOptions {
  baseUrl: string;
  apiVersion: string;
  getAccessToken?: (() => string | Promise<string>) | undefined;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** The largest answer read, in bytes: a larger one is cancelled, never read into memory. */
  maxResponseBytes: number;
  headers: Record<string, string>;
}

/** A long-running operation as the API returns it. */
export interface Operation {
  name?: string;
  done?: boolean;
  error?: { code?: number; message?: string };
  response?: Record<string, unknown>;
}

/**
 * JSON over HTTP for the managed session API: bearer token per request, one timeout per
 * request, every in-flight request aborted by `close()`, errors as typed SessionErrors.
 */
export class ManagedHttpClient {
  private readonly closing = new AbortController();

  constructor(private readonly options: ManagedHttpClientOptions) {
    try {
      new URL(options.baseUrl);
    } catch (cause) {
      throw new ConfigurationError(`ManagedSessionService: invalid baseUrl ${JSON.stringify(options.baseUrl)}`, {
        cause,
      });
    }
  }

  async request<T>(
    method: "GET" | "POST" | "DELETE" | "PATCH",
    path: string,
    options: { query?: Record<string, string | undefined>; body?: unknown } = {},
  ): Promise<T> {
    if (this.closing.signal.aborted)
      throw new SessionError("ManagedSessionService is closed", { code: "SESSION_SERVICE_CLOSED" });
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, "")}/${this.options.apiVersion}/${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: "application/json", ...this.options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (this.options.getAccessToken) {
      let token: string;
      try {
        token = await this.options.getAccessToken();
      } catch (cause) {
        throw new SessionError(
          `Managed session API: getting an access token ` +
            `failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          { code: "MANAGED_SESSION_AUTH", cause },
        );
      }
      headers.authorization = `Bearer ${token}`;
    }
    // A signal of the request's own under the service's: `AbortSignal.any` of the service-long
    // signal would keep one composite per request on it until the collector's finalization.
    const request = AbortScope.under(this.closing.signal).abortAfter(
      this.options.timeoutMs,
      () => new DOMException(`timed out after ${this.options.timeoutMs} ms`, "TimeoutError"),
    );
    // A failure before the whole answer is in (the request, or its body cut off or stalled
    // mid-read) is typed by why the request's signal ended: the service closed, the timeout, else
    // an unavailable server. Never an empty success: an empty body read as `{}` would be a
    // missing session, an empty list or the last page of events.
    const failure = (cause: unknown, status?: number): SessionError => {
      if (this.closing.signal.aborted)
        return new SessionError("ManagedSessionService was closed during a request", {
          code: "SESSION_SERVICE_CLOSED",
          cause,
        });
      const what =
        `Managed session API ${method} ${url.pathname}` +
        (status === undefined ? "" : ` (HTTP ${status}, reading the response body)`);
      if (request.timedOut)
        return new SessionError(`${what} timed out after ${this.options.timeoutMs} ms`, {
          code: "MANAGED_SESSION_TIMEOUT",
          cause,
        });
      return new SessionError(`${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
        code: "MANAGED_SESSION_UNAVAILABLE",
        cause,
      });
    };
    let response: Response;
    let text: string;
    try {
      try {
        response = await this.options.fetch(url, {
          method,
          headers,
          signal: request.signal,
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        });
      } catch (cause) {
        throw failure(cause);
      }
      // The body can stall, be cut off or never end too: it is read under the same signal (the
      // reader is cancelled on abort, whatever fetch the caller gave), so the timeout and close()
      // end a stalled read, and past `maxResponseBytes` it is cancelled.
      try {
        text = await readBodyLimited(response, { maxBytes: this.options.maxResponseBytes, signal: request.signal });
      } catch (cause) {
        throw failure(cause, response.status);
      }
    } finally {
      request.release();
    }
    let parsed: unknown;
    try {
      parsed = text === "" ? {} : JSON.parse(text);
    } catch (cause) {
      throw new SessionError(
        `Managed session API ${method} ${url.pathname} answered HTTP ${response.status} with a non-JSON body`,
        { code: "MANAGED_SESSION_API_ERROR", cause },
      );
    }
    if (!response.ok) throw new ManagedSessionApiError(method, url.pathname, response.status, parsed as ApiErrorBody);
    return parsed as T;
  }

  /** Polls a long-running operation until it is done; its error becomes an ApiError-like SessionError. */
  async waitFor(operation: Operation, pollIntervalMs: number, maxPolls: number): Promise<Operation> {
    let current = operation;
    for (let i = 0; !current.done; i++) {
      if (i >= maxPolls)
        throw new SessionError(
          `Managed session operation ${current.name ?? "(unnamed)"} did not finish after ${maxPolls} polls`,
          { code: "MANAGED_SESSION_TIMEOUT" },
        );
      if (!current.name)
        throw new SessionError("Managed session API returned an unfinished operation without a name", {
          code: "MANAGED_SESSION_API_ERROR",
        });
      await sleep(pollIntervalMs, this.closing.signal);
      current = await this.request<Operation>("GET", current.name);
    }
    return current;
  }

  close(): void {
    this.closing.abort();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new SessionError("ManagedSessionService is closed", { code: "SESSION_SERVICE_CLOSED" }));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SessionError("ManagedSessionService is closed", { code: "SESSION_SERVICE_CLOSED" }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
