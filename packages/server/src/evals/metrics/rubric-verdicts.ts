import type { Rubric } from "../eval-types.js";
import type { JudgeSample } from "./judge-pool.js";
import { majority } from "./judge-prompts.js";

/** ADK's RubricScore: a rubric's score (1 met, 0 not) and the judge's reason. */
export interface RubricScore {
  rubricId: string;
  score?: number;
  rationale?: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The rubrics as the judge reads them, one line each: `id: property`. */
export function rubricList(rubrics: Rubric[]): string {
  return rubrics.map((r) => `- ${r.rubricId}: ${r.rubricContent.textProperty}`).join("\n");
}

export const RUBRIC_ANSWER_FORMAT =
  'Answer with one line per property, in the form "<property id>: yes - <short reason>" or ' +
  '"<property id>: no - <short reason>", and nothing else.';

/** One sample's verdict on a rubric: 1 (yes), 0 (no) or undefined (not answered), with its reason. */
export function readRubricVerdict(raw: string, rubricId: string): { verdict?: 1 | 0; reason?: string } {
  const line = new RegExp(
    `^[\\s>*\`"'-]*${escapeRegExp(rubricId)}[\\s*\`"']*[:=]\\s*[*\`"']*(yes|no|true|false)\\b[\\s*\`"'.,:;-]*(.*)$`,
    "im",
  ).exec(raw);
  if (!line) return {};
  const yes = /^(yes|true)$/i.test(line[1]!);
  return { verdict: yes ? 1 : 0, reason: line[2]?.trim() || undefined };
}

/**
 * Per rubric, the majority of the samples' verdicts (a tie is 0), and the score: the mean of
 * the rubrics some sample answered. Undefined when no sample answered any rubric.
 */
export function scoreRubrics(
  rubrics: Rubric[],
  samples: JudgeSample[],
): { score: number; rubricScores: RubricScore[] } | undefined {
  const rubricScores = rubrics.map((rubric): RubricScore => {
    const read = samples.map((s) => readRubricVerdict(s.raw, rubric.rubricId));
    const vote = majority(read.map((r) => r.verdict));
    if (!vote) return { rubricId: rubric.rubricId };
    const rationale = read.find((r) => r.verdict === vote.score)?.reason;
    return { rubricId: rubric.rubricId, score: vote.score, ...(rationale ? { rationale } : {}) };
  });
  const scored = rubricScores.flatMap((r) => (r.score === undefined ? [] : [r.score]));
  if (scored.length === 0) return undefined;
  return { score: scored.reduce((a, b) => a + b, 0) / scored.length, rubricScores };
}

/** Mean score per rubric over several verdict lists (ADK's overall rubric scores). */
export function meanRubricScores(lists: RubricScore[][]): RubricScore[] {
  const sums = new Map<string, { total: number; n: number }>();
  for (const list of lists)
    for (const r of list) {
      const entry = sums.get(r.rubricId) ?? { total: 0, n: 0 };
      if (r.score !== undefined) {
        entry.total += r.score;
        entry.n++;
      }
      sums.set(r.rubricId, entry);
    }
  return [...sums].map(([rubricId, { total, n }]) => (n > 0 ? { rubricId, score: total / n } : { rubricId }));
}
