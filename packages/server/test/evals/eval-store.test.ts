import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigurationError } from "@agentkit/core";
import {
  createFileEvalStore,
  createInMemoryEvalStore,
  EvalStatus,
  InvalidEvalIdError,
  type EvalSet,
  type EvalSetResult,
  type EvalStore,
} from "../../src/evals/index.js";

const set = (id: string): EvalSet => ({
  evalSetId: id,
  evalCases: [
    {
      evalId: "case_1",
      conversation: [
        {
          invocationId: "e-1",
          userContent: { role: "user", parts: [{ text: "hi" }] },
          finalResponse: { role: "model", parts: [{ text: "hello" }] },
          creationTimestamp: 1.5,
        },
      ],
      sessionInput: { appName: "app", userId: "u", state: { k: "v" } },
      creationTimestamp: 1.5,
    },
  ],
  creationTimestamp: 1.25,
});
const result = (id: string): EvalSetResult => ({
  evalSetResultId: id,
  evalSetResultName: id,
  evalSetId: "s",
  evalCaseResults: [],
  creationTimestamp: 2,
});

function contract(name: string, make: () => Promise<{ store: EvalStore; cleanup: () => Promise<void> }>) {
  describe(`${name} (EvalStore contract)`, () => {
    let store: EvalStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ store, cleanup } = await make()));
    afterEach(() => cleanup());

    it("stores, lists (sorted, per app), replaces and deletes eval sets", async () => {
      expect(await store.listEvalSets("app")).toEqual([]);
      await store.putEvalSet("app", set("zeta"));
      await store.putEvalSet("app", set("alpha"));
      await store.putEvalSet("other", set("mine"));
      expect(await store.listEvalSets("app")).toEqual(["alpha", "zeta"]);
      expect(await store.getEvalSet("app", "alpha")).toEqual(set("alpha"));
      expect(await store.getEvalSet("app", "mine")).toBeUndefined();
      const changed = { ...set("alpha"), description: "now described" };
      await store.putEvalSet("app", changed);
      expect(await store.getEvalSet("app", "alpha")).toEqual(changed);
      expect(await store.deleteEvalSet("app", "alpha")).toBe(true);
      expect(await store.deleteEvalSet("app", "alpha")).toBe(false);
      expect(await store.listEvalSets("app")).toEqual(["zeta"]);
    });

    it("hands out copies, not its own objects", async () => {
      await store.putEvalSet("app", set("s"));
      const got = (await store.getEvalSet("app", "s"))!;
      got.evalCases.length = 0;
      expect((await store.getEvalSet("app", "s"))!.evalCases).toHaveLength(1);
    });

    it("stores and lists eval results", async () => {
      await store.putEvalSetResult("app", result("app_s_2.000"));
      await store.putEvalSetResult("app", result("app_s_1.000"));
      expect(await store.listEvalSetResults("app")).toEqual(["app_s_1.000", "app_s_2.000"]);
      expect(await store.getEvalSetResult("app", "app_s_2.000")).toEqual(result("app_s_2.000"));
      expect(await store.getEvalSetResult("app", "nope")).toBeUndefined();
    });

    it("refuses ids that are not safe file names", async () => {
      for (const bad of ["../x", "a/b", ".hidden", "", "x".repeat(200), "sp ace"]) {
        await expect(store.putEvalSet("app", set(bad))).rejects.toBeInstanceOf(InvalidEvalIdError);
      }
      await expect(store.putEvalSet("../app", set("ok"))).rejects.toBeInstanceOf(InvalidEvalIdError);
      await expect(store.putEvalSetResult("app", result("../../etc"))).rejects.toBeInstanceOf(InvalidEvalIdError);
    });
  });
}

contract("in-memory store", async () => ({ store: createInMemoryEvalStore(), cleanup: async () => {} }));

let dir = "";
contract("file store", async () => {
  dir = await mkdtemp(join(tmpdir(), "agentkit-evals-"));
  return { store: createFileEvalStore({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe("file store layout", () => {
  it("writes ADK-named JSON files under the app folder, leaving no temporary files", async () => {
    const root = await mkdtemp(join(tmpdir(), "agentkit-evals-"));
    try {
      const store = createFileEvalStore({ dir: root });
      await store.putEvalSet("app", set("smoke"));
      await store.putEvalSetResult("app", result("app_smoke_1.000"));
      expect(await readdir(join(root, "app", "eval_sets"))).toEqual(["smoke.evalset.json"]);
      expect(await readdir(join(root, "app", "eval_history"))).toEqual(["app_smoke_1.000.evalset_result.json"]);
      const onDisk = JSON.parse(
        await readFile(join(root, "app", "eval_sets", "smoke.evalset.json"), "utf8"),
      ) as EvalSet;
      expect(onDisk).toEqual(set("smoke"));
      // a second store over the same folder sees the same data
      expect(await createFileEvalStore({ dir: root }).listEvalSets("app")).toEqual(["smoke"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("file store with a damaged file", () => {
  it("names the file and the problem in a ConfigurationError", async () => {
    const root = await mkdtemp(join(tmpdir(), "agentkit-evals-"));
    try {
      const store = createFileEvalStore({ dir: root });
      await store.putEvalSet("app", set("good"));
      const { writeFile } = await import("node:fs/promises");
      await writeFile(join(root, "app", "eval_sets", "broken.evalset.json"), "{not json");
      await writeFile(
        join(root, "app", "eval_sets", "wrong.evalset.json"),
        JSON.stringify({ evalSetId: "wrong", evalCases: "many" }),
      );
      await expect(store.getEvalSet("app", "broken")).rejects.toThrow(/broken\.evalset\.json is not valid/);
      await expect(store.getEvalSet("app", "wrong")).rejects.toThrow(/wrong\.evalset\.json is not valid \(evalCases: /);
      await expect(store.getEvalSet("app", "wrong")).rejects.toBeInstanceOf(ConfigurationError);
      expect(await store.getEvalSet("app", "good")).toEqual(set("good"));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("file store with ADK Python's files", () => {
  it("reads a result ADK Python's results manager wrote (snake_case JSON inside a JSON string)", async () => {
    const root = await mkdtemp(join(tmpdir(), "agentkit-evals-"));
    try {
      const store = createFileEvalStore({ dir: root });
      const id = "thermostat_thermostat_set_1764000100.0";
      await mkdir(join(root, "app", "eval_history"), { recursive: true });
      await copyFile(
        join(dirname(fileURLToPath(import.meta.url)), "fixtures", "adk", "thermostat.evalset_result.json"),
        join(root, "app", "eval_history", `${id}.evalset_result.json`),
      );
      expect(await store.listEvalSetResults("app")).toEqual([id]);
      const loaded = await store.getEvalSetResult("app", id);
      expect(loaded).toMatchObject({
        evalSetResultId: id,
        evalSetId: "thermostat_set",
        evalCaseResults: [
          { evalId: "heat_kitchen", finalEvalStatus: EvalStatus.PASSED, sessionId: "___eval___session___abc" },
        ],
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
