import {
  AgentNode,
  AgentTool,
  DEFAULT_ROUTE,
  ERROR_ROUTE,
  JoinNode,
  START,
  ToolNode,
  isLlmAgent,
  isWorkflow,
  type BaseAgent,
  type BaseNode,
  type BaseTool,
  type GraphEdge,
  type Workflow,
} from "@agentkit/core";
import { toolsOf } from "./agent-kind.js";

/** What a workflow node is, as the graph draws and the structure describes it. */
export type WorkflowNodeKind = "function" | "tool" | "agent" | "join" | "workflow";

/** The drawing primitives the workflow part of the DOT shares with the agent part. */
export interface DotPen {
  node(id: string, label: string, shape: string, indent: string, extra?: Record<string, string>): void;
  edge(from: string, to: string, indent: string, extra?: Record<string, string>): void;
  cluster(
    id: string,
    label: string,
    highlightName: string,
    indent: string,
    body: (inner: string) => Promise<void>,
  ): Promise<void>;
}

/** The kind of a workflow node; an agent node whose agent is a workflow is a nested workflow. */
export function nodeKindOf(node: BaseNode): WorkflowNodeKind {
  if (node instanceof JoinNode) return "join";
  if (node instanceof ToolNode) return "tool";
  if (node instanceof AgentNode) return isWorkflow(node.agent) ? "workflow" : "agent";
  return "function";
}

/** How an edge's condition reads on the graph: its routes (the special ones spelled out) and loop bound. */
export function edgeLabel(edge: GraphEdge): string | undefined {
  const routes = (edge.routes ?? []).map((r) => (r === DEFAULT_ROUTE ? "default" : r === ERROR_ROUTE ? "error" : r));
  const parts = routes.length > 0 ? [routes.join(" | ")] : [];
  if (edge.maxTraversals) parts.push(`≤ ${edge.maxTraversals}×`);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/**
 * The workflow a tool runs, when it is an agent tool over a workflow (`NodeTool`). Its events are
 * under the tool's name, so the graph keys its nodes by that path.
 */
export function workflowOfTool(tool: BaseTool | undefined): Workflow | undefined {
  return tool instanceof AgentTool && isWorkflow(tool.agent) ? tool.agent : undefined;
}

/**
 * Draws a `Workflow` as a cluster: START, one DOT node per graph node keyed by its run path
 * without run markers (`<workflow>/<node>`, what `nodeInfo.path` names), nested workflows as
 * nested clusters, edges labelled with their routes and loop bounds. Returns the ids an edge into
 * the workflow enters (its START) and the ids its last nodes leave from.
 */
export async function drawWorkflow(
  workflow: Workflow,
  path: string,
  pen: DotPen,
  indent: string,
): Promise<{ entry: string; exits: string[]; cluster: string }> {
  const only = [...workflow.graph.nodes.values()];
  // A wrapper around one workflow (how NodeTool runs one) is drawn as that workflow.
  if (only.length === 1 && only[0] instanceof AgentNode && isWorkflow(only[0].agent))
    return drawWorkflow(only[0].agent, `${path}/${only[0].name}`, pen, indent);
  const cluster = `cluster_${path}`;
  const entry = `${path}/${START}`;
  const ends = new Map<string, { entry: string; exits: string[]; cluster?: string }>();
  await pen.cluster(cluster, `${workflow.name} (workflow)`, workflow.name, indent, async (inner) => {
    pen.node(entry, START, "circle", inner, { fontsize: "8", width: "0.5", fixedsize: "true" });
    for (const node of workflow.graph.nodes.values()) {
      const id = `${path}/${node.name}`;
      const kind = nodeKindOf(node);
      if (kind === "workflow") {
        ends.set(node.name, await drawWorkflow((node as AgentNode).agent as Workflow, id, pen, inner));
        continue;
      }
      pen.node(id, node.name, SHAPES[kind], inner);
      ends.set(node.name, { entry: id, exits: [id] });
      if (kind === "agent") await drawAgentTools((node as AgentNode).agent, id, pen, inner);
    }
  });
  for (const edge of workflow.graph.edges) {
    const from = edge.from === START ? { entry, exits: [entry] } : ends.get(edge.from)!;
    const to = ends.get(edge.to)!;
    const label = edgeLabel(edge);
    for (const tail of from.exits) {
      pen.edge(tail, to.entry, indent, {
        arrowhead: "normal",
        ...(label ? { label } : {}),
        ...(edge.maxTraversals ? { style: "dashed" } : {}),
        ...(from.cluster && edge.from !== START ? { ltail: from.cluster } : {}),
        ...(to.cluster ? { lhead: to.cluster } : {}),
      });
    }
  }
  const targets = new Set(workflow.graph.edges.map((e) => e.from));
  const exits = [...ends.entries()].filter(([name]) => !targets.has(name)).flatMap(([, e]) => e.exits);
  return { entry, exits, cluster };
}

const SHAPES: Record<Exclude<WorkflowNodeKind, "workflow">, string> = {
  function: "box",
  tool: "component",
  agent: "ellipse",
  join: "diamond",
};

/** An LLM agent node's tools, keyed under the node's id (a NodeTool's workflow drawn beside it). */
async function drawAgentTools(agent: BaseAgent, id: string, pen: DotPen, indent: string): Promise<void> {
  if (!isLlmAgent(agent)) return;
  for (const { name } of await toolsOf(agent)) {
    pen.node(`${id}/${name}`, name, "component", indent);
    pen.edge(id, `${id}/${name}`, indent);
  }
}
