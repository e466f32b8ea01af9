// Prompt size per turn as a session grows, with and without events compaction.
// `pnpm --filter @agentkit/bench run bench:compaction [-- --turns 1000]`
import {
  App,
  BaseLlm,
  InMemoryRunner,
  LlmAgent,
  LlmEventSummarizer,
  getSystemInstructionText,
  type LlmRequest,
  type LlmResponse,
  type EventsCompactionConfig,
} from "@agentkit/core";

const turnsFlag = process.argv.indexOf("--turns");
const turns = turnsFlag >= 0 ? Number(process.argv[turnsFlag + 1]) : 1000;
if (!Number.isInteger(turns) || turns < 1) throw new Error("--turns takes a positive integer");
const checkpoints = [10, 100, 1000].filter((t) => t <= turns);

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

async function run(label: string, compaction?: Omit<EventsCompactionConfig, "summarizer">) {
  const model = new MeasuringModel();
  const app = new App({
    name: "bench",
    rootAgent: new LlmAgent({ name: "assistant", model, instruction: "You are a helpful assistant. Answer briefly." }),
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
  const started = performance.now();
  for (let i = 1; i <= turns; i++) {
    const text = `Question ${i}: ${"what about this and that ".repeat(4)}`;
    for await (const _ of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text }] },
    }));
  }
  const ms = performance.now() - started;
  await runner.close();
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
