import { describe, expect, it } from "@jest/globals";
import type { FunctionCall } from "@agentkit/core";
import {
  createEvalMetrics,
  rouge1F1,
  tokenize,
  type Invocation,
  type TrajectoryCriterion,
} from "../../src/evals/index.js";

const call = (name: string, args: Record<string, unknown> = {}): FunctionCall => ({ name, args });
const inv = (calls: FunctionCall[], answer = ""): Invocation => ({
  invocationId: "",
  userContent: { role: "user", parts: [{ text: "q" }] },
  finalResponse: { role: "model", parts: [{ text: answer }] },
  intermediateData: { toolUses: calls, toolResponses: [], intermediateResponses: [] },
  creationTimestamp: 0,
});

const trajectory = createEvalMetrics().get("tool_trajectory_avg_score")!;

/** The metric's per-turn score and details under a criterion given as ADK writes it. */
async function score(actual: FunctionCall[], expected: FunctionCall[], criterion: Record<string, unknown>) {
  const parsed = trajectory.criterionSchema.parse({ threshold: 1, ...criterion }) as TrajectoryCriterion;
  const out = await trajectory.evaluateInvocations({
    actual: [inv(actual)],
    expected: [inv(expected)],
    criterion: parsed,
  });
  const verdict = out.perInvocation[0]!;
  if (!("score" in verdict)) throw new Error(verdict.notEvaluated);
  return {
    score: verdict.score,
    ...(verdict.details as { matched: number; precision: number; recall: number; f1: number }),
  };
}

const [t1, t2, t3, t4] = ["T1", "T2", "T3", "T4"].map((n) => call(n));
const x1 = call("X1");
const x2 = call("X2");

describe("tool_trajectory_avg_score match types (ADK's examples)", () => {
  it("EXACT: the same calls in the same order, nothing more", async () => {
    expect((await score([t1!, t2!, t3!], [t1!, t2!, t3!], {})).score).toBe(1);
    expect((await score([t1!, t2!, t3!, x1], [t1!, t2!, t3!], { match_type: "EXACT" })).score).toBe(0);
    expect((await score([t2!, t1!, t3!], [t1!, t2!, t3!], { match_type: 0 })).score).toBe(0);
  });

  it("IN_ORDER: every expected call, in order, extra calls allowed", async () => {
    const actual = [t1!, x1, t2!, x2, call("X3"), t3!, call("X4")];
    expect((await score(actual, [t1!, t2!, t3!], { match_type: "IN_ORDER" })).score).toBe(1);
    expect((await score(actual, [t1!, t2!, t3!, t4!], { match_type: "in-order" })).score).toBe(0);
    expect((await score([t2!, t1!], [t1!, t2!], { match_type: 1 })).score).toBe(0);
  });

  it("ANY_ORDER: every expected call in any order, extra calls allowed", async () => {
    const actual = [t2!, x1, t1!, x2, t3!];
    expect((await score(actual, [t1!, t2!, t3!], { match_type: "ANY_ORDER" })).score).toBe(1);
    expect((await score(actual, [t1!, t2!, t3!, t4!], { match_type: "ANY_ORDER" })).score).toBe(0);
    // Two expected calls of the same tool need two actual ones.
    expect((await score([t1!], [t1!, t1!], { match_type: "ANY_ORDER" })).score).toBe(0);
  });

  it("ignore_args compares tool names only", async () => {
    const actual = [call("get_weather", { city: "Oslo" })];
    const expected = [call("get_weather", { city: "Bergen" })];
    expect((await score(actual, expected, {})).score).toBe(0);
    expect((await score(actual, expected, { ignore_args: true })).score).toBe(1);
  });
});

describe("tool_trajectory_avg_score partial credit", () => {
  it("precision, recall and F1 over calls, by hand", async () => {
    // IN_ORDER: actual [T1, X1, T3], expected [T1, T2, T3]: the longest common subsequence is T1, T3.
    const r = await score([t1!, x1, t3!], [t1!, t2!, t3!], { match_type: "IN_ORDER", scoring: "f1" });
    expect(r.matched).toBe(2);
    expect(r.precision).toBeCloseTo(2 / 3, 12);
    expect(r.recall).toBeCloseTo(2 / 3, 12);
    expect(r.score).toBeCloseTo(2 / 3, 12);
    // ANY_ORDER: actual [T3, T1, X1, X2], expected [T1, T2, T3]: 2 matched; P = 2/4, R = 2/3, F1 = 4/7.
    const any = await score([t3!, t1!, x1, x2], [t1!, t2!, t3!], { match_type: "ANY_ORDER", scoring: "f1" });
    expect(any.score).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 12);
    expect(any.score).toBeCloseTo(4 / 7, 12);
    expect(
      (await score([t3!, t1!, x1, x2], [t1!, t2!, t3!], { match_type: "ANY_ORDER", scoring: "precision" })).score,
    ).toBe(0.5);
    expect(
      (await score([t3!, t1!, x1, x2], [t1!, t2!, t3!], { match_type: "ANY_ORDER", scoring: "recall" })).score,
    ).toBeCloseTo(2 / 3, 12);
    // EXACT pairs by position: [T1, X1, T3] against [T1, T2, T3] matches positions 0 and 2.
    expect((await score([t1!, x1, t3!], [t1!, t2!, t3!], { scoring: "recall" })).score).toBeCloseTo(2 / 3, 12);
    // IN_ORDER: [T3, T1] against [T1, T3]: only one call can keep the order.
    expect((await score([t3!, t1!], [t1!, t3!], { match_type: "IN_ORDER", scoring: "recall" })).score).toBe(0.5);
    // Nothing expected and nothing called: full marks; nothing called but something expected: F1 0.
    expect((await score([], [], { scoring: "f1" })).score).toBe(1);
    expect((await score([], [t1!], { scoring: "f1" })).score).toBe(0);
  });

  it("ANY_ORDER pairs calls one to one even when a loose matcher could take the wrong one", async () => {
    // The regex matcher accepts any city for the first expected call; a greedy pairing would give
    // it the Oslo call the second expected call needs.
    const actual = [call("weather", { city: "Oslo" }), call("weather", { city: "Rome" })];
    const expected = [call("weather", { city: "any" }), call("weather", { city: "Oslo" })];
    const r = await score(actual, expected, {
      match_type: "ANY_ORDER",
      arg_matchers: { weather: { city: { type: "regex", pattern: "^(Oslo|Rome)$" } } },
    });
    expect(r.matched).toBe(2);
    expect(r.score).toBe(1);
  });
});

