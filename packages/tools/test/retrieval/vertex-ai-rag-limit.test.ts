import { afterEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { startLargeBodyServer, type LargeBodyServer } from "@agentkit/test-support/http-body-servers";
import { RetrievalError, VertexAiRagRetrieval } from "../../src/retrieval/index.js";

const MiB = 1024 * 1024;
const corpus = "projects/p1/locations/europe-west4/ragCorpora/42";

let server: LargeBodyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each([
  ["chunked", false],
  ["with Content-Length", true],
])("A retrieveContexts answer over maxResponseBytes (%s)", (_, contentLength) => {
  it("is a RetrievalError, and its body is cancelled, not read to the end", async () => {
    // Valid JSON with no passages: read whole, it would answer { results: [] }.
    server = await startLargeBodyServer({
      prefix: '{"contexts":{"contexts":[]},"pad":"',
      fillBytes: 32 * MiB,
      suffix: '"}',
      contentLength,
    });
    const rag = new VertexAiRagRetrieval({ ragCorpora: [corpus], endpoint: server.url, maxResponseBytes: 64 * 1024 });
    const error = await rag.retrieve("q").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetrievalError);
    expect((error as Error).message).toBe(`The RAG endpoint's answer exceeded ${64 * 1024} bytes.`);
    expect(await server.lastAnswer()).toBe("closed early");
  });
});

describe("VertexAiRagRetrieval maxResponseBytes", () => {
  it("defaults to 10 MiB", async () => {
    server = await startLargeBodyServer({ prefix: '{"pad":"', fillBytes: 32 * MiB, suffix: '"}' });
    const rag = new VertexAiRagRetrieval({ ragCorpora: [corpus], endpoint: server.url });
    await expect(rag.retrieve("q")).rejects.toThrow(`exceeded ${10 * MiB} bytes`);
    expect(await server.lastAnswer()).toBe("closed early");
  });

  it("is validated like the other options", () => {
    expect(() => new VertexAiRagRetrieval({ ragCorpora: [corpus], maxResponseBytes: -1 })).toThrow(ConfigurationError);
    expect(() => new VertexAiRagRetrieval({ ragCorpora: [corpus], maxResponseBytes: -1 })).toThrow(
      /maxResponseBytes: Too small/,
    );
  });
});
