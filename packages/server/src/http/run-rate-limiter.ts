import { HttpRequestError } from "../errors/server-errors.js";

/** Run starts per minute, per app user and per app (`0`: no limit). See docs/deployment.md#rate-limits. */
export interface RunRateLimits {
  /** Runs (`/run`, `/run_sse`, `/api/reasoning_engine`, `/run_live`, and those `ServerContext.admitRun` admits: A2A messages) one user of one app may start per minute. */
  runsPerUserPerMinute: number;
  /** Runs all users of one app together may start per minute. */
  runsPerAppPerMinute: number;
}

/** A run refused by a rate limit: 429 with `Retry-After` (when the next run would be allowed). */
export class RateLimitedError extends HttpRequestError {
  constructor(scope: "user" | "app", retryAfterSeconds: number) {
    super(
      429,
      "RATE_LIMITED",
      scope === "user"
        ? "Too many runs started by this user; retry later."
        : "Too many runs started for this app; retry later.",
      { retryAfterSeconds },
    );
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

// Past this many tracked keys, full buckets (keys idle for a minute or more) are forgotten.
const PRUNE_AT = 10_000;

/**
 * Token buckets per user and per app: each holds a minute's allowance and refills continuously,
 * so a burst of a minute's runs passes and then runs flow at the steady rate. Per process: with
 * several replicas behind a balancer each applies the limit on its own (docs/deployment.md).
 */
export class RunRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: RunRateLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one run from the user's and the app's allowance, or throws `RateLimitedError` (taking neither). */
  take(appName: string, userId: string): void {
    const user = this.check(`user:${JSON.stringify([appName, userId])}`, this.limits.runsPerUserPerMinute);
    const app = this.check(`app:${appName}`, this.limits.runsPerAppPerMinute);
    if (user.waitMs > 0) throw new RateLimitedError("user", user.waitMs / 1000);
    if (app.waitMs > 0) throw new RateLimitedError("app", app.waitMs / 1000);
    user.commit();
    app.commit();
  }

  /** How long until the key has a token (0: now), and how to take it. */
  private check(key: string, perMinute: number): { waitMs: number; commit: () => void } {
    if (perMinute <= 0) return { waitMs: 0, commit: () => {} };
    const now = this.now();
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(perMinute, bucket.tokens + (now - bucket.at) * perMs) : perMinute;
    if (tokens >= 1) {
      return {
        waitMs: 0,
        commit: () => {
          if (this.buckets.size >= PRUNE_AT) this.prune(now);
          this.buckets.set(key, { tokens: tokens - 1, at: now });
        },
      };
    }
    return { waitMs: (1 - tokens) / perMs, commit: () => {} };
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= 60_000) this.buckets.delete(key);
  }
}
