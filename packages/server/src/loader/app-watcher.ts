import { watch, type FSWatcher } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";

/**
 * Marker files written at the directory's top by `settled()`: their event proves earlier ones
 * arrived. Not under `.agentkit/`: the watcher does not look there (see `unwatched`).
 */
const BARRIER_PREFIX = ".agentkit-reload-barrier-";

/**
 * Paths the watcher does not watch at all: `node_modules` and dot-folders (`.agentkit/`, where
 * the dev server keeps its SQLite database, artifacts and eval results; `.git`; editors'
 * folders). No app reloads for a change there, and on Linux Node's recursive watcher puts an
 * inotify watch on every file it watches and, on each event, stats the file and re-reads its
 * folder: with the database inside, every commit of a run cost a `stat` and a `readdir` or
 * more (two fifths to half of `agentkit web`'s CPU per flow on the example agents). Node 24.14
 * and later honour this; before, they watch everything and `onChange` drops the same events.
 */
function unwatched(relativePath: string): boolean {
  for (const part of relativePath.split(sep)) {
    if (part === "node_modules" || (part.startsWith(".") && !part.startsWith(BARRIER_PREFIX))) return true;
  }
  return false;
}

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
      const watcher = watch(agentsDir, { recursive: true, persistent: false, ignore: unwatched });
      return new AppWatcher(agentsDir, debounceMs, watcher);
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
    const seen = new Promise<void>((resolve) => this.barriers.set(name, resolve));
    try {
      await writeFile(join(this.agentsDir, name), "");
      await seen;
    } finally {
      this.barriers.delete(name);
      await rm(join(this.agentsDir, name), { force: true });
    }
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
    if (filename.startsWith(BARRIER_PREFIX)) {
      this.barriers.get(filename)?.();
      return;
    }
    // Where `ignore` is not supported (Node before 24.14), the watcher still reports these.
    if (unwatched(filename)) return;
    const parts = filename.split(sep);
    // Inside an app folder: that app. Anywhere else (shared code, files at the root): every app.
    if (parts.length > 1 && !parts[0]!.startsWith("_")) this.changedAt.set(parts[0]!, now);
    else this.everythingChangedAt = now;
  }
}
