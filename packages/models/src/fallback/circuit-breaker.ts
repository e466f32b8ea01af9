import { ConfigurationError } from "@agentkit/core";

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (default 5). */
  failureThreshold?: number;
  /** How long an open circuit keeps the model out before one probe request may try it (default 30 s). */
  openMs?: number;
  /** Clock in milliseconds (default `Date.now`; tests replace it). */
  now?: () => number;
}

export type CircuitState = "closed" | "open" | "half-open";

/** Leave to send one request; settle it once with its outcome. */
export interface CircuitPermit {
  /** The provider answered (or refused the request itself): it is healthy. */
  success(): void;
  /** The provider failed in a way that counts (see `FallbackModel`'s `failoverOn`). */
  failure(): void;
  /** The request ended without telling anything about the provider (cancelled, stopped early). */
  release(): void;
}

const DEFAULTS = { failureThreshold: 5, openMs: 30_000 };

/**
 * Keeps a failing model out for a while. Closed: every request goes; `failureThreshold`
 * consecutive failures open it. Open: requests are refused until `openMs` has passed. Then
 * half-open: one probe request goes (others are still refused); its success closes the
 * circuit, its failure opens it again for `openMs`. Shared by concurrent requests; only
 * requests let through while closed, or the probe, change the state.
 */
export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly openMs: number;
  private readonly now: () => number;
  private failures = 0;
  private openUntil: number | undefined;
  private probing = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = options.failureThreshold ?? DEFAULTS.failureThreshold;
    this.openMs = options.openMs ?? DEFAULTS.openMs;
    this.now = options.now ?? Date.now;
    if (!Number.isInteger(this.failureThreshold) || this.failureThreshold < 1)
      throw new ConfigurationError(
        `Invalid circuit breaker: failureThreshold must be an integer >= 1 (got ${String(this.failureThreshold)}).`,
      );
    if (!(this.openMs >= 0))
      throw new ConfigurationError(`Invalid circuit breaker: openMs must be >= 0 (got ${String(this.openMs)}).`);
  }

  get state(): CircuitState {
    if (this.openUntil === undefined) return "closed";
    return this.now() < this.openUntil ? "open" : "half-open";
  }

  /** Consecutive failures counted while closed. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Milliseconds until an open circuit lets a probe through (0 when it would now). */
  get msUntilProbe(): number {
    return this.openUntil === undefined ? 0 : Math.max(0, this.openUntil - this.now());
  }

  /** A permit for one request, or undefined while the circuit is open (or its probe is out). */
  tryAcquire(): CircuitPermit | undefined {
    const state = this.state;
    if (state === "open") return undefined;
    if (state === "half-open") {
      if (this.probing) return undefined;
      this.probing = true;
      return this.permit(true);
    }
    return this.permit(false);
  }

  private permit(probe: boolean): CircuitPermit {
    let settled = false;
    const settle = (outcome: "success" | "failure" | "release") => {
      if (settled) return;
      settled = true;
      if (probe) {
        this.probing = false;
        if (outcome === "success") this.close();
        else if (outcome === "failure") this.open();
        return;
      }
      if (this.openUntil !== undefined) return; // opened meanwhile by other requests
      if (outcome === "success") this.failures = 0;
      else if (outcome === "failure" && ++this.failures >= this.failureThreshold) this.open();
    };
    return {
      success: () => settle("success"),
      failure: () => settle("failure"),
      release: () => settle("release"),
    };
  }

  private open(): void {
    this.openUntil = this.now() + this.openMs;
  }

  private close(): void {
    this.openUntil = undefined;
    this.failures = 0;
  }
}
