import { extname } from "node:path";
import {
  appendInstructions,
  BaseTool,
  BaseToolset,
  ConfigurationError,
  isLlmAgent,
  type BaseCodeExecutor,
  type CodeExecutionFile,
  type FunctionDeclaration,
  type LlmRequest,
  type ReadonlyContext,
  type ToolContext,
  type ToolRunRequest,
} from "@agentkit/core";

import { deepCopy } from "@agentkit/core/internal";
import { loadSkillFromDir, loadSkillsFromDir } from "./skill-loader.js";
import { formatSkillsAsXml } from "./skill-prompt.js";
import type { Skill } from "./skill.js";

export interface SkillToolsetOptions {
  /** Runs skills' scripts (default: the agent's own `codeExecutor`). Never run in this process. */
  codeExecutor?: BaseCodeExecutor;
  toolNamePrefix?: string;
}

const SKILLS_INSTRUCTION = `You can use skills: folders of instructions and resources for specialized tasks. Use the skill tools to work with them.
- When a skill fits the user's request, load it with load_skill(name) first; while it is loaded its instructions appear below under "Loaded skill". Follow them.
- Read a skill's reference or asset files with load_skill_resource(skill_name, path), e.g. path "references/guide.md".
- Run a skill's script with run_skill_script(skill_name, script_path, args) when its instructions say so.
- Unload a skill with unload_skill(name) when the task no longer needs it.`;

/** The state key listing the skills an agent has loaded (ADK's key; clients cannot write it). */
export function activeSkillsKey(agentName: string): string {
  return `_adk_activated_skill_${agentName}`;
}

/**
 * Agent Skills for an agent (ADK's `SkillToolset`, same folder format: SKILL.md with YAML
 * frontmatter, optional `references/`, `assets/`, `scripts/`). The model sees every skill's name
 * and description; `load_skill` puts a skill's instructions into the agent's system instruction
 * until `unload_skill` takes them out again (loaded skills are kept in session state, per agent);
 * `load_skill_resource` reads a skill's files; `run_skill_script` runs a script in a code executor
 * (the toolset's or the agent's), never in this process.
 */
export class SkillToolset extends BaseToolset {
  readonly skills: Record<string, Skill>;
  readonly codeExecutor?: BaseCodeExecutor;
  private readonly tools: BaseTool[];

  constructor(skills: Record<string, Skill> | readonly Skill[], options: SkillToolsetOptions = {}) {
    super({ toolNamePrefix: options.toolNamePrefix });
    const list = Array.isArray(skills) ? (skills as readonly Skill[]) : Object.values(skills);
    this.skills = {};
    for (const skill of list) {
      if (this.skills[skill.frontmatter.name]) {
        throw new ConfigurationError(`Two skills are named "${skill.frontmatter.name}".`);
      }
      this.skills[skill.frontmatter.name] = skill;
    }
    this.codeExecutor = options.codeExecutor;
    this.tools = [
      new ListSkillsTool(this),
      new LoadSkillTool(this),
      new UnloadSkillTool(this),
      new LoadSkillResourceTool(this),
      new RunSkillScriptTool(this),
    ];
  }

  /** The skills in the sub-folders of `dir` (each a folder with a SKILL.md). */
  static async fromDir(dir: string, options: SkillToolsetOptions = {}): Promise<SkillToolset> {
    return new SkillToolset(await loadSkillsFromDir(dir), options);
  }

  /** The skills of these folders (each a skill folder). */
  static async fromSkillDirs(dirs: readonly string[], options: SkillToolsetOptions = {}): Promise<SkillToolset> {
    return new SkillToolset(await Promise.all(dirs.map(loadSkillFromDir)), options);
  }

  getSkill(name: string): Skill | undefined {
    return Object.hasOwn(this.skills, name) ? this.skills[name] : undefined;
  }

  override async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    return this.tools.filter((t) => this.isToolSelected(t, context));
  }

  override async close(): Promise<void> {}

  /** Lists the skills, and adds the instructions of the loaded ones. */
  override async processLlmRequest({ toolContext, llmRequest }: { toolContext: ToolContext; llmRequest: LlmRequest }) {
    const parts = [SKILLS_INSTRUCTION, formatSkillsAsXml(Object.values(this.skills))];
    for (const name of activeSkills(toolContext)) {
      const skill = this.getSkill(name);
      if (skill) parts.push(`Loaded skill "${name}":\n${skill.instructions}`);
    }
    appendInstructions(llmRequest, parts);
  }
}

