import {
  FunctionTool,
  InMemorySessionService,
  Runner,
  USAGE_METADATA_KEY,
  type App,
  type BaseAgent,
  type Budget,
  type Event,
  type LlmResponse,
  type ModelPrice,
  type UsageMetadata,
  type UsageSnapshot,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

/** A clock the tests move by hand. */
export class FakeClock {
  ms = 1_000_000;
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export const usage = (prompt: number, candidates: number, extra: Partial<UsageMetadata> = {}): UsageMetadata => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: prompt + candidates + (extra.thoughtsTokenCount ?? 0) + (extra.toolUsePromptTokenCount ?? 0),
  ...extra,
});

export const text = (value: string, usageMetadata?: UsageMetadata, extra: Partial<LlmResponse> = {}): LlmResponse =>
  ScriptedModel.text(value, { ...(usageMetadata ? { usageMetadata } : {}), ...extra });

export const call = (
  name: string,
  usageMetadata?: UsageMetadata,
  args: Record<string, unknown> = {},
  id = `c-${name}`,
): LlmResponse => ({
  ...ScriptedModel.functionCall(name, args, id),
  ...(usageMetadata ? { usageMetadata } : {}),
});

/** A tool that moves the clock, so durations are known without waiting. */
export function clockTool(clock: FakeClock, name = "work", ms = 250): FunctionTool {
  return new FunctionTool({
    name,
    description: "does some work",
    execute: () => {
      clock.advance(ms);
      return { done: true };
    },
  });
}

export const PRICES: Record<string, ModelPrice> = {
  "scripted-model": { inputPerMillion: 2, outputPerMillion: 10, cachedInputPerMillion: 0.5 },
};

export function makeRunner(
  options:
    | { agent: BaseAgent; budget?: Budget; prices?: Record<string, ModelPrice>; clock?: FakeClock }
    | { app: App; clock?: FakeClock },
  sessionService = new InMemorySessionService(),
): Runner {
  const now = options.clock?.now;
  if ("app" in options) return new Runner({ app: options.app, sessionService, ...(now ? { now } : {}) });
  return new Runner({
    appName: "usage_app",
    agent: options.agent,
    sessionService,
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
    ...(now ? { now } : {}),
  });
}

export async function newSession(runner: Runner, sessionId = "s1"): Promise<void> {
  await runner.sessionService.createSession({ appName: runner.appName, userId: "u", sessionId });
}

/** Runs to the end; a thrown error is returned with the events seen before it. */
export async function run(
  runner: Runner,
  message: string,
  extra: { sessionId?: string; runConfig?: Parameters<Runner["runAsync"]>[0]["runConfig"] } = {},
): Promise<{ events: Event[]; error?: unknown }> {
  const events: Event[] = [];
  try {
    for await (const event of runner.runAsync({
      userId: "u",
      sessionId: extra.sessionId ?? "s1",
      newMessage: message,
      ...(extra.runConfig ? { runConfig: extra.runConfig } : {}),
    }))
      events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

export const usageOf = (event: Event | undefined): UsageSnapshot | undefined =>
  event?.customMetadata?.[USAGE_METADATA_KEY] as UsageSnapshot | undefined;

export async function storedEvents(runner: Runner, sessionId = "s1"): Promise<Event[]> {
  const session = await runner.sessionService.getSession({ appName: runner.appName, userId: "u", sessionId });
  return session!.events;
}
