import { describe, expect, it } from "@jest/globals";
import { join, relative } from "node:path";
import { valueImportClosure } from "../lib/import-closure.mjs";

const serverDir = join(import.meta.dirname, "..", "..", "packages", "server");
const DEV_ONLY = ["src/telemetry/", "src/evals/", "src/dev/"];

describe("@agentkit/server entries", () => {
  it("the root entry (what a production API server imports) loads no dev tooling and no OpenTelemetry", () => {
    const { files, packages } = valueImportClosure(serverDir, "src/index.ts");
    const local = files.map((f) => relative(serverDir, f));
    // Traces, evals, and the dev UI's own routers (builder, agent tests and their replay, telemetry consent).
    expect(local.filter((f) => DEV_ONLY.some((dir) => f.startsWith(dir)))).toEqual([]);
    expect(packages.filter((p) => p.startsWith("@opentelemetry/"))).toEqual([]);
    // The closure is real: the server's own modules are in it.
    expect(local).toContain("src/create-agent-server.ts");
  });

  it("the devtools entry holds traces, evals and the dev UI's routers", () => {
    const { files } = valueImportClosure(serverDir, "src/devtools.ts");
    const local = files.map((f) => relative(serverDir, f));
    expect(local.some((f) => f.startsWith("src/telemetry/"))).toBe(true);
    expect(local.some((f) => f.startsWith("src/evals/"))).toBe(true);
    for (const file of ["builder-router", "agent-tests-router", "agent-test-replay", "telemetry-consent"])
      expect(local).toContain(`src/dev/${file}.ts`);
  });

  it("the otel entry holds the OTLP export, and neither the root nor the devtools entry reaches it", () => {
    const otel = valueImportClosure(serverDir, "src/otel.ts");
    expect(otel.packages).toEqual(
      expect.arrayContaining([
        "@opentelemetry/exporter-trace-otlp-http",
        "@opentelemetry/exporter-metrics-otlp-http",
        "@opentelemetry/exporter-logs-otlp-http",
      ]),
    );
    for (const entry of ["src/index.ts", "src/devtools.ts"]) {
      const { files, packages } = valueImportClosure(serverDir, entry);
      expect(files.map((f) => relative(serverDir, f)).filter((f) => f.startsWith("src/otel"))).toEqual([]);
      expect(packages.filter((p) => p.includes("otlp"))).toEqual([]);
    }
  });
});
