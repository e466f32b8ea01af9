import { spawn } from "node:child_process";

export interface RunProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr; the rest is dropped with a note. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface ProcessOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /**
   * The output was still held open after the process exited and its group was killed: by a
   * process the code started in a session of its own (outside the group, so not killed). Its
   * streams were closed after `OUTPUT_GRACE_MS` instead of waiting for it.
   */
  outputAbandoned: boolean;
}

/**
 * How long the output may stay open after the process exited and its group was killed. Only a
 * process that left the group (`setsid`, a daemon) can still hold it: it is not waited for.
 */
export const OUTPUT_GRACE_MS = 1000;

/**
 * Runs a command in its own process group and always reaps it: on timeout or abort, and
 * also after a normal exit (to take down anything the code left running in the background),
 * the whole group gets SIGKILL. Resolves once every stream is closed, or `OUTPUT_GRACE_MS` after
 * the exit if a process outside the group still holds them.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = new Capped(options.maxOutputBytes);
    const stderr = new Capped(options.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let outputAbandoned = false;
    let grace: NodeJS.Timeout | undefined;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("exit", () => {
      killGroup();
      // Whatever still holds the pipes left the group: close them rather than wait for it.
      grace = setTimeout(() => {
        outputAbandoned = true;
        child.stdout.destroy();
        child.stderr.destroy();
      }, OUTPUT_GRACE_MS);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ stdout: stdout.text(), stderr: stderr.text(), exitCode, signal, timedOut, aborted, outputAbandoned });
    });
  });
}

/** Collects output up to a byte limit. */
class Capped {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
    this.dropped += chunk.length - kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0 ? `${text}\n[output truncated: ${this.dropped} more bytes]` : text;
  }
}
