import type { BaseAgent } from "@agentkit/core";
import { isWorkflow } from "@agentkit/core";
import { toolsOf, workflowKindOf } from "./agent-kind.js";
import { drawWorkflow, workflowOfTool, type DotPen } from "./workflow-dot.js";

export interface AgentDotOptions {
  /** Dark background and light strokes, as the dev UI's dark theme (default true). */
  darkMode?: boolean;
  /**
   * Edges to highlight, `[from, to]` by node name: an agent calling a tool (`[agent, tool]`)
   * or a tool answering (`[tool, agent]`, drawn as the agent→tool edge pointing back). A pair
   * `[name, name]` highlights one node alone.
   */
  highlightPairs?: readonly (readonly [string, string])[];
  /** Graph name (default the root agent's name). */
  graphName?: string;
}

interface Ends {
  entries: string[];
  exits: string[];
  /** The cluster an edge into this part is clipped at. */
  cluster?: string;
}

interface Palette {
  background: string;
  stroke: string;
  text: string;
  highlightFill: string;
  highlightText: string;
  highlightEdge: string;
}

const DARK: Palette = {
  background: "#333537",
  stroke: "#cccccc",
  text: "#cccccc",
  highlightFill: "#0F5223",
  highlightText: "#ffffff",
  highlightEdge: "#69CB87",
};

const LIGHT: Palette = {
  background: "#ffffff",
  stroke: "#5f6368",
  text: "#202124",
  highlightFill: "#ceead6",
  highlightText: "#0d652d",
  highlightEdge: "#188038",
};

/** A DOT identifier: always quoted, with quotes, backslashes and newlines escaped. */
export function dotId(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`;
}

function attrs(values: Record<string, string | undefined>): string {
  const parts = Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${dotId(v)}`);
  return parts.length > 0 ? ` [${parts.join(", ")}]` : "";
}

/**
 * The agent tree as a Graphviz DOT `strict digraph`, left to right: agents are ellipses, tools
 * boxes, an agent is linked to its tools and sub-agents; a workflow agent (sequential,
 * parallel, loop) is a cluster around its sub-agents, chained in run order for sequential
 * and loop (the loop's last sub-agent points back to its first). A `Workflow` (also one behind a
 * `NodeTool`) is a cluster of its graph (workflow-dot.ts). Highlighted nodes are filled and
 * highlighted edges coloured.
 */
