import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  AgentKitError,
  type BaseAgent,
  type BaseTool,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  type AfterAgentCallback,
  type AfterModelCallback,
  type AfterToolCallback,
  type BaseCodeExecutor,
  type BaseLlm,
  type BeforeAgentCallback,
  type BeforeModelCallback,
  type BeforeToolCallback,
  type OnModelErrorCallback,
  type OnToolErrorCallback,
  type BaseToolset,
  type GenerateContentConfig,
  type LlmAgentOptions,
} from "@agentkit/core";
import { setOwn, snakeToCamel } from "@agentkit/core/internal";
import { AgentLoadError, describeError } from "../agent-load-error.js";
import { builderExecutorProblem } from "../builder-policy.js";
import { configPathProblem } from "../code-reference.js";
import {
  displayPath,
  loadError,
  ReferenceProblem,
  scopeOf,
  type ConfigSource,
  type LoadContext,
  isLazyBuiltInTool,
} from "../load-context.js";
import {
  AGENT_CLASS_SCHEMAS,
  agentRefSchema,
  type AgentClassName,
  type CodeConfig,
  type CodeExecutorConfig,
  type GenerateContentConfigYaml,
  type LlmAgentConfig,
  type ToolConfig,
} from "./agent-config-schema.js";
import {
  checkCodeExecutor,
  makeAgentTool,
  resolveAgentCode,
  resolveCallback,
  resolveCodeExecutorCode,
  resolveModelCode,
  resolveSchema,
  resolveTools,
} from "./code-values.js";
import { formatFieldPath, formatProblems, issuesToProblems, type FieldProblem } from "./format-issues.js";
import { readYamlFile } from "./yaml-file.js";
import { buildYamlWorkflow, type YamlBuildSteps } from "./yaml-workflow-builder.js";

type Path = (string | number)[];

/**
 * Builds the agent tree of a YAML agent config file (ADK's agent config format). A file the
 * agent builder wrote, and every file it reaches through `config_path`, is built under the
 * builder's rules (`restricted`, see builder-policy.ts).
 */
export async function loadYamlAgent(ctx: LoadContext, file: string): Promise<BaseAgent> {
  const doc = await readYamlFile(ctx, file);
  const builder = new YamlAgentBuilder(ctx);
  if (doc.builderWritten) builder.refuseArgs(doc.value, file, []);
  return builder.build(doc.value, file, [], [file], false, doc.builderWritten);
}

class YamlAgentBuilder implements YamlBuildSteps {
  readonly ctx: LoadContext;

  constructor(ctx: LoadContext) {
    this.ctx = ctx;
  }

