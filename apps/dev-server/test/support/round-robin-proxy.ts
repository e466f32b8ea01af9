// A small load balancer for tests: HTTP requests and WebSocket upgrades go round-robin to the
// backends in rotation, each request on its own. It counts what each backend has in flight, so a
// test can wait for a condition ("two runs in flight on replica a") instead of for time.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";

export interface ProxyBackend {
  name: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
}

export class RoundRobinProxy {
  private readonly rotation: ProxyBackend[] = [];
  private readonly flying = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private readonly clientSockets = new Set<Socket>();
  private readonly upstreamSockets = new Set<Duplex>();
  private next = 0;
  /** Requests and tunnels sent to each backend. */
  readonly served = new Map<string, number>();
  /** Requests answered 502: no backend in rotation, or it refused or cut the connection before answering. */
  badGateway = 0;

  private constructor(private readonly server: Server) {}

  static async start(backends: readonly ProxyBackend[]): Promise<RoundRobinProxy> {
    const server = createServer();
    const proxy = new RoundRobinProxy(server);
    for (const b of backends) proxy.add(b);
    server.on("request", (req, res) => proxy.forward(req, res));
    server.on("upgrade", (req, socket, head) => proxy.tunnel(req, socket, head));
    server.on("connection", (socket) => {
      proxy.clientSockets.add(socket);
      socket.once("close", () => proxy.clientSockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === "string") throw new Error("the proxy is not listening");
    return `http://127.0.0.1:${address.port}`;
  }

  add(backend: ProxyBackend): void {
    this.rotation.push(backend);
  }

  /** Takes a backend out of rotation: new requests go to the others; requests in flight go on. */
  remove(name: string): void {
    const i = this.rotation.findIndex((b) => b.name === name);
    if (i >= 0) this.rotation.splice(i, 1);
  }

  /** HTTP requests without a complete response, plus open tunnels, on one backend. */
  inFlight(name: string): number {
    return this.flying.get(name) ?? 0;
  }

  /** Calls `listener` whenever a count changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops listening and cuts every connection, client and upstream. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.clientSockets) s.destroy();
    for (const s of this.upstreamSockets) s.destroy();
    await closed;
  }

  private pick(): ProxyBackend | undefined {
    if (this.rotation.length === 0) return undefined;
    const backend = this.rotation[this.next % this.rotation.length]!;
    this.next += 1;
    return backend;
  }

  /** Counts one exchange on `name` until the returned function is called (once). */
  private track(name: string): () => void {
    this.served.set(name, (this.served.get(name) ?? 0) + 1);
    this.bump(name, 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.bump(name, -1);
    };
  }

  private bump(name: string, by: number): void {
    this.flying.set(name, this.inFlight(name) + by);
    for (const l of this.listeners) l();
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const backend = this.pick();
    if (!backend) return void this.refuse(res);
    const done = this.track(backend.name);
    const target = new URL(backend.url);
    const upstream = request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent: false,
    });
    upstream.on("socket", (s) => {
      this.upstreamSockets.add(s);
      s.once("close", () => this.upstreamSockets.delete(s));
    });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      // A response cut by the backend (it died mid-stream) is cut for the client too.
      answer.once("close", () => {
        if (!answer.complete) res.destroy();
        done();
      });
    });
    upstream.on("error", () => {
      done();
      if (!res.headersSent) this.refuse(res);
      else res.destroy();
    });
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  private refuse(res: ServerResponse): void {
    this.badGateway += 1;
    const body = JSON.stringify({ error: "Bad gateway", code: "BAD_GATEWAY" });
    res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }

  /** WebSocket upgrades: the request head is replayed to the backend, then bytes flow both ways. */
  private tunnel(req: IncomingMessage, client: Duplex, head: Buffer): void {
    const backend = this.pick();
    if (!backend) {
      this.badGateway += 1;
      client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    const done = this.track(backend.name);
    const target = new URL(backend.url);
    const upstream = connect(Number(target.port), target.hostname);
    this.upstreamSockets.add(upstream);
    let connected = false;
    const finish = () => {
      done();
      this.upstreamSockets.delete(upstream);
      upstream.destroy();
      client.destroy();
    };
    upstream.once("connect", () => {
      connected = true;
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", () => {
      if (!connected && !client.destroyed) {
        this.badGateway += 1;
        client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      }
    });
    upstream.once("close", finish);
    client.once("close", finish);
    client.on("error", () => client.destroy());
  }
}
