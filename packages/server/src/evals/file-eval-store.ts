import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import { assertSafeId, type EvalStore } from "./eval-store.js";
import { evalSetResultFileText, parseEvalSetResult } from "./eval-result-json.js";
import { parseEvalSet, type EvalSet } from "./eval-types.js";

/** A stored file that is not what it should be: the developer fixes or deletes it. */
function corrupt(file: string, error: unknown): ConfigurationError {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  const why = issues?.[0]
    ? `${issues[0].path.map(String).join(".") || "(root)"}: ${issues[0].message}`
    : error instanceof Error
      ? error.message
      : String(error);
  return new ConfigurationError(`Eval store file ${file} is not valid (${why}); fix or delete it.`, { cause: error });
}

export interface FileEvalStoreOptions {
  /** Root directory; each app gets `<dir>/<app>/eval_sets/` and `<dir>/<app>/eval_history/`. */
  dir: string;
}

const SET_SUFFIX = ".evalset.json";
const RESULT_SUFFIX = ".evalset_result.json";

/**
 * Eval sets and results as JSON files (ADK's file names: `<id>.evalset.json`,
 * `<id>.evalset_result.json`). Ids are checked before they touch a path, and files are
 * written to a temporary name and renamed, so a crash never leaves half a file.
 */
export function createFileEvalStore({ dir }: FileEvalStoreOptions): EvalStore {
  if (typeof dir !== "string" || dir === "")
    throw new ConfigurationError("createFileEvalStore needs a directory: { dir }.");
  const appDir = (app: string, folder: string) => {
    assertSafeId("app name", app);
    return join(dir, app, folder);
  };
  const setsDir = (app: string) => appDir(app, "eval_sets");
  const resultsDir = (app: string) => appDir(app, "eval_history");

  const list = async (folder: string, suffix: string): Promise<string[]> => {
    const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [] as string[];
      throw error;
    });
    return names
      .filter((n) => n.endsWith(suffix))
      .map((n) => n.slice(0, -suffix.length))
      .sort();
  };
  const read = async (file: string): Promise<unknown> => {
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw corrupt(file, error);
    }
  };
  const write = async (folder: string, name: string, text: string): Promise<void> => {
    await mkdir(folder, { recursive: true });
    const target = join(folder, name);
    const temp = `${target}.${randomUUID()}.tmp`;
    await writeFile(temp, text, "utf8");
    await rename(temp, target);
  };

  return {
    listEvalSets: (app) => list(setsDir(app), SET_SUFFIX),
    async getEvalSet(app, id) {
      assertSafeId("eval set id", id);
      const file = join(setsDir(app), id + SET_SUFFIX);
      const raw = await read(file);
      if (raw === undefined) return undefined;
      try {
        return parseEvalSet(raw);
      } catch (error) {
        throw corrupt(file, error);
      }
    },
    async putEvalSet(app, set: EvalSet) {
      assertSafeId("eval set id", set.evalSetId);
      await write(setsDir(app), set.evalSetId + SET_SUFFIX, `${JSON.stringify(set, null, 2)}\n`);
    },
    async deleteEvalSet(app, id) {
      assertSafeId("eval set id", id);
      const file = join(setsDir(app), id + SET_SUFFIX);
      const existed = (await read(file)) !== undefined;
      await rm(file, { force: true });
      return existed;
    },
    listEvalSetResults: (app) => list(resultsDir(app), RESULT_SUFFIX),
    async getEvalSetResult(app, id) {
      assertSafeId("eval result id", id);
      const file = join(resultsDir(app), id + RESULT_SUFFIX);
      const raw = await read(file);
      if (raw === undefined) return undefined;
      try {
        // ADK Python's shape (snake_case JSON inside a JSON string), or a plain JSON object.
        return parseEvalSetResult(raw);
      } catch (error) {
        throw corrupt(file, error);
      }
    },
    async putEvalSetResult(app, result) {
      assertSafeId("eval result id", result.evalSetResultId);
      await write(resultsDir(app), result.evalSetResultId + RESULT_SUFFIX, evalSetResultFileText(result));
    },
  };
}
