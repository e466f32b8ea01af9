import { describe, expect, it } from "@jest/globals";
import { rouge1F1, tokenize } from "../../src/evals/index.js";
import { porterStem } from "../../src/evals/porter-stemmer.js";

/** [word, stem] pairs worked out by hand from the rules of Porter's 1980 paper. */
const STEMS: [string, string][] = [
  // Step 1a: plurals.
  ["caresses", "caress"],
  ["ponies", "poni"],
  ["ties", "ti"],
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
  // Step 1c: y -> i after a vowel in the stem.
  ["happy", "happi"],
  ["sky", "sky"],
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

describe("Porter stemmer", () => {
  it.each(STEMS)("%s -> %s", (word, stem) => {
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
});
