// A reader for the repository's Dockerfile, for the test that rebuilds the production image
// without a container engine: the stages and their instructions, as Docker splits them
// (line continuations, comment lines, parser directives). It interprets nothing itself.

export interface DockerInstruction {
  /** Upper-cased: FROM, RUN, COPY, ENV, … */
  keyword: string;
  /** The rest of the instruction, continuations joined with a space. */
  args: string;
  /** 1-based line where the instruction starts, for messages. */
  line: number;
}

export interface DockerStage {
  /** The `FROM` image. */
  base: string;
  /** The `AS` name, if any. */
  name?: string;
  instructions: DockerInstruction[];
}

/** The stages of a Dockerfile, in order (instructions after their `FROM`). */
export function dockerfileStages(text: string): DockerStage[] {
  const stages: DockerStage[] = [];
  const lines = text.split("\n");
  let pending: { text: string; line: number } | undefined;
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, "");
    // Comment lines (parser directives included) are dropped, also inside a continuation.
    if (/^\s*#/.test(line)) continue;
    if (!pending && line.trim() === "") continue;
    const continued = /\\\s*$/.test(line);
    const body = continued ? line.replace(/\\\s*$/, "") : line;
    pending = pending
      ? { text: `${pending.text} ${body.trim()}`, line: pending.line }
      : { text: body.trim(), line: index + 1 };
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text)!;
    const instruction = { keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: pending.line };
    pending = undefined;
    if (instruction.keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!from) throw new Error(`Dockerfile line ${instruction.line}: cannot read FROM ${instruction.args}`);
      stages.push({ base: from[1]!, ...(from[2] ? { name: from[2] } : {}), instructions: [] });
    } else if (stages.length === 0) {
      throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} before the first FROM`);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  if (pending) throw new Error("Dockerfile: the last instruction ends with a line continuation");
  return stages;
}

/** `ENV a=1 b="two words"` (or the old `ENV a 1`) as pairs. */
export function envPairs(args: string): [string, string][] {
  const first = /^(\S+)\s+(.*)$/.exec(args);
  if (first && !first[1]!.includes("=")) return [[first[1]!, first[2]!]];
  const pairs: [string, string][] = [];
  const token = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)\s*/y;
  let at = 0;
  while (at < args.length) {
    token.lastIndex = at;
    const m = token.exec(args);
    if (!m) throw new Error(`cannot read ENV ${args}`);
    const value = m[2]!.startsWith('"') ? m[2]!.slice(1, -1).replace(/\\(.)/g, "$1") : m[2]!;
    pairs.push([m[1]!, value]);
    at = token.lastIndex;
  }
  return pairs;
}

/** The exec (JSON array) form of ENTRYPOINT/CMD, or a clear error for the shell form. */
export function execForm(keyword: string, args: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw new Error(`${keyword} ${args}: only the exec form (a JSON array) is understood`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.some((a) => typeof a !== "string"))
    throw new Error(`${keyword} ${args}: expected a non-empty JSON array of strings`);
  return parsed as string[];
}

/** `COPY [--from=x] src… dest`: its flags, sources and destination (no JSON form). */
export function copyArgs(args: string): { flags: Record<string, string>; sources: string[]; dest: string } {
  if (args.startsWith("[")) throw new Error(`COPY ${args}: the JSON form is not understood`);
  const words = args.split(/\s+/);
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith("--")) {
    const [flag, value = ""] = words.shift()!.slice(2).split("=", 2) as [string, string?];
    flags[flag] = value;
  }
  if (words.length < 2) throw new Error(`COPY ${args}: expected sources and a destination`);
  return { flags, sources: words.slice(0, -1), dest: words.at(-1)! };
}
