// Promises made while a piece of work runs, counted by an `async_hooks` init hook: a figure that
// does not move with the machine's load, for changes too small for a timing here to resolve
// (each promise costs its allocation, a reaction and a microtask turn; bench/HISTORY.md, "Warm
// HTTP under 5x; fewer promises per model call"). The hook slows every promise while it is on,
// so it is on only around the counted work, never during a timed round.
import { createHook } from "node:async_hooks";

/** Starts counting the promises this process makes; the returned function stops and gives the count. */
export function startPromiseCount(): () => number {
  let count = 0;
  const hook = createHook({
    init(_asyncId, type) {
      if (type === "PROMISE") count++;
    },
  });
  hook.enable();
  return () => {
    hook.disable();
    return count;
  };
}

/** Runs `work` and returns how many promises were made while it ran (its own and anything else's). */
export async function countPromises(work: () => Promise<void>): Promise<number> {
  const stop = startPromiseCount();
  let count: number | undefined;
  try {
    await work();
  } finally {
    count = stop();
  }
  return count;
}
