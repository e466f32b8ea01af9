import {
  AgentKitError,
  AgentNode,
  BaseAgent,
  BaseTool,
  Edge,
  FunctionNode,
  isBaseNode,
  JoinNode,
  ToolNode,
  Workflow,
  type AfterAgentCallback,
  type BaseNode,
  type BaseToolset,
  type BeforeAgentCallback,
  type ChainElement,
  type EdgeItem,
  type FunctionNodeHandler,
  type SchemaLike,
} from "@agentkit/core";
import { AgentLoadError, describeError } from "../agent-load-error.js";
import {
  describeValue,
  displayPath,
  isClass,
  ReferenceProblem,
  type ConfigSource,
  type LoadContext,
} from "../load-context.js";
import {
  type CodeConfig,
  type ToolConfig,
  type WorkflowConfig,
  workflowConfigSchema,
  type WorkflowEdgeConfig,
  type WorkflowNodeConfig,
} from "./agent-config-schema.js";
import { resolveCode, resolveSchema } from "./code-values.js";
import { formatFieldPath, formatProblems, issuesToProblems } from "./format-issues.js";

type Path = (string | number)[];

/** What building a workflow uses of the YAML agent builder (yaml-agent-builder.ts). */
export interface YamlBuildSteps {
  readonly ctx: LoadContext;
  /** A sub-agent by `config_path`, `code` or inline config. */
  subAgent(item: unknown, from: ConfigSource, path: Path, files: string[], modelAbove: boolean): Promise<BaseAgent>;
  tools(tool: ToolConfig, from: ConfigSource, path: Path, files: string[]): Promise<(BaseTool | BaseToolset)[]>;
  callbacks<F>(list: CodeConfig[] | undefined, from: ConfigSource, path: Path): Promise<F[] | undefined>;
  code<T>(file: string, path: Path, run: () => Promise<T>): Promise<T>;
  error(file: string, path: Path, problem: string, cause?: unknown): AgentLoadError;
}

/**
 * `agent_class: Workflow`: `nodes` (each by reference or inline) and `edges` (chains of node
 * names with groups and routing maps, or single edges with a route or a loop bound).
 */
export async function buildYamlWorkflow(
  steps: YamlBuildSteps,
  node: object,
  from: ConfigSource,
  path: Path,
  files: string[],
  modelAbove: boolean,
): Promise<Workflow> {
  const { file } = from;
  const parsed = workflowConfigSchema.safeParse(node);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, path);
    throw new AgentLoadError({
      file,
      displayFile: displayPath(steps.ctx.agentsDir, file),
      field: problems[0] ? formatFieldPath(problems[0].path) : undefined,
      problem: formatProblems(problems),
    });
  }
  const config: WorkflowConfig = parsed.data;
  const nodes = new Map<string, BaseNode>();
  for (const [i, item] of config.nodes.entries()) {
    const at = [...path, "nodes", i];
    if (nodes.has(item.name) || item.name === "START")
      throw steps.error(file, [...at, "name"], `the node name "${item.name}" is used twice (or is START)`);
    nodes.set(item.name, await workflowNode(steps, item, from, at, files, modelAbove));
  }
  const edges = config.edges.map((item, i) => workflowEdge(steps, item, nodes, file, [...path, "edges", i]));
  const schema = async (key: "input_schema" | "output_schema") => {
    const ref = config[key];
    if (ref === undefined) return undefined;
    return (await steps.code(file, [...path, key], () =>
      resolveSchema(steps.ctx, ref, from, false),
    )) as unknown as SchemaLike;
  };
  const options = {
    name: config.name,
    description: config.description,
    edges,
    maxConcurrency: config.max_concurrency,
    inputSchema: await schema("input_schema"),
    outputSchema: await schema("output_schema"),
    beforeAgentCallback: await steps.callbacks<BeforeAgentCallback>(config.before_agent_callbacks, from, [
      ...path,
      "before_agent_callbacks",
    ]),
    afterAgentCallback: await steps.callbacks<AfterAgentCallback>(config.after_agent_callbacks, from, [
      ...path,
      "after_agent_callbacks",
    ]),
  };
  try {
    return new Workflow(options);
  } catch (error) {
    // The graph's own checks (unreachable nodes, a bad route) read as sentences.
    throw steps.error(file, [...path, "edges"], error instanceof AgentKitError ? error.message : describeError(error));
  }
}