function activeSkills(context: ReadonlyContext): string[] {
  const value = context.state.get(activeSkillsKey(context.agentName));
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function nameParameter(description: string): FunctionDeclaration["parametersJsonSchema"] {
  return { type: "object", properties: { name: { type: "string", description } }, required: ["name"] };
}

abstract class SkillTool extends BaseTool {
  constructor(
    protected readonly toolset: SkillToolset,
    name: string,
    description: string,
    private readonly parameters: FunctionDeclaration["parametersJsonSchema"],
  ) {
    super({ name, description });
  }

  /** A fresh declaration each time, as every tool's: a callback may edit the one it gets. */
  override getDeclaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parametersJsonSchema: deepCopy(this.parameters) };
  }

  protected skillOr(name: unknown): Skill | Record<string, unknown> {
    if (typeof name !== "string" || !name)
      return { error: "A skill name is required.", error_code: "MISSING_SKILL_NAME" };
    return this.toolset.getSkill(name) ?? { error: `Skill '${name}' not found.`, error_code: "SKILL_NOT_FOUND" };
  }
}

function isSkill(value: Skill | Record<string, unknown>): value is Skill {
  return "frontmatter" in value;
}

class ListSkillsTool extends SkillTool {
  constructor(toolset: SkillToolset) {
    super(toolset, "list_skills", "Lists the available skills with their descriptions, and which are loaded.", {
      type: "object",
      properties: {},
    });
  }

  override async runAsync({ toolContext }: ToolRunRequest): Promise<unknown> {
    return {
      skills: Object.values(this.toolset.skills).map((s) => ({
        name: s.frontmatter.name,
        description: s.frontmatter.description,
      })),
      loaded: activeSkills(toolContext),
    };
  }
}

/** Load or unload: a named skill joins or leaves the agent's active skills. */
abstract class ActiveSkillsTool extends SkillTool {
  constructor(toolset: SkillToolset, name: string, description: string) {
    super(toolset, name, description, nameParameter("The skill's name."));
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const skill = this.skillOr(args.name);
    if (!isSkill(skill)) return skill;
    const active = activeSkills(toolContext);
    const next = this.change(active, skill.frontmatter.name);
    if (next !== active) toolContext.state.set(activeSkillsKey(toolContext.agentName), next);
    return this.answer(skill);
  }

  /** The new list of active skills, or `active` itself when nothing changes. */
  protected abstract change(active: string[], name: string): string[];
  protected abstract answer(skill: Skill): Record<string, unknown>;
}

class LoadSkillTool extends ActiveSkillsTool {
  constructor(toolset: SkillToolset) {
    super(toolset, "load_skill", "Loads a skill: its SKILL.md instructions join your instructions until unloaded.");
  }

  protected change(active: string[], name: string): string[] {
    return active.includes(name) ? active : [...active, name];
  }

  protected answer(skill: Skill): Record<string, unknown> {
    return {
      skill_name: skill.frontmatter.name,
      status: "loaded: its instructions are now part of your instructions",
      frontmatter: skill.frontmatter,
      resources: resourceIndex(skill),
    };
  }
}

class UnloadSkillTool extends ActiveSkillsTool {
  constructor(toolset: SkillToolset) {
    super(toolset, "unload_skill", "Unloads a skill: its instructions no longer apply.");
  }

  protected change(active: string[], name: string): string[] {
    return active.includes(name) ? active.filter((n) => n !== name) : active;
  }

  protected answer(skill: Skill): Record<string, unknown> {
    return { skill_name: skill.frontmatter.name, status: "unloaded" };
  }
}

class LoadSkillResourceTool extends SkillTool {
  constructor(toolset: SkillToolset) {
    super(toolset, "load_skill_resource", "Reads a file of a skill (under references/, assets/ or scripts/).", {
      type: "object",
      properties: {
        skill_name: { type: "string", description: "The skill's name." },
        path: { type: "string", description: "The file's path in the skill, e.g. 'references/guide.md'." },
      },
      required: ["skill_name", "path"],
    });
  }

  override async runAsync({ args }: ToolRunRequest): Promise<unknown> {
    const skill = this.skillOr(args.skill_name);
    if (!isSkill(skill)) return skill;
    const path = typeof args.path === "string" ? args.path : "";
    const [kind, ...rest] = path.split("/");
    const file = rest.join("/");
    const resources = skill.resources ?? {};
    const found =
      kind === "references"
        ? resources.references?.[file]
        : kind === "assets"
          ? resources.assets?.[file]
          : kind === "scripts"
            ? resources.scripts?.[file]?.src
            : undefined;
    if (found === undefined || !Object.hasOwn(resources[kind as keyof typeof resources] ?? {}, file)) {
      return {
        error: `Skill '${skill.frontmatter.name}' has no file '${path}'. Its files: ${listFiles(skill).join(", ") || "none"}.`,
        error_code: "RESOURCE_NOT_FOUND",
      };
    }
    if (typeof found !== "string") {
      return { skill_name: skill.frontmatter.name, path, status: "binary file: it can only be used by a script" };
    }
    return { skill_name: skill.frontmatter.name, path, content: found };
  }
}

