import { afterEach, describe, expect, it } from "@jest/globals";
import { startLargeBodyServer, type LargeBodyServer } from "@agentkit/test-support/http-body-servers";
import { A2A_PROTOCOL_VERSION } from "@a2a-js/sdk";
import { AgentCardResolutionError, RemoteA2aAgent } from "../src/index.js";

const MiB = 1024 * 1024;

// A valid card whose description is 32 MiB: read whole, it would resolve.
const cardStart = JSON.stringify({
  name: "big",
  version: "1.0.0",
  supportedInterfaces: [
    { url: "http://127.0.0.1:9/a2a", protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
  ],
  capabilities: { streaming: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
  description: "",
}).slice(0, -2);

let server: LargeBodyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each([
  ["chunked", false],
  ["with Content-Length", true],
])("An agent card over 1 MiB (%s)", (_, contentLength) => {
  it("is an AgentCardResolutionError, and its body is cancelled, not read to the end", async () => {
    server = await startLargeBodyServer({ prefix: cardStart, fillBytes: 32 * MiB, suffix: '"}', contentLength });
    const url = `${server.url}/agent-card.json`;
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: url });
    const error = await agent.getAgentCard().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentCardResolutionError);
    expect((error as Error).message).toBe(`The agent card at ${url} exceeded ${MiB} bytes.`);
    expect(await server.lastAnswer()).toBe("closed early");
  });
});
