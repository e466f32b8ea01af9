import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { RawData, WebSocket, WebSocketServer } from "ws";
import {
  eventToJsonText,
  RunAbortedError,
  SessionNotFoundError,
  type LiveRequest,
  type RunConfig,
} from "@agentkit/core";
import { sessionKeyProblem, untilAborted, withPreloadedSession } from "@agentkit/core/internal";
import type { AccessControl } from "../auth/access-control.js";
import { AuthenticationError } from "../auth/auth-errors.js";
import { selectWebSocketProtocol } from "../auth/bearer-token.js";
import { liveUserOf } from "../auth/route-access.js";
import { ServerDrainingError } from "../errors/server-errors.js";
import { errorBody, statusForError } from "../errors/status-for-error.js";
import { rejectReason, type HostGuardOptions } from "../http/host-guard.js";
import { RateLimitedError } from "../http/run-rate-limiter.js";
import type { LiveLimits } from "../http/server-limits.js";
import type { RouteDeps } from "../routes/route-deps.js";
import type { RunnerLease } from "../runs/runner-cache.js";
import { BoundedLiveRequestQueue } from "./bounded-live-request-queue.js";
import { LiveMessageError, parseLiveMessage } from "./live-request-message.js";

/** Close codes of http-api.md section 6. */
export const LiveCloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002,
  POLICY_VIOLATION: 1008,
  INTERNAL_ERROR: 1011,
} as const;

/** A close reason must fit a control frame: at most 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

/** Cuts a close reason to 123 bytes of UTF-8 without splitting a character. */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_REASON_BYTES) return text;
  let end = MAX_REASON_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString("utf8");
}

interface LiveParams {
  appName: string;
  userId: string;
  sessionId: string;
  runConfig: RunConfig;
}

/** Live sockets open (or being opened) per key: the whole server, a client address, an app's user. */
class SocketCounts {
  private readonly counts = new Map<string, number>();

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts one more socket under every key; the returned function (idempotent) uncounts it. */
  add(keys: readonly string[]): () => void {
    for (const key of keys) this.counts.set(key, this.get(key) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const key of keys) {
        const left = this.get(key) - 1;
        if (left <= 0) this.counts.delete(key);
        else this.counts.set(key, left);
      }
    };
  }
}

/** What a live socket holds, for `stats()` and tests. */
export interface LiveStats {
  /** Open (or opening) live sockets. */
  sockets: number;
  /** Client requests held by their sockets' queues, not yet taken by a run. */
  queuedFrames: number;
  /** Bytes of those requests' frames. */
  queuedBytes: number;
}

/**
 * `/run_live`: one live run per socket. Client text frames are LiveRequests (content, blob,
 * close); every server frame is one Event as JSON. The socket closes with 1000 when the run
 * ends, 1002 for a missing session, 1008 for bad parameters, an unknown app or a client that
 * sends faster than its run takes frames, 1009 for a frame over `maxFrameBytes`, 1011 (reason
 * cut to 123 bytes) when the run fails. Closing the socket aborts the run and drops its queue.
 * Sockets are capped in total (503) and per client address and per app user (429). Each socket
 * is pinged every `pingIntervalMs`; one that misses a pong is terminated.
 */
export class LiveSocketServer {
  /** Created on the first upgrade: `ws` is imported only when a live call happens. */
  private wss: Promise<WebSocketServer> | undefined;
  private closed = false;
  private readonly live = new Map<WebSocket, { controller: AbortController; queue: BoundedLiveRequestQueue }>();
  private readonly counts = new SocketCounts();

  constructor(
    private readonly deps: RouteDeps,
    private readonly guard: HostGuardOptions,
    private readonly limits: Required<LiveLimits>,
    /** With auth on: the upgrade is authenticated and `user_id` must be the principal's. */
    private readonly access?: AccessControl,
  ) {}

  /** Sockets and what their queues hold. */
  stats(): LiveStats {
    let queuedFrames = 0;
    let queuedBytes = 0;
    for (const { queue } of this.live.values()) {
      queuedFrames += queue.pendingFrames;
      queuedBytes += queue.pendingBytes;
    }
    return { sockets: this.counts.get(TOTAL), queuedFrames, queuedBytes };
  }

