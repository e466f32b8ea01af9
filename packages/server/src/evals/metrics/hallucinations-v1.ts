import type { Invocation } from "../eval-types.js";
import { intermediateTextsOf, textOf } from "../invocation-data.js";
import { hallucinationsCriterionSchema, type HallucinationsCriterion } from "./criteria.js";
import { judged, type JudgePool } from "./judge-pool.js";
import { conversationTranscript, toolActivity } from "./judge-prompts.js";
import { defineMetric, eachInvocation, UNIT_INTERVAL } from "./metric-definition.js";

/** ADK's sentence labels; supported and not_applicable sentences count as grounded. */
export const SENTENCE_LABELS = ["supported", "unsupported", "contradictory", "disputed", "not_applicable"] as const;
export type SentenceLabel = (typeof SENTENCE_LABELS)[number];
const GROUNDED: ReadonlySet<SentenceLabel> = new Set(["supported", "not_applicable"]);
/** On a tie between labels, the less favourable one wins. */
const SEVERITY: SentenceLabel[] = ["contradictory", "unsupported", "disputed", "not_applicable", "supported"];

/** Sentences of a text, by the platform's sentence segmentation (any language). */
export function splitSentences(text: string): string[] {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "sentence" });
  return [...segmenter.segment(text)].map((s) => s.segment.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s));
}

function readLabels(raw: string, count: number): (SentenceLabel | undefined)[] {
  const labels = new Array<SentenceLabel | undefined>(count).fill(undefined);
  for (const m of raw.matchAll(
    /^[\s*#-]*\[?(\d+)\]?[\s*.):-]+\**\s*(supported|unsupported|contradictory|disputed|not[ _]applicable)\b/gim,
  )) {
    const index = Number(m[1]) - 1;
    if (index >= 0 && index < count && labels[index] === undefined)
      labels[index] = m[2]!.toLowerCase().replace(" ", "_") as SentenceLabel;
  }
  return labels;
}

function majorityLabel(labels: (SentenceLabel | undefined)[]): SentenceLabel | undefined {
  const counts = new Map<SentenceLabel, number>();
  for (const l of labels) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  let best: SentenceLabel | undefined;
  for (const label of SEVERITY) if ((counts.get(label) ?? 0) > (best ? counts.get(best)! : 0)) best = label;
  return best;
}

const PROMPT = `You check an AI agent's answer for hallucinations. Label every numbered sentence of the answer with
one of:
- supported: the context (the user's messages, the tool results, the earlier conversation) states or
  directly implies it;
- unsupported: the context does not back it;
- contradictory: the context says otherwise;
- disputed: the context holds evidence both for and against it;
- not_applicable: it states no fact to check (a greeting, a question, an offer to help).
Only the context counts, not your own knowledge.`;

/** `hallucinations_v1`: the share of the answer's sentences the context supports (or that state no fact). */
export function hallucinationsV1Metric(judges: JudgePool) {
  return defineMetric<HallucinationsCriterion>({
    info: {
      metricName: "hallucinations_v1",
      description:
        "An LLM judge labels each sentence of the response supported, unsupported, contradictory, disputed or " +
        "not_applicable against the tool outputs and the conversation; the score is the share of supported or " +
        "not_applicable sentences (majority label of num_samples).",
      metricValueInfo: { interval: UNIT_INTERVAL },
    },
    unavailableReason: judges.unavailableReason && `hallucinations_v1 ${judges.unavailableReason}`,
    criterionSchema: hallucinationsCriterionSchema,
    defaultThreshold: 0.8,
    async evaluateInvocations(input) {
      const options = input.criterion.judgeModelOptions;
      const judge = judges.resolve(options);
      const state = input.evalCase?.sessionInput?.state ?? {};
      return eachInvocation(input, async (actual, _expected, i) => {
        if ("unavailable" in judge) return { notEvaluated: judge.unavailable };
        const texts = [
          ...(input.criterion.evaluateIntermediateNlResponses ? intermediateTextsOf(actual) : []),
          textOf(actual.finalResponse),
        ];
        const sentences = texts.flatMap(splitSentences);
        if (sentences.length === 0) return { notEvaluated: "the turn has no text answer to check" };
        return judged(input.signal, async () => {
          const prompt = [
            PROMPT,
            contextOf(input.actual.slice(0, i), actual, state),
            `The answer's sentences:\n${sentences.map((s, n) => `${n + 1}. ${s}`).join("\n")}`,
            'Answer with one line per sentence, "<number>: <label> - <short reason>", and nothing else.',
          ].join("\n\n");
          const samples = await judges.sample(judge, prompt, {
            samples: options.numSamples,
            config: options.judgeModelConfig,
            signal: input.signal,
          });
          const perSample = samples.map((s) => readLabels(s.raw, sentences.length));
          const labels = sentences.map((_s, n) => majorityLabel(perSample.map((l) => l[n])));
          const labelled = labels.filter((l): l is SentenceLabel => l !== undefined);
          const judgeSamples = samples.map((s) => ({ raw: s.raw }));
          if (labelled.length === 0)
            return { notEvaluated: `the judge labelled no sentence: ${samples[0]?.raw.slice(0, 200)}` };
          const grounded = labelled.filter((l) => GROUNDED.has(l)).length;
          return {
            score: grounded / labelled.length,
            details: {
              sentences: sentences.map((sentence, n) => ({ sentence, label: labels[n] ?? null })),
              judgeSamples,
            },
          };
        });
      });
    },
  });
}

function contextOf(history: Invocation[], turn: Invocation, state: Record<string, unknown>): string {
  const parts = [];
  if (Object.keys(state).length > 0) parts.push(`Session state at the start: ${JSON.stringify(state).slice(0, 4000)}`);
  if (history.length > 0) parts.push(`Earlier in the conversation:\n${conversationTranscript(history)}`);
  parts.push(`User: ${textOf(turn.userContent)}`, `Tool calls and results of this turn:\n${toolActivity(turn)}`);
  return `Context:\n${parts.join("\n\n")}`;
}
