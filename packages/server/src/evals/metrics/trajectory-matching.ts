import type { FunctionCall } from "@agentkit/core";
import type { ArgMatcher, TrajectoryCriterion } from "./criteria.js";

/** Deep equality of JSON values; `undefined` object members count as absent. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function matchValue(matcher: ArgMatcher, actual: unknown, expected: unknown): boolean {
  switch (matcher.type) {
    case "ignore":
      return true;
    case "numeric": {
      const a = typeof actual === "string" && actual.trim() !== "" ? Number(actual) : actual;
      return typeof a === "number" && typeof expected === "number" && Math.abs(a - expected) <= matcher.tolerance;
    }
    case "regex": {
      // The expected value is the reference; the pattern judges the actual value.
      const text = typeof actual === "string" ? actual : JSON.stringify(actual);
      return new RegExp(matcher.pattern, `${matcher.flags ?? ""}u`).test(text ?? "");
    }
    default:
      return sameJson(actual, expected);
  }
}

/** Compares `actual` with `expected` at `path`, handing the paths below with their own matchers down. */
function matchAt(path: string, actual: unknown, expected: unknown, matchers: Record<string, ArgMatcher>): boolean {
  const own = path === "" ? undefined : matchers[path];
  if (own) return matchValue(own, actual, expected);
  const prefix = path === "" ? "" : `${path}.`;
  const nested = Object.keys(matchers).some((p) => p.startsWith(prefix));
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!nested || !isObj(actual) || !isObj(expected)) return sameJson(actual, expected);
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  for (const key of keys) {
    const child = `${prefix}${key}`;
    if (matchers[child]?.type === "ignore") continue;
    if (!(key in actual) || !(key in expected)) {
      if (actual[key] !== undefined || expected[key] !== undefined) return false;
      continue;
    }
    if (!matchAt(child, actual[key], expected[key], matchers)) return false;
  }
  return true;
}

/** Whether one actual call matches one expected call under the criterion. */
export function callMatches(actual: FunctionCall, expected: FunctionCall, criterion: TrajectoryCriterion): boolean {
  if (actual.name !== expected.name) return false;
  if (criterion.ignoreArgs) return true;
  const matchers = { ...criterion.argMatchers["*"], ...criterion.argMatchers[expected.name ?? ""] };
  return matchAt("", actual.args ?? {}, expected.args ?? {}, matchers);
}

/**
 * How many expected calls the actual calls account for, under the match type: EXACT pairs calls
 * by position, IN_ORDER finds the longest common subsequence, ANY_ORDER the largest one-to-one
 * pairing in any order (augmenting paths, so a loose matcher cannot steal a call another needs).
 */
export function matchedCalls(actual: FunctionCall[], expected: FunctionCall[], criterion: TrajectoryCriterion): number {
  const ok = (a: number, e: number) => callMatches(actual[a]!, expected[e]!, criterion);
  if (criterion.matchType === "EXACT") {
    let n = 0;
    for (let i = 0; i < Math.min(actual.length, expected.length); i++) if (ok(i, i)) n++;
    return n;
  }
  if (criterion.matchType === "IN_ORDER") {
    const lcs = Array.from({ length: actual.length + 1 }, () => new Array<number>(expected.length + 1).fill(0));
    for (let a = 1; a <= actual.length; a++)
      for (let e = 1; e <= expected.length; e++)
        lcs[a]![e] = ok(a - 1, e - 1) ? lcs[a - 1]![e - 1]! + 1 : Math.max(lcs[a - 1]![e]!, lcs[a]![e - 1]!);
    return lcs[actual.length]![expected.length]!;
  }
  const owner = new Array<number>(actual.length).fill(-1);
  const assign = (e: number, seen: boolean[]): boolean => {
    for (let a = 0; a < actual.length; a++) {
      if (seen[a] || !ok(a, e)) continue;
      seen[a] = true;
      if (owner[a] === -1 || assign(owner[a]!, seen)) {
        owner[a] = e;
        return true;
      }
    }
    return false;
  };
  let n = 0;
  for (let e = 0; e < expected.length; e++) if (assign(e, new Array<boolean>(actual.length).fill(false))) n++;
  return n;
}

export interface TrajectoryScore {
  score: number;
  matched: number;
  precision: number;
  recall: number;
  f1: number;
}

/**
 * The trajectory score of one turn. Binary (ADK): EXACT needs the same calls in the same order
 * and nothing else; IN_ORDER and ANY_ORDER need every expected call and allow extra ones.
 * Partial credit: precision (matched / actual calls), recall (matched / expected calls) or F1;
 * an empty side counts as fully precise (no call) or fully recalled (nothing to find).
 */
export function scoreTrajectory(
  actual: FunctionCall[],
  expected: FunctionCall[],
  criterion: TrajectoryCriterion,
): TrajectoryScore {
  const matched = matchedCalls(actual, expected, criterion);
  const precision = actual.length === 0 ? 1 : matched / actual.length;
  const recall = expected.length === 0 ? 1 : matched / expected.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const allFound = matched === expected.length;
  const binary = criterion.matchType === "EXACT" ? allFound && actual.length === expected.length : allFound;
  const score =
    criterion.scoring === "precision"
      ? precision
      : criterion.scoring === "recall"
        ? recall
        : criterion.scoring === "f1"
          ? f1
          : binary
            ? 1
            : 0;
  return { score, matched, precision, recall, f1 };
}
