// The CPU a process spent on its main thread and on its other threads (V8's helpers: garbage
// collection, compilation; libuv's pool), from Linux's per-thread accounting. A CPU profile
// cannot show this split: it samples the main thread only, and on cores shared with a load
// generator it charges time the server spent preempted to the function it resumes in (the socket
// write, typically). Clock ticks, not µs: callers take the share of a delta.
import { readdirSync, readFileSync } from "node:fs";
import { pid, platform } from "node:process";

export interface ThreadTicks {
  main: number;
  other: number;
}

/** user + system clock ticks of this process's threads so far; zeros where /proc has no task list. */
export function threadTicks(): ThreadTicks {
  const ticks = { main: 0, other: 0 };
  if (platform !== "linux") return ticks;
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return ticks;
  }
  for (const task of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
    } catch {
      continue; // the thread ended while listing
    }
    // Fields after the command (which may hold spaces, hence the last ")"): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const used = Number(fields[11]) + Number(fields[12]);
    if (Number(task) === pid) ticks.main += used;
    else ticks.other += used;
  }
  return ticks;
}

/** The other threads' share of the CPU between two readings, or undefined without ticks. */
export function otherThreadsShare(before: ThreadTicks, after: ThreadTicks): number | undefined {
  const main = after.main - before.main;
  const other = after.other - before.other;
  return main + other > 0 ? other / (main + other) : undefined;
}

/**
 * Milliseconds of CPU another process's live threads have run so far (Linux's scheduler
 * accounting, in nanoseconds: a 10 ms clock tick is coarser than one request), or NaN where /proc
 * has no such process.
 */
export function processCpuMs(processId: number): number {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${processId}/task`);
  } catch {
    return Number.NaN;
  }
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${processId}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended while listing
    }
  }
  return ns / 1e6;
}
