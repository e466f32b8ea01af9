import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import { describeError } from "../agent-load-error.js";
import { isBuilderWritten } from "../builder-policy.js";
import { loadError, type LoadContext } from "../load-context.js";

/** A parsed YAML agent config, and whether the agent builder wrote it (see builder-policy.ts). */
export interface YamlConfigFile {
  value: object;
  builderWritten: boolean;
}

/** Reads and parses a YAML agent config; unreadable files and syntax errors become `AgentLoadError`s. */
export async function readYamlFile(ctx: LoadContext, file: string): Promise<YamlConfigFile> {
  ctx.track(file);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw loadError(ctx, file, undefined, `cannot read the file: ${describeError(error)}`, error);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  const first = doc.errors[0];
  if (first) {
    const pos = lineCounter.linePos(first.pos[0]);
    const where = ` at line ${pos.line}, column ${pos.col}`;
    throw loadError(ctx, file, undefined, `YAML syntax error${where}: ${first.message.split("\n")[0]}`, first);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined)
    throw loadError(
      ctx,
      file,
      undefined,
      "the file is empty: expected an agent config (name, model, instruction, ...)",
    );
  if (typeof value !== "object" || Array.isArray(value)) {
    throw loadError(
      ctx,
      file,
      undefined,
      `expected a mapping (an agent config), got ${Array.isArray(value) ? "a list" : typeof value}`,
    );
  }
  return { value, builderWritten: isBuilderWritten(text) };
}
