// The default `source` runtime of bin/agentkit.mjs (src/register-source-hooks.ts): sources on
// Node's own TypeScript support, syntax that needs a transform, and the on-disk cache of the
// compiled output (reused, keyed by content, and never read from a directory others can write);
// linked files resolve as Node would, on the `dist` runtime's resolve hook too.
import { afterAll, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { askOnce, OFFLINE_ENV, startCli, tempAgentsDir, waitFor } from "./support/cli-process.js";

const agents = tempAgentsDir("agentkit-source-runtime-");
// A compile cache of this test's own, so what it finds there was written by these starts.
const compileCache = mkdtempSync(join(tmpdir(), "agentkit-compile-cache-"));
// Node keeps its cache in a folder per Node version inside; the runtime's own one is in there.
const sourceCacheDir = () => join(compileCache, readdirSync(compileCache)[0]!, "agentkit-source");
afterAll(() => {
  agents.remove();
  rmSync(compileCache, { recursive: true, force: true });
});

// Not erasable: an enum and a parameter property (Node's type stripping alone rejects both),
// imported the tsc way (`./model.js` for model.ts).
const modelSource = (text: string) => `import { BaseLlm, type LlmResponse } from "@agentkit/core";
enum Tone { Plain = "plain", Loud = "loud" }
class Phrase {
  constructor(private readonly text: string, readonly tone: Tone) {}
  toString(): string { return this.tone === Tone.Loud ? this.text.toUpperCase() : this.text; }
}
class FixedModel extends BaseLlm {
  constructor(private readonly phrase: Phrase) { super({ model: "fixed" }); }
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: String(this.phrase) }] } };
  }
}
export const model = new FixedModel(new Phrase(${JSON.stringify(text)}, Tone.Plain));
`;
agents.write(
  "echo/agent.ts",
  `import { LlmAgent } from "@agentkit/core";
import { model } from "./model.js";
export const rootAgent = new LlmAgent({ name: "echo", model, instruction: "Answer." });
`,
);

/**
 * Starts the CLI on the agents directory, sends one run, stops it once warm (and once `logged`
 * appears, when given): the run's text and stderr.
 */
async function answerOnce(
  app = "echo",
  runtime: "source" | "dist" = "source",
  env: Record<string, string> = {},
  logged?: RegExp,
): Promise<{ text: string; errors: string; log: string; children: string[] }> {
  const cli = startCli(
    [
      "api-server",
      agents.dir,
      "--port",
      "0",
      "--session-service-uri",
      "memory://",
      "--artifact-service-uri",
      "memory://",
    ],
    // NODE_OPTIONS: not jest's (it silences ExperimentalWarning, which the first test looks for).
    {
      ...OFFLINE_ENV,
      NODE_OPTIONS: "",
      NODE_COMPILE_CACHE: compileCache,
      AGENTKIT_STARTUP_TIMING: "1",
      AGENTKIT_RUNTIME: runtime,
      ...env,
    },
  );
  try {
    const url = await cli.listening();
    const { status, body } = await askOnce(url, app);
    expect(status).toBe(200);
    const events = body as { content?: { parts?: { text?: string }[] } }[];
    const text = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.text)?.text ?? "";
    // The warm-up runs after listening, between requests: its warnings are in the log once it ends.
    for (const line of [/agentkit: warmed up in \d+ ms/, ...(logged ? [logged] : [])])
      await waitFor(
        () => line.exec(cli.output()),
        () => cli.output() + cli.errors(),
        Number.POSITIVE_INFINITY,
        cli.child,
      );
    return {
      text,
      errors: cli.errors(),
      log: cli.output() + cli.errors(),
      children: await childCommandsOnceSettled(cli.child.pid),
    };
  } finally {
    await cli.stop();
  }
}

/**
 * The process's children once none is left, or those still there after 10 s: a child told to
 * stop (esbuild's service, whose `stop()` closes its input) takes a moment to exit and be reaped.
 */
async function childCommandsOnceSettled(pid: number | undefined): Promise<string[]> {
  const none = () => (childCommands(pid).length === 0 ? /^/.exec("") : null);
  await waitFor(none, () => childCommands(pid).join(", "), 10_000).catch(() => undefined);
  return childCommands(pid);
}

/** The commands of a process's children (`ps`), e.g. an esbuild service left running. */
function childCommands(pid: number | undefined): string[] {
  const out = spawnSync("ps", ["--ppid", String(pid), "-o", "comm="], { encoding: "utf8" }).stdout;
  return out
    .split("\n")
    .map((c) => c.trim())
    .filter(Boolean);
}

