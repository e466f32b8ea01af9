import {
  createEvent,
  createUserContent,
  InMemorySessionService,
  InvocationContext,
  newInvocationId,
  PluginManager,
  type BaseAgent,
  type BaseArtifactService,
  type BasePlugin,
  type Content,
  type Event,
  type ModelRegistry,
  type RunConfig,
  type Session,
} from "../../src/index.js";

export interface RunOptions {
  runConfig?: RunConfig;
  plugins?: BasePlugin[];
  modelRegistry?: ModelRegistry;
  artifactService?: BaseArtifactService;
  signal?: AbortSignal;
  branch?: string;
}

/**
 * Stands in for the Runner in flow tests: one session, and per `run` a new invocation that
 * appends the user message, runs the agent and appends every non-partial event before
 * pulling the next (the runner's contract).
 */
export class Harness {
  readonly sessionService = new InMemorySessionService();
  session!: Session;
  lastContext?: InvocationContext;

  static async create(state: Record<string, unknown> = {}): Promise<Harness> {
    const h = new Harness();
    h.session = await h.sessionService.createSession({ appName: "app", userId: "u", state });
    return h;
  }

  /** Runs one invocation; returns every event the agent yielded (partial ones included). */
  async run(agent: BaseAgent, message: string | Content, options: RunOptions = {}): Promise<Event[]> {
    const invocationId = newInvocationId();
    const userContent = createUserContent(message);
    await this.sessionService.appendEvent({
      session: this.session,
      event: createEvent({ author: "user", invocationId, content: userContent }),
    });
    const ctx = new InvocationContext({
      invocationId,
      agent,
      session: this.session,
      sessionService: this.sessionService,
      artifactService: options.artifactService,
      pluginManager: new PluginManager(options.plugins ?? []),
      modelRegistry: options.modelRegistry,
      userContent,
      runConfig: options.runConfig,
      signal: options.signal,
      branch: options.branch,
    });
    this.lastContext = ctx;
    const events: Event[] = [];
    for await (const event of agent.runAsync(ctx)) {
      events.push(event);
      if (!event.partial) await this.sessionService.appendEvent({ session: this.session, event });
    }
    return events;
  }

  /** Appends an event as if an earlier run had produced it. */
  async append(init: Parameters<typeof createEvent>[0]): Promise<Event> {
    return this.sessionService.appendEvent({ session: this.session, event: createEvent(init) });
  }
}

/** Texts of the events' text parts, one string per event that has text. */
export function texts(events: Event[]): string[] {
  return events.flatMap((e) => {
    const t = (e.content?.parts ?? [])
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text)
      .join("");
    return t ? [t] : [];
  });
}

/** A promise with its resolver exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
