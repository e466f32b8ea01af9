import type { Content } from "../content/content.js";
import type { Session } from "../sessions/session.js";
import { StateReader, type ReadonlyState } from "../sessions/state.js";
import type { InvocationContext } from "./invocation-context.js";

/** What instruction providers and read-only hooks may see. */
export class ReadonlyContext {
  protected readonly invocationContext: InvocationContext;

  constructor(invocationContext: InvocationContext) {
    this.invocationContext = invocationContext;
  }

  get invocationId(): string {
    return this.invocationContext.invocationId;
  }

  get agentName(): string {
    return this.invocationContext.agent.name;
  }

  get appName(): string {
    return this.invocationContext.appName;
  }

  get userId(): string {
    return this.invocationContext.userId;
  }

  get userContent(): Content | undefined {
    return this.invocationContext.userContent;
  }

  get branch(): string | undefined {
    return this.invocationContext.branch;
  }

  /** Session state, read-only (read through to the session's, not copied). */
  get state(): ReadonlyState {
    return new StateReader(this.invocationContext.session.state);
  }

  get session(): Readonly<Session> {
    return this.invocationContext.session;
  }

  get runConfig(): InvocationContext["runConfig"] {
    return this.invocationContext.runConfig;
  }

  get signal(): AbortSignal | undefined {
    return this.invocationContext.signal;
  }
}