/** The cached compiled files whose text contains `marker`. */
const cachedWith = (marker: string) =>
  readdirSync(sourceCacheDir())
    .filter((f) => f.endsWith(".js"))
    .map((f) => join(sourceCacheDir(), f))
    .filter((f) => readFileSync(f, "utf8").includes(marker));

describe("the source runtime", () => {
  it("runs agents whose TypeScript needs a transform, and caches the compiled files", async () => {
    agents.write("echo/model.ts", modelSource("first words"));
    const { text, errors } = await answerOnce();
    expect(text).toBe("first words");
    expect(errors).toContain("hooks ready (source)");
    // No warning about the experimental stripping API reaches the user.
    expect(errors).not.toContain("ExperimentalWarning");
    // The agent's model and the workspace sources (the CLI's own main.ts among them).
    expect(cachedWith('"first words"')).toHaveLength(1);
    expect(cachedWith("export async function main(")).toHaveLength(1);
  });

  it("a later start reads the cache, and an edited file is compiled again", async () => {
    // Proof that the cache is what runs: its entry, changed in place, is what answers.
    const [entry] = cachedWith('"first words"');
    writeFileSync(entry!, readFileSync(entry!, "utf8").replace('"first words"', '"from the cache"'));
    expect((await answerOnce()).text).toBe("from the cache");
    // Checked against the content: an edit is never served stale, and its entry is replaced
    // (the folder holds one entry per source file, not one per edit).
    const entries = readdirSync(sourceCacheDir()).length;
    agents.write("echo/model.ts", modelSource("second words"));
    expect((await answerOnce()).text).toBe("second words");
    expect(cachedWith('"second words"')).toEqual([entry]);
    expect(readdirSync(sourceCacheDir())).toHaveLength(entries);
  });

  it("does not read a cache directory that other users can write to", async () => {
    const [entry] = cachedWith('"second words"');
    const original = readFileSync(entry!, "utf8");
    writeFileSync(entry!, original.replace('"second words"', '"planted by another user"'));
    chmodSync(sourceCacheDir(), 0o777);
    try {
      expect((await answerOnce()).text).toBe("second words");
    } finally {
      chmodSync(sourceCacheDir(), 0o700);
      writeFileSync(entry!, original);
    }
  });

  it("a syntax error in an app is its load error, with the file and line; other apps still answer", async () => {
    agents.write("broken/agent.ts", 'import { LlmAgent } from "@agentkit/core";\nconst x: number = ;\n');
    try {
      const { text, log } = await answerOnce();
      expect(text).toBe("second words");
      expect(log).toMatch(/Warm-up of app "broken": .*SyntaxError: Expression expected \(.*broken\/agent\.ts:2\)/);
    } finally {
      rmSync(join(agents.dir, "broken"), { recursive: true, force: true });
    }
  });

  it("stack traces through a transformed file point at its own lines", async () => {
    // Line 6 throws; the transform adds lines above it (the parameter property's field).
    agents.write(
      "trace/agent.ts",
      `import { BaseLlm, LlmAgent, type LlmResponse } from "@agentkit/core";
class Where extends BaseLlm {
  constructor(private readonly label: string) { super({ model: "where" }); }
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    try {
      throw new Error(this.label);
    } catch (error) {
      const frame = String((error as Error).stack).split("\\n")[1] ?? "";
      yield { content: { role: "model", parts: [{ text: frame }] } };
    }
  }
}
export const rootAgent = new LlmAgent({ name: "trace", model: new Where("here"), instruction: "Answer." });
`,
    );
    try {
      expect((await answerOnce("trace")).text).toMatch(/trace\/agent\.ts:6:\d+\)$/);
    } finally {
      rmSync(join(agents.dir, "trace"), { recursive: true, force: true });
    }
  });

  // The dist runtime's resolve hook (registerDistHooks) takes the same shortcuts for installed packages.
  it.each(["source", "dist"] as const)(
    "%s runtime: a file of an agent reached through a linked folder is one module",
    async (runtime) => {
      agents.write("linked/real/counter.ts", "export const counter = { n: 0 };\n");
      symlinkSync(join(agents.dir, "linked", "real"), join(agents.dir, "linked", "link"), "dir");
      agents.write(
        "linked/agent.ts",
        oneModuleAgent(
          "linked",
          'import { counter as viaFolder } from "./real/counter.js";\nimport { counter as viaLink } from "./link/counter.js";',
          "viaFolder === viaLink",
        ),
      );
      try {
        const { text, errors } = await answerOnce("linked", runtime);
        expect(errors).toContain(`hooks ready (${runtime})`);
        expect(text).toBe("one module");
      } finally {
        rmSync(join(agents.dir, "linked"), { recursive: true, force: true });
      }
    },
  );

  it.each(["source", "dist"] as const)(
    "%s runtime: a symbolic link inside an installed package still resolves to the file it points at",
    async (runtime) => {
      agents.write(
        "node_modules/linked-pkg/package.json",
        JSON.stringify({ name: "linked-pkg", type: "module", main: "index.js" }),
      );
      agents.write("node_modules/linked-pkg/real.js", "export const box = {};\n");
      symlinkSync("real.js", join(agents.dir, "node_modules", "linked-pkg", "alias.js"));
      agents.write(
        "node_modules/linked-pkg/index.js",
        'import { box as a } from "./real.js";\nimport { box as b } from "./alias.js";\nexport const same = a === b;\n',
      );
      agents.write("pkg/agent.ts", oneModuleAgent("pkg", 'import { same } from "linked-pkg";', "same"));
      try {
        const { text, errors } = await answerOnce("pkg", runtime);
        expect(errors).toContain(`hooks ready (${runtime})`);
        expect(text).toBe("one module");
      } finally {
        rmSync(join(agents.dir, "pkg"), { recursive: true, force: true });
        rmSync(join(agents.dir, "node_modules", "linked-pkg"), { recursive: true, force: true });
      }
    },
  );

  it("a warm server bundles the workspace's sources, and the next start loads them", async () => {
    // Its model answers with the stack it is called from: the framework's frames in it.
    agents.write(
      "stack/agent.ts",
      `import { BaseLlm, LlmAgent, type LlmResponse } from "@agentkit/core";
class Stack extends BaseLlm {
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: String(new Error("here").stack) }] } };
  }
}
export const rootAgent = new LlmAgent({ name: "stack", model: new Stack({ model: "stack" }), instruction: "Answer." });
`,
    );
    const bundling = { AGENTKIT_SOURCE_BUNDLES: "1" };
    try {
      const built = /agentkit: bundled the workspace's sources for the next start in \d+ ms/;
      const first = await answerOnce("stack", "source", bundling, built);
      expect(first.errors).toContain("hooks ready (source) ");
      expect(first.text).toContain("packages/core/src/flows/");
      // The build's esbuild service is stopped once the bundles are written.
      expect(first.children).toEqual([]);

      // Loaded from the bundles: the agent's @agentkit/core is the CLI's (its model is a BaseLlm
      // the runner accepts). The framework's frames are in the bundles; with Node's source maps
      // on, they name the sources, through the bundles' maps.
      const second = await answerOnce("stack", "source", bundling);
      expect(second.errors).toContain("hooks ready (source, bundled) ");
      expect(second.text).toMatch(/agentkit-bundles\/.*\/packages\/core\/.*\.mjs:\d+:\d+/);
      const mapped = await answerOnce("stack", "source", { ...bundling, NODE_OPTIONS: "--enable-source-maps" });
      expect(mapped.errors).toContain("hooks ready (source, bundled) ");
      expect(mapped.text).toContain("packages/core/src/flows/");
      expect(mapped.text).not.toContain("agentkit-bundles");
      agents.write("echo/model.ts", modelSource("bundled words"));
      expect((await answerOnce("echo", "source", bundling)).text).toBe("bundled words");

      // Turned off, the same start loads the sources.
      expect((await answerOnce("stack", "source", { AGENTKIT_SOURCE_BUNDLES: "0" })).errors).toContain(
        "hooks ready (source) ",
      );
    } finally {
      rmSync(join(agents.dir, "stack"), { recursive: true, force: true });
    }
  });
});

/** An agent whose model answers "one module" when `check` (over what `imports` bring) holds, else "two modules". */
function oneModuleAgent(name: string, imports: string, check: string): string {
  return `import { BaseLlm, LlmAgent, type LlmResponse } from "@agentkit/core";
${imports}
class Same extends BaseLlm {
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: ${check} ? "one module" : "two modules" }] } };
  }
}
export const rootAgent = new LlmAgent({ name: "${name}", model: new Same({ model: "same" }), instruction: "Answer." });
`;
}
