import { describe, expect, it } from "@jest/globals";
import { ExportFailureReporter } from "../../src/otel/export-failure-reporter.js";

const FAILED = { code: 1, error: new Error("connect ECONNREFUSED 127.0.0.1:4318") };
const OK = { code: 0 };

describe("ExportFailureReporter", () => {
  it("logs the first failure of an outage, then at most once per interval with a count; a success re-arms it", () => {
    const lines: string[] = [];
    let now = 0;
    const reporter = new ExportFailureReporter(
      { error: () => {}, warn: (m) => lines.push(m), info: () => {} },
      60_000,
      () => now,
    );
    reporter.record("traces", FAILED);
    reporter.record("traces", FAILED);
    reporter.record("metrics", FAILED);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/exporting traces failed; .*ECONNREFUSED/);
    now = 61_000;
    reporter.record("traces", FAILED);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain("(1 more failed exports since the last message)");
    reporter.record("traces", OK);
    reporter.record("traces", FAILED);
    expect(lines).toHaveLength(4);
  });

  it("watches an exporter's results without changing them", async () => {
    const lines: string[] = [];
    const reporter = new ExportFailureReporter({ error: () => {}, warn: (m) => lines.push(m), info: () => {} });
    const exporter = {
      calls: 0,
      export(_items: unknown[], done: (result: { code: number; error?: Error }) => void) {
        this.calls += 1;
        done(FAILED);
      },
      async shutdown() {},
    };
    const watched = reporter.watch("logs", exporter);
    const result = await new Promise<{ code: number }>((resolve) => watched.export([], resolve));
    expect(result).toBe(FAILED);
    expect(exporter.calls).toBe(1);
    expect(lines).toEqual([expect.stringContaining("exporting logs failed")]);
    await expect(watched.shutdown()).resolves.toBeUndefined();
  });
});
