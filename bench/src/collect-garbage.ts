import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collector: (() => void) | undefined;

/**
 * A full collection now (`global.gc`). When Node was started without `--expose-gc`, the flag is
 * set on first use; it then applies to contexts made after it, so the function comes from a new
 * one (the collection is the whole process's either way).
 */
export function collectGarbage(): void {
  collector ??= (globalThis as { gc?: () => void }).gc ?? exposeGc();
  collector();
}

function exposeGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
