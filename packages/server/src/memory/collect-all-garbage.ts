import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type GcFunction = (options?: {
  type?: "major" | "minor";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => void;

let gc: GcFunction | undefined;

/**
 * A full collection that also hands the young generation's pages back to the system (V8's
 * "last resort" collection, what a low-memory notification runs). A regular collection, and
 * `global.gc()` without options, leave the young generation at the size a busy period grew it to
 * (128 MB committed here), and nothing in Node shrinks it later. V8 offers this collection only
 * through `--expose-gc`'s `gc`: the flag is turned on for exactly one new context to fetch that
 * function, then off again, so no other context (a `node:vm` sandbox) ever gets it. Synchronous:
 * it blocks the event loop for the length of one full collection.
 */
export function collectAllGarbage(): void {
  gc ??= globalGc() ?? fetchGc();
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** The process's own `gc` when it runs with `--expose-gc` (its flag then stays as it is). */
function globalGc(): GcFunction | undefined {
  const existing = (globalThis as { gc?: unknown }).gc;
  return typeof existing === "function" ? (existing as GcFunction) : undefined;
}

function fetchGc(): GcFunction {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as GcFunction;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}
