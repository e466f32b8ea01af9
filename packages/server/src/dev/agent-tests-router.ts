import { mkdir, readFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { Request } from "express";
import { Router } from "../http/express-module.js";
import { z } from "zod";
import type { ModelRegistry } from "@agentkit/core";
import type { AgentLoader } from "../agent-loader.js";
import { AppNotFoundError, HttpRequestError } from "../errors/server-errors.js";
import { lazySchema } from "@agentkit/core/internal";
import { parseBody } from "../http/request-schemas.js";
import { rebuildAgentTest, replayAgentTest, type ReplayOutcome } from "./agent-test-replay.js";
import { appDirOf, testFileOf } from "./app-files.js";
import { sortKeys } from "./normalize-test-events.js";

export interface AgentTestsRouterOptions {
  /** The agents directory: tests live in `<agentsDir>/<app>/tests/*.json`. */
  agentsDir: string;
  /** Loads the app a test runs (the server's loader, so hot reload applies). */
  loader: AgentLoader;
  /** Resolves string model names when a test is rebuilt (an App's own registry wins). */
  modelRegistry?: ModelRegistry;
}

const putTestSchema = lazySchema(() => z.object({ sessionData: z.record(z.string(), z.unknown()) }));

/**
 * The dev UI's agent tests (http-api.md 4.11, UI flag `?tests=true`): saved sessions in
 * `<app>/tests/<name>.json`, listed, read, written, deleted, replayed (`tests/run`: recorded
 * model answers, live tools, events compared; a text report streamed as it goes) and rebuilt
 * (`tests/rebuild`: the user messages run again on the real models, the file rewritten).
 */
export function createAgentTestsRouter(options: AgentTestsRouterOptions): Router {
  const router = Router();
  const { agentsDir } = options;

  router.get("/dev/apps/:app/tests", async (req, res) => {
    res.json(await testNames(appDirOf(agentsDir, param(req, "app"))));
  });

  router.post("/dev/apps/:app/tests/run", async (req, res) => {
    const appName = param(req, "app");
    const files = await selectedTests(agentsDir, appName, req);
    // App errors (unknown app, broken config) answer as JSON before the report starts.
    await options.loader.loadApp(appName);
    res.writeHead(200, {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-cache",
      "X-Accel-Buffering": "no",
    });
    res.write(`agentkit tests: app ${appName}, ${files.length} test file${files.length === 1 ? "" : "s"}\n`);
    let passed = 0;
    for (const file of files) {
      if (res.destroyed) return;
      const name = `${appName}/${basename(file)}`;
      let outcome: ReplayOutcome;
      try {
        // Loaded per test: an edit between tests is picked up like any request would pick it up.
        outcome = await replayAgentTest(
          await options.loader.loadApp(appName),
          await readTest(file),
          options.modelRegistry,
        );
      } catch (error) {
        outcome = { passed: false, detail: (error as Error).message };
      }
      if (outcome.passed) passed += 1;
      res.write(`${outcome.passed ? "PASSED" : "FAILED"} ${name}: ${outcome.detail}\n`);
    }
    res.end(`${passed} passed, ${files.length - passed} failed\n`);
  });

  router.post("/dev/apps/:app/tests/rebuild", async (req, res) => {
    const appName = param(req, "app");
    const files = await selectedTests(agentsDir, appName, req);
    const rebuilt: string[] = [];
    const errors: { test: string; error: string }[] = [];
    for (const file of files) {
      try {
        const data = await rebuildAgentTest(
          await options.loader.loadApp(appName),
          await readTest(file),
          options.modelRegistry,
        );
        await writeJson(file, data);
        rebuilt.push(basename(file));
      } catch (error) {
        errors.push({ test: basename(file), error: (error as Error).message });
      }
    }
    res.json({ status: errors.length === 0 ? "success" : "error", rebuilt, errors });
  });

  router.get("/dev/apps/:app/tests/:name", async (req, res) => {
    const file = testFileOf(appDirOf(agentsDir, param(req, "app")), param(req, "name"));
    res.json(await readTest(file));
  });

  router.put("/dev/apps/:app/tests/:name", async (req, res) => {
    const appName = param(req, "app");
    const appDir = appDirOf(agentsDir, appName);
    if (!(await isDirectory(appDir))) throw new AppNotFoundError(appName);
    const file = testFileOf(appDir, param(req, "name"));
    const body = parseBody(putTestSchema, req.body);
    await writeJson(file, body.sessionData);
    res.json({ status: "success", file: basename(file) });
  });

  router.delete("/dev/apps/:app/tests/:name", async (req, res) => {
    const file = testFileOf(appDirOf(agentsDir, param(req, "app")), param(req, "name"));
    try {
      await unlink(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw testNotFound(file);
      throw error;
    }
    res.json({ status: "success" });
  });

  return router;
}

async function testNames(appDir: string): Promise<string[]> {
  try {
    return (await readdir(`${appDir}/tests`)).filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort();
  } catch {
    return [];
  }
}

/** `?test_name=` picks one test (404 when missing); otherwise every test of the app. */
async function selectedTests(agentsDir: string, appName: string, req: Request): Promise<string[]> {
  const appDir = appDirOf(agentsDir, appName);
  const name = req.query.test_name ?? req.query.testName;
  if (typeof name === "string" && name !== "") {
    const file = testFileOf(appDir, name);
    if (!(await isFile(file))) throw testNotFound(file);
    return [file];
  }
  return (await testNames(appDir)).map((n) => testFileOf(appDir, n));
}

async function readTest(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw testNotFound(file);
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpRequestError(
      422,
      "INVALID_TEST_FILE",
      `Test file ${basename(file)} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/** Pretty, key-sorted JSON (stable diffs), written through a rename. */
async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(sortKeys(value), null, 2)}\n`);
  await rename(temp, file);
}

function testNotFound(file: string): HttpRequestError {
  return new HttpRequestError(404, "TEST_NOT_FOUND", `Test file not found: ${basename(file)}`);
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

function param(req: Request, name: string): string {
  return String(req.params[name]);
}
