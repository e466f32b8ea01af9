import type { ServerLogger } from "../server-logger.js";
import type { OtelSignal } from "./otel-config.js";

/** `ExportResultCode.SUCCESS` of @opentelemetry/core (a stable value; not imported for one number). */
const SUCCESS = 0;

interface ExportResult {
  code: number;
  error?: Error;
}

interface Exporter {
  export(items: never, resultCallback: (result: ExportResult) => void): void;
}

/**
 * Reports failed exports (a receiver that is down, a 4xx) to the server log without ever
 * failing a run: the first failure of a signal is logged at once, later ones at most once per
 * `intervalMs` with how many were left out; a success re-arms the first-failure message. Only
 * the error's message is logged (no request, no headers).
 */
export class ExportFailureReporter {
  private readonly state = new Map<OtelSignal, { failing: boolean; lastLogged: number; suppressed: number }>();

  constructor(
    private readonly logger: ServerLogger,
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A proxy of `exporter` whose export results are watched (every other member passes through). */
  watch<T extends object>(signal: OtelSignal, exporter: T): T {
    const reporter = this;
    return new Proxy(exporter, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === "export" && typeof value === "function")
          return (items: never, done: (result: ExportResult) => void) =>
            (value as Exporter["export"]).call(target, items, (result) => {
              reporter.record(signal, result);
              done(result);
            });
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  record(signal: OtelSignal, result: ExportResult): void {
    let s = this.state.get(signal);
    if (!s) this.state.set(signal, (s = { failing: false, lastLogged: Number.NEGATIVE_INFINITY, suppressed: 0 }));
    if (result.code === SUCCESS) {
      s.failing = false;
      return;
    }
    const now = this.now();
    if (s.failing && now - s.lastLogged < this.intervalMs) {
      s.suppressed += 1;
      return;
    }
    const more = s.suppressed > 0 ? ` (${s.suppressed} more failed exports since the last message)` : "";
    this.logger.warn(
      `OpenTelemetry: exporting ${signal} failed${more}; runs go on, telemetry is dropped until the receiver answers: ${
        result.error?.message ?? "unknown error"
      }`,
    );
    s.failing = true;
    s.lastLogged = now;
    s.suppressed = 0;
  }
}