async function workflowNode(
  steps: YamlBuildSteps,
  item: WorkflowNodeConfig,
  from: ConfigSource,
  path: Path,
  files: string[],
  modelAbove: boolean,
): Promise<BaseNode> {
  const { file } = from;
  const kinds = (["code", "agent", "tool", "join"] as const).filter((k) => item[k] !== undefined);
  if (kinds.length !== 1)
    throw steps.error(
      file,
      kinds.length === 0 ? path : [...path, kinds[1]!],
      kinds.length === 0
        ? "required: one of code, agent, tool or join"
        : `give one of code, agent, tool or join, not ${kinds.join(" and ")}`,
    );
  const options = { name: item.name, description: item.description, timeoutMs: item.timeout_ms };
  const kind = kinds[0]!;
  const at = [...path, kind];
  if (kind === "join") {
    const waitFor = item.join === true ? undefined : item.join!.wait_for;
    return steps.code(file, at, async () => new JoinNode({ ...options, waitFor }));
  }
  if (kind === "agent") {
    // An inline agent without a name takes the node's.
    const spec = item.agent;
    const inline =
      typeof spec === "object" && spec !== null && !Array.isArray(spec) && !("config_path" in spec || "code" in spec);
    const agentSpec = inline && !("name" in spec) ? { name: item.name, ...spec } : spec;
    const agent = await steps.subAgent(agentSpec, from, at, files, modelAbove);
    return steps.code(file, at, async () => new AgentNode(agent, options));
  }
  if (kind === "tool") {
    const tools = await steps.tools(item.tool!, from, at, files);
    const [tool] = tools;
    if (tools.length !== 1 || !(tool instanceof BaseTool))
      throw steps.error(file, at, "expected one tool (a toolset or a list of tools cannot be one node)");
    return steps.code(file, at, async () => new ToolNode(tool, options));
  }
  const codeAt = typeof item.code === "string" ? at : [...at, "name"];
  return steps.code(file, codeAt, async () => {
    const { value, name } = await resolveCode(steps.ctx, item.code!, from);
    if (value instanceof BaseAgent) return new AgentNode(value, options);
    if (value instanceof BaseTool) return new ToolNode(value, options);
    if (isBaseNode(value)) {
      if (value.name !== item.name)
        throw new ReferenceProblem(`"${name}" is the node "${value.name}"; name the node "${value.name}" here too`);
      if (item.timeout_ms !== undefined || item.description !== undefined)
        throw new ReferenceProblem(`"${name}" is a built node: set its timeout and description in code`);
      return value;
    }
    if (typeof value === "function" && !isClass(value))
      return new FunctionNode(item.name, value as FunctionNodeHandler, options);
    throw new ReferenceProblem(
      `"${name}" is ${describeValue(value)}, expected a function (ctx, input) => output, a node, an agent or a tool`,
    );
  });
}

function workflowEdge(
  steps: YamlBuildSteps,
  item: WorkflowEdgeConfig,
  nodes: Map<string, BaseNode>,
  file: string,
  path: Path,
): EdgeItem {
  const named = (name: string, at: Path): BaseNode => {
    const found = nodes.get(name);
    if (!found)
      throw steps.error(file, at, `no node named "${name}" (nodes: ${[...nodes.keys()].join(", ") || "none"})`);
    return found;
  };
  if (!Array.isArray(item)) {
    const from = item.from === "START" ? "START" : named(item.from, [...path, "from"]);
    return new Edge({
      from,
      to: named(item.to, [...path, "to"]),
      route: item.route,
      maxTraversals: item.max_traversals,
    });
  }
  return item.map((element, j): ChainElement => {
    const at = [...path, j];
    if (typeof element === "string") return element === "START" && j === 0 ? "START" : named(element, at);
    if (Array.isArray(element)) return element.map((name, k) => named(name, [...at, k]));
    return Object.fromEntries(
      Object.entries(element).map(([route, to]) => [
        route,
        Array.isArray(to) ? to.map((name, k) => named(name, [...at, route, k])) : named(to, [...at, route]),
      ]),
    );
  });
}
