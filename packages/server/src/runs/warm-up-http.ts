import type { Agent, IncomingMessage } from "node:http";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService } from "@agentkit/core";
import { createWarmUpAgent } from "@agentkit/core/internal";
import type { AgentServer, AgentServerOptions } from "../create-agent-server.js";
import { createStaticAgentLoader } from "../static-agent-loader.js";

const APP = "agentkit_warm_up";
const USER = "warm-up";
/**
 * Flows of the warm-up: the first compiles the code, the next ones fill in V8's type feedback.
 * Ten made a first real flow about a third cheaper than three did (`bench:first-flows`: 4.6
 * against 6.6 ms), for about 15 ms more of warm-up; 25 made the first flows dearer again (the
 * optimizing compiles they start finish during the first real requests).
 */
const FLOWS = 10;
/** Every request of the warm-up ends by then, answered or not (the private server answers at once). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Runs agent flows over loopback HTTP against a private server made by `create` (the
 * `createAgentServer` of the caller, so the same code) on the private warm-up agent and
 * in-memory services, then closes it: Node's HTTP code, the server's request chain, its routes
 * and the serialization of its answers run before a client's first request instead of during
 * it. Each flow is a session create and a `/run`; the last one also a `/run_sse`. The private
 * server listens on 127.0.0.1, on a port the system picks, for the length of the flows (tens of
 * milliseconds); it runs no user code and keeps nothing. Gives the number of requests answered;
 * throws when one is not answered as expected (the caller reports it, the server works anyway).
 */
export async function warmUpHttp(create: (options: AgentServerOptions) => AgentServer): Promise<number> {
  const sessionService = new InMemorySessionService();
  const server = create({
    loader: createStaticAgentLoader({ apps: { [APP]: createWarmUpAgent() } }),
    sessionService,
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "api",
    reduceMemoryWhenIdle: false,
    logger: { error: () => {}, warn: () => {}, info: () => {} },
  });
  // Not a static import (see node-http-server.ts): node:http's ESM wrapper loads fetch.
  const http = process.getBuiltinModule("node:http");
  // One kept-alive connection, as a client's: its first request opens it, the others reuse it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const client: Client = { http, agent, base: (await server.listen({ host: "127.0.0.1", port: 0 })).url };
    let requests = 0;
    for (let flow = 0; flow < FLOWS; flow += 1) {
      const sessionId = `warm-up-${flow}`;
      await post(client, `/apps/${APP}/users/${USER}/sessions`, { sessionId }, "application/json");
      const body = { appName: APP, userId: USER, sessionId, newMessage: { role: "user", parts: [{ text: "hi" }] } };
      await post(client, "/run", body, "application/json");
      requests += 2;
      if (flow === FLOWS - 1) {
        await post(client, "/run_sse", { ...body, streaming: false }, "text/event-stream");
        requests += 1;
      }
    }
    return requests;
  } finally {
    agent.destroy();
    await server.close();
    await sessionService.close();
  }
}

/** Where the warm-up's requests go, and through what. */
interface Client {
  readonly http: typeof import("node:http");
  readonly agent: Agent;
  /** The private server's URL. */
  readonly base: string;
}

/** POSTs `body` as JSON; resolves once the whole answer is read, when it is a 200 of `expectedType`. */
async function post(client: Client, path: string, body: unknown, expectedType: string): Promise<void> {
  const payload = JSON.stringify(body);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = client.http.request(
      `${client.base}${path}`,
      {
        method: "POST",
        agent: client.agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      },
      resolve,
    );
    request.once("error", reject);
    request.end(payload);
  });
  // Read to the end, so the connection is free for the next request.
  let text = "";
  response.setEncoding("utf8");
  for await (const chunk of response) text += chunk as string;
  const type = response.headers["content-type"] ?? "";
  if (response.statusCode !== 200 || !type.startsWith(expectedType) || text.length === 0)
    throw new Error(`POST ${path} answered ${response.statusCode} (${type || "no content type"})`);
}
