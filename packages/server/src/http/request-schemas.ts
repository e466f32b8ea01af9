import { z } from "zod";
import { contentFromJson, InvalidJsonError, type Content } from "@agentkit/core";
import { HttpRequestError } from "../errors/server-errors.js";
import { camelizeKeys, lazySchema, type LazySchema } from "@agentkit/core/internal";
import { isJsonObject } from "./is-json-object.js";
import {
  plainBody,
  plainBoolean,
  plainJsonObject,
  plainNonEmptyString,
  plainNullish,
  plainString,
  plainTrimmedString,
  type PlainShape,
} from "./plain-body.js";

/**
 * A JSON object, kept as the parser made it: no copy, so a key such as `__proto__` stays an
 * ordinary own key (zod's record schema silently drops it when it rebuilds the object).
 */
const jsonObject = lazySchema(() =>
  z.custom<Record<string, unknown>>(isJsonObject, {
    message: "must be a JSON object",
  }),
);
const nonEmpty = lazySchema(() => z.string().min(1, "must be a non-empty string"));

/**
 * A lazy schema with the plain shape of the bodies clients nearly always send (`plain-body.ts`):
 * `parseBody` reads those without zod. The shape repeats the schema's keys and rules, so the two
 * are written side by side, and `test/plain-body.test.ts` compares them.
 */
export type HotBodySchema<S extends z.ZodType> = LazySchema<S> & { readonly plain: PlainShape };

function hotBodySchema<S extends z.ZodType>(schema: LazySchema<S>, plain: PlainShape): HotBodySchema<S> {
  return Object.assign(schema, { plain });
}

/** POST /run and /run_sse (http-api.md 4.4). */
export const runRequestSchema = hotBodySchema(
  lazySchema(() =>
    z.object({
      appName: nonEmpty(),
      userId: nonEmpty(),
      sessionId: nonEmpty(),
      newMessage: jsonObject().nullish(),
      streaming: z.boolean().nullish(),
      stateDelta: jsonObject().nullish(),
      functionCallEventId: z.string().nullish(),
      invocationId: z.string().nullish(),
      customMetadata: jsonObject().nullish(),
    }),
  ),
  {
    appName: plainNonEmptyString,
    userId: plainNonEmptyString,
    sessionId: plainNonEmptyString,
    newMessage: plainNullish(plainJsonObject),
    streaming: plainNullish(plainBoolean),
    stateDelta: plainNullish(plainJsonObject),
    functionCallEventId: plainNullish(plainString),
    invocationId: plainNullish(plainString),
    customMetadata: plainNullish(plainJsonObject),
  },
);

/** POST /apps/{app}/users/{user}/sessions/{sid}/resume: nothing to give yet (an empty or absent body). */
export const resumeRequestSchema = lazySchema(() => z.object({}));

/** POST /apps/{app}/users/{user}/sessions (4.2). A body with `events` (a rare import) is zod's. */
export const createSessionSchema = hotBodySchema(
  lazySchema(() =>
    z.object({
      state: jsonObject().nullish(),
      sessionId: z.string().trim().min(1, "must be a non-empty string").nullish(),
      events: z.array(jsonObject()).nullish(),
    }),
  ),
  { state: plainNullish(plainJsonObject), sessionId: plainNullish(plainTrimmedString) },
);

/** POST /apps/{app}/users/{user}/sessions/{sid}: `{state}` (section 8 pick). */
export const createSessionWithIdSchema = lazySchema(() => z.object({ state: jsonObject().nullish() }));

/** PATCH /apps/{app}/users/{user}/sessions/{sid}. */
export const patchSessionSchema = lazySchema(() => z.object({ stateDelta: jsonObject() }));

/**
 * POST .../sessions/{sid}/rewind: the invocation to undo (`invocationId`, as ADK's web server
 * names it; `beforeInvocationId` / `rewindBeforeInvocationId` are accepted too).
 */
export const rewindSessionSchema = lazySchema(() =>
  z
    .object({
      invocationId: nonEmpty().optional(),
      beforeInvocationId: nonEmpty().optional(),
      rewindBeforeInvocationId: nonEmpty().optional(),
    })
    .transform((b) => ({ invocationId: b.invocationId ?? b.beforeInvocationId ?? b.rewindBeforeInvocationId }))
    .refine((b) => b.invocationId !== undefined, { message: "invocationId is required", path: ["invocationId"] }),
);

/** POST .../sessions/{sid}/fork: copy up to `eventId` (default: all) into `newSessionId` (default: generated). */
export const forkSessionSchema = lazySchema(() =>
  z.object({
    eventId: nonEmpty().nullish(),
    newSessionId: z.string().trim().min(1, "must be a non-empty string").nullish(),
  }),
);

/** POST .../artifacts (Python's save). */
export const saveArtifactSchema = lazySchema(() =>
  z.object({
    filename: nonEmpty(),
    artifact: jsonObject(),
    customMetadata: jsonObject().nullish(),
  }),
);

/** PATCH /apps/{app}/users/{user}/memory. */
export const addSessionToMemorySchema = lazySchema(() => z.object({ sessionId: nonEmpty() }));

/** POST /api/reasoning_engine (JS Agent Engine style; the body may sit under `input`). */
export const reasoningEngineSchema = lazySchema(() =>
  z.object({
    appName: nonEmpty(),
    userId: nonEmpty().default("default-user"),
    sessionId: nonEmpty().default("default-session"),
    newMessage: jsonObject().nullish(),
    stateDelta: jsonObject().nullish(),
  }),
);

/**
 * Validates a JSON body against a schema after camelCasing its top-level keys. An absent body
 * counts as `{}`. Failures are a 400 naming the field and the problem.
 */
export function parseBody<S extends z.ZodType>(schema: LazySchema<S> | HotBodySchema<S>, body: unknown): z.output<S> {
  const input = body === undefined ? {} : body;
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new HttpRequestError(400, "INVALID_REQUEST", "The request body must be a JSON object.");
  }
  // A hot route's usual body is read without zod; anything else is zod's (plain-body.ts).
  if ("plain" in schema) {
    const plain = plainBody(schema.plain, input as Record<string, unknown>);
    if (plain !== undefined) return plain as z.output<S>;
  }
  const result = schema().safeParse(camelizeKeys(input as Record<string, unknown>), { reportInput: true });
  if (result.success) return result.data;
  throw new HttpRequestError(400, "INVALID_REQUEST", describeIssues(result.error));
}

function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    // With reportInput, a missing field is an invalid_type issue whose input is undefined.
    const missing = issue.code === "invalid_type" && "input" in issue && issue.input === undefined;
    const message = missing ? "is required" : issue.message;
    return `${path}: ${message}`;
  });
  return `Invalid request body: ${parts.join("; ")}`;
}

/** A message Content from JSON (either casing), or a 400 naming `field`. */
export function contentField(raw: Record<string, unknown> | null | undefined, field: string): Content | undefined {
  if (raw === undefined || raw === null) return undefined;
  try {
    return contentFromJson(raw);
  } catch (error) {
    if (error instanceof InvalidJsonError)
      throw new HttpRequestError(400, "INVALID_REQUEST", `Invalid request body: ${field}: ${error.message}`);
    throw error;
  }
}
