// Command-line options of the benchmarks: `--name value` pairs and bare `--flag`s.

/** The number after `--name`, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${process.argv[i + 1]}`);
  return value;
}

/** The word after `--name`, or `fallback`. */
export function stringArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** A comma-separated list after `--name`, or `fallback`. */
export function listArg(name: string, fallback: string[]): string[] {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  return (process.argv[i + 1] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Whether the bare `--name` is present. */
export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
