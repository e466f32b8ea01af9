import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { resolveUserScope, type OwnerResolver, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { ConfigurationError } from "@agentkit/core";

export interface BoundedTaskStoreOptions {
  /** Most tasks kept, over all callers (default 10,000). Past it the least recently saved go, settled ones first. */
  maxTasks?: number;
  /** A task not saved for this long is dropped (default one day). */
  ttlMs?: number;
  /** Whose a task is (default: the SDK's `resolveUserScope`, the authenticated user's name). */
  ownerResolver?: OwnerResolver;
  /** The clock, in ms (default `Date.now`). */
  now?: () => number;
}

const DEFAULT_MAX_TASKS = 10_000;
const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_PAGE_SIZE = 50;
const SETTLED = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

interface Entry {
  readonly scopeKey: string;
  readonly scope: Map<string, Entry>;
  readonly id: string;
  task: Task;
  savedAt: number;
  settled: boolean;
}

/**
 * An in-memory A2A `TaskStore` that stays bounded: `createA2aRouter`'s default. The SDK's
 * `InMemoryTaskStore` keeps every task for the life of the process; this one keeps at most
 * `maxTasks` and drops tasks not saved for `ttlMs`.
 *
 * - Each caller sees only its own tasks (tenant, then owner from `ownerResolver`), as in the SDK.
 * - Eviction drops settled tasks (completed, failed, canceled, rejected) before open ones, each
 *   oldest-saved first, so a task waiting for input outlives finished ones. Every save of a
 *   task (the SDK saves on each update) makes it the newest again.
 * - Tasks are copied in and out (`structuredClone`): the SDK edits the tasks it loads.
 * - `list` pages by (status timestamp, id), newest first. A page token names the last task
 *   returned, so paging goes on where it was even when that task changed or was dropped since.
 */
export class BoundedTaskStore implements TaskStore {
  private readonly maxTasks: number;
  private readonly ttlMs: number;
  private readonly ownerOf: OwnerResolver;
  private readonly now: () => number;
  /** tenant + owner → task id → entry. */
  private readonly scopes = new Map<string, Map<string, Entry>>();
  /** Save order (oldest first), settled and open apart: eviction and expiry read from the front. */
  private readonly settled = new Set<Entry>();
  private readonly open = new Set<Entry>();

  constructor(options: BoundedTaskStoreOptions = {}) {
    const { maxTasks = DEFAULT_MAX_TASKS, ttlMs = DEFAULT_TTL_MS } = options;
    if (!Number.isInteger(maxTasks) || maxTasks < 1) {
      throw new ConfigurationError(`BoundedTaskStore: maxTasks must be a positive integer, got ${maxTasks}`);
    }
    if (!(ttlMs > 0)) throw new ConfigurationError(`BoundedTaskStore: ttlMs must be positive, got ${ttlMs}`);
    this.maxTasks = maxTasks;
    this.ttlMs = ttlMs;
    this.ownerOf = options.ownerResolver ?? resolveUserScope;
    this.now = options.now ?? Date.now;
  }

  /** Tasks kept now, over all callers. */
  get size(): number {
    return this.settled.size + this.open.size;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const now = this.now();
    this.expire(now);
    const key = this.scopeKey(context);
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = new Map();
      this.scopes.set(key, scope);
    }
    const copy = structuredClone(task);
    const settled = SETTLED.has(copy.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
    let entry = scope.get(copy.id);
    if (entry) {
      this.ordered(entry).delete(entry);
      entry.task = copy;
      entry.savedAt = now;
      entry.settled = settled;
    } else {
      entry = { scopeKey: key, scope, id: copy.id, task: copy, savedAt: now, settled };
      scope.set(entry.id, entry);
    }
    this.ordered(entry).add(entry);
    while (this.size > this.maxTasks) {
      const oldest = first(this.settled) ?? first(this.open);
      if (!oldest) break;
      this.drop(oldest);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.expire(this.now());
    const entry = this.scopes.get(this.scopeKey(context))?.get(taskId);
    return entry ? structuredClone(entry.task) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    this.expire(this.now());
    const { contextId, status, statusTimestampAfter, includeArtifacts = false } = params;
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const after = statusTimestampAfter ? Date.parse(statusTimestampAfter) : undefined;
    const cursor = params.pageToken ? decodeCursor(params.pageToken) : undefined;
    const matching: Task[] = [];
    for (const { task } of this.scopes.get(this.scopeKey(context))?.values() ?? []) {
      if (contextId && task.contextId !== contextId) continue;
      if (status && task.status?.state !== status) continue;
      if (after !== undefined && !(Date.parse(task.status?.timestamp ?? "") > after)) continue;
      matching.push(task);
    }
    matching.sort(newestFirst);
    const start = cursor ? matching.findIndex((task) => newestFirst(task, cursor) > 0) : 0;
    const page = start < 0 ? [] : matching.slice(start, start + pageSize);
    const last = page.at(-1);
    const more = last !== undefined && start + page.length < matching.length;
    return {
      tasks: page.map((task) => {
        const copy = structuredClone(task);
        if (!includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken: more ? encodeCursor(last) : "",
      pageSize,
      totalSize: matching.length,
    };
  }

  private scopeKey(context: ServerCallContext): string {
    return JSON.stringify([context.tenant ?? "", this.ownerOf(context)]);
  }

  private ordered(entry: Entry): Set<Entry> {
    return entry.settled ? this.settled : this.open;
  }

  /** Drops the tasks not saved within the TTL: each set is in save order, so only its front is read. */
  private expire(now: number): void {
    for (const ordered of [this.settled, this.open]) {
      for (let entry = first(ordered); entry && now - entry.savedAt >= this.ttlMs; entry = first(ordered)) {
        this.drop(entry);
      }
    }
  }

  private drop(entry: Entry): void {
    this.ordered(entry).delete(entry);
    entry.scope.delete(entry.id);
    if (entry.scope.size === 0) this.scopes.delete(entry.scopeKey);
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

interface Cursor {
  readonly id: string;
  readonly status?: { readonly timestamp?: string };
}

/** List order: newest status timestamp first, then id descending (a stable total order). */
function newestFirst(a: Cursor, b: Cursor): number {
  const at = a.status?.timestamp ?? "";
  const bt = b.status?.timestamp ?? "";
  if (at !== bt) return at < bt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

function encodeCursor(task: Task): string {
  return Buffer.from(JSON.stringify([task.status?.timestamp ?? "", task.id])).toString("base64url");
}

function decodeCursor(token: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { id: value[1], status: { timestamp: value[0] } };
    }
  } catch {
    // fall through: not a token this store made
  }
  throw new RequestMalformedError("pageToken is not a page token this server made");
}
