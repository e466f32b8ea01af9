import {
  AgentKitError,
  App,
  BasePlugin,
  contentFromJson,
  eventToJson,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  Runner,
  type Content,
  type LlmResponse,
  type ModelRegistry,
  type BeforeModelHookArgs,
} from "@agentkit/core";
import type { LoadedApp } from "../agent-loader.js";
import { normalizeTestEvents, type JsonObject } from "./normalize-test-events.js";

/**
 * An agent test (http-api.md 4.11) is a saved session, `{"events": [...]}`: the user's
 * messages and what the agents answered. Replaying it sends the same user messages to the
 * app with every model call answered by the recorded model responses, in order (tools run
 * for real), and compares the events produced with the recorded ones, ids and timing aside.
 * Rebuilding runs the user messages against the app's real models and records the result.
 */

/** The test file is not a usable session recording, or the replay ran out of recorded answers. */
export class AgentTestError extends AgentKitError {
  constructor(message: string) {
    super("AGENT_TEST_INVALID", message);
  }
}

export interface ReplayOutcome {
  passed: boolean;
  /** Event count compared, or why the test failed. */
  detail: string;
}

const TEST_USER = "test_user";
const FRAMEWORK_CALLS = new Set(["adk_request_confirmation", "adk_request_credential", "adk_request_input"]);

/** Replays one test's session data against the app; never throws for a failing test. */
export async function replayAgentTest(
  loaded: LoadedApp,
  sessionData: unknown,
  modelRegistry?: ModelRegistry,
): Promise<ReplayOutcome> {
  try {
    const recorded = eventsOf(sessionData);
    const replies = recorded.filter(isModelReply).map((e) => contentFromJson(e.content));
    const actual = await runTurns(loaded, recorded, new ReplayModelPlugin(replies), modelRegistry);
    return compare(normalizeTestEvents(recorded), normalizeTestEvents(actual));
  } catch (error) {
    return { passed: false, detail: messageOf(error) };
  }
}

/** The replay's own error when a plugin wrapper carries it as the cause, else the error's message. */
function messageOf(error: unknown): string {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof AgentTestError) return e.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs the test's user messages against the app's real models; the new session data to save. */
export async function rebuildAgentTest(
  loaded: LoadedApp,
  sessionData: unknown,
  modelRegistry?: ModelRegistry,
): Promise<JsonObject> {
  const recorded = eventsOf(sessionData);
  const actual = await runTurns(loaded, recorded, undefined, modelRegistry);
  const { lastUpdateTime: _dropped, ...rest } = sessionData as JsonObject;
  return { ...rest, events: normalizeTestEvents(actual) };
}

function eventsOf(sessionData: unknown): JsonObject[] {
  const events = (sessionData as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length === 0)
    throw new AgentTestError("The test holds no events: save a session with at least one user message.");
  if (!events.every((e) => typeof e === "object" && e !== null && !Array.isArray(e)))
    throw new AgentTestError("Every event of the test must be a JSON object.");
  const typed = events as JsonObject[];
  if (!typed.some(userMessageOf)) throw new AgentTestError("The test holds no user message to replay.");
  return typed;
}

/** Sends every recorded user message in turn on a fresh in-memory session; returns all its events. */
async function runTurns(
  loaded: LoadedApp,
  recorded: JsonObject[],
  replay: ReplayModelPlugin | undefined,
  modelRegistry: ModelRegistry | undefined,
): Promise<JsonObject[]> {
  const runner = buildRunner(loaded, replay ? [replay] : [], modelRegistry);
  try {
    const session = await runner.sessionService.createSession({ appName: loaded.name, userId: TEST_USER });
    // Recorded function-call ids (in order) → the ids of this run, for the user's answers to them.
    const recordedCallIds = recorded.flatMap(functionCallIds);
    const idMap = new Map<string, string>();
    let seen = 0;
    for (const event of recorded) {
      const message = userMessageOf(event);
      if (!message) continue;
      const newMessage = contentFromJson(remapResponseIds(message, idMap));
      // State the client sent with the message (the run request's stateDelta) goes along again.
      const stateDelta = (event.actions as { stateDelta?: unknown } | undefined)?.stateDelta;
      const withState =
        typeof stateDelta === "object" && stateDelta !== null && Object.keys(stateDelta).length > 0
          ? { stateDelta: stateDelta as JsonObject }
          : {};
      for await (const produced of runner.runAsync({
        userId: TEST_USER,
        sessionId: session.id,
        newMessage,
        ...withState,
      })) {
        for (const id of functionCallIds(eventToJson(produced))) {
          const old = recordedCallIds[seen++];
          if (old !== undefined) idMap.set(old, id);
        }
      }
    }
    const final = await runner.sessionService.getSession({
      appName: loaded.name,
      userId: TEST_USER,
      sessionId: session.id,
    });
    return (final?.events ?? []).map(eventToJson);
  } finally {
    await runner.close();
  }
}

