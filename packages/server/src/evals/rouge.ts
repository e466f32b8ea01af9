import { porterStem } from "./porter-stemmer.js";

/** Han, kana and Hangul syllables are scored one character at a time (no spaces between words). */
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}\p{M}])+/gu;

/** Tokens the stemmer applies to, as rouge_score's: ASCII letters and digits, longer than 3 characters. */
const STEMMABLE = /^[a-z0-9]{4,}$/;

/**
 * Lower-cased word tokens of any script: letters with their accents (NFKC-normalised, so a
 * precomposed and a decomposed "é" are the same token), digits, and each Chinese or Japanese
 * character on its own. English words longer than 3 characters are reduced to their Porter stem,
 * as ADK's scorer (rouge_score with `use_stemmer=True`) does, so "refunds" matches "refunded".
 */
export function tokenize(text: string): string[] {
  const tokens = text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
  return tokens.map((token) => (STEMMABLE.test(token) ? porterStem(token) : token));
}

/**
 * ROUGE-1 F1: unigram overlap of a candidate with a reference (clipped counts), as the
 * harmonic mean of precision and recall. Two empty texts match (1); one empty text scores 0.
 */
export function rouge1F1(candidate: string, reference: string): number {
  const cand = tokenize(candidate);
  const ref = tokenize(reference);
  if (cand.length === 0 && ref.length === 0) return 1;
  if (cand.length === 0 || ref.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of cand) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      overlap += 1;
      counts.set(t, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / cand.length;
  const recall = overlap / ref.length;
  return (2 * precision * recall) / (precision + recall);
}
