import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AnalyticsRow, AnalyticsSink } from "./analytics-row.js";

export interface JsonlAnalyticsSinkOptions {
  /** One file for everything, or… */
  file?: string;
  /** …a directory with one file per UTC day (`events-YYYY-MM-DD.jsonl`). */
  dir?: string;
}

/**
 * Analytics rows as JSON lines on local disk: works with no cloud account, and every log
 * tool reads it. A batch is one append, so lines of concurrent batches never interleave.
 */
export class JsonlAnalyticsSink implements AnalyticsSink {
  private readonly file?: string;
  private readonly dir?: string;

  constructor(options: JsonlAnalyticsSinkOptions) {
    if (!options?.file === !options?.dir)
      throw new TypeError("JsonlAnalyticsSink needs exactly one of { file } or { dir }.");
    this.file = options.file;
    this.dir = options.dir;
  }

  async prepare(): Promise<void> {
    await mkdir(this.dir ?? dirname(this.file!), { recursive: true });
  }

  /** Appends the rows; an aborted `signal` (AnalyticsPlugin's close timeout) stops the write. */
  async writeRows(rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void> {
    if (rows.length === 0) return;
    signal?.throwIfAborted();
    const append = (file: string, lines: readonly AnalyticsRow[]) =>
      writeFile(file, lines.map((r) => `${JSON.stringify(r)}\n`).join(""), {
        encoding: "utf8",
        flag: "a",
        ...(signal ? { signal } : {}),
      });
    if (this.file) {
      await append(this.file, rows);
      return;
    }
    const byDay = new Map<string, AnalyticsRow[]>();
    for (const row of rows) {
      const day = row.timestamp.slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), row]);
    }
    for (const [day, dayRows] of byDay) {
      await append(join(this.dir!, `events-${day}.jsonl`), dayRows);
    }
  }

  async close(): Promise<void> {}
}