describe("tool_trajectory_avg_score argument matchers", () => {
  const expected = [
    call("book", { guests: 2, price: 120.5, date: "2026-12-24", request_id: "abc", room: { floor: 3, view: "sea" } }),
  ];

  it("numeric tolerance, regex, ignore and nested paths; exact for everything else", async () => {
    const criterion = {
      arg_matchers: {
        book: {
          price: { type: "numeric", tolerance: 0.5 },
          date: { type: "regex", pattern: "^2026-12-2[0-9]$" },
          request_id: "ignore",
          "room.floor": { type: "numeric", tolerance: 1 },
        },
      },
    };
    const close = [
      call("book", { guests: 2, price: "121", date: "2026-12-25", request_id: "zzz", room: { floor: 4, view: "sea" } }),
    ];
    expect((await score(close, expected, criterion)).score).toBe(1);
    const tooExpensive = [
      call("book", { guests: 2, price: 121.1, date: "2026-12-24", request_id: "x", room: { floor: 3, view: "sea" } }),
    ];
    expect((await score(tooExpensive, expected, criterion)).score).toBe(0);
    const wrongDate = [
      call("book", { guests: 2, price: 120.5, date: "2027-01-02", request_id: "x", room: { floor: 3, view: "sea" } }),
    ];
    expect((await score(wrongDate, expected, criterion)).score).toBe(0);
    const otherView = [
      call("book", { guests: 2, price: 120.5, date: "2026-12-24", request_id: "x", room: { floor: 3, view: "city" } }),
    ];
    expect((await score(otherView, expected, criterion)).score).toBe(0);
    const extraArg = [
      call("book", {
        guests: 2,
        price: 120.5,
        date: "2026-12-24",
        request_id: "x",
        room: { floor: 3, view: "sea" },
        vip: true,
      }),
    ];
    expect((await score(extraArg, expected, criterion)).score).toBe(0);
    // "*" applies to every tool; a tool's own matchers win.
    const star = { arg_matchers: { "*": { request_id: "ignore", price: { type: "numeric", tolerance: 1 } } } };
    const anyId = [call("book", { ...expected[0]!.args, request_id: "other", price: 121 })];
    expect((await score(anyId, expected, star)).score).toBe(1);
  });
});

describe("response_match_score (ROUGE-1)", () => {
  it("tokenises any script: accents kept, Chinese and Japanese by character, NFKC-normalised", () => {
    // ASCII words longer than 3 letters get their (English) Porter stem, as in rouge_score: "vous" -> "vou".
    expect(tokenize("Crème brûlée, s'il vous plaît")).toEqual(["crème", "brûlée", "s", "il", "vou", "plaît"]);
    expect(tokenize("Cafe\u0301")).toEqual(tokenize("Café"));
    expect(tokenize("東京は晴れ")).toEqual(["東", "京", "は", "晴", "れ"]);
    // Full-width letters and digits fold to ASCII; "℃" becomes "°C" (the degree sign is no letter).
    expect(tokenize("Ｏｓｌｏ ２１℃")).toEqual(["oslo", "21", "c"]);
    expect(tokenize("Погода в Москве")).toEqual(["погода", "в", "москве"]);
  });

  it("scores hand-computed F1 values", async () => {
    // 3 characters shared of 5 in the answer and 4 in the reference: P = 3/5, R = 3/4.
    expect(rouge1F1("東京は晴れ", "東京は雨")).toBeCloseTo((2 * (3 / 5) * (3 / 4)) / (3 / 5 + 3 / 4), 12);
    // "crème" differs from "creme": 2 of 3 tokens shared each way.
    expect(rouge1F1("la crème brûlée", "la creme brûlée")).toBeCloseTo(2 / 3, 12);
    const response = createEvalMetrics().get("response_match_score")!;
    expect(await response.evaluate(inv([], "Es ist sonnig in München"), inv([], "in München ist es sonnig"))).toEqual({
      score: 1,
    });
  });
});
