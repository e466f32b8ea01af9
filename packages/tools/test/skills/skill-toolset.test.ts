import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  ConfigurationError,
  getFunctionResponses,
  getSystemInstructionText,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type Event,
  type LlmRequest,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { LocalCodeExecutor } from "../../src/index.js";
import {
  activeSkillsKey,
  loadSkillFromDir,
  loadSkillsFromDir,
  parseSkillMd,
  SkillToolset,
  skillToolsetFromConfig,
} from "../../src/skills/index.js";

let root: string;

/** A skill folder as ADK's docs describe it (frontmatter with license, allowed-tools, metadata). */
const CSV_SKILL = `---
name: csv-report
description: Summarizes a CSV file of amounts.
license: Apache-2.0
allowed-tools: run_skill_script
metadata:
  version: "1.2"
---
# CSV report

Run scripts/summarize.py with --column amount and report the total it prints.
`;

const SUMMARIZE = `import argparse, csv, os
parser = argparse.ArgumentParser()
parser.add_argument("--column")
args = parser.parse_args()
with open("assets/data.csv") as f:
    total = sum(int(row[args.column]) for row in csv.DictReader(f))
with open("report.txt", "w") as out:
    out.write(f"total={total}\\n")
print(f"total={total} pid={os.getpid()}")
`;