  /** `modelAbove`: an LlmAgent ancestor names a model, so this agent may inherit it. */
  async build(
    node: unknown,
    file: string,
    path: Path,
    files: string[],
    modelAbove: boolean,
    restricted: boolean,
  ): Promise<BaseAgent> {
    const from: ConfigSource = { file, restricted };
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw this.error(
        file,
        path,
        `expected an agent config (a mapping), got ${Array.isArray(node) ? "a list" : String(node)}`,
      );
    }
    const agentClass = (node as { agent_class?: unknown }).agent_class ?? "LlmAgent";
    if (agentClass === "Workflow") return buildYamlWorkflow(this, node, from, path, files, modelAbove);
    if (typeof agentClass !== "string" || !(agentClass in AGENT_CLASS_SCHEMAS)) {
      throw this.error(
        file,
        [...path, "agent_class"],
        `unknown agent class ${JSON.stringify(agentClass)}; expected one ` +
          `of ${[...Object.keys(AGENT_CLASS_SCHEMAS), "Workflow"].join(", ")}`,
      );
    }
    const parsed = AGENT_CLASS_SCHEMAS[agentClass as AgentClassName].safeParse(node);
    if (!parsed.success) {
      const problems = issuesToProblems(parsed.error.issues, path).map(explainForbidden);
      throw new AgentLoadError({
        file,
        displayFile: displayPath(this.ctx.agentsDir, file),
        field: problems[0] ? formatFieldPath(problems[0].path) : undefined,
        problem: formatProblems(problems),
      });
    }
    const config = parsed.data;
    const isLlm = config.agent_class === undefined || config.agent_class === "LlmAgent";
    const ownModel = isLlm && (config.model ?? config.model_code) !== undefined;
    const subAgents: BaseAgent[] = [];
    for (const [i, item] of (config.sub_agents ?? []).entries()) {
      subAgents.push(await this.subAgent(item, from, [...path, "sub_agents", i], files, modelAbove || ownModel));
    }
    const base = {
      name: config.name,
      description: config.description,
      subAgents,
      beforeAgentCallback: await this.callbacks<BeforeAgentCallback>(config.before_agent_callbacks, from, [
        ...path,
        "before_agent_callbacks",
      ]),
      afterAgentCallback: await this.callbacks<AfterAgentCallback>(config.after_agent_callbacks, from, [
        ...path,
        "after_agent_callbacks",
      ]),
    };
    const construct = async (): Promise<BaseAgent> => {
      switch (config.agent_class) {
        case "SequentialAgent":
          return new SequentialAgent(base);
        case "ParallelAgent":
          return new ParallelAgent(base);
        case "LoopAgent":
          return new LoopAgent({ ...base, maxIterations: config.max_iterations });
        default:
          return this.llmAgent(config, base, from, path, files, modelAbove);
      }
    };
    try {
      return await construct();
    } catch (error) {
      if (error instanceof AgentLoadError) throw error;
      // Core's own checks (duplicate sub-agent names, invalid settings) already read as sentences.
      throw this.error(file, path, error instanceof AgentKitError ? error.message : describeError(error), error);
    }
  }

  private async llmAgent(
    config: LlmAgentConfig,
    base: ConstructorParameters<typeof SequentialAgent>[0],
    from: ConfigSource,
    path: Path,
    files: string[],
    modelAbove: boolean,
  ): Promise<LlmAgent> {
    const { file } = from;
    if (config.model !== undefined && config.model_code !== undefined) {
      throw this.error(file, [...path, "model_code"], "give either model or model_code, not both");
    }
    let model: BaseLlm | string | undefined = config.model;
    if (config.model_code !== undefined)
      model = await this.code(file, [...path, "model_code"], () =>
        resolveModelCode(this.ctx, config.model_code as CodeConfig, from),
      );
    if (typeof model === "string")
      this.checkModelName(model, file, [...path, config.model_code ? "model_code" : "model"]);
    const tools: (BaseTool | BaseToolset)[] = [];
    for (const [i, tool] of (config.tools ?? []).entries())
      tools.push(...(await this.tools(tool, from, [...path, "tools", i], files)));
    const cb = <F>(key: keyof LlmAgentConfig) =>
      this.callbacks<F>(config[key] as CodeConfig[] | undefined, from, [...path, key]);
    const inputSchema = config.input_schema;
    const outputSchema = config.output_schema;
    const options: LlmAgentOptions = {
      ...base,
      model,
      instruction: config.instruction,
      staticInstruction: config.static_instruction,
      globalInstruction: config.global_instruction,
      tools,
      outputKey: config.output_key,
      includeContents: config.include_contents,
      generateContentConfig: config.generate_content_config
        ? toGenerateContentConfig(config.generate_content_config)
        : undefined,
      inputSchema: inputSchema
        ? ((await this.code(file, [...path, "input_schema"], () =>
            resolveSchema(this.ctx, inputSchema, from, false),
          )) as LlmAgent["inputSchema"])
        : undefined,
      outputSchema: outputSchema
        ? await this.code(file, [...path, "output_schema"], () => resolveSchema(this.ctx, outputSchema, from, true))
        : undefined,
      codeExecutor:
        config.code_executor !== undefined
          ? await this.codeExecutor(config.code_executor, from, [...path, "code_executor"])
          : undefined,
      disallowTransferToParent: config.disallow_transfer_to_parent,
      disallowTransferToPeers: config.disallow_transfer_to_peers,
      beforeModelCallback: await cb<BeforeModelCallback>("before_model_callbacks"),
      afterModelCallback: await cb<AfterModelCallback>("after_model_callbacks"),
      onModelErrorCallback: await cb<OnModelErrorCallback>("on_model_error_callbacks"),
      beforeToolCallback: await cb<BeforeToolCallback>("before_tool_callbacks"),
      afterToolCallback: await cb<AfterToolCallback>("after_tool_callbacks"),
      onToolErrorCallback: await cb<OnToolErrorCallback>("on_tool_error_callbacks"),
    };
    // Checked after the references, so a broken reference is reported first.
    if (model === undefined && !modelAbove) {
      throw this.error(
        file,
        [...path, "model"],
        "required: an LlmAgent needs a model (or model_code), unless an LlmAgent above it has one",
      );
    }
    return new LlmAgent(options);
  }

  /** `{ config_path }` (another YAML file, relative to this one), `{ code }`, or an inline config. */
  async subAgent(
    item: unknown,
    from: ConfigSource,
    path: Path,
    files: string[],
    modelAbove: boolean,
  ): Promise<BaseAgent> {
    const { file, restricted } = from;
    const isRef =
      typeof item === "object" && item !== null && ("config_path" in item || "code" in item) && !("name" in item);
    if (!isRef) return this.build(item, file, path, files, modelAbove, restricted);
    const parsed = agentRefSchema.safeParse(item);
    if (!parsed.success) {
      const problems = issuesToProblems(parsed.error.issues, path);
      throw this.error(file, (problems[0]?.path ?? path) as Path, problems[0]?.message ?? "invalid agent reference");
    }
    const ref = parsed.data;
    if ("code" in ref) return this.code(file, [...path, "code"], () => resolveAgentCode(this.ctx, ref.code, from));
    const refused = configPathProblem(ref.config_path, file, scopeOf(this.ctx, restricted));
    if (refused) throw this.error(file, [...path, "config_path"], refused);
    const target = resolve(dirname(file), ref.config_path);
    if (files.includes(target)) {
      const chain = [...files, target].map((f) => displayPath(this.ctx.agentsDir, f)).join(" -> ");
      throw this.error(file, [...path, "config_path"], `circular config_path: ${chain}`);
    }
    if (!existsSync(target))
      throw this.error(file, [...path, "config_path"], `no such file: ${ref.config_path} (resolved to ${target})`);
    const doc = await readYamlFile(this.ctx, target);
    // The builder's rules pass down: a builder-written file cannot borrow a developer file's executor.
    const targetRestricted = restricted || doc.builderWritten;
    if (targetRestricted) this.refuseArgs(doc.value, target, []);
    return this.build(doc.value, target, [], [...files, target], modelAbove, targetRestricted);
  }

  async tools(tool: ToolConfig, from: ConfigSource, path: Path, files: string[]): Promise<(BaseTool | BaseToolset)[]> {
    const { file } = from;
    const { name, args } = typeof tool === "string" ? { name: tool, args: undefined } : tool;
    const namePath = typeof tool === "string" ? path : [...path, "name"];
    if (name === "AgentTool") return [await this.agentTool(args, from, [...path, "args"], files)];
    if (/^[A-Za-z_][\w]*$/.test(name)) {
      if (from.restricted && !this.ctx.builderPolicy.tools.includes(name))
        throw this.error(
          file,
          namePath,
          `the built-in tool "${name}" is not allowed in configs written through the agent builder ` +
            `(allowed: ${this.ctx.builderPolicy.tools.join(", ") || "none"})`,
        );
      const entry = this.ctx.builtInTools.get(name);
      if (!entry) {
        const known = [...this.ctx.builtInTools.keys(), "AgentTool"].join(", ");
        throw this.error(
          file,
          namePath,
          `unknown built-in tool "${name}" (built-in tools: ${known}); for your own tools use a code reference such ` +
            `as "./tools.ts#${name}"`,
        );
      }
      const builtIn = isLazyBuiltInTool(entry) ? await this.code(file, namePath, () => entry.load()) : entry;
      if (typeof builtIn !== "function") {
        if (args !== undefined) throw this.error(file, [...path, "args"], `the built-in tool "${name}" takes no args`);
        return [builtIn];
      }
      return [await this.code(file, namePath, async () => builtIn(args, { baseDir: dirname(file) }))];
    }
    return this.code(file, namePath, () => resolveTools(this.ctx, name, args, from));
  }

  /** `code_executor`: a bare name from the loader's `builtInCodeExecutors`, or a code reference. */
  private async codeExecutor(config: CodeExecutorConfig, from: ConfigSource, path: Path): Promise<BaseCodeExecutor> {
    const { file } = from;
    const { name, args } = typeof config === "string" ? { name: config, args: undefined } : config;
    const namePath = typeof config === "string" ? path : [...path, "name"];
    const argsPath = [...path, "args"];
    if (from.restricted && !this.ctx.builderPolicy.codeExecutors.includes(name))
      throw this.error(file, namePath, builderExecutorProblem(name, this.ctx.builderPolicy.codeExecutors));
    if (!/^[A-Za-z_][\w]*$/.test(name)) {
      // A mapping of args is the same as ADK's list of named entries.
      const list =
        args === undefined || Array.isArray(args)
          ? args
          : Object.entries(args).map(([key, value]) => ({ name: key, value }));
      return this.code(file, namePath, () =>
        resolveCodeExecutorCode(this.ctx, list === undefined ? name : { name, args: list }, from),
      );
    }
    const builtIn = this.ctx.builtInCodeExecutors.get(name);
    if (!builtIn) {
      const known = [...this.ctx.builtInCodeExecutors.keys()].join(", ") || "none were given to the loader";
      throw this.error(
        file,
        namePath,
        `unknown built-in code executor "${name}" (built-in code executors: ${known}); for your own executor use a ` +
          `code reference such as "./executors.ts#${name}"`,
      );
    }
    if (typeof builtIn !== "function") {
      if (args !== undefined) throw this.error(file, argsPath, `the built-in code executor "${name}" takes no args`);
      return this.code(file, namePath, async () =>
        checkCodeExecutor(builtIn, `the built-in code executor "${name}" is`),
      );
    }
    let record: Record<string, unknown> | undefined;
    if (Array.isArray(args)) {
      const positional = args.findIndex((a) => a.name === undefined);
      if (positional >= 0)
        throw this.error(
          file,
          [...argsPath, positional, "name"],
          `required: the args of the built-in code executor "${name}" are named`,
        );
      record = Object.fromEntries(args.map((a) => [a.name, a.value]));
    } else {
      record = args;
    }
    // Bad args are the factory's to report: name the args (or the name, when there are none).
    const made = await this.code(file, args === undefined ? namePath : argsPath, async () =>
      builtIn(record, { baseDir: dirname(file) }),
    );
    return this.code(file, namePath, async () => checkCodeExecutor(made, `the built-in code executor "${name}" gave`));
  }

  private async agentTool(
    args: Record<string, unknown> | undefined,
    from: ConfigSource,
    path: Path,
    files: string[],
  ): Promise<BaseTool> {
    const { file } = from;
    const { agent, skip_summarization: skip, ...rest } = args ?? {};
    const extra = Object.keys(rest)[0];
    if (extra !== undefined)
      throw this.error(file, [...path, extra], "unknown field (AgentTool takes agent and skip_summarization)");
    if (agent === undefined)
      throw this.error(
        file,
        [...path, "agent"],
        "required: the agent to call ({ config_path }, { code } or an inline config)",
      );
    if (skip !== undefined && typeof skip !== "boolean")
      throw this.error(file, [...path, "skip_summarization"], "expected boolean");
    // An agent called as a tool runs on its own: it inherits no model.
    return makeAgentTool(await this.subAgent(agent, from, [...path, "agent"], files, false), skip);
  }

  /**
   * The callbacks of a `*_callbacks` list; their signature is the user's responsibility (TypeScript cannot check YAML).
   */
  async callbacks<F>(list: CodeConfig[] | undefined, from: ConfigSource, path: Path): Promise<F[] | undefined> {
    if (!list?.length) return undefined;
    const out: F[] = [];
    for (const [i, config] of list.entries()) {
      const at = typeof config === "string" ? [...path, i] : [...path, i, "name"];
      out.push((await this.code(from.file, at, () => resolveCallback(this.ctx, config, from))) as F);
    }
    return out;
  }

  /**
   * The builder's rule for a whole file: no `args` anywhere (they would call code, such as a
   * toolset starting a process, with arguments of the writer's choice).
   */
  refuseArgs(node: unknown, file: string, path: Path): void {
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Array.isArray(node) ? node.entries() : Object.entries(node)) {
      if (key === "args" && !Array.isArray(node))
        throw this.error(
          file,
          [...path, key],
          "configs written through the agent builder may not hold args (they would call code with arguments of the " +
            "writer's choice)",
        );
      this.refuseArgs(value, file, [...path, key]);
    }
  }

  /** Runs a code resolution, turning its `ReferenceProblem` into an error naming the file and field. */
  async code<T>(file: string, path: Path, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof AgentLoadError) throw error;
      if (error instanceof ReferenceProblem) throw this.error(file, path, error.message, error.cause);
      // Our own errors (e.g. a built-in factory's ConfigurationError naming an arg) read as sentences already.
      throw this.error(file, path, error instanceof AgentKitError ? error.message : describeError(error), error);
    }
  }

  private checkModelName(model: string, file: string, path: Path): void {
    const registry = this.ctx.modelRegistry;
    if (!registry || registry.has(model)) return;
    const known = registry.patterns().map(String).join(", ") || "(none)";
    throw this.error(file, path, `no model is registered for "${model}" (known patterns: ${known})`);
  }

  error(file: string, path: Path, problem: string, cause?: unknown): AgentLoadError {
    return loadError(this.ctx, file, path.length ? formatFieldPath(path) : undefined, problem, cause);
  }
}

/** Settings that belong to the agent, not to generate_content_config: say where they go. */
const FORBIDDEN_SETTINGS: Readonly<Record<string, string>> = {
  tools: "not allowed here; list tools in the agent's tools",
  system_instruction: "not allowed here; use the agent's instruction",
  response_schema: "not allowed here; use the agent's output_schema",
  response_json_schema: "not allowed here; use the agent's output_schema",
};

function explainForbidden(problem: FieldProblem): FieldProblem {
  const key = problem.path.at(-1);
  const parent = problem.path.at(-2);
  const advice = typeof key === "string" && parent === "generate_content_config" ? FORBIDDEN_SETTINGS[key] : undefined;
  return advice && problem.message === "unknown field" ? { ...problem, message: advice } : problem;
}

/** snake_case YAML settings to the camelCase `GenerateContentConfig`. */
function toGenerateContentConfig(yaml: GenerateContentConfigYaml): GenerateContentConfig {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(yaml)) {
    if (value === undefined) continue;
    const camel = snakeToCamel(key);
    setOwn(out, camel, key === "labels" ? value : camelKeysDeep(value));
  }
  return out as GenerateContentConfig;
}

function camelKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeysDeep);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeToCamel(k), camelKeysDeep(v)]));
}
