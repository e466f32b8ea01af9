import { AgentKitError, type AgentKitErrorOptions } from "../errors/agentkit-error.js";

/** A node ran longer than its `timeoutMs` (retried like any failure when the node has a `retryConfig`). */
export class NodeTimeoutError extends AgentKitError {
  readonly nodeName: string;
  readonly timeoutMs: number;

  constructor(nodeName: string, timeoutMs: number) {
    super("NODE_TIMEOUT", `Node "${nodeName}" did not finish within ${timeoutMs} ms (its timeoutMs).`);
    this.nodeName = nodeName;
    this.timeoutMs = timeoutMs;
  }
}

/** A node's input or output does not match its `inputSchema` / `outputSchema`. */
export class NodeSchemaValidationError extends AgentKitError {
  readonly nodeName: string;
  readonly direction: "input" | "output";

  constructor(nodeName: string, direction: "input" | "output", detail: string, options: AgentKitErrorOptions = {}) {
    super(
      "NODE_SCHEMA_INVALID",
      `The ${direction} of node "${nodeName}" does not match its ${direction}Schema: ${detail}`,
      options,
    );
    this.nodeName = nodeName;
    this.direction = direction;
  }
}

/**
 * A node's tool call was cut off by a crash or an abort before it returned; it is reported, never
 * run again on resume (its side effects may have happened).
 */
export class NodeInterruptedError extends AgentKitError {
  readonly nodeName: string;

  constructor(nodeName: string, detail: string) {
    super("NODE_INTERRUPTED", `Node "${nodeName}" was interrupted: ${detail}`);
    this.nodeName = nodeName;
  }
}

/** A paused or interrupted workflow run cannot continue (for example the graph changed since it paused). */
export class WorkflowResumeError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("WORKFLOW_RESUME_FAILED", message, options);
  }
}

/**
 * Thrown through a node's code when a node it runs with `ctx.runNode` paused for the client: the
 * calling node pauses too and runs again on resume. Do not catch it in node code.
 */
export class NodePausedSignal extends Error {
  readonly interrupts: string[];

  constructor(interrupts: string[]) {
    super(`The node paused, waiting for the client to answer ${interrupts.join(", ")}.`);
    this.name = "NodePausedSignal";
    this.interrupts = interrupts;
  }
}
