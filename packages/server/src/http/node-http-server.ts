import type { RequestListener, Server } from "node:http";
import type { ResolvedServerLimits } from "./server-limits.js";

/**
 * Node's HTTP server for `listener`, with the limits' header, request and keep-alive deadlines,
 * checked often enough to hold, and a plain answer to a request Node could not read.
 */
export function createNodeHttpServer(limits: ResolvedServerLimits, listener: RequestListener): Server {
  // Not a static `import … from "node:http"`: Node's ESM wrapper of a built-in reads every
  // export, and node:http's lazy ones load the whole fetch implementation (~50 ms of start-up).
  const http = process.getBuiltinModule("node:http").createServer(httpServerOptions(limits), listener);
  http.headersTimeout = limits.headersTimeoutMs;
  http.requestTimeout = limits.requestTimeoutMs;
  http.keepAliveTimeout = limits.keepAliveTimeoutMs;
  http.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(clientErrorResponse(error.code));
    else socket.destroy();
  });
  return http;
}

/** What a connection whose request Node could not read is told before it is closed. */
function clientErrorResponse(code: string | undefined): string {
  const [status, text] =
    code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request Timeout"]
      : code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large"]
        : [400, "Bad Request"];
  return `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n\r\n`;
}

/**
 * Node checks header and request deadlines every `connectionsCheckingInterval` (30 s by
 * default, which would let a slow client overrun them by as much): check at a quarter of the
 * shortest one, at most every second.
 */
function httpServerOptions(limits: ResolvedServerLimits): { connectionsCheckingInterval: number } {
  const deadlines = [limits.headersTimeoutMs, limits.requestTimeoutMs].filter((ms) => ms > 0);
  const shortest = deadlines.length > 0 ? Math.min(...deadlines) : 4000;
  return { connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(shortest / 4))) };
}