class RunSkillScriptTool extends SkillTool {
  constructor(toolset: SkillToolset) {
    super(toolset, "run_skill_script", "Runs a script of a skill (under scripts/) in the code executor.", {
      type: "object",
      properties: {
        skill_name: { type: "string", description: "The skill's name." },
        script_path: { type: "string", description: "The script's path, e.g. 'scripts/convert.py'." },
        args: { type: "object", description: "Arguments, passed as --key value." },
      },
      required: ["skill_name", "script_path"],
    });
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const skill = this.skillOr(args.skill_name);
    if (!isSkill(skill)) return skill;
    const requested = typeof args.script_path === "string" ? args.script_path : "";
    const file = requested.replace(/^scripts\//, "");
    if (!file || !Object.hasOwn(skill.resources?.scripts ?? {}, file)) {
      return {
        error: `Skill '${skill.frontmatter.name}' has no script '${requested}'.`,
        error_code: "SCRIPT_NOT_FOUND",
      };
    }
    const agent = toolContext.invocation.agent;
    const executor = this.toolset.codeExecutor ?? (isLlmAgent(agent) ? agent.codeExecutor : undefined);
    if (!executor || executor.modelSide) {
      return {
        error: "No code executor runs skill scripts here: give the SkillToolset or the agent a local code executor.",
        error_code: "NO_CODE_EXECUTOR",
      };
    }
    const language = (executor as { language?: unknown }).language === "javascript" ? "javascript" : "python";
    const code = wrapperCode(`scripts/${file}`, language, scriptArgs(args.args));
    if (typeof code !== "string") return code;
    const result = await executor.executeCode(toolContext.invocation, { code, inputFiles: skillFiles(skill) });
    return {
      skill_name: skill.frontmatter.name,
      script_path: `scripts/${file}`,
      stdout: result.stdout,
      stderr: result.stderr,
      output_files: result.outputFiles.map((f) => f.name),
    };
  }
}

/** `{ key: value }` as `--key value` (flags for `true`). */
function scriptArgs(value: unknown): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    v === true
      ? [`--${k}`]
      : v === false || v === undefined || v === null
        ? []
        : [`--${k}`, typeof v === "string" ? v : JSON.stringify(v)],
  );
}

/** Code that runs one script file of the skill's folder in the executor, with arguments. */
function wrapperCode(
  path: string,
  language: "python" | "javascript",
  argv: string[],
): string | Record<string, unknown> {
  const ext = extname(path).toLowerCase();
  if (language === "python") {
    if (ext === ".py") {
      return `import runpy, sys\nsys.argv = ${JSON.stringify([path, ...argv])}\nrunpy.run_path(${JSON.stringify(path)}, run_name="__main__")\n`;
    }
    if (ext === ".sh") {
      return `import subprocess, sys\nsys.exit(subprocess.run(${JSON.stringify(["bash", path, ...argv])}).returncode)\n`;
    }
  } else if (ext === ".js" || ext === ".mjs") {
    // The executor's working directory holds the skill's files; its entry script lives elsewhere.
    return `process.argv = [process.argv[0], ${JSON.stringify(path)}, ...${JSON.stringify(argv)}];\nconst { pathToFileURL } = await import("node:url");\nawait import(pathToFileURL(${JSON.stringify(path)}).href);\n`;
  }
  return {
    error: `A ${language} code executor cannot run '${path}' (Python executors run .py and .sh scripts, JavaScript executors .js and .mjs).`,
    error_code: "SCRIPT_LANGUAGE_UNSUPPORTED",
  };
}

/** The skill's files as the executor's input files, at their paths in the skill folder. */
function skillFiles(skill: Skill): CodeExecutionFile[] {
  const files: CodeExecutionFile[] = [];
  const add = (path: string, content: string | Buffer) =>
    files.push({ name: path, content: Buffer.from(content).toString("base64") });
  for (const [name, content] of Object.entries(skill.resources?.references ?? {})) add(`references/${name}`, content);
  for (const [name, content] of Object.entries(skill.resources?.assets ?? {})) add(`assets/${name}`, content);
  for (const [name, script] of Object.entries(skill.resources?.scripts ?? {})) add(`scripts/${name}`, script.src);
  return files;
}

function resourceIndex(skill: Skill): Record<string, string[]> {
  const r = skill.resources ?? {};
  return {
    references: Object.keys(r.references ?? {}).map((n) => `references/${n}`),
    assets: Object.keys(r.assets ?? {}).map((n) => `assets/${n}`),
    scripts: Object.keys(r.scripts ?? {}).map((n) => `scripts/${n}`),
  };
}

function listFiles(skill: Skill): string[] {
  return Object.values(resourceIndex(skill)).flat();
}
