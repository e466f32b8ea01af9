import { toolResponsesOf, toolUsesOf } from "./invocation-data.js";
import { BasePlugin, type BeforeToolHookArgs } from "@agentkit/core";
import { z } from "zod";
import type { Invocation } from "./eval-types.js";
import { wireObject } from "./wire-object.js";

const record = z.record(z.string(), z.unknown());

/** One simulated tool behaviour: when the tool (and its arguments) match, answer or fail instead of running it. */
export const toolSimulationRuleSchema = wireObject({
  toolName: z.string().min(1),
  /** Arguments to match; absent: any call of the tool. */
  args: record.optional(),
  /** `subset` (default): the given arguments must be present with equal values; `exact`: nothing else either. */
  argsMatch: z.enum(["subset", "exact"]).default("subset"),
  response: record.optional(),
  /** Answer as a failed tool does (`{error: message}`) instead of a response. */
  error: z.string().optional(),
  /** Chance that the rule applies to a matching call (drawn from the case's seeded generator). */
  probability: z.number().min(0).max(1).default(1),
  /** Simulated latency before answering. */
  latencyMs: z.number().int().min(0).max(600_000).default(0),
}).refine((r) => (r.response === undefined) !== (r.error === undefined), {
  message: "give exactly one of response and error",
});

/**
 * A case's tool simulation (agentkit's extension of the eval case, `tool_simulation` on the
 * wire): rules first, then (with `replayRecorded`) the tool responses recorded in the case's
 * expected conversation, then `unmatched` decides: `run` the real tool, or answer with an error.
 */
export const toolSimulationSchema = wireObject({
  rules: z.array(toolSimulationRuleSchema).default([]),
  replayRecorded: z.boolean().default(false),
  unmatched: z.enum(["run", "error"]).default("run"),
  /** Seed of the generator the rules' probabilities draw from: the same seed, the same run. */
  seed: z.number().int().default(0),
});

export type ToolSimulationRule = z.output<typeof toolSimulationRuleSchema>;
export type ToolSimulation = z.output<typeof toolSimulationSchema>;

interface ActiveSimulation {
  config: ToolSimulation;
  /** Recorded `[name, args, response]` not yet replayed, in order. */
  recorded: { name: string; args: Record<string, unknown>; response: Record<string, unknown> }[];
  random: () => number;
}

/**
 * Serves simulated tool results to eval runs. Installed once in a runner's plugins, it acts
 * only on the sessions an eval case registered with `simulate()`; every other run is untouched.
 */
export class ToolSimulationPlugin extends BasePlugin {
  private readonly active = new Map<string, ActiveSimulation>();

  constructor() {
    super("eval_tool_simulation");
  }

  /** Simulates tools for one session (an eval case's) until the returned function is called. */
  simulate(sessionId: string, config: ToolSimulation, expected: readonly Invocation[] = []): () => void {
    const recorded = config.replayRecorded
      ? expected.flatMap((inv) => {
          const uses = toolUsesOf(inv);
          const responses = toolResponsesOf(inv);
          return uses.flatMap((use, i) => {
            const response = (use.id ? responses.find((r) => r.id === use.id) : undefined) ?? responses[i];
            return response?.response && use.name
              ? [{ name: use.name, args: use.args ?? {}, response: response.response }]
              : [];
          });
        })
      : [];
    this.active.set(sessionId, { config, recorded, random: seededRandom(config.seed) });
    return () => this.active.delete(sessionId);
  }

  override async beforeToolCallback({
    tool,
    args,
    context,
  }: BeforeToolHookArgs): Promise<Record<string, unknown> | undefined> {
    const sim = this.active.get(context.invocation.session.id);
    if (!sim) return undefined;
    for (const rule of sim.config.rules) {
      if (rule.toolName !== tool.name || (rule.args && !argsMatch(rule.args, args, rule.argsMatch))) continue;
      // Draw only for rules that need it, so adding a certain rule does not shift the others' draws.
      if (rule.probability < 1 && sim.random() >= rule.probability) continue;
      if (rule.latencyMs > 0) await delay(rule.latencyMs, context.invocation.signal);
      return rule.error !== undefined ? { error: rule.error } : structuredClone(rule.response!);
    }
    const index = sim.recorded.findIndex((r) => r.name === tool.name && argsMatch(r.args, args, "exact"));
    if (index >= 0) return structuredClone(sim.recorded.splice(index, 1)[0]!.response);
    if (sim.config.unmatched === "error")
      return { error: `No simulated result for ${tool.name}(${JSON.stringify(args)}) in this eval case.` };
    return undefined;
  }
}

function argsMatch(want: Record<string, unknown>, got: Record<string, unknown>, mode: "subset" | "exact"): boolean {
  const keys = Object.keys(want);
  if (mode === "exact" && Object.keys(got).filter((k) => got[k] !== undefined).length !== keys.length) return false;
  return keys.every((k) => sameJson(want[k], got[k]));
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** mulberry32: a small seeded generator, so a probability rule fails the same calls on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
