import type { Content, FunctionCall, Part } from "../content/content.js";
import { InvalidUserMessageError } from "../errors/run-errors.js";
import { getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import {
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  RESERVED_FUNCTION_CALL_NAMES,
} from "./confirmation-names.js";

/** A call the flow left waiting for the client, found for a response id. */
interface PendingCall {
  call: FunctionCall;
  event: Event;
  /** Listed in its event's `longRunningToolIds`: the flow paused on it. */
  awaiting: boolean;
  /** A client already answered it. */
  answered: boolean;
}

/**
 * Checks a message that comes from outside the agent tree (a runner caller, an HTTP client, an
 * A2A peer, a live socket) before anything of it is stored or sent to a model. Only the model
 * calls functions and only the flow asks the client for something, so:
 * - a `functionCall` part is refused (so are code execution parts, which only the flow makes);
 * - a `functionResponse` must answer a call the flow is waiting for: made by an agent (never by
 *   a `user` event), listed in that event's `longRunningToolIds`, not answered by a client before,
 *   under the call's own name; a confirmation, credential or input answer must also match the
 *   record the flow stored with the request (`actions.requestedToolConfirmations` /
 *   `requestedAuthConfigs` / `requestedInputs`, the last keyed by the call's own id).
 * Imported events can never satisfy this: the server strips `longRunningToolIds` and request
 * records from events a client imports, so only requests this flow emitted are answerable.
 * Returns the message to store: responses without a name get the name of the call they answer.
 * Throws `InvalidUserMessageError` naming the part otherwise.
 */
export function checkIncomingMessage(message: Content, events: readonly Event[]): Content {
  const responseIds = checkIncomingParts(message);
  if (responseIds.size === 0) return message;
  const parts = message.parts ?? [];

  const pending = findCalls(events, responseIds);
  const checked: Part[] = parts.map((part, index) => {
    const response = part.functionResponse;
    if (!response) return part;
    const id = response.id!;
    const found = pending.get(id);
    if (!found) refuse(index, `answers call "${id}", which this session never made`);
    if (!found!.awaiting) refuse(index, `answers call "${id}", which is not waiting for the client`);
    if (found!.answered) refuse(index, `answers call "${id}", which was already answered`);
    const callName = found!.call.name ?? "";
    if (response.name !== undefined && response.name !== callName) {
      refuse(index, `answers call "${id}" as "${response.name}", but that call is "${callName}"`);
    }
    if (callName === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME && !isRecordedConfirmation(found!)) {
      refuse(index, `answers confirmation request "${id}", which the flow did not record`);
    }
    if (callName === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME && !isRecordedCredentialRequest(found!)) {
      refuse(index, `answers credential request "${id}", which the flow did not record`);
    }
    if (callName === REQUEST_INPUT_FUNCTION_CALL_NAME && !isRecordedInputRequest(found!)) {
      refuse(index, `answers input request "${id}", which the flow did not record`);
    }
    return response.name === undefined ? { ...part, functionResponse: { ...response, name: callName } } : part;
  });
  return { ...message, parts: checked };
}

/**
 * The checks that need no history (a transport can run them as a frame arrives): no function
 * calls, no code execution parts, responses with an id, each id once. Returns the response ids.
 */
export function checkIncomingParts(message: Content): Set<string> {
  const responseIds = new Set<string>();
  (message.parts ?? []).forEach((part, index) => {
    if (part.functionCall) {
      const name = part.functionCall.name ?? "";
      const reserved = RESERVED_FUNCTION_CALL_NAMES.has(name) ? ", a name only the framework's flow uses" : "";
      refuse(
        index,
        `is a functionCall ("${name}"${reserved}): only the model calls functions; answer a pending call with a ` +
          `functionResponse instead`,
      );
    }
    if (part.executableCode || part.codeExecutionResult) {
      refuse(index, "is a code execution part: only the agent's code executor produces those");
    }
    const response = part.functionResponse;
    if (!response) return;
    if (typeof response.id !== "string" || response.id === "") {
      refuse(index, "is a functionResponse without an id: give the id of the pending call it answers");
    }
    if (responseIds.has(response.id)) refuse(index, `answers call "${response.id}" a second time in one message`);
    responseIds.add(response.id);
  });
  return responseIds;
}

function refuse(index: number, problem: string): never {
  throw new InvalidUserMessageError(`Refused message: parts[${index}] ${problem}.`, { partIndex: index });
}

/**
 * The calls with the given ids, newest first, with whether a client answered each since. One
 * backward pass that stops once every id is found (answers sit after their calls).
 */
function findCalls(events: readonly Event[], ids: ReadonlySet<string>): Map<string, PendingCall> {
  const answeredByClient = new Set<string>();
  const found = new Map<string, PendingCall>();
  for (let i = events.length - 1; i >= 0 && found.size < ids.size; i--) {
    const event = events[i]!;
    if (event.author === "user") {
      for (const r of getFunctionResponses(event)) if (r.id) answeredByClient.add(r.id);
      continue;
    }
    for (const call of getFunctionCalls(event)) {
      if (!call.id || !ids.has(call.id) || found.has(call.id)) continue;
      found.set(call.id, {
        call,
        event,
        awaiting: event.longRunningToolIds?.includes(call.id) ?? false,
        answered: answeredByClient.has(call.id),
      });
    }
  }
  return found;
}

/** The confirmation request carries the original call id the flow recorded as awaiting confirmation. */
function isRecordedConfirmation({ call, event }: PendingCall): boolean {
  const original = call.args?.originalFunctionCall as { id?: unknown } | undefined;
  const originalId = typeof original?.id === "string" ? original.id : undefined;
  return originalId !== undefined && Object.hasOwn(event.actions.requestedToolConfirmations, originalId);
}

/** The credential request carries the original call id the flow recorded in `requestedAuthConfigs`. */
function isRecordedCredentialRequest({ call, event }: PendingCall): boolean {
  const originalId = call.args?.functionCallId;
  return typeof originalId === "string" && Object.hasOwn(event.actions.requestedAuthConfigs, originalId);
}

/** The input request carries the record the flow stored with it (keyed by the call's own id). */
function isRecordedInputRequest({ call, event }: PendingCall): boolean {
  const records = event.actions.requestedInputs;
  return call.id !== undefined && records !== undefined && Object.hasOwn(records, call.id);
}
