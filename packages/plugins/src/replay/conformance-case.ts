import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Content } from "@agentkit/core";
import { parse } from "yaml";
import { z } from "zod";
import { ReplayConfigError } from "./replay-errors.js";

// ADK's conformance `spec.yaml` (TestSpec): the agent (an app of the agents directory), the
// session's initial state and the user messages, each a text or a Content plus a state delta.
const userMessageSchema = z.union([
  z.string().min(1),
  z
    .object({
      text: z.string().optional(),
      content: z
        .object({ role: z.string().optional(), parts: z.array(z.record(z.string(), z.unknown())).min(1) })
        .optional(),
      state_delta: z.record(z.string(), z.unknown()).optional(),
    })
    .strict()
    .refine((m) => (m.text === undefined) !== (m.content === undefined), "give exactly one of text or content"),
]);

const specSchema = z
  .object({
    description: z.string().optional(),
    agent: z.string().min(1),
    initial_state: z.record(z.string(), z.unknown()).default({}),
    user_messages: z.array(userMessageSchema).min(1),
  })
  .strict();

export interface ConformanceMessage {
  content: Content;
  stateDelta?: Record<string, unknown>;
}

export interface ConformanceCase {
  /** The case folder relative to the cases directory (ADK's `category/name`). */
  name: string;
  dir: string;
  description?: string;
  /** The app (agents-dir folder) to run. */
  agent: string;
  initialState: Record<string, unknown>;
  messages: ConformanceMessage[];
}

/** Every folder under `casesDir` (itself included) holding a `spec.yaml`, sorted by name. */
export async function findConformanceCases(casesDir: string): Promise<ConformanceCase[]> {
  const dirs: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      throw new ReplayConfigError(`Cannot read the conformance cases directory ${dir}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (entries.some((e) => e.isFile() && e.name === "spec.yaml")) dirs.push(dir);
    for (const e of entries)
      if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules") await walk(join(dir, e.name));
  };
  await walk(casesDir);
  const cases = await Promise.all(dirs.map((dir) => readConformanceCase(dir, relative(casesDir, dir) || ".")));
  return cases.sort((a, b) => a.name.localeCompare(b.name));
}

export async function readConformanceCase(dir: string, name: string): Promise<ConformanceCase> {
  const file = join(dir, "spec.yaml");
  let raw: unknown;
  try {
    raw = parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ReplayConfigError(`${file}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = specSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ReplayConfigError(`${file}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const spec = parsed.data;
  return {
    name,
    dir,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    agent: spec.agent,
    initialState: spec.initial_state,
    messages: spec.user_messages.map((m) =>
      typeof m === "string"
        ? { content: { role: "user", parts: [{ text: m }] } }
        : {
            content: m.content
              ? ({ role: m.content.role ?? "user", parts: m.content.parts } as Content)
              : { role: "user", parts: [{ text: m.text! }] },
            ...(m.state_delta ? { stateDelta: m.state_delta } : {}),
          },
    ),
  };
}
