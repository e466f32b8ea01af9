import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { ConfigurationError } from "@agentkit/core";

export type CodeLanguage = "python" | "javascript";

/** The first executable named `name` on PATH, or undefined. */
export function findOnPath(name: string, pathVariable: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `python` when `python3` is on PATH, else `javascript` (Node itself is always there). */
export function detectDefaultLanguage(): CodeLanguage {
  return findOnPath("python3") ? "python" : "javascript";
}

/** Resolved binaries per command, shared by every executor of the process (failures are retried). */
const resolved = new Map<string, Promise<string>>();

/**
 * The real Python binary behind a command (pyenv and similar shims need the user's
 * environment, which executions never get, so the shim is resolved once per process with it).
 * A shim can be slow (pyenv forks a dozen processes, and several at once wait for each other on
 * a loaded machine): the limit only guards against one that never answers.
 */
export function resolvePythonExecutable(command: string): Promise<string> {
  let pending = resolved.get(command);
  if (!pending) {
    pending = runPythonForExecutable(command);
    resolved.set(command, pending);
    pending.catch(() => resolved.delete(command));
  }
  return pending;
}

function runPythonForExecutable(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, ["-c", "import sys; print(sys.executable)"], { timeout: 120_000 }, (error, stdout) => {
      const path = stdout.trim();
      if (error || !path) {
        reject(
          new ConfigurationError(
            `Cannot run Python ("${command}"): ${error?.message ?? "no sys.executable"}. Install python3 or use ` +
              `language: "javascript".`,
            { cause: error },
          ),
        );
      } else {
        resolve(path);
      }
    });
  });
}
