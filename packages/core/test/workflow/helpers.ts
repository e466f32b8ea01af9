// Shared by the workflow tests: run a workflow on an in-memory runner and read what it did.
import {
  App,
  InMemoryRunner,
  type BaseAgent,
  type BasePlugin,
  type Content,
  type Event,
  type RunConfig,
} from "../../src/index.js";

export async function runOnce(
  agent: BaseAgent,
  message: string | Content = "hello",
  options: { plugins?: BasePlugin[]; signal?: AbortSignal; resumable?: boolean; runConfig?: RunConfig } = {},
) {
  const runner = options.resumable
    ? new InMemoryRunner({
        app: new App({ name: "app", rootAgent: agent, plugins: options.plugins, resumability: { isResumable: true } }),
      })
    : new InMemoryRunner({ agent, appName: "app", plugins: options.plugins });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const events: Event[] = [];
  for await (const e of runner.runAsync({
    userId: "u",
    sessionId: "s",
    newMessage: message,
    signal: options.signal,
    runConfig: options.runConfig,
  }))
    events.push(e);
  const session = (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return { runner, events, session };
}

/** The outputs of node completion events (not a workflow's own end record), by author. */
export const outputs = (events: Event[]) =>
  events
    .filter((e) => e.nodeInfo?.status === "completed" && e.nodeInfo.path.includes("@") && e.output !== undefined)
    .map((e) => [e.author, e.output]);

export const textOf = (input: unknown): string =>
  typeof input === "string" ? input : ((input as Content).parts ?? []).map((p) => p.text ?? "").join("");

/** A promise with its resolve function, to make steps of concurrent nodes explicit. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
