import { beforeAll, describe, expect, it } from "@jest/globals";
import {
  AgentTool,
  FunctionTool,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  createEvent,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { Graphviz } from "@hpcc-js/wasm-graphviz";
import { buildAgentDot, dotId, highlightPairsForEvent } from "../../src/graph/index.js";

interface GvObject {
  name: string;
  shape?: string;
  fillcolor?: string;
  style?: string;
  _gvid: number;
  nodes?: number[];
}
interface GvEdge {
  tail: number;
  head: number;
  color?: string;
  dir?: string;
  arrowhead?: string;
}
interface GvGraph {
  name: string;
  strict: boolean;
  rankdir?: string;
  bgcolor?: string;
  objects: GvObject[];
  edges?: GvEdge[];
}

let graphviz: Graphviz;
/** Lays the DOT out with real Graphviz (the WASM build, as the dev UI renders it) and returns its JSON model. */
function layout(dot: string): GvGraph {
  return JSON.parse(graphviz.layout(dot, "json", "dot")) as GvGraph;
}
function nodeByName(g: GvGraph, name: string): GvObject {
  const found = g.objects.find((o) => o.name === name && o.nodes === undefined);
  if (!found) throw new Error(`no node ${name}`);
  return found;
}
function edgesBetween(g: GvGraph, from: string, to: string): GvEdge[] {
  const a = nodeByName(g, from)._gvid;
  const b = nodeByName(g, to)._gvid;
  return (g.edges ?? []).filter((e) => e.tail === a && e.head === b);
}

const tool = (name: string) => new FunctionTool({ name, description: name, execute: () => ({}) });
const model = () => new ScriptedModel();

beforeAll(async () => {
  graphviz = await Graphviz.load();
});

describe("buildAgentDot", () => {
  it("draws a strict left-to-right digraph: agents as ellipses, tools as boxes", async () => {
    const helper = new LlmAgent({ name: "helper", model: model(), tools: [tool("lookup")] });
    const root = new LlmAgent({
      name: "root",
      model: model(),
      tools: [tool("get_weather"), new AgentTool({ agent: new LlmAgent({ name: "writer", model: model() }) })],
      subAgents: [helper],
    });
    const dot = await buildAgentDot(root);
    expect(dot.startsWith('strict digraph "root" {')).toBe(true);
    const g = layout(dot);
    expect(g.strict).toBe(true);
    expect(g.rankdir).toBe("LR");
    expect(g.bgcolor).toBe("#333537");
    expect(nodeByName(g, "root").shape).toBe("ellipse");
    expect(nodeByName(g, "helper").shape).toBe("ellipse");
    expect(nodeByName(g, "get_weather").shape).toBe("box");
    expect(nodeByName(g, "writer").shape).toBe("box");
    expect(edgesBetween(g, "root", "get_weather")).toHaveLength(1);
    expect(edgesBetween(g, "root", "helper")).toHaveLength(1);
    expect(edgesBetween(g, "helper", "lookup")).toHaveLength(1);
  });

  it("uses a light palette when dark mode is off", async () => {
    const g = layout(await buildAgentDot(new LlmAgent({ name: "solo", model: model() }), { darkMode: false }));
    expect(g.bgcolor).toBe("#ffffff");
  });

  it("draws workflow agents as clusters, chaining sequential and loop sub-agents", async () => {
    const a = new LlmAgent({ name: "a", model: model() });
    const b = new LlmAgent({ name: "b", model: model() });
    const c = new LlmAgent({ name: "c", model: model() });
    const d = new LlmAgent({ name: "d", model: model() });
    const e = new LlmAgent({ name: "e", model: model() });
    const root = new SequentialAgent({
      name: "pipeline",
      subAgents: [
        a,
        new ParallelAgent({ name: "fan", subAgents: [b, c] }),
        new LoopAgent({ name: "refine", subAgents: [d, e] }),
      ],
    });
    const g = layout(await buildAgentDot(root));
    const clusters = g.objects
      .filter((o) => o.nodes !== undefined)
      .map((o) => o.name)
      .sort();
    expect(clusters).toEqual(["cluster_fan", "cluster_pipeline", "cluster_refine"]);
    // sequential: a hands over to both parallel branches, both hand over to the loop's first agent
    expect(edgesBetween(g, "a", "b")).toHaveLength(1);
    expect(edgesBetween(g, "a", "c")).toHaveLength(1);
    expect(edgesBetween(g, "b", "d")).toHaveLength(1);
    expect(edgesBetween(g, "c", "d")).toHaveLength(1);
    // parallel branches are not chained; the loop goes back to its start
    expect(edgesBetween(g, "b", "c")).toHaveLength(0);
    expect(edgesBetween(g, "d", "e")).toHaveLength(1);
    expect(edgesBetween(g, "e", "d")).toHaveLength(1);
  });

  it("highlights author → tool for a call and tool → author (drawn back) for a response", async () => {
    const root = new LlmAgent({ name: "root", model: model(), tools: [tool("get_weather"), tool("other")] });
    const call = createEvent({
      author: "root",
      content: { role: "model", parts: [{ functionCall: { id: "1", name: "get_weather", args: {} } }] },
    });
    const answer = createEvent({
      author: "root",
      content: { role: "user", parts: [{ functionResponse: { id: "1", name: "get_weather", response: {} } }] },
    });
    expect(highlightPairsForEvent(call)).toEqual([["root", "get_weather"]]);
    expect(highlightPairsForEvent(answer)).toEqual([["get_weather", "root"]]);
    expect(
      highlightPairsForEvent(createEvent({ author: "root", content: { role: "model", parts: [{ text: "hi" }] } })),
    ).toEqual([["root", "root"]]);

    const called = layout(await buildAgentDot(root, { highlightPairs: highlightPairsForEvent(call) }));
    expect(edgesBetween(called, "root", "get_weather")[0]).toMatchObject({ color: "#69CB87" });
    expect(edgesBetween(called, "root", "get_weather")[0]!.dir).toBeUndefined();
    expect(edgesBetween(called, "root", "other")[0]).toMatchObject({ color: "#cccccc", arrowhead: "none" });
    expect(nodeByName(called, "get_weather").fillcolor).toBe("#0F5223");
    expect(nodeByName(called, "other").fillcolor).toBeUndefined();

    const answered = layout(await buildAgentDot(root, { highlightPairs: highlightPairsForEvent(answer) }));
    expect(edgesBetween(answered, "root", "get_weather")[0]).toMatchObject({ color: "#69CB87", dir: "back" });
  });

  it("quotes names so odd characters cannot break the DOT", async () => {
    expect(dotId('a"b\\c\nd')).toBe('"a\\"b\\\\c\\nd"');
    const root = new LlmAgent({ name: "root", model: model(), description: "x", tools: [tool("with-dash")] });
    const g = layout(await buildAgentDot(root, { graphName: 'my "app"' }));
    expect(g.name).toBe('my "app"');
    expect(nodeByName(g, "with-dash").shape).toBe("box");
  });
});
