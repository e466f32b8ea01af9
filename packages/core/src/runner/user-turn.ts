import { isThenable } from "../concurrency/is-thenable.js";
import { createUserContent, type Content } from "../content/content.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { createEvent, type Event } from "../events/event.js";
import { checkIncomingMessage } from "../flows/incoming-message-check.js";
import { appendNow } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import { type AbortWatch, applyCustomMetadata, saveInputBlobsAsArtifacts } from "./run-helpers.js";
import type { Runner } from "./runner.js";

/** What storing the user's turn uses of its runner. */
export type UserTurnServices = Pick<Runner, "appName" | "sessionService" | "artifactService" | "pluginManager">;

/**
 * The caller's message as user content (a string becomes one text part). It is data from
 * outside: refused before anything is stored if it calls a function or answers a call the flow
 * is not waiting for (`checkIncomingMessage` against the session's events).
 */
export function checkedUserMessage(
  newMessage: Content | string | undefined,
  events: readonly Event[],
): Content | undefined {
  return newMessage === undefined
    ? undefined
    : checkIncomingMessage(withUserRole(createUserContent(newMessage)), events);
}

/** A user's turn of a run, as `appendUserTurn` takes it. */
interface UserTurn {
  ctx: InvocationContext;
  session: Session;
  message: Content | undefined;
  stateDelta: Record<string, unknown> | undefined;
  watch: AbortWatch;
}

/**
 * Stores the user's turn of a run: onUserMessage plugins may replace the message, its inline
 * files become artifacts when the run config asks (`saveInputBlobsAsArtifacts`), and one user
 * event carries the message, the request's state delta and the artifacts saved. A run with
 * neither a message nor state stores nothing. Gives the message the agent sees, or a promise of
 * it: without those plugins and artifacts, a store that answers at once makes no promise (an
 * async function would cost a promise and microtask turns per run).
 */
export function appendUserTurn(
  runner: UserTurnServices,
  turn: UserTurn,
): Content | undefined | Promise<Content | undefined> {
  const message = turn.message;
  if (
    message &&
    (runner.pluginManager.hasHook("onUserMessageCallback") || turn.ctx.runConfig.saveInputBlobsAsArtifacts)
  )
    return preparedUserTurn(runner, turn, message);
  const stored = storeUserTurn(runner, turn, message, {});
  return stored ? stored.then(() => message) : message;
}

/** The message as plugins replace it and with its inline files saved as artifacts, then stored. */
async function preparedUserTurn(
  runner: UserTurnServices,
  turn: UserTurn,
  userMessage: Content,
): Promise<Content | undefined> {
  const { ctx, session } = turn;
  let message = userMessage;
  let artifactDelta: Record<string, number> = {};
  const replaced = runner.pluginManager.hasHook("onUserMessageCallback")
    ? await runner.pluginManager.run("onUserMessageCallback", { invocationContext: ctx, userMessage: message })
    : undefined;
  if (replaced) message = withUserRole(replaced);
  if (ctx.runConfig.saveInputBlobsAsArtifacts) {
    if (!runner.artifactService)
      throw new ConfigurationError("saveInputBlobsAsArtifacts needs an artifactService on the Runner.");
    ({ message, artifactDelta } = await saveInputBlobsAsArtifacts({
      message,
      artifactService: runner.artifactService,
      appName: runner.appName,
      userId: session.userId,
      sessionId: session.id,
      invocationId: ctx.invocationId,
    }));
  }
  const stored = storeUserTurn(runner, turn, message, artifactDelta);
  if (stored) await stored;
  return message;
}

/** Appends the user event (when there is a message or state); a promise only while the store works. */
function storeUserTurn(
  runner: UserTurnServices,
  turn: UserTurn,
  message: Content | undefined,
  artifactDelta: Record<string, number>,
): Promise<unknown> | undefined {
  const { ctx, session, watch } = turn;
  const stateDelta = { ...(turn.stateDelta ?? {}) };
  if (!message && Object.keys(stateDelta).length === 0) return undefined;
  const userEvent = createEvent({
    invocationId: ctx.invocationId,
    author: "user",
    content: message,
    actions: { stateDelta, artifactDelta },
  });
  applyCustomMetadata(userEvent, ctx.runConfig.customMetadata);
  watch.throwIfAborted();
  // Stored within the call by the in-memory store: then there is no promise to wait for.
  const stored = appendNow(runner.sessionService, { session, event: userEvent });
  return isThenable(stored) ? (stored as Promise<unknown>) : undefined;
}

function withUserRole(content: Content): Content {
  return content.role ? content : { ...content, role: "user" };
}
