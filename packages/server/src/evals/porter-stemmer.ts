/**
 * The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix stripping", 1980), as
 * published: five steps of suffix rules, each guarded by the measure of the stem left behind.
 * Lower-case English words in, stems out ("relational" -> "relat", "ponies" -> "poni").
 */

/** True when the letter at `i` is a consonant: not a vowel, and a `y` only after a vowel or first. */
function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: how many vowel-consonant sequences the stem has. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i += 1;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i += 1;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i += 1;
    m += 1;
  }
  return m;
}

/** *v*: the stem contains a vowel. */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i += 1) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: the stem ends with a double consonant. */
function endsWithDoubleConsonant(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"). */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  const last = stem[n - 1];
  return (
    isConsonant(stem, n - 3) &&
    !isConsonant(stem, n - 2) &&
    isConsonant(stem, n - 1) &&
    last !== "w" &&
    last !== "x" &&
    last !== "y"
  );
}

type Rule = readonly [suffix: string, replacement: string];

/**
 * Applies the rule with the longest suffix the word ends with, when the stem before it passes
 * `condition`; a failing condition ends the step (no shorter suffix is tried), as the paper says.
 */
function applyLongest(word: string, rules: readonly Rule[], condition: (stem: string) => boolean): string {
  let best: Rule | undefined;
  for (const rule of rules)
    if (word.endsWith(rule[0]) && (best === undefined || rule[0].length > best[0].length)) best = rule;
  if (best === undefined) return word;
  const stem = word.slice(0, word.length - best[0].length);
  return condition(stem) ? stem + best[1] : word;
}

function step1a(word: string): string {
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ies")) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  if (word.endsWith("eed")) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? `${stem}ee` : word;
  }
  let stem: string | undefined;
  if (word.endsWith("ed") && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith("ing") && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === undefined) return word;
  // Tidy the stem so later steps see a word: conflat(ed) -> conflate, hopp(ing) -> hop, fil(ing) -> file.
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  if (endsWithDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  return word.endsWith("y") && hasVowel(word.slice(0, -1)) ? `${word.slice(0, -1)}i` : word;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["abli", "able"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
];

const STEP3: readonly Rule[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

const STEP4: readonly Rule[] = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
].map((suffix) => [suffix, ""] as const);

function step4(word: string): string {
  return applyLongest(word, STEP4, (stem) => {
    if (measure(stem) <= 1) return false;
    // -ion goes only after s or t: adoption -> adopt, while "opinion" keeps it.
    return !word.endsWith("ion") || stem.endsWith("s") || stem.endsWith("t");
  });
}

function step5(word: string): string {
  let out = word;
  if (out.endsWith("e")) {
    const stem = out.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) out = stem;
  }
  if (measure(out) > 1 && endsWithDoubleConsonant(out) && out.endsWith("l")) out = out.slice(0, -1);
  return out;
}

/** The Porter stem of a lower-case English word; words of one or two letters are left as they are. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = applyLongest(w, STEP2, (stem) => measure(stem) > 0);
  w = applyLongest(w, STEP3, (stem) => measure(stem) > 0);
  w = step4(w);
  return step5(w);
}
