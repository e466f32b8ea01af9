import type { Invocation } from "../eval-types.js";
import { intermediateTextsOf, textOf, toolResponsesOf, toolUsesOf } from "../invocation-data.js";

const VALUE_LIMIT = 2000;

function short(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT)}…` : text;
}

/** The turn's tool activity, one line per call and per result ("(none)" when there is none). */
export function toolActivity(invocation: Invocation): string {
  const lines = [
    ...toolUsesOf(invocation).map((c) => `- call ${c.name}(${short(c.args ?? {})})`),
    ...toolResponsesOf(invocation).map((r) => `- result of ${r.name}: ${short(r.response ?? {})}`),
  ];
  return lines.length > 0 ? lines.join("\n") : "(none)";
}

/** A whole conversation as the judge reads it: each turn's user message, tools and answer. */
export function conversationTranscript(turns: Invocation[]): string {
  return turns
    .map((turn, i) =>
      [
        `### Turn ${i + 1}`,
        `User: ${textOf(turn.userContent)}`,
        ...intermediateTextsOf(turn).map((t) => `Agent (in progress): ${t}`),
        `Tools:\n${toolActivity(turn)}`,
        `Agent: ${textOf(turn.finalResponse)}`,
      ].join("\n"),
    )
    .join("\n\n");
}

/** The last standalone "valid" or "invalid" in a judge's answer (1, 0), or undefined. */
export function readValidity(raw: string): 1 | 0 | undefined {
  const words = [...raw.matchAll(/\b(in)?valid\b/gi)];
  const last = words.at(-1);
  if (!last) return undefined;
  return last[1] ? 0 : 1;
}

/** Majority vote of 1/0 verdicts: 1 when more samples say 1 than 0 (a tie is 0). */
export function majority(verdicts: (1 | 0 | undefined)[]): { score: number; yes: number; no: number } | undefined {
  const yes = verdicts.filter((v) => v === 1).length;
  const no = verdicts.filter((v) => v === 0).length;
  if (yes + no === 0) return undefined;
  return { score: yes > no ? 1 : 0, yes, no };
}
