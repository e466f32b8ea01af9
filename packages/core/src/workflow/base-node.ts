import type { RetryPolicy } from "../concurrency/retry.js";
import { resolveRetryPolicy } from "../concurrency/retry.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import type { NodeContext } from "./node-context.js";
import type { RequestInput } from "./request-input.js";
import { isSchemaLike, type SchemaLike } from "./schema-like.js";

const NODE_MARK = Symbol.for("agentkit.workflowNode");
const NODE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An error class, or the `name` / `code` an error carries. */
export type ErrorMatcher = string | (abstract new (...args: never[]) => Error);

/**
 * Retries of a failed node: the policy of the code base's one retry loop (`RetryPolicy`, delays in
 * milliseconds) plus which failures to retry. A retried attempt starts with fresh state changes;
 * events an earlier attempt emitted stay in the session.
 */
export interface NodeRetryConfig extends Partial<RetryPolicy> {
  /**
   * The failures to retry: error classes or names (an error's `name` or AgentKitError `code`), or
   * a predicate. Default: every failure except aborts, exhausted limits and configuration errors.
   */
  retryOn?: ErrorMatcher[] | ((error: unknown) => boolean);
}

export interface BaseNodeOptions<I = unknown, O = unknown> {
  /** Letters, digits and underscores, unique in its workflow; events the node writes carry it as author. */
  name: string;
  description?: string;
  retryConfig?: NodeRetryConfig;
  /** Deadline of one attempt; a node past it fails with `NodeTimeoutError` (its signal aborts). */
  timeoutMs?: number;
  /** Validates (and types) the input; a mismatch fails the node with `NodeSchemaValidationError`. */
  inputSchema?: SchemaLike<I>;
  /** Validates (and types) the output. */
  outputSchema?: SchemaLike<O>;
  /**
   * On resume after a pause (`RequestInput`): run the node again with `ctx.resumeInputs` set
   * (true), or take the client's answer as the node's output without running it (false, the
   * default for function nodes). Agent nodes always run again.
   */
  rerunOnResume?: boolean;
}

/** What a node's `runNode` may yield: an event to emit, or a request that pauses the node. */
export type NodeYield = Event | RequestInput;

/**
 * A unit of work in a `Workflow`. Subclasses implement `runNode`: yield events (or a
 * `RequestInput` to pause) and return the output, which becomes the input of the next nodes.
 * The engine adds retries, the timeout, schema checks, plugin callbacks and records.
 */
export abstract class BaseNode<I = unknown, O = unknown> {
  readonly [NODE_MARK] = true;
  readonly name: string;
  readonly description: string;
  readonly retryConfig?: NodeRetryConfig;
  readonly timeoutMs?: number;
  readonly inputSchema?: SchemaLike<I>;
  readonly outputSchema?: SchemaLike<O>;
  readonly rerunOnResume: boolean;

  constructor(options: BaseNodeOptions<I, O>) {
    validateNodeName(options?.name);
    this.name = options.name;
    this.description = options.description ?? "";
    if (options.retryConfig) {
      const { retryOn, ...policy } = options.retryConfig;
      resolveRetryPolicy(policy); // fail at construction, not on the first failure
      if (retryOn !== undefined && typeof retryOn !== "function" && !Array.isArray(retryOn)) {
        throw new ConfigurationError(`Node "${options.name}": retryConfig.retryOn must be a list or a function.`);
      }
      this.retryConfig = options.retryConfig;
    }
    if (options.timeoutMs !== undefined) {
      if (!(typeof options.timeoutMs === "number" && options.timeoutMs > 0 && Number.isFinite(options.timeoutMs))) {
        throw new ConfigurationError(`Node "${options.name}": timeoutMs must be a positive number of milliseconds.`);
      }
      this.timeoutMs = options.timeoutMs;
    }
    for (const key of ["inputSchema", "outputSchema"] as const) {
      if (options[key] !== undefined && !isSchemaLike(options[key])) {
        throw new ConfigurationError(`Node "${options.name}": ${key} must be a zod schema.`);
      }
    }
    if (options.inputSchema) this.inputSchema = options.inputSchema;
    if (options.outputSchema) this.outputSchema = options.outputSchema;
    this.rerunOnResume = options.rerunOnResume ?? this.defaultRerunOnResume();
  }

  /** Runs the node once. Yield events to emit; return the output (or a `RequestInput` to pause). */
  abstract runNode(ctx: NodeContext, input: I): AsyncGenerator<NodeYield, O | RequestInput | undefined | void, void>;

  /** The default of `rerunOnResume` for this kind of node. */
  protected defaultRerunOnResume(): boolean {
    return false;
  }
}

/** True for a workflow node (also one made by another copy of core). */
export function isBaseNode(value: unknown): value is BaseNode {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[NODE_MARK] === true;
}

/** Throws `ConfigurationError` unless the name is a valid node name. */
export function validateNodeName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !NODE_NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `Invalid node name ${JSON.stringify(name)}: use letters, digits and underscores, starting with a letter or underscore.`,
    );
  }
  if (name === "user" || name === "START")
    throw new ConfigurationError(`A node cannot be named "${name}": that name is reserved.`);
}
