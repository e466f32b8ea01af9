// A client of the `notes` app (notes-agent.ts) as a real one behaves behind a load balancer: it
// sends one turn ("note <n>") over `/run`, `/run_sse` or `/run_live` and, when the attempt fails
// the way a lost replica makes it fail (connection cut, 502/503, stream or socket cut before the
// answer, SESSION_BUSY), sends the same turn again, a bounded number of times. Any other answer
// is a failure of the product and ends the turn with an error.

export type TurnMode = "run" | "sse" | "live";

/** An event as the client received it (the fields the checks read). */
export interface WireEvent {
  id: string;
  invocationId: string;
  author: string;
  partial?: boolean;
  errorCode?: string;
  timestamp?: number;
  content?: { role?: string; parts?: WirePart[] };
  actions?: { stateDelta?: Record<string, unknown>; artifactDelta?: Record<string, number> };
}

export interface WirePart {
  text?: string;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown> };
}

export interface TurnTarget {
  /** `http://host:port` of the balancer. */
  baseUrl: string;
  appName: string;
  userId: string;
  sessionId: string;
}

/** The acknowledged turn: the events of the attempt that got its answer, and what failed before it. */
export interface TurnResult {
  n: number;
  mode: TurnMode;
  events: WireEvent[];
  /** Why each earlier attempt failed. */
  failures: string[];
}

/** An attempt that failed the way a lost replica makes it fail: worth sending again. */
class RetryableFailure extends Error {}

const ANSWER = /^saved note (\d+) v(\d+)$/;

/** The agent's final answer for note `n` in `events`, or undefined. */
export function answerOf(events: readonly WireEvent[], n: number): { version: number } | undefined {
  for (const e of events) {
    const text = e.author !== "user" ? e.content?.parts?.find((p) => p.text)?.text : undefined;
    const m = text ? ANSWER.exec(text) : null;
    if (m && Number(m[1]) === n) return { version: Number(m[2]) };
  }
  return undefined;
}

/**
 * Sends turn `n` until it is acknowledged (at most `maxAttempts` tries); `onFailure` hears of
 * every failed attempt as it happens. Each attempt is bounded by `attemptMs` (a hang is a bug).
 */
export async function sendTurn(
  target: TurnTarget,
  n: number,
  mode: TurnMode,
  options: { maxAttempts: number; attemptMs: number; onFailure?: (reason: string) => void },
): Promise<TurnResult> {
  const failures: string[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      const events = await ATTEMPT[mode](target, n, AbortSignal.timeout(options.attemptMs));
      if (!answerOf(events, n))
        throw new Error(`${mode} note ${n}: answered without the note: ${JSON.stringify(events)}`);
      return { n, mode, events, failures };
    } catch (error) {
      if (!(error instanceof RetryableFailure)) throw error;
      failures.push(error.message);
      options.onFailure?.(error.message);
      if (attempt >= options.maxAttempts)
        throw new Error(`${mode} note ${n} on ${target.sessionId}: ${attempt} attempts failed: ${failures.join("; ")}`);
    }
  }
}

const ATTEMPT: Record<TurnMode, (t: TurnTarget, n: number, signal: AbortSignal) => Promise<WireEvent[]>> = {
  run: runOnce,
  sse: sseOnce,
  live: liveOnce,
};

function runBody(t: TurnTarget, n: number): string {
  return JSON.stringify({
    appName: t.appName,
    userId: t.userId,
    sessionId: t.sessionId,
    newMessage: { role: "user", parts: [{ text: `note ${n}` }] },
  });
}

/** fetch, with a cut connection turned into a retryable failure (a timeout stays fatal). */
async function post(url: string, body: string, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal });
  } catch (error) {
    if (signal.aborted) throw new Error(`no answer from ${url} in time`, { cause: error });
    throw new RetryableFailure(`connection failed: ${(error as Error).message}`);
  }
}

/** The body's text; a body cut mid-way is retryable. */
async function readText(res: Response, signal: AbortSignal): Promise<string> {
  try {
    return await res.text();
  } catch (error) {
    if (signal.aborted) throw new Error("the answer did not finish in time", { cause: error });
    throw new RetryableFailure(`response cut: ${(error as Error).message}`);
  }
}

/** Statuses a replica's loss (or a lock it left behind) produces; anything else but 200 is fatal. */
function checkStatus(status: number, text: string, what: string): void {
  if (status === 200) return;
  if (status === 502 || status === 503) throw new RetryableFailure(`${what}: ${status}`);
  if (status === 409 && text.includes('"SESSION_BUSY"')) throw new RetryableFailure(`${what}: 409 SESSION_BUSY`);
  throw new Error(`${what}: unexpected ${status} ${text}`);
}

async function runOnce(t: TurnTarget, n: number, signal: AbortSignal): Promise<WireEvent[]> {
  const res = await post(`${t.baseUrl}/run`, runBody(t, n), signal);
  const text = await readText(res, signal);
  checkStatus(res.status, text, "/run");
  return JSON.parse(text) as WireEvent[];
}

async function sseOnce(t: TurnTarget, n: number, signal: AbortSignal): Promise<WireEvent[]> {
  const res = await post(`${t.baseUrl}/run_sse`, runBody(t, n), signal);
  const text = await readText(res, signal);
  checkStatus(res.status, text, "/run_sse");
  const frames = text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice("data: ".length)) as WireEvent & { error?: string; code?: string });
  const failed = frames.find((f) => typeof f.error === "string");
  if (failed?.code === "SHUTTING_DOWN") throw new RetryableFailure("/run_sse: SHUTTING_DOWN frame");
  if (failed) throw new Error(`/run_sse: error frame ${JSON.stringify(failed)}`);
  const events = frames.filter((f) => !f.partial);
  // A stream that ended without the answer was cut (a complete one ends with it).
  if (!answerOf(events, n)) throw new RetryableFailure("/run_sse: stream ended before the answer");
  return events;
}

/**
 * One live run: open the socket, send the note, wait for the answer event (stored before it is
 * sent), then close the queue and wait for the server's 1000. A socket that closes before the
 * answer was cut.
 */
function liveOnce(t: TurnTarget, n: number, signal: AbortSignal): Promise<WireEvent[]> {
  const url = new URL("/run_live", t.baseUrl.replace(/^http/, "ws"));
  url.search = new URLSearchParams({
    app_name: t.appName,
    user_id: t.userId,
    session_id: t.sessionId,
    modalities: "TEXT",
  }).toString();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const events: WireEvent[] = [];
    let answered = false;
    const onAbort = () => {
      ws.close();
      reject(new Error(`live note ${n}: no answer in time`));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify({ content: { role: "user", parts: [{ text: `note ${n}` }] } }));
    });
    ws.addEventListener("message", (message) => {
      const frame = JSON.parse(String(message.data)) as WireEvent & { error?: string };
      if (typeof frame.error === "string") return;
      if (!frame.partial) events.push(frame);
      if (!answered && answerOf([frame], n)) {
        answered = true;
        ws.send(JSON.stringify({ close: true }));
      }
    });
    ws.addEventListener("close", (closed) => {
      signal.removeEventListener("abort", onAbort);
      if (answered) resolve(events);
      else if (closed.code === 1006 || closed.code === 1001)
        reject(new RetryableFailure(`live: socket closed (${closed.code}) before the answer`));
      else reject(new Error(`live note ${n}: closed ${closed.code} ${closed.reason} before the answer`));
    });
  });
}
