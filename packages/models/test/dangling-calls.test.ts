// An interrupted run leaves a tool call without a response; OpenAI, Anthropic and Gemini refuse
// a request carrying one (the fake servers apply the same rules, see tool-pairing-rules.ts).
// Every adapter must keep working on such a session, and on one with a paused long-running call.
import { afterEach, describe, expect, it } from "@jest/globals";
import {
  createEvent,
  type BaseLlm,
  FunctionTool,
  getTextOf,
  InMemoryRunner,
  LlmAgent,
  LongRunningFunctionTool,
  type Event,
} from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { Gemini } from "../src/gemini/index.js";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeAnthropicServer, message as anthropicMessage } from "./fixtures/anthropic-server.js";
import { candidateResponse, FakeGeminiServer } from "./fixtures/gemini-server.js";
import { completion, FakeOpenAIServer } from "./fixtures/openai-server.js";

interface Provider {
  name: string;
  start(): Promise<{
    model: BaseLlm;
    replyText(text: string): void;
    lastBody(): Record<string, unknown>;
    close(): Promise<void>;
  }>;
}

const PROVIDERS: Provider[] = [
  {
    name: "OpenAI chat completions",
    async start() {
      const server = new FakeOpenAIServer();
      const model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: await server.start() });
      return {
        model,
        replyText: (text) => server.reply({ kind: "json", body: completion({ content: text }) }),
        lastBody: () => server.lastBody,
        close: async () => {
          await model.close();
          await server.close();
        },
      };
    },
  },
  {
    name: "OpenAI Responses API",
    async start() {
      const server = new FakeOpenAIServer();
      const model = new OpenAIModel({
        model: "gpt-4.1",
        apiKey: "sk-test",
        baseURL: await server.start(),
        api: "responses",
      });
      return {
        model,
        replyText: (text) =>
          server.reply({
            kind: "json",
            body: {
              id: "resp_1",
              object: "response",
              created_at: 1_700_000_000,
              status: "completed",
              model: "gpt-4.1",
              output: [
                {
                  type: "message",
                  id: "msg_1",
                  role: "assistant",
                  status: "completed",
                  content: [{ type: "output_text", text, annotations: [] }],
                },
              ],
              usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
              error: null,
              incomplete_details: null,
            },
          }),
        lastBody: () => server.lastBody,
        close: async () => {
          await model.close();
          await server.close();
        },
      };
    },
  },
  {
    name: "Anthropic",
    async start() {
      const server = new FakeAnthropicServer();
      const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL: await server.start() });
      return {
        model,
        replyText: (text) => server.reply({ kind: "json", body: anthropicMessage([{ type: "text", text }]) }),
        lastBody: () => server.lastBody,
        close: async () => {
          await model.close?.();
          await server.close();
        },
      };
    },
  },
  {
    name: "Gemini",
    async start() {
      const server = new FakeGeminiServer();
      const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl: await server.start() });
      return {
        model,
        replyText: (text) => server.reply({ kind: "json", body: candidateResponse([{ text }]) }),
        lastBody: () => server.lastBody,
        close: async () => {
          await model.close?.();
          await server.close();
        },
      };
    },
  },
];

const tools = () => [
  new FunctionTool({ name: "lookup", description: "Looks something up.", execute: () => ({ found: true }) }),
  new LongRunningFunctionTool({ name: "start_job", description: "Starts a job.", execute: () => undefined }),
];

async function runText(runner: InMemoryRunner, sessionId: string, text: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of runner.runAsync({ userId: "u", sessionId, newMessage: text })) events.push(event);
  return events;
}

describe.each(PROVIDERS)("$name on a session with an unanswered call", (provider) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("answers after a run was killed between a call and its response", async () => {
    const p = await provider.start();
    close = p.close;
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "helper", model: p.model, tools: tools() }),
      appName: "app",
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    // What a killed process leaves: the user's message and the model's call, no response.
    await runner.sessionService.appendEvent({
      session,
      event: createEvent({
        invocationId: "e-killed",
        author: "user",
        content: { role: "user", parts: [{ text: "look it up" }] },
      }),
    });
    await runner.sessionService.appendEvent({
      session,
      event: createEvent({
        invocationId: "e-killed",
        author: "helper",
        content: { role: "model", parts: [{ functionCall: { id: "call_1", name: "lookup", args: {} } }] },
      }),
    });
    p.replyText("Sorry, that lookup was interrupted.");
    const events = await runText(runner, session.id, "still there?");
    expect(getTextOf(events.at(-1)!.content)).toBe("Sorry, that lookup was interrupted.");
    expect(JSON.stringify(p.lastBody())).toContain("interrupted before it returned");
    await runner.close();
  });

  it("answers a new message while a long-running call is still pending", async () => {
    const p = await provider.start();
    close = p.close;
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "helper", model: p.model, tools: tools() }),
      appName: "app",
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    await runner.sessionService.appendEvent({
      session,
      event: createEvent({
        invocationId: "e-1",
        author: "user",
        content: { role: "user", parts: [{ text: "start it" }] },
      }),
    });
    await runner.sessionService.appendEvent({
      session,
      event: createEvent({
        invocationId: "e-1",
        author: "helper",
        content: { role: "model", parts: [{ functionCall: { id: "job_1", name: "start_job", args: {} } }] },
        longRunningToolIds: ["job_1"],
      }),
    });
    p.replyText("The job is still running.");
    const events = await runText(runner, session.id, "how is the job?");
    expect(getTextOf(events.at(-1)!.content)).toBe("The job is still running.");
    expect(JSON.stringify(p.lastBody())).toContain("has not returned yet");
    await runner.close();
  });
});
