import { AgentKitError, type AgentKitErrorOptions } from "./agentkit-error.js";

/** An invocation made more model calls than `RunConfig.maxLlmCalls` allows. */
export class LlmCallsLimitExceededError extends AgentKitError {
  readonly limit: number;

  constructor(limit: number, options: AgentKitErrorOptions = {}) {
    super(
      "LLM_CALLS_LIMIT_EXCEEDED",
      `Max number of LLM calls limit of ${limit} exceeded. Raise RunConfig.maxLlmCalls or check the agent for a ` +
        `tool-call loop.`,
      options,
    );
    this.limit = limit;
  }
}

/** The run was cancelled through its AbortSignal. */
export class RunAbortedError extends AgentKitError {
  constructor(options: AgentKitErrorOptions = {}) {
    super("RUN_ABORTED", "The run was aborted.", options);
  }
}

/** A model call failed and no callback handled the failure. */
export class ModelError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions & { code?: string } = {}) {
    super(options.code ?? "MODEL_ERROR", message, options);
  }
}

/** A tool failed in a way the flow cannot report back to the model. */
export class ToolError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions & { code?: string } = {}) {
    super(options.code ?? "TOOL_ERROR", message, options);
  }
}

/**
 * A message from outside (a runner caller, an HTTP client, an A2A peer, a live socket) was
 * refused before anything was stored: it tried to call a function, to answer a call that is
 * not pending, or to use a name the framework reserves. `partIndex` names the offending part.
 */
export class InvalidUserMessageError extends AgentKitError {
  readonly partIndex?: number;

  constructor(message: string, options: AgentKitErrorOptions & { partIndex?: number } = {}) {
    super("INVALID_USER_MESSAGE", message, options);
    if (options.partIndex !== undefined) this.partIndex = options.partIndex;
  }
}

/** `runner.resume` found nothing to continue: the session's latest run completed (or never started). */
export class NothingToResumeError extends AgentKitError {
  readonly sessionId: string;

  constructor(sessionId: string, options: AgentKitErrorOptions = {}) {
    super(
      "NOTHING_TO_RESUME",
      `Session ${sessionId} has no interrupted run to resume: its latest run completed. Send a new message instead.`,
      options,
    );
    this.sessionId = sessionId;
  }
}

/** `runner.resume` was asked of an app that does not checkpoint its runs. */
export class NotResumableError extends AgentKitError {
  constructor(options: AgentKitErrorOptions = {}) {
    super(
      "NOT_RESUMABLE",
      "This app does not resume runs: create it with App({ resumability: { isResumable: true } }) (or give the Runner resumability).",
      options,
    );
  }
}
