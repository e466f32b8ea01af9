import { beforeAll, describe, expect, it } from "@jest/globals";
import {
  DEFAULT_ROUTE,
  Edge,
  FunctionNode,
  FunctionTool,
  JoinNode,
  LlmAgent,
  NodeTool,
  ToolNode,
  Workflow,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { Graphviz } from "@hpcc-js/wasm-graphviz";
import { buildAgentDot } from "../../src/graph/index.js";
import { describeAgent } from "../../src/graph/app-structure.js";

interface GvObject {
  name: string;
  label?: string;
  shape?: string;
  _gvid: number;
  nodes?: number[];
}
interface GvEdge {
  tail: number;
  head: number;
  label?: string;
  style?: string;
  lhead?: string;
}
interface GvGraph {
  objects: GvObject[];
  edges?: GvEdge[];
}

let graphviz: Graphviz;
const layout = (dot: string) => JSON.parse(graphviz.layout(dot, "json", "dot")) as GvGraph;
const node = (g: GvGraph, name: string) => {
  const found = g.objects.find((o) => o.name === name && o.nodes === undefined);
  if (!found) throw new Error(`no node ${name}`);
  return found;
};
const edge = (g: GvGraph, from: string, to: string) =>
  (g.edges ?? []).filter((e) => e.tail === node(g, from)._gvid && e.head === node(g, to)._gvid);
const cluster = (g: GvGraph, name: string) => g.objects.find((o) => o.name === name && o.nodes !== undefined);

beforeAll(async () => {
  graphviz = await Graphviz.load();
});

function expenseFlow(): Workflow {
  const fn = (name: string) => new FunctionNode(name, (_ctx, input) => input);
  const lookup = new ToolNode(
    new FunctionTool({ name: "lookup_budget", description: "Budget.", execute: () => ({ budget: 1 }) }),
    { name: "lookup" },
  );
  const writer = new LlmAgent({ name: "writer", model: new ScriptedModel() });
  const decide = fn("decide");
  const approval = fn("approval");
  const pay = new Workflow({ name: "pay", edges: [["START", fn("charge"), fn("receipt")]] });
  return new Workflow({
    name: "expense_flow",
    edges: [
      ["START", fn("check"), [lookup, writer], new JoinNode({ name: "gather" }), approval, decide],
      [decide, { approved: pay, [DEFAULT_ROUTE]: fn("notify") }],
      new Edge({ from: decide, to: approval, route: "ask_again", maxTraversals: 2 }),
    ],
  });
}

describe("workflow graphs", () => {
  it("draws nodes by kind under their run paths, routes, the default route, joins, loop bounds and nested workflows", async () => {
    const g = layout(await buildAgentDot(expenseFlow(), { darkMode: false }));
    expect(cluster(g, "cluster_expense_flow")).toBeDefined();
    expect(cluster(g, "cluster_expense_flow/pay")).toBeDefined();
    expect(node(g, "expense_flow/START")).toMatchObject({ shape: "circle", label: "START" });
    expect(node(g, "expense_flow/check")).toMatchObject({ shape: "box", label: "check" });
    expect(node(g, "expense_flow/lookup").shape).toBe("component");
    expect(node(g, "expense_flow/writer").shape).toBe("ellipse");
    expect(node(g, "expense_flow/gather").shape).toBe("diamond");
    expect(node(g, "expense_flow/pay/charge").label).toBe("charge");
    expect(edge(g, "expense_flow/START", "expense_flow/check")).toHaveLength(1);
    expect(edge(g, "expense_flow/check", "expense_flow/lookup")).toHaveLength(1);
    expect(edge(g, "expense_flow/writer", "expense_flow/gather")).toHaveLength(1);
    expect(edge(g, "expense_flow/decide", "expense_flow/notify")[0]?.label).toBe("default");
    // a nested workflow is entered at its START (clipped at its cluster) and left from its last node
    expect(edge(g, "expense_flow/decide", "expense_flow/pay/START")[0]).toMatchObject({
      label: "approved",
      lhead: "cluster_expense_flow/pay",
    });
    expect(edge(g, "expense_flow/pay/charge", "expense_flow/pay/receipt")).toHaveLength(1);
    expect(edge(g, "expense_flow/decide", "expense_flow/approval")[0]).toMatchObject({
      label: "ask_again ≤ 2×",
      style: "dashed",
    });
  });

  it("draws the workflow behind a NodeTool under the tool's name, as its events name it", async () => {
    const inner = new Workflow({ name: "submit", edges: [["START", new FunctionNode("policy", () => 1)]] });
    const agent = new LlmAgent({ name: "clerk", model: new ScriptedModel(), tools: [new NodeTool({ node: inner })] });
    const g = layout(await buildAgentDot(agent));
    expect(node(g, "submit").shape).toBe("box");
    // NodeTool wraps the node in a workflow named after the tool: paths read submit/submit@1/policy@1
    expect(node(g, "submit/submit/policy").label).toBe("policy");
    expect(edge(g, "submit", "submit/submit/START")).toHaveLength(1);
  });

  it("describes a workflow's nodes and edges in the app structure", async () => {
    const structure = await describeAgent(expenseFlow());
    expect(structure.workflow).toBeUndefined();
    expect(structure.graph?.nodes).toEqual(
      expect.arrayContaining([
        { name: "check", kind: "function" },
        { name: "lookup", kind: "tool" },
        { name: "writer", kind: "agent" },
        { name: "gather", kind: "join" },
        {
          name: "pay",
          kind: "workflow",
          graph: {
            nodes: [
              { name: "charge", kind: "function" },
              { name: "receipt", kind: "function" },
            ],
            edges: [
              { from: "START", to: "charge" },
              { from: "charge", to: "receipt" },
            ],
          },
        },
      ]),
    );
    expect(structure.graph?.edges).toEqual(
      expect.arrayContaining([
        { from: "decide", to: "notify", routes: ["__DEFAULT__"] },
        { from: "decide", to: "approval", routes: ["ask_again"], max_traversals: 2 },
      ]),
    );
  });
});
