import type { Event } from "../events/event.js";
import { BaseAgent, type BaseAgentOptions } from "./base-agent.js";
import type { InvocationContext } from "../context/invocation-context.js";

export type ParallelAgentOptions = BaseAgentOptions;

/**
 * Runs its sub-agents concurrently, each in its own branch (`<branch>.<name>.<subName>`) so
 * none sees the others' events. Events are yielded in the order they are produced; a
 * sub-agent resumes only after the consumer took its previous event (so the runner has
 * persisted it). A failure in one stops the others and propagates.
 */
export class ParallelAgent extends BaseAgent {
  constructor(options: ParallelAgentOptions) {
    super(options);
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    const controller = new AbortController();
    const parentSignal = ctx.signal;
    const onAbort = () => controller.abort(parentSignal?.reason);
    if (parentSignal?.aborted) onAbort();
    else parentSignal?.addEventListener("abort", onAbort, { once: true });
    try {
      const runs = this.subAgents.map((sub) =>
        sub.runAsync(
          ctx.withAgent(sub, { branch: branchFor(ctx.branch, this.name, sub.name), signal: controller.signal }),
        ),
      );
      yield* mergeAgentRuns(runs, () =>
        controller.abort(new Error(`ParallelAgent "${this.name}" stopped its sub-agents`)),
      );
    } finally {
      parentSignal?.removeEventListener("abort", onAbort);
    }
  }
}

/** The branch of a parallel sub-agent. */
export function branchFor(parentBranch: string | undefined, parentName: string, subName: string): string {
  return parentBranch ? `${parentBranch}.${parentName}.${subName}` : `${parentName}.${subName}`;
}

type Settled<T> =
  | { index: number; failed: false; result: IteratorResult<T, void> }
  | { index: number; failed: true; error: unknown };

/**
 * Merges generators fairly: each runs one step at a time and its results are yielded in the
 * order they settle; a generator is pulled again only after its value was consumed. When the
 * merge ends early (error, consumer stop), `stop` is called and every generator is closed.
 */
export async function* mergeAgentRuns<T>(
  runs: AsyncGenerator<T, void, void>[],
  stop: () => void,
): AsyncGenerator<T, void, void> {
  const ready: Settled<T>[] = [];
  const pending = new Set<number>();
  const done = new Set<number>();
  let wake: (() => void) | undefined;
  const settle = (s: Settled<T>) => {
    pending.delete(s.index);
    ready.push(s);
    wake?.();
    wake = undefined;
  };
  const pull = (index: number) => {
    pending.add(index);
    runs[index]!.next().then(
      (result) => settle({ index, failed: false, result }),
      (error: unknown) => settle({ index, failed: true, error }),
    );
  };
  let finished = false;
  try {
    for (let i = 0; i < runs.length; i++) pull(i);
    while (done.size < runs.length) {
      if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const next = ready.shift()!;
      if (next.failed) {
        done.add(next.index);
        throw next.error;
      }
      if (next.result.done) {
        done.add(next.index);
        continue;
      }
      yield next.result.value;
      pull(next.index);
    }
    finished = true;
  } finally {
    if (!finished) {
      stop();
      const closing: Promise<unknown>[] = [];
      runs.forEach((run, i) => {
        if (done.has(i)) return;
        // A generator busy in a step cannot be awaited (it may ignore the abort): queue its return.
        if (pending.has(i)) run.return(undefined).catch(() => {});
        else closing.push(run.return(undefined).catch(() => {}));
      });
      await Promise.all(closing);
    }
  }
}
