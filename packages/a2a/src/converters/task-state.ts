import { TaskState } from "@a2a-js/sdk";

const NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/** The A2A spec's name of a task state (`input-required`, ...), or `unknown`. */
export function taskStateName(state: TaskState | undefined): string {
  return (state !== undefined && NAMES[state]) || "unknown";
}

/** States in which the remote task waits for the client: the next message continues it. */
export function isWaitingState(state: TaskState | undefined): boolean {
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/** States that end a task with an error. */
export function isErrorState(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_REJECTED ||
    state === TaskState.TASK_STATE_CANCELED
  );
}