export async function buildAgentDot(root: BaseAgent, options: AgentDotOptions = {}): Promise<string> {
  const palette = options.darkMode === false ? LIGHT : DARK;
  const pairs = options.highlightPairs ?? [];
  const highlighted = new Set(pairs.flat());
  const lines: string[] = [];
  const emitted = new Set<string>();

  const node = (
    name: string,
    shape: string,
    indent: string,
    label?: string,
    extra: Record<string, string> = {},
  ): void => {
    if (emitted.has(name)) return;
    emitted.add(name);
    const on = highlighted.has(label ?? name);
    const rounded = shape === "box";
    lines.push(
      `${indent}${dotId(name)}${attrs({
        shape,
        label,
        style: on ? (rounded ? "rounded,filled" : "filled") : rounded ? "rounded" : undefined,
        color: on ? palette.highlightEdge : palette.stroke,
        fillcolor: on ? palette.highlightFill : undefined,
        fontcolor: on ? palette.highlightText : palette.text,
        ...extra,
      })};`,
    );
  };

  const edge = (from: string, to: string, indent: string, extra: Record<string, string> = {}): void => {
    const forward = pairs.some(([a, b]) => a === from && b === to && a !== b);
    const backward = pairs.some(([a, b]) => a === to && b === from && a !== b);
    const style = forward
      ? { color: palette.highlightEdge, penwidth: "2" }
      : backward
        ? { color: palette.highlightEdge, penwidth: "2", dir: "back" }
        : { color: palette.stroke, arrowhead: "none" };
    lines.push(`${indent}${dotId(from)} -> ${dotId(to)}${attrs({ ...style, ...extra })};`);
  };

  const pen: DotPen = {
    node: (id, label, shape, indent, extra) => node(id, shape, indent, label, extra),
    edge,
    cluster: async (id, label, highlightName, indent, body) => {
      lines.push(`${indent}subgraph ${dotId(id)} {`);
      const inner = `${indent}  `;
      lines.push(`${inner}label=${dotId(label)};`);
      lines.push(
        `${inner}style="rounded,dashed"; ` +
          `color=${dotId(highlighted.has(highlightName) ? palette.highlightEdge : palette.stroke)}; ` +
          `fontcolor=${dotId(palette.text)};`,
      );
      await body(inner);
      lines.push(`${indent}}`);
    },
  };

  /** Draws an agent; returns the nodes an incoming edge enters and an outgoing hand-over leaves. */
  const draw = async (agent: BaseAgent, indent: string): Promise<Ends> => {
    const kind = workflowKindOf(agent);
    if (!kind && isWorkflow(agent)) {
      const drawn = await drawWorkflow(agent, agent.name, pen, indent);
      return { entries: [drawn.entry], exits: drawn.exits, cluster: drawn.cluster };
    }
    if (!kind) {
      node(agent.name, "ellipse", indent);
      for (const { name, tool } of await toolsOf(agent)) {
        node(name, "box", indent);
        edge(agent.name, name, indent);
        const workflow = workflowOfTool(tool);
        if (workflow) {
          const drawn = await drawWorkflow(workflow, name, pen, indent);
          edge(name, drawn.entry, indent, { arrowhead: "normal", style: "dashed", lhead: drawn.cluster });
        }
      }
      for (const sub of agent.subAgents) {
        const ends = await draw(sub, indent);
        const cluster = ends.cluster ?? (workflowKindOf(sub) ? `cluster_${sub.name}` : undefined);
        for (const target of ends.entries) edge(agent.name, target, indent, cluster ? { lhead: cluster } : {});
      }
      return { entries: [agent.name], exits: [agent.name] };
    }
    lines.push(`${indent}subgraph ${dotId(`cluster_${agent.name}`)} {`);
    const inner = `${indent}  `;
    lines.push(`${inner}label=${dotId(`${agent.name} (${kind})`)};`);
    lines.push(
      `${inner}style="rounded,dashed"; ` +
        `color=${dotId(highlighted.has(agent.name) ? palette.highlightEdge : palette.stroke)}; ` +
        `fontcolor=${dotId(palette.text)};`,
    );
    const parts: Ends[] = [];
    for (const sub of agent.subAgents) parts.push(await draw(sub, inner));
    lines.push(`${indent}}`);
    if (kind === "parallel") return { entries: parts.flatMap((p) => p.entries), exits: parts.flatMap((p) => p.exits) };
    // Sequential and loop: each sub-agent hands over to the next one.
    for (let i = 1; i < parts.length; i++) {
      for (const from of parts[i - 1]!.exits)
        for (const to of parts[i]!.entries) edge(from, to, indent, { arrowhead: "normal" });
    }
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (kind === "loop" && first && last && parts.length > 1) {
      for (const from of last.exits)
        for (const to of first.entries)
          edge(from, to, indent, { arrowhead: "normal", style: "dashed", constraint: "false" });
    }
    return { entries: first?.entries ?? [], exits: last?.exits ?? [] };
  };

  await draw(root, "  ");
  const header = [
    `strict digraph ${dotId(options.graphName ?? root.name)} {`,
    `  rankdir="LR";`,
    `  compound="true";`,
    `  bgcolor=${dotId(palette.background)};`,
    `  node [fontname="Helvetica", color=${dotId(palette.stroke)}, fontcolor=${dotId(palette.text)}];`,
    `  edge [color=${dotId(palette.stroke)}];`,
  ];
  return [...header, ...lines, "}", ""].join("\n");
}
