// CPU profiles of a chosen phase (not the whole process, as `node --cpu-prof` records): the
// same V8 sampling profiler, driven through the inspector, writing the same `.cpuprofile`
// JSON (open it in Chrome DevTools or summarise it with profile-summary.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Session } from "node:inspector/promises";

/** Samples every `intervalUs` microseconds (`--cpu-prof`'s default is 1000). */
export async function startCpuProfile(intervalUs = 500): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.post("Profiler.start");
  return async (file) => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
    await session.post("Profiler.disable");
    session.disconnect();
  };
}
