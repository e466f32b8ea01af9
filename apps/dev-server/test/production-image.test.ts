// The production image (the repository's Dockerfile) rebuilt and run without a container engine,
// from the Dockerfile's own instructions (support/image-root.ts): the build stage with the
// machine's pnpm in a copy of the tracked files, the runtime stage laid out in a directory that
// a private mount namespace and chroot turn into the process's `/`, the agents directory
// bind-mounted read-only at /agents as `docker run -v …:/agents:ro` does, the ENTRYPOINT started
// as the image's USER with the image's ENV and the authentication the docs tell a deployer to pass.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { freePort } from "@agentkit/test-support/postgres";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
  copyFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dockerfileStages } from "./support/dockerfile-stages.js";
import {
  checkCanRunImageRoot,
  layOutRuntimeStage,
  runBuildStage,
  startInRoot,
  type RootProcess,
  type RuntimeImage,
} from "./support/image-root.js";
import { waitFor } from "./support/cli-process.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const API_KEY = "image-test-key-0123456789";
const USER = "alice";

let buildDir: string | undefined;
let agentsDir: string | undefined;
let image: RuntimeImage | undefined;
let server: RootProcess | undefined;
let url = "";
const timings: string[] = [];

/** The agents directory a deployer mounts: one app on the examples' offline demo model, with a tool. */
function writeAgents(dir: string): void {
  const write = (rel: string, text: string) => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  write("package.json", JSON.stringify({ type: "module", private: true }));
  mkdirSync(join(dir, "_shared"));
  copyFileSync(join(repo, "examples/agents/_shared/demo-model.ts"), join(dir, "_shared/demo-model.ts"));
  write(
    "dice/agent.ts",
    `import { FunctionTool, LlmAgent } from "@agentkit/core";
import { z } from "zod";
import { DemoModel } from "../_shared/demo-model.js";

const rollDie = new FunctionTool({
  name: "roll_die",
  description: "Rolls a die.",
  parameters: z.object({ sides: z.number().int().min(2).max(1000).default(6) }),
  execute: async ({ sides }: { sides: number }) => ({ sides, result: sides }),
});

export const rootAgent = new LlmAgent({
  name: "dice",
  model: new DemoModel(),
  instruction: "Roll dice when asked.",
  tools: [rollDie],
});
`,
  );
  // Readable, not writable, by the image's user (and mounted read-only besides).
  chmodSync(dir, 0o755);
}

const auth = { authorization: `Bearer ${API_KEY}` };

