// Summarises a V8 `.cpuprofile` (from `node --cpu-prof` or cpu-profile.ts): the functions with
// the most self time (time on top of the stack), and the same time grouped by where the code
// lives (an agentkit package, a dependency, Node's internals, the engine's own work).
// Usage: node --import tsx src/profile-summary.ts FILE.cpuprofile [--top 10]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { repoRoot } from "./repo-root.js";
import { numberArg } from "./args.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  parent?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  /** `function (place:line)`. */
  name: string;
  /** Where the code lives: `@agentkit/core`, `zod`, `node:internal`, `(garbage collector)`, ... */
  owner: string;
  ms: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time with nothing of ours on the stack ("(idle)"), included in totalMs. */
  idleMs: number;
  functions: SelfTime[];
  /**
   * Self time with Node's internals and native code charged to their nearest caller in a
   * package (e.g. a structuredClone to the agentkit function calling it).
   */
  callers: SelfTime[];
  owners: { owner: string; ms: number }[];
}

/** `@agentkit/core` for packages/core/src/..., the package name for node_modules paths. */
function ownerOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return "node:internal";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = path.slice(nm + "/node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const inRepo = path.startsWith(repoRoot) ? path.slice(repoRoot.length) : path;
  const m = /^(packages|apps)\/([^/]+)\//.exec(inRepo);
  if (m) return m[1] === "packages" ? `@agentkit/${m[2]}` : `apps/${m[2]}`;
  if (inRepo.startsWith("bench/")) return "bench";
  return inRepo;
}

function placeOf(url: string, line: number): string {
  if (!url) return "";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf("/node_modules/");
  const short =
    nm >= 0 ? path.slice(nm + "/node_modules/".length) : path.startsWith(repoRoot) ? path.slice(repoRoot.length) : path;
  // tsx-compiled sources report line 0 for everything: their line says nothing.
  return line === 0 ? short : `${short}:${line + 1}`;
}

/** Not code being measured: the profiler stopping (in-process profiles via node:inspector). */
const isProfilerItself = (frame: ProfileNode["callFrame"]) => frame.url === "node:inspector";

const isEngineOrNode = (frame: ProfileNode["callFrame"]) =>
  frame.url === "" || frame.url.startsWith("node:") || frame.url.startsWith("wasm:");

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; attributing it to sample i is what DevTools does.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fns = new Map<string, SelfTime>();
  const callers = new Map<string, SelfTime>();
  const owners = new Map<string, number>();
  const add = (map: Map<string, SelfTime>, frame: ProfileNode["callFrame"], ms: number) => {
    const name = `${frame.functionName || "(anonymous)"}${frame.url ? ` (${placeOf(frame.url, frame.lineNumber)})` : ""}`;
    const entry = map.get(name) ?? { name, owner: ownerOf(frame.url, frame.functionName), ms: 0 };
    entry.ms += ms;
    map.set(name, entry);
    return entry.owner;
  };
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    let stack: ProfileNode | undefined = node;
    let charged: ProfileNode | undefined;
    let profiler = false;
    for (; stack; stack = stack.parent === undefined ? undefined : byId.get(stack.parent)) {
      if (isProfilerItself(stack.callFrame)) profiler = true;
      if (!charged && !isEngineOrNode(stack.callFrame)) charged = stack;
    }
    if (profiler) continue;
    totalUs += us;
    if (node.callFrame.functionName === "(idle)") idleUs += us;
    const owner = add(fns, node.callFrame, us / 1e3);
    owners.set(owner, (owners.get(owner) ?? 0) + us / 1e3);
    add(callers, (charged ?? node).callFrame, us / 1e3);
  }
  const sorted = (map: Map<string, SelfTime>) => [...map.values()].sort((a, b) => b.ms - a.ms);
  return {
    totalMs: totalUs / 1e3,
    idleMs: idleUs / 1e3,
    functions: sorted(fns),
    callers: sorted(callers),
    owners: [...owners.entries()].map(([owner, ms]) => ({ owner, ms })).sort((a, b) => b.ms - a.ms),
  };
}

/**
 * The summary as Markdown: top functions by self time; the callers that Node's internals and
 * native code (a structuredClone, a socket write) are charged to, where they change the
 * picture; time by owner.
 */
export function formatSummary(summary: ProfileSummary, top: number): string {
  const busy = summary.totalMs - summary.idleMs;
  const pct = (ms: number) => `${((100 * ms) / busy).toFixed(1)}%`;
  const listed = summary.functions.filter((f) => f.owner !== "(idle)").slice(0, top);
  const selfNames = new Set(listed.map((f) => f.name));
  const charged = summary.callers
    .filter((f) => !f.owner.startsWith("(") && !selfNames.has(f.name))
    .slice(0, 5)
    .map((f) => `${f.name} ${pct(f.ms)}`);
  const owners = summary.owners
    .filter((o) => o.owner !== "(idle)")
    .slice(0, top)
    .map((o) => `${o.owner} ${pct(o.ms)}`);
  return [
    `${summary.totalMs.toFixed(0)} ms sampled, ${summary.idleMs.toFixed(0)} ms idle; percentages of the ${busy.toFixed(0)} ms busy`,
    "",
    "| self ms | % | function (file:line) | in |",
    "| ---: | ---: | --- | --- |",
    ...listed.map((f) => `| ${f.ms.toFixed(0)} | ${pct(f.ms)} | ${f.name.replaceAll("|", "\\|")} | ${f.owner} |`),
    "",
    `With Node's internals and native code charged to their caller, also: ${charged.join(", ") || "-"}.`,
    "",
    `By where the code lives: ${owners.join(", ")}.`,
  ].join("\n");
}

if (import.meta.main) {
  const files = process.argv.slice(2).filter((a, i, all) => a.endsWith(".cpuprofile") && all[i - 1] !== "--top");
  if (files.length === 0) throw new Error("usage: profile-summary.ts FILE.cpuprofile [--top 10]");
  for (const file of files) {
    console.log(`\n${file}`);
    console.log(
      formatSummary(summariseProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile), numberArg("top", 10)),
    );
  }
}
