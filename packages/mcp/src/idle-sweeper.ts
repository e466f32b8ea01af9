/** The longest wait between two sweeps by the timer. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

/**
 * The one idle-session policy of this package's session holders (a toolset's per-user sessions,
 * the HTTP server's sessions): `sweep` runs on an unref'd timer while there is something to
 * sweep (so idle sessions close also when nothing else happens, and the timer never keeps the
 * process alive), and what a sweep lets go closes in the background, awaited by `drain`.
 */
export class IdleSweeper {
  private timer: NodeJS.Timeout | undefined;
  private readonly closing = new Set<Promise<void>>();
  private stopped = false;

  /** `idleTimeoutMs`: the sweep runs at least this often (at most once a minute). */
  constructor(
    private readonly sweep: () => void,
    private readonly idleTimeoutMs: number,
  ) {}

  /** Keeps the timer running while `holding` (there are sessions), stops it otherwise. */
  update(holding: boolean): void {
    if (!holding || this.stopped) {
      this.stopTimer();
      return;
    }
    if (this.timer) return;
    this.timer = setInterval(this.sweep, Math.min(this.idleTimeoutMs, MAX_SWEEP_INTERVAL_MS));
    this.timer.unref();
  }

  /** Closes a session let go, in the background; a failure to close is ignored (it is gone for us). */
  closeInBackground(close: () => Promise<void>): void {
    const done: Promise<void> = close()
      .catch(() => undefined)
      .finally(() => this.closing.delete(done));
    this.closing.add(done);
  }

  /** Stops the timer for good and waits for the closes in progress. */
  async drain(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    await Promise.all([...this.closing]);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
