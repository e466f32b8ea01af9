// The shared conformance suite on ProxyModel (each wire format, through a gateway header) and on
// an `ollama/…` model resolved by the default registry.
import { runModelConformance } from "./run-model-conformance.js";
import { anthropicTarget, geminiTarget, openAIChatTarget } from "./providers.js";
import { ProxyModel } from "../../src/proxy/index.js";
import { createModelRegistry } from "../../src/index.js";
import type { RecordedRequest } from "../fixtures/scripted-http-server.js";

const GATEWAY_HEADERS = { "x-gateway-key": "gk-conformance" };

/** Every request carried the gateway header and went to the wire format's endpoint. */
function expectGatewayRequests(path: RegExp) {
  return (requests: RecordedRequest[]): void => {
    if (requests.length === 0) throw new Error("the scenario sent no request");
    for (const request of requests) {
      if (request.headers["x-gateway-key"] !== "gk-conformance") {
        throw new Error(`request to ${request.path} lacks the gateway header: ${JSON.stringify(request.headers)}`);
      }
      if (!path.test(request.path)) throw new Error(`unexpected request path ${request.path}`);
    }
  };
}

runModelConformance("ProxyModel (openai wire format)", () =>
  openAIChatTarget({
    makeModel: (baseURL) =>
      new ProxyModel({ model: "gw-model", baseURL, wireFormat: "openai", headers: GATEWAY_HEADERS }),
    verify: expectGatewayRequests(/^\/v1\/chat\/completions$/),
  }),
);

runModelConformance("ProxyModel (anthropic wire format)", () =>
  anthropicTarget({
    makeModel: (baseURL) =>
      new ProxyModel({ model: "gw-model", baseURL, wireFormat: "anthropic", headers: GATEWAY_HEADERS }),
    verify: expectGatewayRequests(/^\/v1\/messages$/),
  }),
);

runModelConformance("ProxyModel (gemini wire format)", () =>
  geminiTarget({
    makeModel: (baseURL) =>
      new ProxyModel({ model: "gw-model", baseURL, wireFormat: "gemini", headers: GATEWAY_HEADERS }),
    verify: expectGatewayRequests(/\/models\/gw-model:(streamGenerateContent|generateContent)/),
  }),
);

runModelConformance("ollama/… through createModelRegistry", () =>
  openAIChatTarget({
    // OLLAMA_HOST is read from the registry's env; retries off so the suite's RetryingModel is the only one.
    makeModel: (baseURL) =>
      createModelRegistry({ env: { OLLAMA_HOST: baseURL }, retry: false }).resolve("ollama/llama3.2"),
    verify: (requests) => {
      for (const request of requests) {
        if (request.path !== "/v1/chat/completions") throw new Error(`unexpected request path ${request.path}`);
        if (request.body.model !== "llama3.2")
          throw new Error(`the prefix was not stripped: ${String(request.body.model)}`);
      }
    },
  }),
);
