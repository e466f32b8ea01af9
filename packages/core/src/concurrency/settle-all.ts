/**
 * The one policy for ending several resources (closing plugins, agents, runners, services): each
 * is tried even when another fails, and what failed is thrown once all were tried: one failure as
 * it is, several as an `AggregateError` with `message` (given the count).
 */
export async function settleAll(
  work: Iterable<Promise<unknown>>,
  message: (failures: number) => string,
): Promise<void> {
  const results = await Promise.allSettled(work);
  throwFailures(
    results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : [])),
    message,
  );
}

/** `settleAll` for steps that must run one after the other (a server drained before the services it uses close). */
export async function settleInOrder(
  steps: Iterable<() => unknown>,
  message: (failures: number) => string,
): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  throwFailures(failures, message);
}

/** Throws nothing for no failure, the failure itself for one, an `AggregateError` for several. */
export function throwFailures(failures: readonly unknown[], message: (failures: number) => string): void {
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, message(failures.length));
}
