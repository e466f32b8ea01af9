/**
 * Differences between a recorded value and a live one, as `path: expected X, got Y` lines.
 * Keys listed in `ignoreKeys` (generated ids, timestamps) are skipped at any depth.
 */
export function diffValues(
  expected: unknown,
  actual: unknown,
  ignoreKeys: ReadonlySet<string>,
  path = "",
  out: string[] = [],
  limit = 20,
): string[] {
  if (out.length >= limit) return out;
  if (Object.is(expected, actual)) return out;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      out.push(`${path || "(root)"}: expected ${expected.length} items, got ${actual.length}`);
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n && out.length < limit; i++)
      diffValues(expected[i], actual[i], ignoreKeys, `${path}[${i}]`, out, limit);
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of [...keys].sort()) {
      if (ignoreKeys.has(key) || out.length >= limit) continue;
      const a = expected[key];
      const b = actual[key];
      if (a === undefined && b === undefined) continue;
      diffValues(a, b, ignoreKeys, path ? `${path}.${key}` : key, out, limit);
    }
    return out;
  }
  out.push(`${path || "(root)"}: expected ${show(expected)}, got ${show(actual)}`);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 120 ? `${json.slice(0, 120)}…` : json;
}
