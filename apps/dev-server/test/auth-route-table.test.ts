// The dev server's own routes under auth: every route of `agentkit web --a2a --auth api-key`
// is one of packages/server's route table (whose rules that package's tests check on every
// route) or the A2A mount, which needs credentials (a2a-auth.test.ts checks the rest).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { enumerateRoutes, TABLE, type Layer } from "../../../packages/server/test/auth/route-table.js";
import { parseCliArgs } from "../src/parse-cli-args.js";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";
import { EXAMPLES_DIR as examples } from "./support/cli-process.js";

const KEY = "alice-key-0123456789abcdef";
const ui = mkdtempSync(join(tmpdir(), "agentkit-ui-"));
let server: RunningDevServer;

beforeAll(async () => {
  writeFileSync(join(ui, "index.html"), "<!doctype html><title>ui</title>");
  const cli = parseCliArgs(
    ["web", examples, "--port", "0", "--no-reload", "--a2a", "--auth", "api-key", "--dev-ui-dir", ui],
    { AGENTKIT_API_KEYS: `${KEY} alice` },
  );
  if (cli.command !== "web") throw new Error("unexpected command");
  server = await startDevServer({
    ...cli.options,
    sessionServiceUri: "memory://",
    artifactServiceUri: "memory://",
    memoryServiceUri: "memory://",
    logLevel: "error",
    mode: "web",
    log: new Writable({ write: (_c, _e, done) => done() }),
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(ui, { recursive: true, force: true });
});

describe("agentkit web --a2a --auth api-key: the route table", () => {
  it("has packages/server's routes and the A2A mount, nothing unlisted", () => {
    const routes = [
      ...new Set(enumerateRoutes((server.app as unknown as { router: { stack: Layer[] } }).router.stack)),
    ];
    expect(routes.filter((r) => !(r in TABLE)).sort()).toEqual(["USE /a2a/:app"]);
    expect(Object.keys(TABLE).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it("the A2A mount is authenticated, the health probe public", async () => {
    const card = `${server.url}/a2a/assistant/.well-known/agent-card.json`;
    expect((await fetch(card)).status).toBe(401);
    expect((await fetch(card, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
