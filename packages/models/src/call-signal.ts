import { AbortScope } from "@agentkit/core/internal";

/** One model call's abort signal; `release()` once the call has ended (idempotent). */
export interface CallSignal {
  readonly signal: AbortSignal | undefined;
  release(): void;
}

const NOTHING_TO_RELEASE = () => {};

/**
 * The signal of one model call: aborted when the caller's signal (`options.signal`, the run's)
 * or the request's own `config.abortSignal` is, with that signal's reason. Either alone is used
 * as it is. With both, the call gets a scope under the caller's signal (no listener when that is
 * a scope's signal, as the run's is) and one listener on the config's; `release()` drops both,
 * so a signal that outlives the call (the run's lives for the whole run) keeps nothing of it and
 * the call's signal never aborts afterwards.
 */
export function callSignal(caller: AbortSignal | undefined, config: AbortSignal | undefined): CallSignal {
  if (!caller || !config || caller === config) return { signal: caller ?? config, release: NOTHING_TO_RELEASE };
  const scope = AbortScope.under(caller);
  if (config.aborted) {
    scope.abort(config.reason);
    return { signal: scope.signal, release: () => scope.release() };
  }
  const onAbort = () => scope.abort(config.reason);
  config.addEventListener("abort", onAbort, { once: true });
  return {
    signal: scope.signal,
    release: () => {
      config.removeEventListener("abort", onAbort);
      scope.release();
    },
  };
}

/**
 * A model call's stream under `callSignal(caller, config)`: `run` gets the combined signal, and
 * it is released when the stream ends, fails or its consumer stops.
 */
export async function* underCallSignal<T>(
  caller: AbortSignal | undefined,
  config: AbortSignal | undefined,
  run: (signal: AbortSignal | undefined) => AsyncIterable<T>,
): AsyncGenerator<T, void, void> {
  const call = callSignal(caller, config);
  try {
    yield* run(call.signal);
  } finally {
    call.release();
  }
}
