import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { ConfigurationError, type CodeExecutionInput } from "@agentkit/core";
import { LocalCodeExecutor, UnsafeLocalCodeExecutor } from "../src/index.js";
import { findOnPath } from "../src/code-executors/interpreter.js";
import { exited } from "./helpers.js";

const run = (executor: LocalCodeExecutor, code: string, inputFiles: CodeExecutionInput["inputFiles"] = []) =>
  executor.executeCode(undefined, { code, inputFiles });
const b64 = (text: string) => Buffer.from(text).toString("base64");
const fromB64 = (data: string) => Buffer.from(data, "base64").toString("utf8");

const SECRET = "AGENTKIT_TEST_SECRET_TOKEN";
beforeAll(() => {
  process.env[SECRET] = "do-not-leak";
});
afterAll(() => {
  delete process.env[SECRET];
});

describe("LocalCodeExecutor options", () => {
  it("validates its options with ConfigurationError", () => {
    expect(() => new LocalCodeExecutor({ language: "ruby" as never })).toThrow(ConfigurationError);
    expect(() => new LocalCodeExecutor({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new LocalCodeExecutor({ errorRetryAttempts: -1 })).toThrow(/errorRetryAttempts/);
    expect(() => new LocalCodeExecutor({ stateful: true })).toThrow(/cannot be stateful/);
    expect(() => new LocalCodeExecutor({ unknown: 1 } as never)).toThrow(ConfigurationError);
  });

  it("defaults to python when python3 is on PATH, else javascript, and keeps ADK's defaults", () => {
    const executor = new LocalCodeExecutor();
    expect(executor.language).toBe(findOnPath("python3") ? "python" : "javascript");
    expect(executor.errorRetryAttempts).toBe(2);
    expect(executor.stateful).toBe(false);
    expect(executor.timeoutMs).toBe(30_000);
    expect(UnsafeLocalCodeExecutor).toBe(LocalCodeExecutor);
    expect(new LocalCodeExecutor({ language: "javascript" }).codeBlockDelimiters[0]).toEqual([
      "```javascript\n",
      "\n```",
    ]);
  });
});

describe("LocalCodeExecutor (javascript)", () => {
  const js = new LocalCodeExecutor({ language: "javascript", timeoutMs: 15_000 });

  it("captures stdout and reports a thrown error on stderr", async () => {
    expect(await run(js, "console.log(6 * 7)")).toEqual({ stdout: "42\n", stderr: "", outputFiles: [] });
    const failed = await run(js, "throw new Error('boom')");
    expect(failed.stderr).toContain("Error: boom");
    const exited = await run(js, "process.exit(3)");
    expect(exited.stderr).toBe("Process exited with code 3.");
  });

  it("writes input files into a fresh working dir, returns new and changed files, and removes the dir", async () => {
    const code = [
      "import fs from 'node:fs';",
      "const rows = fs.readFileSync('data.csv', 'utf8').trim().split('\\n').slice(1);",
      "fs.writeFileSync('total.txt', String(rows.reduce((s, r) => s + Number(r.split(',')[1]), 0)));",
      "fs.mkdirSync('charts'); fs.writeFileSync('charts/a.json', '{}');",
      "console.log(process.cwd());",
    ].join("\n");
    const result = await run(js, code, [
      { name: "data.csv", content: b64("item,price\na,3\nb,4\n"), mimeType: "text/csv" },
      { name: "unchanged.txt", content: b64("same") },
    ]);
    expect(result.stderr).toBe("");
    expect(result.outputFiles.map((f) => [f.name, fromB64(f.content), f.mimeType])).toEqual([
      ["charts/a.json", "{}", "application/json"],
      ["total.txt", "7", "text/plain"],
    ]);
    const cwd = result.stdout.trim();
    expect(cwd).toMatch(/agentkit-exec-/);
    expect(existsSync(cwd)).toBe(false);
  });

  it("inherits no secrets from the parent environment", async () => {
    const result = await run(js, "console.log(JSON.stringify(process.env))");
    const env = JSON.parse(result.stdout) as Record<string, string>;
    expect(env[SECRET]).toBeUndefined();
    expect(Object.keys(env).sort()).toEqual([
      "HOME",
      "LANG",
      "LC_ALL",
      "PATH",
      "PYTHONIOENCODING",
      "PYTHONUNBUFFERED",
      "TMPDIR",
    ]);
    expect(env.HOME).toMatch(/agentkit-exec-.*work$/);
    const extra = await run(
      new LocalCodeExecutor({ language: "javascript", env: { GREETING: "hi" } }),
      "console.log(process.env.GREETING)",
    );
    expect(extra.stdout).toBe("hi\n");
  });

  it("confines file access to its working dir", async () => {
    const result = await run(js, "import fs from 'node:fs'; fs.readFileSync('/etc/hostname')");
    expect(result.stderr).toMatch(/ERR_ACCESS_DENIED|Access to this API has been restricted/);
  });

  it("kills code that runs past the timeout", async () => {
    // The code never ends: only the kill lets run() return. 5 s leaves a loaded machine time to
    // start Node and print before the kill, which the stdout check needs.
    const quick = new LocalCodeExecutor({ language: "javascript", timeoutMs: 5_000 });
    const result = await run(quick, "console.log('started'); while (true) {}");
    expect(result.stdout).toBe("started\n");
    expect(result.stderr).toBe("Execution timed out after 5000 ms; the process was killed.");
  });

  it("returns when the code exits although a process it started outside its group holds the output", async () => {
    // The grandchild starts a session of its own (detached), so killing the group misses it, and
    // it inherits stdout and stderr: waiting for the pipes to close would wait out its 60 s.
    const spawning = new LocalCodeExecutor({ language: "javascript", restrictFileSystem: false });
    const code = [
      "const { spawn } = await import('node:child_process');",
      "const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });",
      "console.log(c.pid);",
      "c.unref();",
    ].join("\n");
    const started = Date.now();
    const result = await run(spawning, code);
    const grandchild = Number(result.stdout.trim());
    try {
      expect(grandchild).toBeGreaterThan(0);
      expect(result.stderr).toBe(
        "A process the code started outside its process group kept the output open; it was not waited for.",
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      if (grandchild > 0) {
        try {
          process.kill(grandchild, "SIGKILL");
        } catch {
          // already gone
        }
        await exited(grandchild);
      }
    }
  }, 30_000);

  it("enforces the memory limit", async () => {
    const small = new LocalCodeExecutor({ language: "javascript", memoryLimitMb: 32 });
    const result = await run(small, "const keep = []; while (true) keep.push(new Array(1e6).fill(Math.random()));");
    expect(result.stderr).toMatch(/JavaScript heap out of memory/);
  });

  it("truncates huge output", async () => {
    const capped = new LocalCodeExecutor({ language: "javascript", maxOutputBytes: 1000 });
    const result = await run(capped, "process.stdout.write('x'.repeat(5000))");
    expect(result.stdout).toBe(`${"x".repeat(1000)}\n[output truncated: 4000 more bytes]`);
  });
});

const python3 = findOnPath("python3");
const pythonReason = python3 ? `python3 at ${python3}` : "SKIPPED: python3 is not on PATH on this machine";
const pythonIt = python3 ? it : it.skip;

describe(`LocalCodeExecutor (python; ${pythonReason})`, () => {
  const py = new LocalCodeExecutor({ language: "python", timeoutMs: 15_000 });

  pythonIt(
    "runs code with input and output files and reports tracebacks",
    async () => {
      const result = await run(py, "print(open('in.txt').read().upper())\nopen('out.txt','w').write('done')", [
        { name: "in.txt", content: b64("hello") },
      ]);
      expect(result).toEqual({
        stdout: "HELLO\n",
        stderr: "",
        outputFiles: [{ name: "out.txt", content: b64("done"), mimeType: "text/plain" }],
      });
      const failed = await run(py, "1/0");
      expect(failed.stderr).toContain("ZeroDivisionError");
    },
    30_000,
  );

  pythonIt(
    "inherits no secrets",
    async () => {
      const result = await run(py, "import os, json; print(json.dumps(dict(os.environ)))");
      expect(JSON.parse(result.stdout)[SECRET]).toBeUndefined();
    },
    30_000,
  );

  pythonIt(
    "enforces the memory limit",
    async () => {
      const small = new LocalCodeExecutor({ language: "python", memoryLimitMb: 128 });
      const result = await run(small, "x = bytearray(1024 * 1024 * 1024)\nprint('allocated')");
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("MemoryError");
    },
    30_000,
  );

  pythonIt(
    "kills the whole process group on timeout, background children included",
    async () => {
      // Long enough for a loaded machine to start Python and print the child's pid before the kill.
      const quick = new LocalCodeExecutor({ language: "python", timeoutMs: 5_000 });
      const code =
        "import subprocess, time\np = subprocess.Popen(['sleep', '60'])\nprint(p.pid, flush=True)\ntime.sleep(60)";
      const result = await run(quick, code);
      expect(result.stderr).toContain("timed out after 5000 ms");
      const childPid = Number(result.stdout.trim());
      expect(childPid).toBeGreaterThan(0);
      await exited(childPid); // it would sleep 60 s otherwise
    },
    30_000,
  );

  pythonIt(
    "kills what the code left running after a normal exit",
    async () => {
      const code =
        "import subprocess\np = subprocess.Popen(['sleep', '60'], stdout=subprocess.DEVNULL, " +
        "stderr=subprocess.DEVNULL, start_new_session=False)\nprint(p.pid)";
      const result = await run(py, code);
      const childPid = Number(result.stdout.trim());
      expect(childPid).toBeGreaterThan(0);
      await exited(childPid); // it would sleep 60 s otherwise
    },
    30_000,
  );
});
