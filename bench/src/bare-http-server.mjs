// The baseline of the HTTP benchmarks: a bare node:http server doing the HTTP part of an agent
// flow and nothing else. It reads each request body (and parses /run's JSON, as any server
// must), then answers a fixed JSON body of the agent server's shape: a session for
// `POST /apps/.../sessions`, three events for `POST /run`.
// Plain JavaScript on Node's built-ins, so nothing but Node starts: the cold-start benchmark
// spawns it as `node bench/src/bare-http-server.mjs --port 0` and waits for the banner.
import { createServer } from "node:http";

const SESSION = JSON.stringify({
  id: "00000000-0000-4000-8000-000000000000",
  appName: "bench",
  userId: "u",
  state: {},
  events: [],
  lastUpdateTime: 0,
});
const ANSWER = JSON.stringify(
  [
    { content: { role: "model", parts: [{ functionCall: { id: "c1", name: "lookup", args: { q: "x" } } }] } },
    {
      content: {
        role: "user",
        parts: [{ functionResponse: { id: "c1", name: "lookup", response: { q: "x", value: 42 } } }],
      },
    },
    { content: { role: "model", parts: [{ text: "The answer is 42." }] } },
  ].map((e, i) => ({
    id: `e${i}`,
    invocationId: "e-1",
    author: "bench_agent",
    actions: { stateDelta: {}, artifactDelta: {} },
    timestamp: 0,
    ...e,
  })),
);

/**
 * Listens on 127.0.0.1 (`port` 0: any free port) and resolves with the server and its URL.
 * @param {number} [port]
 * @returns {Promise<{ server: import("node:http").Server; url: string }>}
 */
export async function startBareHttpServer(port = 0) {
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const run = req.url === "/run";
      if (run) JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const body = run ? ANSWER : SESSION;
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("bare server: no TCP address");
  return { server, url: `http://127.0.0.1:${address.port}` };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--port");
  const { server, url } = await startBareHttpServer(at >= 0 ? Number(process.argv[at + 1]) : 0);
  process.stdout.write(`bare node:http server on ${url}\n`);
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}
