import type { Content } from "../content/content.js";
import type { LlmResponse } from "../models/llm-response.js";
import type { CallbackContext } from "../context/callback-context.js";
import type {
  AfterModelHookArgs,
  AfterToolHookArgs,
  BeforeModelHookArgs,
  BeforeToolHookArgs,
  ModelErrorHookArgs,
  ToolErrorHookArgs,
} from "../plugins/plugin-hook-args.js";

export type MaybePromise<T> = T | Promise<T>;

/** A callback slot takes one function or a list; the first that returns a value wins. */
export type CallbackSlot<F> = F | F[];

export type BeforeAgentCallback = (args: { context: CallbackContext }) => MaybePromise<Content | undefined | void>;
export type AfterAgentCallback = (args: { context: CallbackContext }) => MaybePromise<Content | undefined | void>;
/** A returned response skips the model call. */
export type BeforeModelCallback = (args: BeforeModelHookArgs) => MaybePromise<LlmResponse | undefined | void>;
/** A returned response replaces the model's. */
export type AfterModelCallback = (args: AfterModelHookArgs) => MaybePromise<LlmResponse | undefined | void>;
/** A returned response stands in for the failed call; otherwise the error is reported. */
export type OnModelErrorCallback = (args: ModelErrorHookArgs) => MaybePromise<LlmResponse | undefined | void>;
/** A returned object skips the tool and becomes its response. */
export type BeforeToolCallback = (args: BeforeToolHookArgs) => MaybePromise<Record<string, unknown> | undefined | void>;
/** A returned object replaces the tool's response. */
export type AfterToolCallback = (args: AfterToolHookArgs) => MaybePromise<Record<string, unknown> | undefined | void>;
/** A returned object becomes the response of the failed tool; otherwise the error is reported. */
export type OnToolErrorCallback = (args: ToolErrorHookArgs) => MaybePromise<Record<string, unknown> | undefined | void>;

/** Normalizes a slot to a list. */
export function callbackList<F>(slot: CallbackSlot<F> | undefined): F[] {
  if (slot === undefined) return [];
  return Array.isArray(slot) ? slot : [slot];
}

/** Runs callbacks in order; returns the first value that is not `undefined`/`null`. */
export function runCallbackSlot<A, R>(
  slot: CallbackSlot<(args: A) => MaybePromise<R | undefined | void>> | undefined,
  args: A,
): Promise<R | undefined> {
  // Most agents set few callbacks: an empty slot makes no promise of its own.
  if (slot === undefined || (Array.isArray(slot) && slot.length === 0)) return NOTHING;
  return runCallbacks(callbackList(slot), args);
}

async function runCallbacks<A, R>(
  callbacks: ((args: A) => MaybePromise<R | undefined | void>)[],
  args: A,
): Promise<R | undefined> {
  for (const callback of callbacks) {
    const result = await callback(args);
    if (result !== undefined && result !== null) return result as R;
  }
  return undefined;
}

/** What a hook or slot with nothing to run answers: one settled promise, shared (no allocation). */
export const NOTHING: Promise<undefined> = Promise.resolve(undefined);
