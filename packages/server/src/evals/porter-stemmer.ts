/**
 * The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix stripping", 1980) as
 * NLTK's `PorterStemmer()` runs it by default (mode NLTK_EXTENSIONS), which is the stemmer
 * rouge_score, and so ADK's `response_match_score`, uses. Its departures from the paper: a few
 * irregular words ("skies" -> "sky", "dying" -> "die", "news" -> "news"); "ies"/"ied" -> "ie" in
 * four-letter words ("dies" -> "die"); y -> i only after a consonant that is not the first letter
 * ("days" -> "day", "spy" -> "spi"); a two-letter vowel-consonant stem counts as *o ("used" ->
 * "use"); step 2 turns "bli" (not only "abli") into "ble", runs again after "alli" -> "al", and
 * has "fulli" -> "ful" and "logi" -> "log". Lower-case English words in, stems out.
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
  for (let i = 1; i < stem.length; i += 1) if (isConsonant(stem, i) && !isConsonant(stem, i - 1)) m += 1;
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

/**
 * *o: the stem ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"); NLTK
 * also counts a whole stem of a vowel then a consonant ("us", "ow"), so "used" -> "use".
 */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n === 2) return !isConsonant(stem, 0) && isConsonant(stem, 1);
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

type Rule = readonly [suffix: string, replacement: string, condition?: (stem: string) => boolean];

const positive = (stem: string): boolean => measure(stem) > 0;

/**
 * Applies the first rule whose suffix the word ends with, when the stem before the suffix passes
 * its condition; a failing condition ends the step (no later rule is tried), as the paper says.
 */
function applyFirst(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    return condition === undefined || condition(stem) ? stem + replacement : word;
  }
  return word;
}

/** Whole words NLTK maps before any rule runs: errors reported to Porter over the years. */
const IRREGULAR = new Map<string, string>([
  ["sky", "sky"],
  ["skies", "sky"],
  ["dying", "die"],
  ["lying", "lie"],
  ["tying", "tie"],
  ["news", "news"],
  ["innings", "inning"],
  ["inning", "inning"],
  ["outings", "outing"],
  ["outing", "outing"],
  ["cannings", "canning"],
  ["canning", "canning"],
  ["howe", "howe"],
  ["proceed", "proceed"],
  ["exceed", "exceed"],
  ["succeed", "succeed"],
]);

function step1a(word: string): string {
  // "dies" -> "die" (and "ties", "lies"), where longer words keep "ies" -> "i": "ponies" -> "poni".
  if (word.length === 4 && word.endsWith("ies")) return word.slice(0, -1);
  if (word.endsWith("sses") || word.endsWith("ies")) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  // "died" -> "die", "spied" -> "spi", with no tidying afterwards.
  if (word.endsWith("ied")) return word.length === 4 ? word.slice(0, -1) : word.slice(0, -2);
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

/** y -> i after a consonant that is not the word's first letter: "happy" -> "happi", "enjoy" stays. */
function step1c(word: string): string {
  const stem = word.slice(0, -1);
  return word.endsWith("y") && stem.length > 1 && isConsonant(stem, stem.length - 1) ? `${stem}i` : word;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate", positive],
  ["tional", "tion", positive],
  ["enci", "ence", positive],
  ["anci", "ance", positive],
  ["izer", "ize", positive],
  ["bli", "ble", positive],
  ["alli", "al", positive],
  ["entli", "ent", positive],
  ["eli", "e", positive],
  ["ousli", "ous", positive],
  ["ization", "ize", positive],
  ["ation", "ate", positive],
  ["ator", "ate", positive],
  ["alism", "al", positive],
  ["iveness", "ive", positive],
  ["fulness", "ful", positive],
  ["ousness", "ous", positive],
  ["aliti", "al", positive],
  ["iviti", "ive", positive],
  ["biliti", "ble", positive],
  ["fulli", "ful", positive],
  // The "l" counts with the stem, so short stems work: "geologi" -> "geolog" (m of "geol" is 1).
  ["logi", "log", (stem) => positive(`${stem}l`)],
];

function step2(word: string): string {
  // "alli" -> "al" goes first, and the result takes step 2 again: "conditionalli" -> "condition".
  if (word.endsWith("alli") && positive(word.slice(0, -4))) return step2(word.slice(0, -2));
  return applyFirst(word, STEP2);
}

const STEP3: readonly Rule[] = [
  ["icate", "ic", positive],
  ["ative", "", positive],
  ["alize", "al", positive],
  ["iciti", "ic", positive],
  ["ical", "ic", positive],
  ["ful", "", positive],
  ["ness", "", positive],
];

const overOne = (stem: string): boolean => measure(stem) > 1;

const STEP4: readonly Rule[] = [
  ...["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent"].map(
    (suffix) => [suffix, "", overOne] as const,
  ),
  // -ion goes only after s or t: adoption -> adopt, while "opinion" keeps it.
  ["ion", "", (stem) => overOne(stem) && (stem.endsWith("s") || stem.endsWith("t"))],
  ...["ou", "ism", "ate", "iti", "ous", "ive", "ize"].map((suffix) => [suffix, "", overOne] as const),
];

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

/**
 * The stem NLTK's default Porter stemmer gives a lower-case English word; words of one or two
 * letters are left as they are.
 */
export function porterStem(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = applyFirst(w, STEP3);
  w = applyFirst(w, STEP4);
  return step5(w);
}