  /** Handles an HTTP upgrade of the server; anything but `/run_live` is refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      refuse(socket, 400, "Bad Request");
      return;
    }
    if (url.pathname !== "/run_live") return void refuse(socket, 404, "Not Found");
    if (rejectReason(req, this.guard, true)) return void refuse(socket, 403, "Forbidden");
    if (this.deps.runs.isDraining || this.closed) return void refuse(socket, 503, "Service Unavailable");
    const keys = this.socketKeys(req, url.searchParams);
    const { maxSockets, maxSocketsPerClient, maxSocketsPerUser } = this.limits;
    if (maxSockets > 0 && this.counts.get(TOTAL) >= maxSockets) {
      refuse(socket, 503, "Service Unavailable", 2);
      return;
    }
    if (
      (maxSocketsPerClient > 0 && keys.client !== undefined && this.counts.get(keys.client) >= maxSocketsPerClient) ||
      (maxSocketsPerUser > 0 && keys.user !== undefined && this.counts.get(keys.user) >= maxSocketsPerUser)
    ) {
      refuse(socket, 429, "Too Many Requests", 2);
      return;
    }
    // Counted from now until the TCP socket closes, whatever happens to the upgrade.
    const uncount = this.counts.add([TOTAL, ...(keys.client ? [keys.client] : []), ...(keys.user ? [keys.user] : [])]);
    socket.once("close", uncount);
    this.wss ??= import("ws").then(
      ({ WebSocketServer }) =>
        new WebSocketServer({
          noServer: true,
          maxPayload: this.limits.maxFrameBytes,
          // A token offered as a sub-protocol is never selected (never echoed back).
          ...(this.access ? { handleProtocols: selectWebSocketProtocol } : {}),
        }),
    );
    const upgrade = (wss: Promise<WebSocketServer>) =>
      wss.then(
        (server) => {
          if (this.closed || socket.destroyed) return void socket.destroy();
          // After authentication: a caller who is refused must not spend the user's allowance.
          if (this.rateLimited(socket, url.searchParams)) return;
          server.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, url.searchParams));
        },
        (error: unknown) => {
          this.deps.logger.error("Cannot start the WebSocket server", error);
          refuse(socket, 500, "Internal Server Error");
        },
      );
    if (!this.access) return void upgrade(this.wss);
    const wss = this.wss;
    this.access.checkLiveUpgrade(req, liveUserOf(url.searchParams)).then(
      () => upgrade(wss),
      (error: unknown) => {
        if (socket.destroyed) return;
        const status = statusForError(error);
        if (status >= 500 && status !== 503) this.deps.logger.error("Authentication failed unexpectedly", error);
        const challenge: Record<string, string> =
          error instanceof AuthenticationError ? { "WWW-Authenticate": this.access!.challenge(error) } : {};
        refuseWith(socket, status, errorBody(error), challenge);
      },
    );
  }

  /** Takes a run from the user's and app's allowance; refuses the upgrade with 429 when there is none. */
  private rateLimited(socket: Duplex, query: URLSearchParams): boolean {
    const app = query.get("app_name") ?? query.get("appName");
    const user = liveUserOf(query);
    if (!app || user === undefined) return false; // refused later as a bad request
    try {
      this.deps.rateLimiter.take(app, user);
      return false;
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      const retryAfter = String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 1)));
      refuseWith(socket, 429, errorBody(error), { "Retry-After": retryAfter });
      return true;
    }
  }

  /** Count keys of an upgrade: its client address and its app user (when the query names them). */
  private socketKeys(req: IncomingMessage, query: URLSearchParams): { client?: string; user?: string } {
    const address = req.socket.remoteAddress;
    const app = query.get("app_name") ?? query.get("appName");
    const user = query.get("user_id") ?? query.get("userId");
    return {
      ...(address ? { client: `client:${address}` } : {}),
      ...(app && user ? { user: `user:${JSON.stringify([app, user])}` } : {}),
    };
  }

  /**
   * Aborts every live run and closes its socket with 1001, after a last `SHUTTING_DOWN` error
   * frame (so a client tells the cut from a socket that merely dropped).
   */
  async close(): Promise<void> {
    this.closed = true;
    const closing = [...this.live.entries()].map(([ws, { controller, queue }]) => {
      const cut = new ServerDrainingError();
      controller.abort(cut);
      queue.discard();
      const { error, code } = errorBody(cut);
      sendJson(ws, { error, code });
      return closeAndWait(ws, LiveCloseCode.GOING_AWAY, "Server shutting down");
    });
    await Promise.all(closing);
    const wss = await this.wss?.catch(() => undefined);
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket, query: URLSearchParams): void {
    const controller = new AbortController();
    const queue = new BoundedLiveRequestQueue({
      maxFrames: this.limits.maxQueuedFrames,
      maxBytes: this.limits.maxQueuedBytes,
    });
    this.live.set(ws, { controller, queue });
    const stopPings = this.limits.pingIntervalMs > 0 ? this.ping(ws, this.limits.pingIntervalMs) : undefined;
    ws.on("error", () => controller.abort(new Error("WebSocket error")));
    ws.on("close", () => {
      stopPings?.();
      this.live.delete(ws);
      controller.abort(new Error("The client closed the socket."));
      // Nothing the client sent outlives its socket.
      queue.discard();
    });
    // Frames that arrive while the run is being set up wait in the (bounded) queue.
    ws.on("message", (data: RawData, isBinary: boolean) => {
      if (ws.readyState !== ws.OPEN) return;
      if (queue.isClosed) return sendJson(ws, { error: "The live session is closing; the frame was not taken." });
      if (isBinary)
        return sendJson(ws, { error: "Binary frames are not part of the protocol; send JSON text frames." });
      let requests: LiveRequest[];
      try {
        requests = parseLiveMessage(rawText(data));
      } catch (error) {
        if (error instanceof LiveMessageError) return sendJson(ws, { error: error.message, details: error.details });
        return sendJson(ws, { error: "Invalid LiveRequest" });
      }
      if (queue.offer(requests, rawLength(data)) === "full") {
        // A client that sends faster than its run takes frames: stop it before memory does.
        queue.discard();
        controller.abort(new Error("The client sent more frames than the server holds."));
        ws.close(LiveCloseCode.POLICY_VIOLATION, "Too many frames waiting; send slower");
      }
    });
    const params = liveParams(query);
    if (typeof params === "string") return void ws.close(LiveCloseCode.POLICY_VIOLATION, closeReason(params));
    void this.runLive(ws, params, queue, controller);
  }

  /**
   * Pings the client every `intervalMs`; one that has not answered a ping by the next is gone
   * (a dropped network, a frozen client) and its socket is terminated, which aborts its run and
   * frees the session's turn. Returns what stops the pings.
   */
  private ping(ws: WebSocket, intervalMs: number): () => void {
    let answered = true;
    const onPong = () => {
      answered = true;
    };
    ws.on("pong", onPong);
    const timer = setInterval(() => {
      if (!answered) {
        this.deps.logger.debug?.(`A live socket did not answer a ping within ${intervalMs} ms; terminated`);
        ws.terminate();
        return;
      }
      answered = false;
      ws.ping();
    }, intervalMs);
    return () => {
      clearInterval(timer);
      ws.off("pong", onPong);
    };
  }

  private async runLive(
    ws: WebSocket,
    params: LiveParams,
    queue: BoundedLiveRequestQueue,
    controller: AbortController,
  ): Promise<void> {
    let release: (() => void) | undefined;
    let lease: { release(): void } | undefined;
    const key = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
    const finished = this.deps.runs.start(controller, key);
    const { signal } = controller;
    try {
      let runnerLease: RunnerLease;
      try {
        // Steps before the run end at once when the socket closes or shutdown aborts the run.
        runnerLease = await untilAborted(this.deps.runners.acquire(params.appName), signal, {
          discard: (late) => late.release(),
        });
      } catch (error) {
        if (signal.aborted) return;
        return void ws.close(
          LiveCloseCode.POLICY_VIOLATION,
          closeReason(errorBody(error, this.deps.exposeErrorMessages).error),
        );
      }
      lease = runnerLease;
      // A live call is a run like any other: it holds the session's turn while it lasts. The
      // session is read once that turn is held and handed to the runner (as the run routes do).
      release = await this.deps.queue.acquireSession(key, signal);
      const session = await untilAborted(this.deps.context.sessionService.getSession(key), signal);
      if (!session) return void ws.close(LiveCloseCode.PROTOCOL_ERROR, "Session not found");
      const events = runnerLease.runner.runLive(
        withPreloadedSession(
          { ...key, liveRequestQueue: queue, runConfig: params.runConfig, signal: controller.signal },
          session,
        ),
      );
      for await (const event of events) if (ws.readyState === ws.OPEN) ws.send(eventToJsonText(event));
      ws.close(LiveCloseCode.NORMAL, "Live run ended");
    } catch (error) {
      if (controller.signal.aborted && (error instanceof RunAbortedError || ws.readyState !== ws.OPEN)) return;
      if (error instanceof SessionNotFoundError)
        return void ws.close(LiveCloseCode.PROTOCOL_ERROR, "Session not found");
      const body = errorBody(error, this.deps.exposeErrorMessages);
      const status = statusForError(error);
      if (status >= 500) this.deps.logger.error("Live run failed", error);
      // A refused client frame (e.g. an answer to a call that is not pending) is the client's fault.
      ws.close(status < 500 ? LiveCloseCode.POLICY_VIOLATION : LiveCloseCode.INTERNAL_ERROR, closeReason(body.error));
    } finally {
      queue.discard();
      release?.();
      lease?.release();
      finished();
    }
  }
}

