import { describe, expect, it } from "@jest/globals";
import { rouge1F1, tokenize } from "../../src/evals/index.js";
import { porterStem } from "../../src/evals/porter-stemmer.js";

/**
 * [word, stem] pairs worked out by hand from the rules of NLTK's default Porter stemmer
 * (NLTK_EXTENSIONS): the paper's rules where NLTK keeps them, its extensions where it does not.
 */
const STEMS: [string, string][] = [
  // Step 1a: plurals.
  ["caresses", "caress"],
  ["ponies", "poni"],
  ["ties", "tie"],
  ["caress", "caress"],
  ["cats", "cat"],
  // Step 1b: -eed, -ed, -ing, and the tidying after them.
  ["feed", "feed"],
  ["agreed", "agre"],
  ["plastered", "plaster"],
  ["bled", "bled"],
  ["motoring", "motor"],
  ["sing", "sing"],
  ["conflated", "conflat"],
  ["troubled", "troubl"],
  ["sized", "size"],
  ["hopping", "hop"],
  ["tanned", "tan"],
  ["falling", "fall"],
  ["hissing", "hiss"],
  ["fizzed", "fizz"],
  ["failing", "fail"],
  ["filing", "file"],
  // Step 1c: y -> i after a consonant that is not the first letter.
  ["happy", "happi"],
  ["sunny", "sunni"],
  // Steps 2 to 4 (and 5) on whole words.
  ["relational", "relat"],
  ["conditional", "condit"],
  ["rational", "ration"],
  ["generalization", "gener"],
  ["digitizer", "digit"],
  ["hopeful", "hope"],
  ["goodness", "good"],
  ["triplicate", "triplic"],
  ["formative", "form"],
  ["electrical", "electr"],
  ["revival", "reviv"],
  ["allowance", "allow"],
  ["inference", "infer"],
  ["airliner", "airlin"],
  ["adjustable", "adjust"],
  ["defensible", "defens"],
  ["replacement", "replac"],
  ["adjustment", "adjust"],
  ["dependent", "depend"],
  ["adoption", "adopt"],
  ["opinion", "opinion"],
  ["communism", "commun"],
  ["effective", "effect"],
  // Step 5: a final e, and -ll.
  ["probate", "probat"],
  ["rate", "rate"],
  ["cease", "ceas"],
  ["controlling", "control"],
  ["roll", "roll"],
  // The classic family.
  ["connect", "connect"],
  ["connected", "connect"],
  ["connecting", "connect"],
  ["connection", "connect"],
  ["connections", "connect"],
];

/**
 * Words where NLTK's default mode departs from the 1980 paper, [word, NLTK's stem, the paper's
 * stem], each worked out by hand from both sets of rules.
 */
const EXTENSIONS: [string, string, string][] = [
  // Irregular forms, mapped whole before any rule.
  ["skies", "sky", "ski"],
  ["dying", "die", "dy"],
  ["lying", "lie", "ly"],
  ["tying", "tie", "ty"],
  ["news", "news", "new"],
  ["innings", "inning", "in"],
  ["howe", "howe", "how"],
  ["proceed", "proceed", "proce"],
  ["succeed", "succeed", "succe"],
  // Step 1a and 1b: "ies" and "ied" keep their "e" in four-letter words.
  ["dies", "die", "di"],
  ["lies", "lie", "li"],
  ["died", "die", "di"],
  // Step 1b: a whole stem of a vowel then a consonant counts as *o, so it gets its "e" back.
  ["used", "use", "us"],
  ["using", "use", "us"],
  ["uses", "use", "us"],
  ["owing", "owe", "ow"],
  // Step 1c: no y -> i after a vowel, and y -> i after a lone first consonant.
  ["days", "day", "dai"],
  ["plays", "play", "plai"],
  ["enjoy", "enjoy", "enjoi"],
  ["spy", "spi", "spy"],
  ["cry", "cri", "cry"],
  // Step 2: "bli" -> "ble" (the paper only has "abli"), then step 5 drops the e.
  ["possibly", "possibl", "possibli"],
  ["visibly", "visibl", "visibli"],
  // Step 2: "alli" -> "al" first, then step 2 again ("tional" -> "tion"), and step 4 takes "ion".
  ["conditionally", "condit", "condition"],
  // Step 2: "fulli" -> "ful" (then step 3 drops "ful").
  ["hopefully", "hope", "hopefulli"],
  ["carefully", "care", "carefulli"],
  // Step 2: "logi" -> "log", the measure taken with the "l".
  ["geology", "geolog", "geologi"],
  ["biology", "biolog", "biologi"],
];

