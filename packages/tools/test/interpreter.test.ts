import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import { resolvePythonExecutable } from "../src/code-executors/interpreter.js";

// A stand-in for a pyenv-style shim: logs each start to a file, then prints the "real" binary.
// `failFirst` makes the first start fail, as a shim does before its environment is ready.
let dir: string;
function shim(name: string, options: { failFirst?: boolean } = {}): { path: string; starts: () => number } {
  const path = join(dir, name);
  const log = join(dir, `${name}.log`);
  writeFileSync(log, "");
  const failure = options.failFirst ? `[ "$(wc -l < "${log}")" -eq 1 ] && exit 3\n` : "";
  writeFileSync(path, `#!/bin/sh\necho start >> "${log}"\n${failure}echo /opt/real/${name}\n`);
  chmodSync(path, 0o755);
  return { path, starts: () => readFileSync(log, "utf8").split("\n").filter(Boolean).length };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agentkit-shim-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("resolvePythonExecutable", () => {
  it("starts a shim once per process, however many callers ask at once or later", async () => {
    const python = shim("python-once");
    const paths = await Promise.all([1, 2, 3].map(() => resolvePythonExecutable(python.path)));
    expect(paths).toEqual(["/opt/real/python-once", "/opt/real/python-once", "/opt/real/python-once"]);
    await expect(resolvePythonExecutable(python.path)).resolves.toBe("/opt/real/python-once");
    expect(python.starts()).toBe(1);
  });

  it("does not remember a failure: the next call starts the shim again", async () => {
    const python = shim("python-flaky", { failFirst: true });
    await expect(resolvePythonExecutable(python.path)).rejects.toBeInstanceOf(ConfigurationError);
    await expect(resolvePythonExecutable(python.path)).resolves.toBe("/opt/real/python-flaky");
    await expect(resolvePythonExecutable(python.path)).resolves.toBe("/opt/real/python-flaky");
    expect(python.starts()).toBe(2);
  });
});
