import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { RequestHandler } from "express";

const REFUSAL_BODY = JSON.stringify({
  error: "Too many open connections from this address; close some and retry.",
  detail: "Too many open connections from this address; close some and retry.",
  code: "TOO_MANY_CONNECTIONS",
});
const REFUSAL =
  "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n" +
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n\r\n${REFUSAL_BODY}`;

/**
 * Caps the open connections of one client address on a server. A connection past the cap is
 * answered 429 (`Retry-After`, `Connection: close`) and closed without its request reaching
 * the app; the counts follow sockets as they close. Behind a reverse proxy every client has
 * the proxy's address: raise the cap or turn it off (0) there.
 */
export class ConnectionLimiter {
  private readonly open = new Map<string, number>();
  private readonly refused = new WeakSet<Socket>();

  constructor(private readonly maxPerClient: number) {}

  /** Open connections counted, over every address. */
  get total(): number {
    let sum = 0;
    for (const count of this.open.values()) sum += count;
    return sum;
  }

  /** Starts counting the connections of `server` (before Node's own connection handling). */
  attach(server: Server): void {
    if (this.maxPerClient <= 0) return;
    server.prependListener("connection", (socket: Socket) => {
      const address = socket.remoteAddress;
      if (address === undefined) return;
      const count = (this.open.get(address) ?? 0) + 1;
      if (count > this.maxPerClient) {
        this.refused.add(socket);
        socket.on("error", () => socket.destroy());
        socket.end(REFUSAL);
        return;
      }
      this.open.set(address, count);
      socket.once("close", () => {
        const left = (this.open.get(address) ?? 1) - 1;
        if (left <= 0) this.open.delete(address);
        else this.open.set(address, left);
      });
    });
  }

  /** True for a connection this limiter refused (its requests and upgrades are dropped). */
  isRefused(socket: Socket | Duplex): boolean {
    return this.refused.has(socket as Socket);
  }

  /** First middleware: a request that arrived on a refused connection never reaches the app. */
  readonly guard: RequestHandler = (req, _res, next) => {
    if (this.refused.has(req.socket)) return void req.socket.destroy();
    next();
  };
}
