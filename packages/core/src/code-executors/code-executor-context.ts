/** The session-state key holding code-execution bookkeeping (ADK's name). */
export const CODE_EXECUTION_CONTEXT_KEY = "_code_execution_context";

/** What the flow keeps under `_code_execution_context` in session state. */
export interface CodeExecutionContextState {
  /** Shared by the executions of a stateful executor (the session id). */
  executionId?: string;
  /** Consecutive failed executions per invocation id. */
  errorCounts: Record<string, number>;
}

/** Reads the bookkeeping from session state (tolerates missing or malformed values). */
export function readCodeExecutionContext(state: Record<string, unknown>): CodeExecutionContextState {
  const raw = state[CODE_EXECUTION_CONTEXT_KEY];
  const value = typeof raw === "object" && raw !== null ? (raw as Partial<CodeExecutionContextState>) : {};
  const errorCounts: Record<string, number> = {};
  if (typeof value.errorCounts === "object" && value.errorCounts !== null) {
    for (const [id, n] of Object.entries(value.errorCounts)) if (typeof n === "number") errorCounts[id] = n;
  }
  const out: CodeExecutionContextState = { errorCounts };
  if (typeof value.executionId === "string") out.executionId = value.executionId;
  return out;
}

/** The error count of one invocation. */
export function getErrorCount(context: CodeExecutionContextState, invocationId: string): number {
  return context.errorCounts[invocationId] ?? 0;
}
