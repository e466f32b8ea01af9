import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  App,
  FunctionNode,
  FunctionTool,
  getFunctionCalls,
  InMemoryRunner,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  SequentialAgent,
  Workflow,
  type AuthConfig,
  type BaseAgent,
  type Content,
  type Event,
  type FunctionCall,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { outputs } from "./helpers.js";

// A credential request (`adk_request_credential`) is one more pause kind: inside a resumable
// workflow the answer continues the node that asked and then its parents, like a confirmation.

const apiKeyConfig: AuthConfig = { authScheme: { type: "apiKey", name: "x-api-key", in: "header" } };

/** A tool that needs an API key: asks for it when it has none, then reports which key it used. */
function weatherTool(counter: { runs: number; withKey: number }) {
  return new FunctionTool({
    name: "weather",
    description: "Reads the weather with the user's API key.",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, context) => {
      counter.runs++;
      const credential = await context.getCredential(apiKeyConfig);
      if (!credential?.apiKey) {
        context.requestCredential(apiKeyConfig);
        return { status: "waiting for an API key" };
      }
      counter.withKey++;
      return { city, sky: "clear", key: credential.apiKey.slice(0, 3) };
    },
  });
}

async function resumableApp(rootAgent: BaseAgent) {
  const runner = new InMemoryRunner({ app: new App({ name: "app", rootAgent, resumability: { isResumable: true } }) });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const send = async (newMessage: string | Content) => {
    const out: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage })) out.push(e);
    return out;
  };
  return { runner, send };
}

function credentialRequest(events: Event[]): FunctionCall {
  const call = events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
  if (!call) throw new Error("no credential request");
  return call;
}

/** What a client sends: the request's authConfig with the key filled in. */
function keyAnswer(request: FunctionCall, apiKey: string): Content {
  const authConfig = structuredClone((request.args as { authConfig: AuthConfig }).authConfig);
  authConfig.exchangedAuthCredential = { authType: "apiKey", apiKey };
  const response = authConfig as unknown as Record<string, unknown>;
  return {
    role: "user",
    parts: [{ functionResponse: { id: request.id, name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME, response } }],
  };
}

describe("credential requests in resumable workflows", () => {
  it("a tool node asks for a key; answered, the tool runs again with it and the graph goes on", async () => {
    const counter = { runs: 0, withKey: 0 };
    const city = new FunctionNode("city", () => ({ city: "Oslo" }));
    const report = new FunctionNode("report", (_c, r: { sky: string; key: string }) => `${r.sky} (${r.key})`);
    const app = await resumableApp(new Workflow({ name: "w", edges: [["START", city, weatherTool(counter), report]] }));
    const first = await app.send("go");
    const request = credentialRequest(first);
    expect(outputs(first)).toEqual([["city", { city: "Oslo" }]]);
    // The interim answer ("waiting") is not the node's output: the graph waits.
    expect(first.some((e) => e.author === "report")).toBe(false);

    const second = await app.send(keyAnswer(request, "abc-secret"));
    expect(counter).toEqual({ runs: 2, withKey: 1 });
    expect(outputs(second)).toEqual([
      ["weather", { city: "Oslo", sky: "clear", key: "abc" }],
      ["report", "clear (abc)"],
    ]);
    // The key is in the credential service, not in the session's events.
    expect(JSON.stringify(second)).not.toContain("abc-secret");
  });

  it("a tool node whose answer carries no key answers the call with an error, which becomes its output", async () => {
    const counter = { runs: 0, withKey: 0 };
    const app = await resumableApp(new Workflow({ name: "w", edges: [["START", weatherTool(counter)]] }));
    const request = credentialRequest(await app.send('{"city":"Oslo"}'));
    const empty: Content = {
      role: "user",
      parts: [{ functionResponse: { id: request.id, name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME, response: {} } }],
    };
    const second = await app.send(empty);
    expect(counter.runs).toBe(1);
    const [first] = outputs(second) as [string, { error: string }][];
    expect(first?.[0]).toBe("weather");
    const output = first![1];
    expect(output.error).toMatch(/Authorization failed \(AUTH_RESPONSE_INVALID\)/);
  });

  it("an LLM agent in a SequentialAgent asks for a key; the answer continues the agent, then the next one", async () => {
    const counter = { runs: 0, withKey: 0 };
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("weather", { city: "Oslo" }, "c1"), ScriptedModel.text("It is clear.")],
    });
    let afterRuns = 0;
    const after = new LlmAgent({
      name: "after",
      model: new ScriptedModel({
        steps: [
          () => {
            afterRuns++;
            return ScriptedModel.text("noted");
          },
        ],
      }),
    });
    const app = await resumableApp(
      new SequentialAgent({
        name: "seq",
        subAgents: [new LlmAgent({ name: "forecaster", model, tools: [weatherTool(counter)] }), after],
      }),
    );
    const first = await app.send("weather in Oslo?");
    expect(afterRuns).toBe(0);
    const second = await app.send(keyAnswer(credentialRequest(first), "xyz-secret"));
    expect(counter).toEqual({ runs: 2, withKey: 1 });
    const texts = second.filter((e) => e.content?.parts?.[0]?.text).map((e) => [e.author, e.content!.parts![0]!.text]);
    expect(texts).toEqual([
      ["forecaster", "It is clear."],
      ["after", "noted"],
    ]);
    expect(afterRuns).toBe(1);
  });
});
