import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { FunctionTool, type LlmAgent } from "@agentkit/core";
import {
  AgentLoadError,
  createDirectoryAgentLoader,
  lazyBuiltInTool,
  type BuiltInTool,
  type BuiltInToolFactory,
} from "../../src/index.js";
import type { AgentLoader } from "../../src/agent-loader.js";
import { makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";

// A built-in tool offered by name whose code loads when a config first names it: loaded once,
// used as if given directly (an instance refuses args, a factory gets them), and a failed load
// is a load error naming the file and the field, tried again by the next load.

const lookup = new FunctionTool({ name: "lookup", description: "Looks up.", execute: () => ({ found: true }) });
const loads: string[] = [];
let failNext = false;

const instanceEntry = lazyBuiltInTool(async () => {
  loads.push("lookup");
  return lookup;
});
const factoryEntry = lazyBuiltInTool(async (): Promise<BuiltInToolFactory> => {
  loads.push("greeter");
  return (args) =>
    new FunctionTool({
      name: `greet_${String(args?.who ?? "nobody")}`,
      description: "Greets.",
      execute: () => ({ hello: args?.who }),
    });
});
const flakyEntry = lazyBuiltInTool(async () => {
  loads.push("flaky");
  if (failNext) {
    failNext = false;
    throw new Error("the tool package is missing");
  }
  return lookup;
});

/** What a lazyBuiltInTool of another copy of @agentkit/server looks like to this one: only its brand. */
const otherCopyEntry = {
  [Symbol.for("agentkit.lazyBuiltInTool")]: true,
  load: async () => lookup,
} as unknown as BuiltInTool;

let agents: TempAgentsDir;
let loader: AgentLoader;
const llm = (tools: string) => `name: a\nmodel: some-model\ntools:\n${tools}`;

beforeAll(async () => {
  agents = await makeAgentsDir({
    "first/root_agent.yaml": llm("  - lookup\n  - name: greeter\n    args: { who: ada }\n"),
    "second/root_agent.yaml": llm("  - lookup\n  - name: greeter\n    args: { who: bob }\n"),
    "with_args/root_agent.yaml": llm("  - name: lookup\n    args: { q: 1 }\n"),
    "flaky/root_agent.yaml": llm("  - flaky\n"),
    "flaky_again/root_agent.yaml": llm("  - flaky\n"),
    "other_copy/root_agent.yaml": llm("  - other_copy\n"),
  });
  loader = createDirectoryAgentLoader({
    agentsDir: agents.dir,
    reload: false,
    builtInTools: { lookup: instanceEntry, greeter: factoryEntry, flaky: flakyEntry, other_copy: otherCopyEntry },
  });
});
afterAll(async () => {
  await loader.close();
  await agents.cleanup();
});

const toolNames = (agent: unknown) => (agent as LlmAgent).tools.map((t) => (t as { name: string }).name);

describe("lazyBuiltInTool", () => {
  it("loads nothing until a config names the tool, then loads each entry once for every app", async () => {
    expect(loads).toEqual([]);
    const first = await loader.loadApp("first");
    const second = await loader.loadApp("second");
    expect(toolNames(first.rootAgent)).toEqual(["lookup", "greet_ada"]);
    expect(toolNames(second.rootAgent)).toEqual(["lookup", "greet_bob"]);
    expect((first.rootAgent as LlmAgent).tools[0]).toBe(lookup);
    expect(loads).toEqual(["lookup", "greeter"]);
  });

  it("keeps the rule of an instance given directly: it takes no args", async () => {
    const error = await loader.loadApp("with_args").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentLoadError);
    expect((error as Error).message).toMatch(
      /with_args[\\/]root_agent\.yaml.*tools\[0\]\.args: the built-in tool "lookup" takes no args/s,
    );
  });

  it("reports a failed load as a load error naming the file and the field, and tries again for the next config", async () => {
    failNext = true;
    const error = await loader.loadApp("flaky").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentLoadError);
    expect((error as Error).message).toMatch(/flaky[\\/]root_agent\.yaml.*tools\[0\]: the tool package is missing/s);
    // The app's failed load stays reported until it changes; another config naming the tool loads it again.
    const loaded = await loader.loadApp("flaky_again");
    expect(toolNames(loaded.rootAgent)).toEqual(["lookup"]);
    expect(loads.filter((l) => l === "flaky")).toHaveLength(2);
  });

  it("recognizes an entry made by another copy of the package by its brand", async () => {
    const loaded = await loader.loadApp("other_copy");
    expect((loaded.rootAgent as LlmAgent).tools[0]).toBe(lookup);
  });
});
