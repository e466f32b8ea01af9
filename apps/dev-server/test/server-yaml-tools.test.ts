// A YAML root_agent.yaml naming a built-in tool by name (`google_search`, from
// @agentkit/tools' createBuiltInTools(), which the dev server gives its loader), run through the
// real `agentkit api-server` process over HTTP. The models are offline: they answer with what
// the request they received declared, so the client sees the tool declaration.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { sendRun, startCli, tempAgentsDir, type CliProcess } from "./support/cli-process.js";

const agents = tempAgentsDir("agentkit-yaml-tools-");
const write = agents.write;
let cli: CliProcess | undefined;
let url = "";

/** A model named `name` whose answer is the JSON of the model name and tools of its request. */
const echoRequestModel = (name: string) => `import { BaseLlm, type LlmRequest, type LlmResponse } from "@agentkit/core";
class EchoRequestModel extends BaseLlm {
  constructor() { super({ model: ${JSON.stringify(name)} }); }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const text = JSON.stringify({ model: request.model, tools: request.config.tools ?? [] });
    yield { content: { role: "model", parts: [{ text }] } };
  }
}
export const model = new EchoRequestModel();
`;
const searchAgent = (name: string) =>
  `name: ${name}\nmodel_code: ./model.ts#model\ninstruction: Search the web when asked.\ntools:\n  - google_search\n`;

beforeAll(async () => {
  write("on_gemini/root_agent.yaml", searchAgent("searcher"));
  write("on_gemini/model.ts", echoRequestModel("gemini-2.5-flash"));
  write("on_other/root_agent.yaml", searchAgent("other_searcher"));
  write("on_other/model.ts", echoRequestModel("echo-model"));
  cli = startCli(
    [
      "api-server",
      agents.dir,
      "--port",
      "0",
      "--session-service-uri",
      "memory://",
      "--artifact-service-uri",
      "memory://",
    ],
    { AGENTKIT_LOG_LEVEL: "warn" },
  );
  url = await cli.listening();
});

afterAll(async () => {
  await cli?.stop();
  agents.remove();
});

const run = (app: string, route: "/run" | "/run_sse"): Promise<Response> =>
  sendRun(url, app, { route, text: "find agentkit" });

describe("YAML config naming the built-in google_search tool", () => {
  it("a Gemini model's request carries the native googleSearch tool declaration", async () => {
    const res = await run("on_gemini", "/run");
    expect(res.status).toBe(200);
    const events = (await res.json()) as { author: string; content: { parts: { text: string }[] } }[];
    expect(events).toHaveLength(1);
    expect(events[0]!.author).toBe("searcher");
    expect(JSON.parse(events[0]!.content.parts[0]!.text)).toEqual({
      model: "gemini-2.5-flash",
      tools: [{ googleSearch: {} }],
    });
    // The structure view lists the tool by its name.
    const graph = (await (await fetch(`${url}/dev/apps/on_gemini/build_graph`)).json()) as {
      root_agent: { tools?: { name: string }[] };
    };
    expect(graph.root_agent.tools?.map((t) => t.name)).toEqual(["google_search"]);
  });

  it("a non-Gemini model gets the documented ConfigurationError, as a JSON error on /run and an error frame on /run_sse", async () => {
    const res = await run("on_other", "/run");
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.code).toBe("CONFIGURATION_ERROR");
    expect(body.error).toBe(
      'google_search is a Gemini built-in tool and the model "echo-model" is not a Gemini model. Use a Gemini model, ' +
        "give GoogleSearchTool a Gemini `fallbackModel`, or add a GoogleSearchAgentTool (a Gemini sub-agent with " +
        "search that any model can call as a function).",
    );
    const sse = await run("on_other", "/run_sse");
    expect(sse.status).toBe(200);
    const text = await sse.text();
    expect(text).toMatch(
      /^data: \{"error":"google_search is a Gemini built-in tool and the model \\"echo-model\\" is not a Gemini model\./,
    );
    expect(text.endsWith("\n\n")).toBe(true);
    expect(cli!.child.exitCode).toBeNull();
  });
});
