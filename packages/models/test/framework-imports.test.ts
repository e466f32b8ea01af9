import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const FRAMEWORK_SDK = (spec: string) =>
  spec === "ai" || spec.startsWith("ai/") || spec.startsWith("@ai-sdk/") || spec.startsWith("@langchain/");

describe("the framework SDKs stay optional", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-framework-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Imports a module in a fresh Node process and lists the AI SDK / LangChain specifiers it resolved. */
  async function frameworkImports(entry: string): Promise<string[]> {
    const probe = join(dir, "probe.mjs");
    await writeFile(
      probe,
      `import { registerHooks } from "node:module";
const seen = [];
registerHooks({ resolve(spec, ctx, next) { seen.push(spec); return next(spec, ctx); } });
await import(${JSON.stringify(entry)});
console.log(JSON.stringify(seen));
`,
    );
    const { stdout } = await run(process.execPath, ["--conditions=@agentkit/source", "--import", "tsx", probe], {
      cwd: process.cwd(),
    });
    return (JSON.parse(stdout.trim().split("\n").at(-1)!) as string[]).filter(FRAMEWORK_SDK);
  }

  it("importing @agentkit/models loads neither ai, @ai-sdk/* nor @langchain/*", async () => {
    expect(await frameworkImports(join(process.cwd(), "src/index.ts"))).toEqual([]);
  });

  it("(control) the ./ai-sdk and ./langchain subpaths load their SDKs, so the probe sees them", async () => {
    expect(await frameworkImports(join(process.cwd(), "src/ai-sdk/index.ts"))).toContain("@ai-sdk/provider");
    expect(
      (await frameworkImports(join(process.cwd(), "src/langchain/index.ts"))).some((s) =>
        s.startsWith("@langchain/core"),
      ),
    ).toBe(true);
  });
});
