// Prompt size per turn as a session grows, with and without events compaction; then the time per
// invocation as a compacted session grows (the bench agent and an instant summarizer: the
// framework's cost, not a model's), over 50 invocations at each of --timing-checkpoints.
// `pnpm --filter @agentkit/bench run bench:compaction [-- --turns 1000 --timing-checkpoints 100,1000,4000]`
import {
  App,
  BaseLlm,
  type BaseAgent,
  InMemoryRunner,
  LlmAgent,
  LlmEventSummarizer,
  getSystemInstructionText,
  type LlmRequest,
  type LlmResponse,
  type EventsCompactionConfig,
} from "@agentkit/core";
import { makeBenchAgent } from "./bench-agent.js";
import { median } from "./stats.js";

const turnsFlag = process.argv.indexOf("--turns");
const turns = turnsFlag >= 0 ? Number(process.argv[turnsFlag + 1]) : 1000;
if (!Number.isInteger(turns) || turns < 1) throw new Error("--turns takes a positive integer");
const checkpoints = [10, 100, 1000].filter((t) => t <= turns);
const timingFlag = process.argv.indexOf("--timing-checkpoints");
const timingCheckpoints = (timingFlag >= 0 ? process.argv[timingFlag + 1]! : "100,1000,4000").split(",").map(Number);
if (timingCheckpoints.some((t) => !Number.isInteger(t) || t < 50))
  throw new Error("--timing-checkpoints takes turn counts of at least 50");

/** Estimates prompt tokens (4 characters per token), records them per call, answers at once. */
class MeasuringModel extends BaseLlm {
  readonly promptTokens: number[] = [];
  constructor() {
    super({ model: "measuring" });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const chars = getSystemInstructionText(request).length + JSON.stringify(request.contents).length;
    const tokens = Math.ceil(chars / 4);
    this.promptTokens.push(tokens);
    // A realistic answer length (~60 tokens).
    yield {
      content: {
        role: "model",
        parts: [{ text: `Answer ${this.promptTokens.length}: ${"lorem ipsum dolor sit amet ".repeat(9)}` }],
      },
      usageMetadata: { promptTokenCount: tokens },
    };
  }
}

/** An instant summarizer model: a summary of fixed size (~120 tokens). */
class InstantSummaryModel extends BaseLlm {
  constructor() {
    super({ model: "instant-summary" });
  }
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield {
      content: {
        role: "model",
        parts: [{ text: `Summary: ${"the user asked questions and got answers; ".repeat(11)}` }],
      },
    };
  }
}

/** One session of `rootAgent`, compacted by `compaction` (with the instant summarizer) when given; `ask(text)` runs one turn. */
async function conversation(
  rootAgent: BaseAgent,
  compaction?: Omit<EventsCompactionConfig, "summarizer">,
): Promise<{ ask(text: string): Promise<void>; close(): Promise<void> }> {
  const app = new App({
    name: "bench",
    rootAgent,
    ...(compaction
      ? {
          eventsCompactionConfig: {
            ...compaction,
            summarizer: new LlmEventSummarizer({ model: new InstantSummaryModel() }),
          },
        }
      : {}),
  });
  const runner = new InMemoryRunner({ app });
  const session = await runner.sessionService.createSession({ appName: "bench", userId: "u" });
  return {
    async ask(text) {
      for await (const _ of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text }] },
      }));
    },
    close: () => runner.close(),
  };
}

async function run(label: string, compaction?: Omit<EventsCompactionConfig, "summarizer">) {
  const model = new MeasuringModel();
  const session = await conversation(
    new LlmAgent({ name: "assistant", model, instruction: "You are a helpful assistant. Answer briefly." }),
    compaction,
  );
  const started = performance.now();
  for (let i = 1; i <= turns; i++) await session.ask(`Question ${i}: ${"what about this and that ".repeat(4)}`);
  const ms = performance.now() - started;
  await session.close();
  const row = checkpoints.map((t) => model.promptTokens[t - 1]!);
  console.log(`| ${label} | ${row.map((n) => n.toLocaleString("en-US")).join(" | ")} | ${(ms / turns).toFixed(2)} |`);
}

console.log(
  `Prompt tokens (estimated, 4 chars/token) of the model call at turn ${checkpoints.join(", ")}; ${turns} turns.\n`,
);
console.log(`| configuration | ${checkpoints.map((t) => `turn ${t}`).join(" | ")} | ms/turn |`);
console.log(`| --- | ${checkpoints.map(() => "---:").join(" | ")} | ---: |`);
await run("no compaction");
await run("sliding window (interval 10, overlap 1)", { compactionInterval: 10, overlapSize: 1 });
await run("tail retention (interval 10, keep 20 events)", { compactionInterval: 10, eventRetentionSize: 20 });

/** Ms per invocation (wall, median of 5 batches of 10) at each checkpoint of one growing session. */
async function timing(label: string, compaction?: Omit<EventsCompactionConfig, "summarizer">) {
  const session = await conversation(makeBenchAgent(), compaction);
  const row: string[] = [];
  let done = 0;
  for (const checkpoint of timingCheckpoints) {
    for (; done < checkpoint - 50; done++) await session.ask("q");
    const batches: number[] = [];
    for (let b = 0; b < 5; b++) {
      const started = performance.now();
      for (let i = 0; i < 10; i++, done++) await session.ask("q");
      batches.push((performance.now() - started) / 10);
    }
    row.push(median(batches).toFixed(2));
  }
  await session.close();
  console.log(`| ${label} | ${row.join(" | ")} |`);
}

console.log(
  `\nMs per invocation (the bench agent: a tool call and an answer; instant models) at turn ${timingCheckpoints.join(", ")} of one session.\n`,
);
console.log(`| configuration | ${timingCheckpoints.map((t) => `turn ${t}`).join(" | ")} |`);
console.log(`| --- | ${timingCheckpoints.map(() => "---:").join(" | ")} |`);
await timing("no compaction");
await timing("sliding window (interval 10, overlap 1)", { compactionInterval: 10, overlapSize: 1 });
await timing("tail retention (interval 10, keep 20 events)", { compactionInterval: 10, eventRetentionSize: 20 });