/** Words whose stem is the same in both, though they go near the extensions. */
const UNCHANGED: [string, string][] = [
  // No vowel before the y in the paper, a lone first consonant in NLTK.
  ["sky", "sky"],
  // "fulli" alone: the stem before it is empty (m = 0).
  ["fully", "fulli"],
  // No step 2 rule ends in "ili"; "ousli" is the paper's own.
  ["happily", "happili"],
  ["generously", "gener"],
  // Five letters or more keep "ies" -> "i" and "ied" -> "i".
  ["ponies", "poni"],
  ["flies", "fli"],
  ["spied", "spi"],
  ["carried", "carri"],
  // The irregular table matches whole words only.
  ["proceeds", "proce"],
  // "abli" is still a "bli": conformabli -> conformable.
  ["conformably", "conform"],
];

describe("Porter stemmer", () => {
  it.each(STEMS)("%s -> %s", (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it.each(EXTENSIONS)("NLTK's extension: %s -> %s (the paper: %s)", (word, stem, paper) => {
    expect(stem).not.toBe(paper);
    expect(porterStem(word)).toBe(stem);
  });

  it.each(UNCHANGED)("%s -> %s, as in the paper", (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it("leaves one- and two-letter words alone", () => {
    expect(["a", "is", "as"].map(porterStem)).toEqual(["a", "is", "as"]);
  });
});

describe("ROUGE-1 with stemming, as rouge_score's use_stemmer=True", () => {
  it("stems English words longer than 3 characters in the tokens", () => {
    expect(tokenize("The refunds were processed")).toEqual(["the", "refund", "were", "process"]);
    // Three letters or fewer are never stemmed: "its" stays, "cats" becomes "cat".
    expect(tokenize("its cats was")).toEqual(["its", "cat", "was"]);
    // Words with letters beyond ASCII, and other scripts, keep their form.
    expect(tokenize("Cafés crèmes 東京")).toEqual(["cafés", "crèmes", "東", "京"]);
  });

  it("matches inflected forms: a score that stemming changes, worked out by hand", () => {
    // candidate {the, refund, were, process}, reference {refund, process, finish}: overlap 2,
    // P = 2/4, R = 2/3, F1 = 2PR / (P + R) = 4/7 (0 without stemming: no word is equal).
    expect(rouge1F1("The refunds were processed", "Refund processing finished")).toBeCloseTo(4 / 7, 12);
    // {connect, connect} against {connect}: clipped overlap 1, P = 1/2, R = 1, F1 = 2/3.
    expect(rouge1F1("connections connecting", "connected")).toBeCloseTo(2 / 3, 12);
    // The length rule: "cats" -> "cat" matches, "its" does not become "it".
    expect(rouge1F1("cats", "cat")).toBe(1);
    expect(rouge1F1("its", "it")).toBe(0);
  });

  it("scores as NLTK's default stemmer does where it departs from the paper", () => {
    // "days" -> "day" equals the unstemmed 3-letter "day" (the paper's "dai" would not): 1, not 0.
    expect(rouge1F1("days", "day")).toBe(1);
    // candidate {it, use, the, new, tool, possibl}, reference {tool, possibl, use} ("use" has 3
    // letters: not stemmed): overlap 3, P = 3/6, R = 3/3, F1 = 2/3. The paper's stems ("us" against
    // "use", "possibli" against "possibl") leave only "tool": P = 1/6, R = 1/3, F1 = 2/9.
    expect(rouge1F1("It used the new tool, possibly", "Tool possible, use")).toBeCloseTo(2 / 3, 12);
    // Irregular forms: "skies" -> "sky", "dying" -> "die" ("dy" in the paper).
    expect(tokenize("Skies dying news")).toEqual(["sky", "die", "news"]);
    expect(rouge1F1("clear skies", "clear sky")).toBe(1);
  });
});
