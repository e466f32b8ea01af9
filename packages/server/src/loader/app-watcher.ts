import { watch, type FSWatcher } from "node:fs";
import { mkdir, writeFile, rm } from "node:fs/promises";
import { join, sep } from "node:path";

/** Marker files written into `.agentkit/` by `settled()`: their event proves earlier ones arrived. */
const BARRIER_DIR = ".agentkit";
const BARRIER_PREFIX = "reload-barrier-";

/**
 * Watches an agents directory (recursively, one watcher) so the loader knows which apps may
 * have changed without scanning the tree on every run. A change under `<app>/…` marks that app;
 * a change anywhere else (a shared module, a `config_path` target) marks every app, which then
 * checks its own files once. Changes are debounced: an app reloads only after `debounceMs`
 * without a change, so an editor's multi-step save is read whole.
 */
export class AppWatcher {
  private readonly watcher: FSWatcher;
  /** App name → time of its latest change (ms). */
  private readonly changedAt = new Map<string, number>();
  /** Time of the latest change that concerns every app (shared code, an unknown file). */
  private everythingChangedAt = Number.NEGATIVE_INFINITY;
  /** App name → the change time its last check accounted for. */
  private readonly checkedAt = new Map<string, number>();
  private readonly barriers = new Map<string, () => void>();
  private barrierCount = 0;

  private constructor(
    private readonly agentsDir: string,
    private readonly debounceMs: number,
    watcher: FSWatcher,
  ) {
    this.watcher = watcher;
    watcher.on("change", (_type, filename) => this.onChange(filename === null ? undefined : String(filename)));
    // A watcher that fails (the directory removed, a watch limit) marks everything for checking.
    watcher.on("error", () => (this.everythingChangedAt = Date.now()));
  }

  /** A watcher on the directory, or undefined where recursive watching is unavailable. */
  static start(agentsDir: string, debounceMs: number): AppWatcher | undefined {
    try {
      return new AppWatcher(agentsDir, debounceMs, watch(agentsDir, { recursive: true, persistent: false }));
    } catch {
      return undefined;
    }
  }

  /**
   * Whether the app must check its files before serving, and how long to wait first (the rest
   * of the debounce). Taking the answer clears the mark: the caller checks now.
   */
  take(appName: string): { check: boolean; waitMs: number } {
    const at = Math.max(this.changedAt.get(appName) ?? Number.NEGATIVE_INFINITY, this.everythingChangedAt);
    if (at <= (this.checkedAt.get(appName) ?? Number.NEGATIVE_INFINITY)) return { check: false, waitMs: 0 };
    this.checkedAt.set(appName, at);
    return { check: true, waitMs: Math.max(0, at + this.debounceMs - Date.now()) };
  }

  /**
   * Resolves once every change made before the call has been seen: writes a marker file and
   * waits for its own event (file system events arrive in order). For tests and tools that
   * edit files and then load at once.
   */
  async settled(): Promise<void> {
    const name = `${BARRIER_PREFIX}${process.pid}-${++this.barrierCount}`;
    const dir = join(this.agentsDir, BARRIER_DIR);
    await mkdir(dir, { recursive: true });
    const seen = new Promise<void>((resolve) => this.barriers.set(name, resolve));
    await writeFile(join(dir, name), "");
    await seen;
    await rm(join(dir, name), { force: true });
  }

  close(): void {
    this.watcher.close();
    for (const resolve of this.barriers.values()) resolve();
    this.barriers.clear();
  }

  private onChange(filename: string | undefined): void {
    const now = Date.now();
    if (filename === undefined) {
      this.everythingChangedAt = now;
      return;
    }
    const parts = filename.split(sep);
    if (parts[0] === BARRIER_DIR) {
      const barrier = this.barriers.get(parts[parts.length - 1]!);
      if (barrier) {
        this.barriers.delete(parts[parts.length - 1]!);
        barrier();
      }
      return;
    }
    if (parts.some((p) => p === "node_modules") || parts.some((p) => p.startsWith("."))) return;
    // Inside an app folder: that app. Anywhere else (shared code, files at the root): every app.
    if (parts.length > 1 && !parts[0]!.startsWith("_")) this.changedAt.set(parts[0]!, now);
    else this.everythingChangedAt = now;
  }
}