function buildRunner(loaded: LoadedApp, plugins: BasePlugin[], modelRegistry: ModelRegistry | undefined): Runner {
  const services = {
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
  };
  const app = loaded.app;
  if (!app) return new Runner({ agent: loaded.rootAgent, appName: loaded.name, plugins, ...services, modelRegistry });
  const withPlugins = new App({
    name: app.name,
    rootAgent: app.rootAgent,
    plugins: [...plugins, ...app.plugins],
    eventsCompactionConfig: app.eventsCompactionConfig,
    contextCacheConfig: app.contextCacheConfig,
    modelRegistry: app.modelRegistry,
  });
  return new Runner({
    app: withPlugins,
    appName: loaded.name,
    ...services,
    modelRegistry: app.modelRegistry ?? modelRegistry,
  });
}

/** Answers every model call with the next recorded model response (the model is never called). */
class ReplayModelPlugin extends BasePlugin {
  private next = 0;

  constructor(private readonly replies: readonly Content[]) {
    super("agentkit_test_replay");
  }

  override beforeModelCallback(_args: BeforeModelHookArgs): LlmResponse {
    const reply = this.replies[this.next];
    if (!reply)
      throw new AgentTestError(
        `The agent made model call ${this.next + 1}, but the test recorded only ${this.replies.length} model ` +
          `responses.`,
      );
    this.next += 1;
    return { content: structuredClone(reply) };
  }

  /** Held by the runner that replays; nothing to release. */
  override async close(): Promise<void> {}
}

/** A recorded model answer to replay (not a partial chunk, not a call the framework makes itself). */
function isModelReply(event: JsonObject): boolean {
  const content = event.content as { role?: unknown; parts?: unknown } | undefined;
  if (content?.role !== "model" || event.partial === true || !Array.isArray(content.parts)) return false;
  return !content.parts.some((p) =>
    FRAMEWORK_CALLS.has(String((p as { functionCall?: { name?: unknown } }).functionCall?.name)),
  );
}

/** The content of a message the user sent (text, files, answers to calls), or undefined. */
function userMessageOf(event: JsonObject): JsonObject | undefined {
  if (event.author !== "user") return undefined;
  const content = event.content as { parts?: unknown } | undefined;
  if (!content || !Array.isArray(content.parts) || content.parts.length === 0) return undefined;
  return { role: "user", parts: content.parts };
}

function functionCallIds(event: JsonObject): string[] {
  const parts = (event.content as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((p) => {
    const id = (p as { functionCall?: { id?: unknown } }).functionCall?.id;
    return typeof id === "string" ? [id] : [];
  });
}

function remapResponseIds(message: JsonObject, idMap: ReadonlyMap<string, string>): JsonObject {
  const parts = (message.parts as JsonObject[]).map((part) => {
    const response = part.functionResponse as { id?: unknown } | undefined;
    if (!response || typeof response.id !== "string" || !idMap.has(response.id)) return part;
    return { ...part, functionResponse: { ...response, id: idMap.get(response.id) } };
  });
  return { ...message, parts };
}

function compare(expected: JsonObject[], actual: JsonObject[]): ReplayOutcome {
  const length = Math.max(expected.length, actual.length);
  for (let i = 0; i < length; i++) {
    const want = expected[i];
    const got = actual[i];
    if (JSON.stringify(want) === JSON.stringify(got)) continue;
    const show = (e: JsonObject | undefined) => (e === undefined ? "(no event)" : JSON.stringify(e));
    return {
      passed: false,
      detail: `event ${i + 1} of ${expected.length} differs\n  expected: ${show(want)}\n  actual:   ${show(got)}`,
    };
  }
  return { passed: true, detail: `${expected.length} events` };
}
