import type { Part } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { createEventActions, type EventActions } from "../events/event-actions.js";
import type { SearchMemoryResponse } from "../memory/base-memory-service.js";
import { setOwn } from "../sessions/own-keys.js";
import { State } from "../sessions/state.js";
import type { InvocationContext } from "./invocation-context.js";
import { ReadonlyContext } from "./readonly-context.js";

/**
 * What callbacks and tools work with: mutable state (writes are recorded in `actions`
 * and persisted with the next event), artifacts and memory.
 */
export class CallbackContext extends ReadonlyContext {
  /** Side effects collected for the event this context contributes to. */
  readonly actions: EventActions;
  /**
   * In after-model callbacks: the id the event built from this model response will carry,
   * so tracing and logging plugins can link a model call to its event. Set by the flow.
   */
  modelResponseEventId?: string;
  private readonly mutableState: State;

  constructor(invocationContext: InvocationContext, actions?: EventActions) {
    super(invocationContext);
    this.actions = actions ?? createEventActions();
    this.mutableState = new State(invocationContext.session.state, this.actions.stateDelta);
  }

  /** Session state; writes land in `actions.stateDelta`. */
  override get state(): State {
    return this.mutableState;
  }

  /** Alias of `actions` (ADK's name). */
  get eventActions(): EventActions {
    return this.actions;
  }

  get invocation(): InvocationContext {
    return this.invocationContext;
  }

  /** Saves a new version of an artifact and records it in `actions.artifactDelta`. */
  async saveArtifact(filename: string, artifact: Part, customMetadata?: Record<string, unknown>): Promise<number> {
    const service = this.requireArtifacts();
    const version = await service.saveArtifact({
      appName: this.appName,
      userId: this.userId,
      sessionId: this.invocationContext.session.id,
      filename,
      artifact,
      customMetadata,
    });
    setOwn(this.actions.artifactDelta, filename, version);
    return version;
  }

  /** The artifact (latest version unless given), or `undefined`. */
  async loadArtifact(filename: string, version?: number): Promise<Part | undefined> {
    return this.requireArtifacts().loadArtifact({
      appName: this.appName,
      userId: this.userId,
      sessionId: this.invocationContext.session.id,
      filename,
      version,
    });
  }

  /** Filenames of the session's (and user's) artifacts. */
  async listArtifacts(): Promise<string[]> {
    return this.requireArtifacts().listArtifactKeys({
      appName: this.appName,
      userId: this.userId,
      sessionId: this.invocationContext.session.id,
    });
  }

  /** Searches long-term memory of this user. */
  async searchMemory(query: string): Promise<SearchMemoryResponse> {
    const memory = this.invocationContext.memoryService;
    if (!memory) throw new ConfigurationError("No memory service is configured: pass memoryService to the Runner.");
    return memory.searchMemory({ appName: this.appName, userId: this.userId, query });
  }

  private requireArtifacts() {
    const service = this.invocationContext.artifactService;
    if (!service)
      throw new ConfigurationError("No artifact service is configured: pass artifactService to the Runner.");
    return service;
  }
}