function liveParams(query: URLSearchParams): LiveParams | string {
  const appName = query.get("app_name") ?? query.get("appName");
  const userId = liveUserOf(query);
  const sessionId = query.get("session_id") ?? query.get("sessionId");
  if (!appName) return "Missing query parameter app_name";
  if (!userId) return "Missing query parameter user_id";
  if (!sessionId) return "Missing query parameter session_id";
  for (const [field, value] of [
    ["app_name", appName],
    ["user_id", userId],
    ["session_id", sessionId],
  ] as const) {
    const problem = sessionKeyProblem(value);
    if (problem) return `Invalid query parameter ${field}: it ${problem}`;
  }
  const flag = (name: string) => query.get(name) === "true";
  const modalities = query
    .getAll("modalities")
    .flatMap((m) => m.split(","))
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean);
  const bad = modalities.find((m) => m !== "TEXT" && m !== "AUDIO");
  if (bad) return `Invalid modality ${bad}: use TEXT or AUDIO`;
  const runConfig: RunConfig = { responseModalities: modalities.length > 0 ? modalities : ["AUDIO"] };
  if (flag("proactive_audio")) runConfig.proactivity = { proactiveAudio: true };
  if (flag("enable_affective_dialog")) runConfig.enableAffectiveDialog = true;
  if (flag("enable_session_resumption")) runConfig.sessionResumption = { transparent: true };
  if (flag("save_live_blob")) runConfig.saveInputBlobsAsArtifacts = true;
  return { appName, userId, sessionId, runConfig };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return (data as ArrayBuffer | Buffer).byteLength;
}

/** The count key of the whole server. */
const TOTAL = "total";

function sendJson(ws: WebSocket, payload: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(payload));
}

function refuse(socket: Duplex, status: number, text: string, retryAfterSeconds?: number): void {
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { "Retry-After": String(retryAfterSeconds) };
  refuseWith(socket, status, { error: text, detail: text, code: text.toUpperCase().replace(/ /g, "_") }, headers);
}

/** Answers an upgrade with a plain HTTP response (JSON body) and closes the socket. */
function refuseWith(
  socket: Duplex,
  status: number,
  payload: { error: string; detail: string; code: string },
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(payload);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  // Not a static import of node:http: its ESM wrapper reads every export, and the lazy ones load
  // the whole fetch implementation at start-up (see create-agent-server.ts).
  const reason = process.getBuiltinModule("node:http").STATUS_CODES[status] ?? "Error";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** Closes with a code and waits for the close handshake, terminating a peer that never answers. */
function closeAndWait(ws: WebSocket, code: number, reason: string): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), 2000);
    ws.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(code, reason);
  });
}
