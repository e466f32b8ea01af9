import type { z } from "zod";

type Key = PropertyKey;

/** `sub_agents[1].model` from `["sub_agents", 1, "model"]`. */
export function formatFieldPath(path: readonly Key[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** One problem: where (a field path, empty for the whole document) and what. */
export interface FieldProblem {
  path: Key[];
  message: string;
}

/**
 * Flattens zod issues into field problems with short messages: unknown keys become one
 * problem per key at the key's own path, and a union reports the branch the value was meant for.
 */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], prefix: readonly Key[] = []): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path: [...path, key], message: "unknown field" });
    } else if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const branch = pickBranch(issue.errors);
      if (branch) out.push(...issuesToProblems(branch, path));
      else out.push({ path, message: `expected ${describeExpected(issue.errors)}` });
    } else if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) {
      out.push({ path, message: `required (${issue.expected})` });
    } else {
      out.push({ path, message: issue.message.replace(/^Invalid (input|option): /, "") });
    }
  }
  return out;
}

/** The union branch whose type matched (its problems are deeper); the one with fewest problems wins. */
function pickBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  const matching = branches.filter((b) => !b.some((i) => i.code === "invalid_type" && i.path.length === 0));
  return matching.sort((a, b) => a.length - b.length)[0];
}

function describeExpected(branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  const kinds = branches.map((b) => {
    const root = b.find((i) => i.code === "invalid_type" && i.path.length === 0);
    return root && root.code === "invalid_type" ? String(root.expected) : "a valid value";
  });
  return [...new Set(kinds)].join(" or ");
}

/** `field: message` lines joined for one error message. */
export function formatProblems(problems: readonly FieldProblem[]): string {
  return problems.map((p) => (p.path.length ? `${formatFieldPath(p.path)}: ${p.message}` : p.message)).join("; ");
}
