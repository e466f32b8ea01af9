import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  App,
  InMemoryRunner,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  Workflow,
  getFunctionCalls,
  type Event,
} from "@agentkit/core";
import { AgentLoadError, createDirectoryAgentLoader } from "../../src/loader/index.js";
import { makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";

// Workflows in YAML agent configs (`agent_class: Workflow`): nodes by reference (code, config_path,
// tools) or inline agents, chains, routing maps, joins, single edges with a loop bound; errors name
// the file and the field; code references stay in the app folder.

const NODES = `import { BaseLlm, FunctionNode } from "@agentkit/core";
export function classify(ctx, input) {
  const text = typeof input === "string" ? input : (input?.parts ?? []).map((p) => p.text ?? "").join("");
  ctx.route = text.includes("urgent") ? "urgent" : "normal";
  return text;
}
export const page = (_ctx, text) => "paged: " + text;
export const queue = (_ctx, text) => "queued: " + text;
export const enrich = new FunctionNode("enrich", (_ctx, text) => ({ text, words: text.split(" ").length }));
export function ask(ctx) { return ctx.requestInput({ message: "Ship it?" }); }
export function ship(_ctx, answer) { return answer.ok ? "shipped" : "held"; }
export function count(ctx, input) {
  const n = (ctx.state.get("rounds") ?? 0) + 1;
  ctx.state.set("rounds", n);
  return input;
}
/** Answers "<name>: <last user text>". */
class Echo extends BaseLlm {
  constructor() { super({ model: "echo" }); }
  async *generateContentAsync(request) {
    const last = request.contents.at(-1);
    const text = (last?.parts ?? []).map((p) => p.text ?? "").join("");
    yield { content: { role: "model", parts: [{ text: "summary of " + text }] } };
  }
}
export const echoModel = new Echo();
`;

const WORKFLOW = `agent_class: Workflow
name: triage
description: Routes a ticket.
nodes:
  - name: classify
    code: ./nodes.ts#classify
  - name: page
    code: ./nodes.ts#page
    timeout_ms: 5000
  - name: queue
    code: ./nodes.ts#queue
  - name: enrich
    code: ./nodes.ts#enrich
  - name: summarize
    agent:
      model_code: ./nodes.ts#echoModel
      instruction: Summarize.
  - name: reviewer
    agent:
      config_path: reviewer.yaml
  - name: both
    join: true
edges:
  - [START, classify, { urgent: page, normal: [queue, enrich] }]
  - [page, summarize]
  - [[queue, enrich], both, reviewer]
`;

const REVIEWER = `name: reviewer
model_code: ./nodes.ts#echoModel
instruction: Review.
`;

let t: TempAgentsDir;
let outsideDir: string;
const loader = () => createDirectoryAgentLoader({ agentsDir: t.dir });

beforeAll(async () => {
  t = await makeAgentsDir({
    "triage/root_agent.yaml": WORKFLOW,
    "triage/reviewer.yaml": REVIEWER,
    "triage/nodes.ts": NODES,
    "approval/root_agent.yaml":
      "agent_class: Workflow\nname: approval\nnodes:\n  - name: ask\n    code: ./nodes.ts#ask\n" +
      "  - name: ship\n    code: ./nodes.ts#ship\nedges:\n  - [START, ask, ship]\n",
    "approval/nodes.ts": NODES,
    "loop/root_agent.yaml":
      "agent_class: Workflow\nname: loop\nnodes:\n  - name: count\n    code: ./nodes.ts#count\n" +
      "edges:\n  - [START, count]\n  - { from: count, to: count, max_traversals: 2 }\n",
    "loop/nodes.ts": NODES,
  });
  outsideDir = join(dirname(t.dir), `${basename(t.dir)}-outside`);
  await mkdir(outsideDir, { recursive: true });
  const marker = join(outsideDir, "imported.txt");
  await writeFile(
    join(outsideDir, "outside.ts"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "x");\nexport const run = () => 1;\n`,
  );
});
afterAll(async () => {
  await t?.cleanup();
  await rm(outsideDir, { recursive: true, force: true });
});

async function run(rootAgent: Workflow, text: string, resumable = false) {
  const runner = resumable
    ? new InMemoryRunner({ app: new App({ name: "app", rootAgent, resumability: { isResumable: true } }) })
    : new InMemoryRunner({ agent: rootAgent, appName: "app" });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const send = async (newMessage: Parameters<typeof runner.runAsync>[0]["newMessage"]) => {
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage })) events.push(e);
    return events;
  };
  return { runner, send, events: await send(text) };
}

const outputs = (events: Event[]) =>
  events.filter((e) => e.nodeInfo?.status === "completed" && e.output !== undefined).map((e) => [e.author, e.output]);

describe("YAML workflows", () => {
  it("builds the graph: code nodes, inline and config_path agents, routes, a join; runs both routes", async () => {
    const l = loader();
    try {
      const { rootAgent } = await l.loadApp("triage");
      expect(rootAgent).toBeInstanceOf(Workflow);
      const workflow = rootAgent as Workflow;
      expect(workflow.description).toBe("Routes a ticket.");
      expect([...workflow.nodes.keys()].sort()).toEqual(
        ["both", "classify", "enrich", "page", "queue", "reviewer", "summarize"].sort(),
      );
      expect(workflow.nodes.get("page")!.timeoutMs).toBe(5000);

      const urgent = await run(workflow, "urgent: disk full");
      expect(outputs(urgent.events)).toEqual([
        ["classify", "urgent: disk full"],
        ["page", "paged: urgent: disk full"],
        ["summarize", "summary of paged: urgent: disk full"],
      ]);
      await urgent.runner.close();

      const normal = await run(workflow, "printer jam");
      const got = Object.fromEntries(outputs(normal.events));
      expect(got.both).toEqual({ queue: "queued: printer jam", enrich: { text: "printer jam", words: 2 } });
      expect(got.reviewer).toMatch(/^summary of /);
      expect(got.page).toBeUndefined();
      await normal.runner.close();
    } finally {
      await l.close();
    }
  });

  it("a YAML workflow pauses for input and resumes in a resumable app", async () => {
    const l = loader();
    try {
      const { rootAgent } = await l.loadApp("approval");
      const app = await run(rootAgent as Workflow, "go", true);
      const request = app.events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_INPUT_FUNCTION_CALL_NAME)!;
      expect(request.args).toMatchObject({ message: "Ship it?" });
      const answered = await app.send({
        role: "user",
        parts: [
          { functionResponse: { id: request.id, name: REQUEST_INPUT_FUNCTION_CALL_NAME, response: { ok: true } } },
        ],
      });
      expect(outputs(answered)).toContainEqual(["ship", "shipped"]);
      await app.runner.close();
    } finally {
      await l.close();
    }
  });

  it("single edges carry a loop bound", async () => {
    const l = loader();
    try {
      const { rootAgent } = await l.loadApp("loop");
      const { runner, events } = await run(rootAgent as Workflow, "x");
      expect(outputs(events).filter(([author]) => author === "count")).toHaveLength(3);
      await runner.close();
    } finally {
      await l.close();
    }
  });
});

const broken = (nodes: string, edges: string) => `agent_class: Workflow\nname: w\nnodes:\n${nodes}edges:\n${edges}`;
const fn = "  - name: a\n    code: ./nodes.ts#page\n";

const CASES: { app: string; yaml: string; field: string | undefined; message: RegExp }[] = [
  {
    app: "bad_edge",
    yaml: broken(fn, "  - [START, a, b]\n"),
    field: "edges[0][2]",
    message: /no node named "b" \(nodes: a\)/,
  },
  {
    app: "bad_route",
    yaml: broken(fn, "  - [START, a, { yes: nowhere }]\n"),
    field: "edges[0][2].yes",
    message: /no node named "nowhere"/,
  },
  {
    app: "no_kind",
    yaml: broken("  - name: a\n", "  - [START, a]\n"),
    field: "nodes[0]",
    message: /one of code, agent, tool or join/,
  },
  {
    app: "two_kinds",
    yaml: broken("  - name: a\n    code: ./nodes.ts#page\n    join: true\n", "  - [START, a]\n"),
    field: "nodes[0].join",
    message: /not code and join/,
  },
  {
    app: "duplicate",
    yaml: broken(fn + fn, "  - [START, a]\n"),
    field: "nodes[1].name",
    message: /used twice/,
  },
  {
    app: "unknown_field",
    yaml: broken("  - name: a\n    code: ./nodes.ts#page\n    retries: 3\n", "  - [START, a]\n"),
    field: "nodes[0].retries",
    message: /unknown field/,
  },
  {
    app: "not_a_function",
    yaml: broken("  - name: a\n    code: ./nodes.ts#echoModel\n", "  - [START, a]\n"),
    field: "nodes[0].code",
    message: /expected a function \(ctx, input\) => output, a node, an agent or a tool/,
  },
  {
    app: "renamed_node",
    yaml: broken("  - name: a\n    code: ./nodes.ts#enrich\n", "  - [START, a]\n"),
    field: "nodes[0].code",
    message: /is the node "enrich"; name the node "enrich" here too/,
  },
  {
    app: "unreachable",
    yaml: broken(`${fn}  - name: b\n    code: ./nodes.ts#queue\n`, "  - [START, a]\n  - [b, a]\n"),
    field: "edges",
    message: /node "b" cannot be reached from "START"/,
  },
];

describe("YAML workflow errors name the file and the field", () => {
  beforeAll(async () => {
    for (const c of CASES) {
      await t.write(`${c.app}/root_agent.yaml`, c.yaml);
      await t.write(`${c.app}/nodes.ts`, NODES);
    }
    await t.write(
      "outside/root_agent.yaml",
      broken(`  - name: a\n    code: ../../${basename(outsideDir)}/outside.ts#run\n`, "  - [START, a]\n"),
    );
  });

  for (const c of CASES) {
    it(`${c.app}: ${c.message.source.slice(0, 50)}`, async () => {
      const l = loader();
      try {
        const error = await l.loadApp(c.app).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(AgentLoadError);
        const loadError = error as AgentLoadError;
        expect(loadError.file).toBe(join(t.dir, c.app, "root_agent.yaml"));
        expect(loadError.field).toBe(c.field);
        expect(loadError.message).toMatch(c.message);
      } finally {
        await l.close();
      }
    });
  }

  it("a code node may not reach out of the app folder (nothing is imported)", async () => {
    const l = loader();
    try {
      const error = (await l.loadApp("outside").then(
        () => undefined,
        (e: unknown) => e,
      )) as AgentLoadError;
      expect(error).toBeInstanceOf(AgentLoadError);
      expect(error.field).toBe("nodes[0].code");
      expect(error.message).toMatch(/leaves the agents directory/);
      expect(existsSync(join(outsideDir, "imported.txt"))).toBe(false);
    } finally {
      await l.close();
    }
  });
});
