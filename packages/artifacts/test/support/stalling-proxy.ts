import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy in front of the test S3 server that can make it stall, the way a hung endpoint
 * does: the connection stays open and nothing more arrives. Requests are told apart by their
 * first line (`PUT /bucket/key …`); requests on a kept-alive connection follow one another, so
 * each new one starts a fresh chunk from the client.
 *
 * - `request`: the matching request is swallowed and never answered.
 * - `body`: the request is forwarded, the response headers and a few body bytes come back, then
 *   nothing (a download that hangs mid-body).
 */
export interface StallingProxy {
  endpoint: string;
  /** Stall the requests whose first line matches, from now on; `undefined` forwards everything. */
  stall(rule: { requestLine: RegExp; at: "request" | "body" } | undefined): void;
  /** How many requests were stalled. */
  readonly stalled: number;
  close(): Promise<void>;
}

export async function startStallingProxy(upstream: string): Promise<StallingProxy> {
  const target = new URL(upstream);
  let rule: { requestLine: RegExp; at: "request" | "body" } | undefined;
  let stalled = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  const server: Server = createServer((client) => {
    track(client);
    const upstreamSocket = connect(Number(target.port), target.hostname);
    track(upstreamSocket);
    /** Once set, this connection forwards nothing more (the hung endpoint). */
    let hung = false;
    /** The current request's response is to hang after its headers. */
    let stallBody = false;
    let seen = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      if (hung) return;
      const line = chunk.subarray(0, Math.max(0, chunk.indexOf("\r\n"))).toString("latin1");
      if (rule?.requestLine.test(line)) {
        stalled++;
        if (rule.at === "request") {
          hung = true;
          return;
        }
        stallBody = true;
        seen = Buffer.alloc(0);
      }
      upstreamSocket.write(chunk);
    });
    upstreamSocket.on("data", (chunk: Buffer) => {
      if (hung) return;
      if (!stallBody) {
        client.write(chunk);
        return;
      }
      // Let the headers and 16 body bytes through, then hang.
      seen = Buffer.concat([seen, chunk]);
      const headersEnd = seen.indexOf("\r\n\r\n");
      if (headersEnd < 0) return;
      client.write(seen.subarray(0, headersEnd + 4 + 16));
      hung = true;
    });
    client.on("close", () => upstreamSocket.destroy());
    upstreamSocket.on("close", () => {
      if (!hung) client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stall(next) {
      rule = next;
    },
    get stalled() {
      return stalled;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
