import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type AgentNode, isWorkflow, type BaseAgent, type Workflow } from "@agentkit/core";
import type { LoadedApp } from "../agent-loader.js";
import { modelNameOf, toolsOf, workflowKindOf } from "./agent-kind.js";
import { nodeKindOf, type WorkflowNodeKind } from "./workflow-dot.js";

/** One node of the app structure (http-api.md 4.9, snake_case as the dev UI reads it). */
export interface StructureNode {
  name: string;
  type: "agent";
  agent_class: string;
  description?: string;
  model?: string;
  workflow?: "sequential" | "parallel" | "loop";
  tools?: { name: string; type: "tool" }[];
  sub_agents?: StructureNode[];
  /** A `Workflow`'s graph (agentkit's addition; ADK's UI reads the fields above and ignores it). */
  graph?: WorkflowStructure;
  rerun_on_resume: boolean;
}

/** The nodes and edges of a workflow; a nested workflow node carries its own graph. */
export interface WorkflowStructure {
  nodes: { name: string; kind: WorkflowNodeKind; graph?: WorkflowStructure }[];
  edges: { from: string; to: string; routes?: string[]; max_traversals?: number }[];
}

/** The answer of GET /dev/apps/:app/build_graph. */
export interface AppStructure {
  name: string;
  root_agent: StructureNode;
  readme?: string;
  plugins?: { name: string }[];
  context_cache_config?: Record<string, unknown>;
}

/** The agent tree as the dev UI's structure view reads it. */
export async function describeAgent(agent: BaseAgent): Promise<StructureNode> {
  const node: StructureNode = {
    name: agent.name,
    type: "agent",
    agent_class: agent.constructor.name,
    rerun_on_resume: true,
  };
  if (agent.description) node.description = agent.description;
  const model = modelNameOf(agent);
  if (model) node.model = model;
  const workflow = workflowKindOf(agent);
  if (workflow) node.workflow = workflow;
  const tools = await toolsOf(agent);
  if (tools.length > 0) node.tools = tools.map((t) => ({ name: t.name, type: "tool" as const }));
  if (agent.subAgents.length > 0) node.sub_agents = await Promise.all(agent.subAgents.map(describeAgent));
  if (!workflow && isWorkflow(agent)) node.graph = describeWorkflow(agent);
  return node;
}

function describeWorkflow(workflow: Workflow): WorkflowStructure {
  return {
    nodes: [...workflow.graph.nodes.values()].map((n) => {
      const kind = nodeKindOf(n);
      return {
        name: n.name,
        kind,
        ...(kind === "workflow" ? { graph: describeWorkflow((n as AgentNode).agent as Workflow) } : {}),
      };
    }),
    edges: workflow.graph.edges.map((e) => ({
      from: e.from,
      to: e.to,
      ...(e.routes ? { routes: [...e.routes] } : {}),
      ...(e.maxTraversals ? { max_traversals: e.maxTraversals } : {}),
    })),
  };
}

/** The app's structure, with its README (next to the app's source) when there is one. */
export async function describeApp(loaded: LoadedApp): Promise<AppStructure> {
  const out: AppStructure = { name: loaded.name, root_agent: await describeAgent(loaded.rootAgent) };
  const readme = await readReadme(loaded.source);
  if (readme !== undefined) out.readme = readme;
  if (loaded.app && loaded.app.plugins.length > 0) out.plugins = loaded.app.plugins.map((p) => ({ name: p.name }));
  if (loaded.app?.contextCacheConfig) out.context_cache_config = { ...loaded.app.contextCacheConfig };
  return out;
}

async function readReadme(source: string | undefined): Promise<string | undefined> {
  if (!source) return undefined;
  const dir = (await stat(source).catch(() => undefined))?.isDirectory() ? source : dirname(source);
  for (const name of ["README.md", "readme.md"]) {
    const text = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}
