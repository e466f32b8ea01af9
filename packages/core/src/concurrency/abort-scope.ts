import { RunAbortedError } from "../errors/run-errors.js";

/** The scope that made each signal, so a scope made under it joins its children instead of listening. */
const scopeOfSignal = new WeakMap<AbortSignal, AbortScope>();

/**
 * A signal for one piece of work inside a longer one (a workflow run, one attempt of a node):
 * aborted when its parent is (with the parent's reason), by `abort`, or by `end` once the work is
 * over, so whatever it started and still listens stops.
 *
 * What `AbortSignal.any([parent, controller.signal])` gives, at a fraction of the cost: Node's
 * `AbortSignal.any` keeps every composite signal in weak references on its sources, cleaned up by
 * a finalization registry, and a workflow made one per node attempt: the weak references were
 * most of the collector's work in a chain of function nodes (a third of its CPU). A scope made
 * under another scope's signal is kept in that scope's set of children (no listener, O(1) to add
 * and to remove, however many run at once: a fan-out of thousands of nodes); under any other
 * signal it listens to it once, and `end` removes the listener.
 */
export class AbortScope {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly children = new Set<AbortScope>();
  private parent: AbortScope | undefined;
  private stopFollowing: (() => void) | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private deadlinePassed = false;

  private constructor() {
    this.signal = this.controller.signal;
    scopeOfSignal.set(this.signal, this);
  }

  /** A scope aborted when `parent` is (none: only by `abort` and `end`). */
  static under(parent: AbortSignal | undefined): AbortScope {
    const scope = new AbortScope();
    if (!parent) return scope;
    if (parent.aborted) {
      scope.controller.abort(parent.reason);
      return scope;
    }
    const owner = scopeOfSignal.get(parent);
    if (owner) {
      owner.children.add(scope);
      scope.parent = owner;
    } else {
      const onAbort = () => scope.abort(parent.reason);
      parent.addEventListener("abort", onAbort, { once: true });
      scope.stopFollowing = () => parent.removeEventListener("abort", onAbort);
    }
    return scope;
  }

  /**
   * A deadline on the work: past `ms` the scope aborts with `reason()` (a request's own time
   * bound beside its caller's signal, a workflow node's timeout); by default a `TimeoutError`
   * `DOMException` "No answer within `ms` ms.", as fetch reports its own. The timer goes with the scope:
   * `abort`, `end` and `release` clear it. Until then it keeps the process alive, so work that
   * holds nothing else open (a promise that never settles) still ends at its deadline. One
   * deadline per scope.
   */
  abortAfter(ms: number, reason: () => unknown = () => noAnswerWithin(ms)): this {
    if (this.deadline !== undefined) throw new Error("AbortScope: a deadline is already set");
    if (this.signal.aborted) return this;
    this.deadline = setTimeout(() => {
      this.deadlinePassed = true;
      this.abort(reason());
    }, ms);
    return this;
  }

  /** Whether the scope was aborted by its `abortAfter` deadline (not its parent, `abort` or `end`). */
  get timedOut(): boolean {
    return this.deadlinePassed;
  }

  /**
   * Aborts the scope and every scope under it, with `reason`. The children first: by the time
   * this signal's listeners run, nothing under it is still running unaborted.
   */
  abort(reason: unknown): void {
    if (this.signal.aborted) return;
    this.detach();
    for (const child of this.children) child.abort(reason);
    this.children.clear();
    this.controller.abort(reason);
  }

  /**
   * The work ended: the scope stops following its parent and aborts, so what it started and
   * still listens stops. Its reason (by default `endedReason()`) is a `RunAbortedError` without
   * a stack trace: capturing one walks the async stack (10-20 µs a node attempt, on every normal
   * end), and this reason reaches no caller of the run, only work left behind. Idempotent.
   */
  end(reason: Error = endedReason()): void {
    if (this.signal.aborted) {
      this.detach();
      return;
    }
    this.abort(reason);
  }

  /**
   * The work ended and nothing it started may be aborted now (a library that registers an abort
   * listener per request and never removes it would act on an abort: an MCP client sends the
   * server a cancellation): the scope stops following its parent, and its signal never aborts.
   * The parent then holds nothing of it, whatever the library left on the scope's signal.
   */
  release(): void {
    this.detach();
  }

  private detach(): void {
    clearTimeout(this.deadline);
    this.parent?.children.delete(this);
    this.parent = undefined;
    this.stopFollowing?.();
    this.stopFollowing = undefined;
  }
}

/**
 * A `RunAbortedError` made without capturing a stack trace. Where `Error.stackTraceLimit` cannot
 * be set (frozen intrinsics), an ordinary one.
 */
export function endedReason(): RunAbortedError {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    return new RunAbortedError();
  }
  try {
    return new RunAbortedError();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function noAnswerWithin(ms: number): DOMException {
  return new DOMException(`No answer within ${ms} ms.`, "TimeoutError");
}
