import { CLIENT_FUNCTION_CALL_ID_PREFIX } from "../flows/confirmation-names.js";
import type { SchemaLike } from "./schema-like.js";
import { randomUuid } from "../events/random-uuid.js";

const REQUEST_INPUT_MARK = Symbol.for("agentkit.requestInput");

export interface RequestInputParams {
  /** The id the answer must carry (the `adk_request_input` call id); generated when omitted. */
  interruptId?: string;
  /** Shown to the person answering. */
  message?: string;
  /** Data for the client (e.g. what is being approved). */
  payload?: unknown;
  /** The expected answer: the client gets its JSON Schema, and a structured answer is checked against it. */
  responseSchema?: SchemaLike;
}

/**
 * A node's request for input from the client (ADK's `RequestInput`). A node returns (or yields)
 * one to pause: the workflow emits an `adk_request_input` call and stops on that path; the
 * client's `functionResponse` to it resumes the node (resumable apps). By default the answer
 * becomes the node's output; a node with `rerunOnResume` runs again and reads it from
 * `ctx.resumeInputs[interruptId]`.
 */
export class RequestInput {
  readonly [REQUEST_INPUT_MARK] = true;
  readonly interruptId: string;
  readonly message?: string;
  readonly payload?: unknown;
  readonly responseSchema?: SchemaLike;

  constructor(params: RequestInputParams = {}) {
    this.interruptId = params.interruptId ?? randomUuid(CLIENT_FUNCTION_CALL_ID_PREFIX);
    if (params.message !== undefined) this.message = params.message;
    if (params.payload !== undefined) this.payload = params.payload;
    if (params.responseSchema !== undefined) this.responseSchema = params.responseSchema;
  }
}

/** True for a `RequestInput` (also one made by another copy of core). */
export function isRequestInput(value: unknown): value is RequestInput {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[REQUEST_INPUT_MARK] === true;
}
