import { join, resolve } from "node:path";
import { App, InMemorySessionService, Runner, type BasePlugin, type ModelRegistry, type Session } from "@agentkit/core";
import { createModelRegistry } from "@agentkit/models";
import {
  RecordingsPlugin,
  ReplayPlugin,
  ReplayVerificationError,
  compareSessionSnapshots,
  findConformanceCases,
  readSessionSnapshotFile,
  sessionSnapshot,
  writeRecordingsFile,
  writeSessionSnapshotFile,
  type ConformanceCase,
} from "@agentkit/plugins";
import { createDirectoryAgentLoader, type AgentLoader } from "@agentkit/server";
import { devServerBuiltInCodeExecutors } from "./dev-server-code-executors.js";
import { devServerBuiltInTools } from "./dev-server-tools.js";

export const RECORDINGS_FILE = "generated-recordings.yaml";
export const SESSION_FILE = "generated-session.yaml";

export interface ConformanceOptions {
  mode: "record" | "test";
  casesDir: string;
  agentsDir: string;
  output?: NodeJS.WritableStream;
}

export interface ConformanceCaseResult {
  name: string;
  passed: boolean;
  /** Why it failed (empty when it passed). */
  problems: string[];
}

/**
 * `agentkit conformance record|test <cases_dir>`, in process: each case's app is loaded from
 * the agents directory as the dev server loads it and run through a `Runner` with an
 * in-memory session. `record` runs the real models and tools under `RecordingsPlugin` and
 * writes `generated-recordings.yaml` and `generated-session.yaml`; `test` serves the run from
 * the recordings with `ReplayPlugin` (strict request verification) and compares the session
 * with `generated-session.yaml`. Prints one line per case and `N passed, N failed`.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceCaseResult[]> {
  const output = options.output ?? process.stdout;
  const cases = await findConformanceCases(resolve(options.casesDir));
  const modelRegistry = createModelRegistry();
  const loader = createDirectoryAgentLoader({
    agentsDir: resolve(options.agentsDir),
    modelRegistry,
    builtInTools: devServerBuiltInTools(),
    builtInCodeExecutors: devServerBuiltInCodeExecutors(),
  });
  const results: ConformanceCaseResult[] = [];
  try {
    if (cases.length === 0) output.write(`agentkit conformance: no spec.yaml under ${resolve(options.casesDir)}\n`);
    for (const testCase of cases) {
      const result =
        options.mode === "record"
          ? await recordCase(testCase, loader, modelRegistry)
          : await testCaseReplay(testCase, loader, modelRegistry);
      results.push(result);
      const verb = options.mode === "record" ? (result.passed ? "RECORDED" : "ERROR") : result.passed ? "PASS" : "FAIL";
      output.write(
        `${verb} ${result.name}\n${result.problems.map((p) => `  ${p.replaceAll("\n", "\n  ")}\n`).join("")}`,
      );
    }
  } finally {
    await loader.close();
  }
  const failed = results.filter((r) => !r.passed).length;
  output.write(`${results.length - failed} passed, ${failed} failed\n`);
  return results;
}

async function recordCase(
  testCase: ConformanceCase,
  loader: AgentLoader,
  modelRegistry: ModelRegistry,
): Promise<ConformanceCaseResult> {
  const recorder = new RecordingsPlugin();
  try {
    const session = await converse(testCase, loader, modelRegistry, recorder);
    await writeRecordingsFile(join(testCase.dir, RECORDINGS_FILE), recorder.recordings);
    await writeSessionSnapshotFile(join(testCase.dir, SESSION_FILE), sessionSnapshot(session));
    return { name: testCase.name, passed: true, problems: [] };
  } catch (error) {
    return { name: testCase.name, passed: false, problems: [describeError(error)] };
  }
}

async function testCaseReplay(
  testCase: ConformanceCase,
  loader: AgentLoader,
  modelRegistry: ModelRegistry,
): Promise<ConformanceCaseResult> {
  const replay = new ReplayPlugin({ file: join(testCase.dir, RECORDINGS_FILE) });
  const problems: string[] = [];
  try {
    const expected = await readSessionSnapshotFile(join(testCase.dir, SESSION_FILE));
    const session = await converse(testCase, loader, modelRegistry, replay);
    const left = await replay.remaining();
    for (const [agent, count] of Object.entries(left))
      problems.push(`${count} recording(s) of agent "${agent}" were not used: the run asked less than was recorded.`);
    const differences = compareSessionSnapshots(expected, sessionSnapshot(session));
    if (differences.length) problems.push(`the session differs from ${SESSION_FILE}:\n  ${differences.join("\n  ")}`);
  } catch (error) {
    problems.push(describeError(error));
  }
  return { name: testCase.name, passed: problems.length === 0, problems };
}

/** Runs the case's messages in one new session; returns the session as stored at the end. */
async function converse(
  testCase: ConformanceCase,
  loader: AgentLoader,
  modelRegistry: ModelRegistry,
  plugin: BasePlugin,
): Promise<Session> {
  const loaded = await loader.loadApp(testCase.agent);
  const sessionService = new InMemorySessionService();
  const runner = loaded.app
    ? new Runner({
        app: new App({
          name: loaded.app.name,
          rootAgent: loaded.app.rootAgent,
          plugins: [...loaded.app.plugins, plugin],
          ...(loaded.app.eventsCompactionConfig ? { eventsCompactionConfig: loaded.app.eventsCompactionConfig } : {}),
          ...(loaded.app.contextCacheConfig ? { contextCacheConfig: loaded.app.contextCacheConfig } : {}),
        }),
        appName: testCase.agent,
        sessionService,
        modelRegistry: loaded.app.modelRegistry ?? modelRegistry,
      })
    : new Runner({
        appName: testCase.agent,
        agent: loaded.rootAgent,
        plugins: [plugin],
        sessionService,
        modelRegistry,
      });
  const userId = "conformance_user";
  try {
    const session = await sessionService.createSession({
      appName: testCase.agent,
      userId,
      state: testCase.initialState,
    });
    for (const message of testCase.messages) {
      for await (const _event of runner.runAsync({
        userId,
        sessionId: session.id,
        newMessage: message.content,
        ...(message.stateDelta ? { stateDelta: message.stateDelta } : {}),
      })) {
        // Events are read back from the session at the end.
      }
    }
    const stored = await sessionService.getSession({ appName: testCase.agent, userId, sessionId: session.id });
    if (!stored) throw new Error(`the session of case ${testCase.name} disappeared`);
    return stored;
  } finally {
    await runner.close();
  }
}

/** The replay verification error (with its diff) when there is one in the cause chain. */
function describeError(error: unknown): string {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof ReplayVerificationError) return e.message;
  }
  return error instanceof Error ? error.message : String(error);
}
