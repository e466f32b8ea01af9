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

/**
 * The real Python binary behind a command (pyenv and similar shims need the user's
 * environment, which executions never get, so the shim is resolved once with it).
 */
export function resolvePythonExecutable(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, ["-c", "import sys; print(sys.executable)"], { timeout: 15_000 }, (error, stdout) => {
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
