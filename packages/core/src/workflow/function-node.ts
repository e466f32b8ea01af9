import type { Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import { BaseNode, type BaseNodeOptions, type NodeYield } from "./base-node.js";
import type { NodeContext } from "./node-context.js";
import { isRequestInput, type RequestInput } from "./request-input.js";

/**
 * The function of a `FunctionNode`: `(ctx, input) => output`, sync or async, or a (sync or async)
 * generator that yields events, texts, contents or a `RequestInput` and returns the output.
 * Returning a `RequestInput` pauses the node for the client's answer.
 */
export type FunctionNodeHandler<I = unknown, O = unknown> = (
  ctx: NodeContext,
  input: I,
) =>
  | O
  | RequestInput
  | undefined
  | void
  | Promise<O | RequestInput | undefined | void>
  | Generator<unknown, O | RequestInput | undefined | void, undefined>
  | AsyncGenerator<unknown, O | RequestInput | undefined | void, undefined>;

export type FunctionNodeOptions<I = unknown, O = unknown> = Omit<BaseNodeOptions<I, O>, "name">;

/**
 * A node that runs a function: `new FunctionNode("summarize", (ctx, input) => output)`. The
 * returned value is the node's output, the next nodes' input. State written through `ctx.state`
 * is stored with the node's output event.
 */
export class FunctionNode<I = unknown, O = unknown> extends BaseNode<I, O> {
  readonly fn: FunctionNodeHandler<I, O>;

  constructor(name: string, fn: FunctionNodeHandler<I, O>, options: FunctionNodeOptions<I, O> = {}) {
    if (typeof fn !== "function")
      throw new ConfigurationError(
        `FunctionNode "${String(name)}" needs a function: new FunctionNode(name, (ctx, input) => output).`,
      );
    super({ ...options, name });
    this.fn = fn;
  }

  override async *runNode(
    ctx: NodeContext,
    input: I,
  ): AsyncGenerator<NodeYield, O | RequestInput | undefined | void, void> {
    const result = this.fn(ctx, input) as unknown;
    if (isIterator(result)) {
      let output: unknown;
      const iterator = result as AsyncIterator<unknown, unknown> | Iterator<unknown, unknown>;
      try {
        for (;;) {
          const step = await iterator.next();
          if (step.done) {
            if (step.value !== undefined) output = step.value;
            break;
          }
          const yielded = toYield(ctx, step.value);
          if (yielded) yield yielded;
          else if (step.value !== undefined && step.value !== null) output = step.value;
        }
      } finally {
        await iterator.return?.(undefined);
      }
      return output as O | RequestInput | undefined;
    }
    const value = await result;
    if (isEventLike(value)) {
      yield value;
      return value.output as O | undefined;
    }
    return value as O | RequestInput | undefined;
  }
}

/** What a generator's yielded value becomes: an event or request to pass on, or nothing (an output). */
function toYield(ctx: NodeContext, value: unknown): NodeYield | undefined {
  if (isRequestInput(value) || isEventLike(value)) return value;
  if (typeof value === "string")
    return ctx.createNodeEvent({
      content: { role: "model", parts: [{ text: value }] },
      actions: { stateDelta: ctx.takeStateDelta() },
    });
  if (isContent(value))
    return ctx.createNodeEvent({
      content: { role: value.role ?? "model", parts: value.parts ?? [] },
      actions: { stateDelta: ctx.takeStateDelta() },
    });
  return undefined;
}

function isIterator(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<PropertyKey, unknown>;
  return (
    typeof v.next === "function" &&
    (typeof v[Symbol.asyncIterator] === "function" || typeof v[Symbol.iterator] === "function")
  );
}

/** An event made by `createEvent` (or read from JSON). */
export function isEventLike(value: unknown): value is Event {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Event>;
  return typeof v.id === "string" && typeof v.author === "string" && typeof v.actions === "object";
}

function isContent(value: unknown): value is Content {
  return typeof value === "object" && value !== null && Array.isArray((value as Content).parts) && !("author" in value);
}
