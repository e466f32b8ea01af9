/** RFC 3339 time ↔ float seconds, keeping microseconds (Date only keeps milliseconds). */
export function secondsToRfc3339(seconds: number): string {
  const whole = Math.floor(seconds);
  const micros = Math.round((seconds - whole) * 1e6);
  const carry = micros === 1_000_000 ? 1 : 0;
  const base = new Date((whole + carry) * 1000).toISOString().slice(0, 19);
  return `${base}.${String(carry ? 0 : micros).padStart(6, "0")}Z`;
}

export function rfc3339ToSeconds(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (!match) return undefined;
  const base = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(base)) return undefined;
  const fraction = match[2] ? Number(`0.${match[2]}`) : 0;
  return base / 1000 + fraction;
}
