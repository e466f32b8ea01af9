import { SseParser, frameError } from "../lib/sse-parser.js";
import { sessionsFromList } from "../lib/session-info.js";
import type { AgentEvent, Content, FunctionCall, Session, Span } from "../lib/types.js";

/** An HTTP failure with the server's message (`{detail}` or `{error}`) when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface RunRequest {
  appName: string;
  userId: string;
  sessionId: string;
  newMessage: Content;
  streaming: boolean;
  stateDelta?: Record<string, unknown> | null;
  functionCallEventId?: string;
}

/** The HTTP API of http-api.md, relative to the runtime config's `backendUrl` (empty = same origin). */
export class Api {
  constructor(readonly backendUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.backendUrl + path, {
      method,
      ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private session(app: string, user: string, id = ""): string {
    return `/apps/${app}/users/${user}/sessions${id ? `/${id}` : ""}`;
  }

  listApps = () => this.call<string[]>("GET", "/list-apps?relative_path=./");
  version = () => this.call<{ version?: string }>("GET", "/version");
  listSessions = async (app: string, user: string) =>
    sessionsFromList(await this.call<unknown>("GET", this.session(app, user)));
  getSession = (app: string, user: string, id: string) => this.call<Session>("GET", this.session(app, user, id));
  createSession = (app: string, user: string, state?: Record<string, unknown>) =>
    this.call<Session>("POST", this.session(app, user), state ? { state } : undefined);
  deleteSession = (app: string, user: string, id: string) => this.call<void>("DELETE", this.session(app, user, id));
  /** Undoes an invocation and every later one (agentkit's and ADK Python's rewind route). */
  rewindSession = (app: string, user: string, id: string, invocationId: string) =>
    this.call<Session>("POST", `${this.session(app, user, id)}/rewind`, { invocationId });
  patchState = (app: string, user: string, id: string, stateDelta: Record<string, unknown>) =>
    this.call<Session>("PATCH", this.session(app, user, id), { stateDelta });
  listArtifacts = (app: string, user: string, id: string) =>
    this.call<string[]>("GET", `${this.session(app, user, id)}/artifacts`);
  artifactVersions = (app: string, user: string, id: string, name: string) =>
    this.call<number[]>("GET", `${this.session(app, user, id)}/artifacts/${encodePath(name)}/versions`);
  artifact = (app: string, user: string, id: string, name: string, version: number) =>
    this.call<unknown>("GET", `${this.session(app, user, id)}/artifacts/${encodePath(name)}/versions/${version}`);
  eventTrace = (app: string, eventId: string) =>
    this.call<Record<string, unknown>>("GET", `/dev/apps/${app}/debug/trace/${eventId}`);
  sessionTrace = (app: string, id: string) => this.call<Span[]>("GET", `/dev/apps/${app}/debug/trace/session/${id}`);
  appGraph = (app: string, dark: boolean) =>
    this.call<unknown>("GET", `/dev/apps/${app}/build_graph_image?dark_mode=${dark}`);
  eventGraph = (app: string, user: string, id: string, eventId: string) =>
    this.call<unknown>("GET", `/apps/${app}/users/${user}/sessions/${id}/events/${eventId}/graph`);
  listEvalSets = (app: string) => this.call<string[]>("GET", `/dev/apps/${app}/eval_sets`);
  createEvalSet = (app: string, id: string) =>
    this.call<unknown>("POST", `/dev/apps/${app}/eval-sets`, {
      eval_set: { eval_set_id: id, model_execution_mode: "live", tool_execution_mode: "live", eval_cases: [] },
    });
  listEvalCases = (app: string, setId: string) =>
    this.call<string[]>("GET", `/dev/apps/${app}/eval_sets/${setId}/evals`);
  addSessionToEvalSet = (app: string, setId: string, body: { evalId: string; sessionId: string; userId: string }) =>
    this.call<unknown>("POST", `/dev/apps/${app}/eval_sets/${setId}/add_session`, body);
  metricsInfo = (app: string) =>
    this.call<{ metricsInfo: { metricName: string; description?: string }[] }>("GET", `/dev/apps/${app}/metrics-info`);
  runEval = (
    app: string,
    setId: string,
    body: { evalIds: string[]; evalMetrics: { metricName: string; threshold: number }[] },
  ) => this.call<EvalRunResult[]>("POST", `/dev/apps/${app}/eval_sets/${setId}/run_eval`, body);
  getEvalCase = (app: string, setId: string, evalId: string) =>
    this.call<EvalCaseJson>("GET", `/dev/apps/${app}/eval_sets/${setId}/evals/${evalId}`);
  updateEvalCase = (app: string, setId: string, evalCase: EvalCaseJson) =>
    this.call<EvalCaseJson>("PUT", `/dev/apps/${app}/eval_sets/${setId}/evals/${evalCase.evalId}`, evalCase);
  listEvalResults = (app: string) => this.call<string[]>("GET", `/dev/apps/${app}/eval_results`);
  getEvalResult = (app: string, id: string) =>
    this.call<EvalSetResultJson>("GET", `/dev/apps/${app}/eval_results/${id}`);

  /**
   * Runs an eval set through agentkit's run-stream route, handing each case's start and end to
   * `onProgress`; resolves with the stored result.
   */
  async runEvalStream(
    app: string,
    setId: string,
    body: { evalCaseIds: string[]; evalMetrics: { metricName: string; threshold: number }[] },
    onProgress: (progress: EvalProgress) => void,
  ): Promise<EvalSetResultJson> {
    const response = await fetch(`${this.backendUrl}/dev/apps/${app}/eval-sets/${setId}/run-stream`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    if (!response.ok || !response.body) throw new ApiError(response.status, await errorMessage(response));
    let result: EvalSetResultJson | undefined;
    await readSseFrames(response.body, (frame) => {
      const f = frame as { progress?: EvalProgress; result?: EvalSetResultJson };
      if (f.progress) onProgress(f.progress);
      if (f.result) result = f.result;
    });
    if (!result) throw new ApiError(200, "the eval run ended without a result");
    return result;
  }

  /**
   * POST /run_sse and hands each event to `onEvent` as its frame completes (section 5). A
   * frame with `error` rejects with that message, after the events before it were delivered.
   */
  async runSse(request: RunRequest, onEvent: (event: AgentEvent) => void, signal: AbortSignal): Promise<void> {
    const response = await fetch(`${this.backendUrl}/run_sse`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(request),
      signal,
    });
    if (!response.ok || !response.body) throw new ApiError(response.status, await errorMessage(response));
    await readSseFrames(response.body, (frame) => onEvent(frame as AgentEvent));
  }
}

/**
 * Hands each SSE frame of `body` to `onFrame` as it completes; a frame with `error` rejects with
 * that message. When reading stops early (an error frame, a handler that threw) the stream is
 * cancelled, so the connection closes and the server sees the client go instead of running on.
 */
async function readSseFrames(body: NonNullable<Response["body"]>, onFrame: (frame: unknown) => void): Promise<void> {
  const parser = new SseParser();
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const deliver = (frames: unknown[]) => {
    for (const frame of frames) {
      const error = frameError(frame);
      if (error !== undefined) throw new ApiError(200, error);
      onFrame(frame);
    }
  };
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      deliver(parser.push(value));
    }
    finished = true;
    deliver(parser.end());
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

export interface EvalMetricOutcome {
  metricName: string;
  threshold: number;
  score?: number;
  evalStatus: number;
}

export interface EvalRunResult {
  evalId: string;
  finalEvalStatus: number;
  overallEvalMetricResults: EvalMetricOutcome[];
  evalMetricResultPerInvocation?: {
    actualInvocation: EvalInvocationJson;
    expectedInvocation: EvalInvocationJson;
  }[];
  sessionId?: string;
  userId?: string;
}

/** One turn of an eval case (ADK's Invocation). */
export interface EvalInvocationJson {
  invocationId?: string;
  userContent: Content;
  finalResponse?: Content;
  intermediateData?: { toolUses?: FunctionCall[]; [key: string]: unknown };
  [key: string]: unknown;
}

export interface EvalCaseJson {
  evalId: string;
  conversation: EvalInvocationJson[];
  [key: string]: unknown;
}

export interface EvalSetResultJson {
  evalSetResultId: string;
  evalSetId: string;
  evalCaseResults: EvalRunResult[];
  creationTimestamp: number;
}

/** A case started or finished (agentkit's run-stream frames). */
export interface EvalProgress {
  kind: "case_started" | "case_finished";
  evalId: string;
  done: number;
  total: number;
  finalEvalStatus?: number;
}

/** Artifact names may hold `/` (Python's `:path`): keep them, encode the rest of each segment. */
function encodePath(name: string): string {
  return name.split("/").map(encodeURIComponent).join("/");
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown };
    const message =
      typeof body.detail === "string" ? body.detail : typeof body.error === "string" ? body.error : undefined;
    if (message) return `${message} (HTTP ${response.status})`;
  } catch {
    // not JSON
  }
  return `HTTP ${response.status} ${response.statusText}`.trim();
}