async function write(path: string, content: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, content);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "agentkit-skills-"));
  const skills = join(root, "skills");
  await write(join(skills, "csv-report", "SKILL.md"), CSV_SKILL);
  await write(join(skills, "csv-report", "references", "format.md"), "Columns: name, amount.");
  await write(join(skills, "csv-report", "assets", "data.csv"), "name,amount\na,40\nb,2\n");
  await write(join(skills, "csv-report", "scripts", "summarize.py"), SUMMARIZE);
  await write(
    join(skills, "greeter", "SKILL.md"),
    "---\nname: greeter\ndescription: Greets people.\n---\nRun scripts/greet.mjs.\n",
  );
  await write(
    join(skills, "greeter", "scripts", "greet.mjs"),
    'console.log("hello " + process.argv.slice(2).join(" "));\n',
  );
  await mkdir(join(skills, "not-a-skill"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("skill folders", () => {
  it("discovers the skills of a folder and reads frontmatter, instructions and resources", async () => {
    const skills = await loadSkillsFromDir(join(root, "skills"));
    expect(Object.keys(skills)).toEqual(["csv-report", "greeter"]);
    const csv = skills["csv-report"]!;
    expect(csv.frontmatter).toEqual({
      name: "csv-report",
      description: "Summarizes a CSV file of amounts.",
      license: "Apache-2.0",
      allowedTools: "run_skill_script",
      metadata: { version: "1.2" },
    });
    expect(csv.instructions).toContain("Run scripts/summarize.py");
    expect(csv.resources?.references).toEqual({ "format.md": "Columns: name, amount." });
    expect(Object.keys(csv.resources?.scripts ?? {})).toEqual(["summarize.py"]);
  });

  it("refuses bad frontmatter, a name that is not the folder's, and symbolic links", async () => {
    expect(() => parseSkillMd("no frontmatter")).toThrow(ConfigurationError);
    expect(() => parseSkillMd("---\nname: Bad Name\ndescription: x\n---\n")).toThrow(/name/);
    const wrong = join(root, "wrong", "other-name");
    await write(join(wrong, "SKILL.md"), "---\nname: csv-report\ndescription: x\n---\nbody");
    await expect(loadSkillFromDir(wrong)).rejects.toThrow(/must match/);
    const linked = join(root, "linked", "leaky");
    await write(join(linked, "SKILL.md"), "---\nname: leaky\ndescription: x\n---\nbody");
    await mkdir(join(linked, "references"));
    await symlink("/etc/hostname", join(linked, "references", "secret.txt"));
    await expect(loadSkillFromDir(linked)).rejects.toThrow(/symbolic link/);
  });
});

describe("SkillToolset in an agent", () => {
  it("lists skills, loads one into the instructions, reads a resource, runs a script in the executor, and unloads", async () => {
    const toolset = await SkillToolset.fromDir(join(root, "skills"));
    const system = (r: LlmRequest) => getSystemInstructionText(r);
    const model = new ScriptedModel({
      steps: [
        {
          expect: (r) => {
            expect(system(r)).toContain("<name>csv-report</name>");
            expect(system(r)).toContain("<description>Greets people.</description>");
            expect(system(r)).not.toContain("Run scripts/summarize.py");
            expect(Object.keys(r.toolsDict).sort()).toEqual([
              "list_skills",
              "load_skill",
              "load_skill_resource",
              "run_skill_script",
              "unload_skill",
            ]);
          },
          step: ScriptedModel.functionCall("load_skill", { name: "csv-report" }),
        },
        {
          expect: (r) => expect(system(r)).toContain("Run scripts/summarize.py with --column amount"),
          step: ScriptedModel.functionCall("load_skill_resource", {
            skill_name: "csv-report",
            path: "references/format.md",
          }),
        },
        ScriptedModel.functionCall("run_skill_script", {
          skill_name: "csv-report",
          script_path: "scripts/summarize.py",
          args: { column: "amount" },
        }),
        ScriptedModel.functionCall("unload_skill", { name: "csv-report" }),
        {
          expect: (r) => expect(system(r)).not.toContain("Run scripts/summarize.py"),
          step: ScriptedModel.text("The total is 42."),
        },
      ],
    });
    const sessions = new InMemorySessionService();
    const agent = new LlmAgent({
      name: "analyst",
      model,
      tools: [toolset],
      codeExecutor: new LocalCodeExecutor({ language: "python" }),
    });
    const runner = new Runner({ appName: "app", agent, sessionService: sessions });
    const session = await sessions.createSession({ appName: "app", userId: "u" });
    const events: Event[] = [];
    for await (const e of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text: "total of the amounts?" }] },
    }))
      events.push(e);
    await runner.close();
    model.assertConsumed();

    const responses = events.flatMap(getFunctionResponses).map((r) => r.response as Record<string, unknown>);
    expect(responses[0]).toMatchObject({ skill_name: "csv-report", resources: { scripts: ["scripts/summarize.py"] } });
    expect(responses[1]).toEqual({
      skill_name: "csv-report",
      path: "references/format.md",
      content: "Columns: name, amount.",
    });
    const run = responses[2] as { stdout: string; stderr: string; output_files: string[] };
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^total=42 pid=\d+/);
    // Run by the executor's own process, not this one.
    expect(Number(/pid=(\d+)/.exec(run.stdout)![1])).not.toBe(process.pid);
    expect(run.output_files).toEqual(["report.txt"]);
    expect(responses[3]).toEqual({ skill_name: "csv-report", status: "unloaded" });
    const stored = await sessions.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(stored!.state[activeSkillsKey("analyst")]).toEqual([]);
  });

  it("runs JavaScript scripts in a JavaScript executor and refuses scripts without an executor", async () => {
    const toolset = await SkillToolset.fromDir(join(root, "skills"), {
      codeExecutor: new LocalCodeExecutor({ language: "javascript" }),
    });
    const tools = Object.fromEntries((await toolset.getTools()).map((t) => [t.name, t]));
    const sessions = new InMemorySessionService();
    const session = await sessions.createSession({ appName: "app", userId: "u" });
    const { InvocationContext, PluginManager, ToolContext } = await import("@agentkit/core");
    const agent = new LlmAgent({ name: "a", model: new ScriptedModel() });
    const ctx = new InvocationContext({
      invocationId: "e-1",
      agent,
      session,
      sessionService: sessions,
      pluginManager: new PluginManager(),
    });
    const toolContext = new ToolContext(ctx, { functionCallId: "c1" });
    const greeted = (await tools.run_skill_script!.runAsync({
      args: { skill_name: "greeter", script_path: "scripts/greet.mjs", args: { name: "Ada" } },
      toolContext,
    })) as { stdout: string };
    expect(greeted).toMatchObject({ stderr: "" });
    expect(greeted.stdout.trim()).toBe("hello --name Ada");
    expect(
      await tools.run_skill_script!.runAsync({
        args: { skill_name: "csv-report", script_path: "scripts/summarize.py" },
        toolContext,
      }),
    ).toMatchObject({ error_code: "SCRIPT_LANGUAGE_UNSUPPORTED" });

    const bare = new SkillToolset(await loadSkillsFromDir(join(root, "skills")));
    const run = (await bare.getTools()).find((t) => t.name === "run_skill_script")!;
    expect(
      await run.runAsync({ args: { skill_name: "greeter", script_path: "scripts/greet.mjs" }, toolContext }),
    ).toMatchObject({ error_code: "NO_CODE_EXECUTOR" });
    expect(await run.runAsync({ args: { skill_name: "nope", script_path: "x" }, toolContext })).toMatchObject({
      error_code: "SKILL_NOT_FOUND",
    });
  });

  it("is built from YAML args with paths relative to the config's folder", async () => {
    const fromDir = await skillToolsetFromConfig({ skills_dir: "skills" }, { baseDir: root });
    expect(Object.keys(fromDir.skills)).toEqual(["csv-report", "greeter"]);
    const listed = await skillToolsetFromConfig({ skills: ["skills/greeter"] }, { baseDir: root });
    expect(Object.keys(listed.skills)).toEqual(["greeter"]);
    await expect(skillToolsetFromConfig({}, { baseDir: root })).rejects.toThrow(ConfigurationError);
    await expect(skillToolsetFromConfig({ skill_dir: "x" }, { baseDir: root })).rejects.toThrow(ConfigurationError);
  });
});