beforeAll(async () => {
  checkCanRunImageRoot();
  const stages = dockerfileStages(readFileSync(join(repo, "Dockerfile"), "utf8"));
  expect(stages.length).toBe(2);
  const [build, runtime] = stages as [(typeof stages)[0], (typeof stages)[0]];
  const started = Date.now();
  buildDir = mkdtempSync(join(tmpdir(), "agentkit-image-build-"));
  const buildWorkdir = await runBuildStage(build, repo, buildDir, (line) => timings.push(line));
  timings.push(`build stage: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const laid = Date.now();
  image = await layOutRuntimeStage(
    runtime,
    { name: build.name ?? "", dir: buildDir, workdir: buildWorkdir },
    process.versions.node.split(".")[0]!,
  );
  timings.push(`runtime stage: ${((Date.now() - laid) / 1000).toFixed(1)} s`);
  agentsDir = mkdtempSync(join(tmpdir(), "agentkit-image-agents-"));
  writeAgents(agentsDir);
  const port = await freePort();
  server = startInRoot(image, image.entrypoint, {
    env: serverEnv(image, port, {
      // docs/deployment.md#production-image: a non-loopback host needs authentication.
      AGENTKIT_AUTH: "api-key",
      AGENTKIT_API_KEYS: `${API_KEY} ${USER}`,
      // The CLI's own report of which runtime it started (hooks ready (dist|source)).
      AGENTKIT_STARTUP_TIMING: "1",
    }),
    binds: [{ host: agentsDir, image: "/agents", readOnly: true }],
  });
  // The CLI writes the listening line to stdout, then its start-up timing to stderr: two pipes,
  // read in no fixed order, so wait for both.
  const [, found] = await waitFor(
    () =>
      server!.output().includes("agentkit startup:") ? / on (http:\/\/127\.0\.0\.1:\d+)/.exec(server!.output()) : null,
    () => server!.output(),
    Number.POSITIVE_INFINITY,
    server.child,
  );
  url = found!;
  timings.push(`image built and serving: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Reported with the results: the build's cost is this test's cost.
  process.stdout.write(`${timings.join("\n")}\n`);
  // Building every package on a 2-core machine takes 2 to 4 minutes (more under load); the hang
  // detector's 2 minutes would cut a build that is progressing.
}, 20 * 60_000);

afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  for (const dir of [buildDir, agentsDir, image?.root]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The image's ENV with what `docker run -e …` would add; PATH holds node alone. The host is
 * loopback (the machine's network rules; the image's 0.0.0.0 is checked below) and the port
 * ephemeral.
 */
function serverEnv(img: RuntimeImage, port: number, extra: Record<string, string>): Record<string, string> {
  return {
    ...img.env,
    HOME: "/home/node",
    PATH: "/usr/local/bin",
    AGENTKIT_HOST: "127.0.0.1",
    AGENTKIT_PORT: String(port),
    ...extra,
  };
}

describe("the production image, without a container", () => {
  it("runs the ENTRYPOINT as the image's non-root user, inside the image root, on the built packages", () => {
    const pid = server!.child.pid!;
    // The process's `/` is the image root: nothing of the repository is reachable from it.
    expect(readlinkSync(`/proc/${pid}/root`)).toBe(image!.root);
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];
    expect(uid).toBe(String(image!.uid));
    expect(image!.uid).not.toBe(0);
    expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean)).toEqual(image!.entrypoint);
    // The port the image listens on is the one it exposes.
    expect(image!.exposed).toContain(image!.env.AGENTKIT_PORT);
    // The CLI's own statement: the built packages, loaded without tsx's hooks.
    expect(server!.output()).toContain("hooks ready (dist)");
    expect(server!.output()).not.toMatch(/tsx|ExperimentalWarning|Type Stripping/i);
    expect(server!.output()).toContain(`auth: api-key (keys from AGENTKIT_API_KEYS)`);
    // No sources and no tests in the packages the image holds.
    const packages = join(image!.root, "app/packages");
    for (const name of readdirSync(packages))
      for (const entry of readdirSync(join(packages, name))) expect(["src", "test"]).not.toContain(entry);
  });

  it("answers the orchestrator's probes and the HEALTHCHECK", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${url}/readyz`);
    const readyBody = (await ready.json()) as { status: string; checks: Record<string, unknown> };
    expect({ status: ready.status, body: readyBody.status }).toEqual({ status: 200, body: "ready" });
    expect(Object.keys(readyBody.checks).sort()).toEqual(["agents", "artifacts", "sessions"]);
    expect(image!.healthcheck).toBeDefined();
    const port = new URL(url).port;
    const check = startInRoot(image!, ["/bin/sh", "-c", image!.healthcheck!], {
      env: { ...image!.env, AGENTKIT_PORT: port },
    });
    expect(await check.exited).toBe(0);
  });

  it("runs a turn of the mounted agent (a tool call on the demo model) and keeps it in the image's state volume", async () => {
    expect((await fetch(`${url}/apps/dice/users/${USER}/sessions`, { method: "POST" })).status).toBe(401);
    const created = await fetch(`${url}/apps/dice/users/${USER}/sessions`, { method: "POST", headers: auth });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const run = await fetch(`${url}/run`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        appName: "dice",
        userId: USER,
        sessionId: id,
        newMessage: { role: "user", parts: [{ text: "roll a 20-sided die" }] },
      }),
    });
    expect(run.status).toBe(200);
    const events = (await run.json()) as { id: string; content?: { parts?: Record<string, unknown>[] } }[];
    const parts = events.flatMap((e) => e.content?.parts ?? []);
    expect(parts).toContainEqual({ functionCall: expect.objectContaining({ name: "roll_die", args: { sides: 20 } }) });
    expect(
      parts
        .map((p) => p.text)
        .filter(Boolean)
        .at(-1),
    ).toBe("I rolled a 20-sided die and got 20. (demo model)");
    // The session outlives the request in the image's state directory, written by the image's user.
    const stored = await fetch(`${url}/apps/dice/users/${USER}/sessions/${id}`, { headers: auth });
    const storedIds = ((await stored.json()) as { events: { id: string }[] }).events.map((e) => e.id);
    expect(storedIds).toEqual(expect.arrayContaining(events.map((e) => e.id)));
    const sessionUri = image!.env.AGENTKIT_SESSION_SERVICE_URI!;
    const dbFile = join(image!.root, new URL(sessionUri.replace(/^sqlite:/, "file:")).pathname);
    expect(statSync(dbFile).uid).toBe(image!.uid);
    // Nothing was written into the agents directory, mounted read-only (even root cannot write it).
    expect(existsSync(join(agentsDir!, ".agentkit"))).toBe(false);
    const write = startInRoot(image!, ["/bin/sh", "-c", "touch /agents/probe"], {
      env: { PATH: "/usr/bin" },
      uid: 0,
      binds: [{ host: agentsDir!, image: "/agents", readOnly: true }],
    });
    expect(await write.exited).not.toBe(0);
    expect(existsSync(join(agentsDir!, "probe"))).toBe(false);
  });

  it("refuses the image's 0.0.0.0 host without the documented authentication", async () => {
    const bare = startInRoot(image!, image!.entrypoint, {
      env: { ...image!.env, HOME: "/home/node", PATH: "/usr/local/bin", AGENTKIT_PORT: String(await freePort()) },
      binds: [{ host: agentsDir!, image: "/agents", readOnly: true }],
    });
    expect(image!.env.AGENTKIT_HOST).toBe("0.0.0.0");
    expect(await bare.exited).toBe(2);
    expect(bare.output()).toContain("refusing to listen on 0.0.0.0 without authentication");
  });
});
