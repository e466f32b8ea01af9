import type { EvalSet, EvalSetResult } from "./eval-types.js";
import { InvalidEvalIdError } from "./eval-errors.js";

/**
 * Where eval sets and eval results live, per app. Implementations store whole documents;
 * case-level edits are read-modify-write done by the caller (the eval router serialises them
 * per app).
 */
export interface EvalStore {
  /** Eval set ids of the app, sorted. */
  listEvalSets(appName: string): Promise<string[]>;
  getEvalSet(appName: string, evalSetId: string): Promise<EvalSet | undefined>;
  /** Creates or replaces the eval set. */
  putEvalSet(appName: string, evalSet: EvalSet): Promise<void>;
  /** True when something was deleted. */
  deleteEvalSet(appName: string, evalSetId: string): Promise<boolean>;
  /** Eval result ids of the app, sorted. */
  listEvalSetResults(appName: string): Promise<string[]>;
  getEvalSetResult(appName: string, evalSetResultId: string): Promise<EvalSetResult | undefined>;
  putEvalSetResult(appName: string, result: EvalSetResult): Promise<void>;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Throws `InvalidEvalIdError` unless the id is safe as a file name (and as a URL segment). */
export function assertSafeId(kind: string, id: string): void {
  if (!SAFE_ID.test(id)) throw new InvalidEvalIdError(kind, id);
}

/** Eval sets and results in process memory (tests, embedders without a disk). */
export function createInMemoryEvalStore(): EvalStore {
  const sets = new Map<string, Map<string, EvalSet>>();
  const results = new Map<string, Map<string, EvalSetResult>>();
  const of = <T>(map: Map<string, Map<string, T>>, app: string): Map<string, T> => {
    let inner = map.get(app);
    if (!inner) map.set(app, (inner = new Map()));
    return inner;
  };
  // Copies in and out, so callers never share objects with the store (as with a file store).
  const copy = <T>(value: T): T => structuredClone(value);
  return {
    listEvalSets: async (app) => [...of(sets, app).keys()].sort(),
    getEvalSet: async (app, id) => {
      const found = of(sets, app).get(id);
      return found ? copy(found) : undefined;
    },
    putEvalSet: async (app, set) => {
      assertSafeId("app name", app);
      assertSafeId("eval set id", set.evalSetId);
      of(sets, app).set(set.evalSetId, copy(set));
    },
    deleteEvalSet: async (app, id) => of(sets, app).delete(id),
    listEvalSetResults: async (app) => [...of(results, app).keys()].sort(),
    getEvalSetResult: async (app, id) => {
      const found = of(results, app).get(id);
      return found ? copy(found) : undefined;
    },
    putEvalSetResult: async (app, result) => {
      assertSafeId("app name", app);
      assertSafeId("eval result id", result.evalSetResultId);
      of(results, app).set(result.evalSetResultId, copy(result));
    },
  };
}
