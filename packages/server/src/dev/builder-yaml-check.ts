import { dirname, resolve } from "node:path";
import { HttpRequestError } from "../errors/server-errors.js";
import { AGENT_CLASS_SCHEMAS, type AgentClassName } from "../loader/yaml/agent-config-schema.js";
import { formatFieldPath, formatProblems, issuesToProblems } from "../loader/yaml/format-issues.js";
import { isInside } from "./app-files.js";

/** Agent config fields whose values name code the loader imports (and may call). */
const CODE_KEYS = new Set([
  "model_code",
  "input_schema",
  "output_schema",
  "tools",
  "code",
  "before_agent_callbacks",
  "after_agent_callbacks",
  "before_model_callbacks",
  "after_model_callbacks",
  "on_model_error_callbacks",
  "before_tool_callbacks",
  "after_tool_callbacks",
  "on_tool_error_callbacks",
]);

/** What an uploaded file is checked against. */
export interface BuilderFileTarget {
  /** The upload's name as the client gave it (for messages). */
  label: string;
  /** Where the file will live once saved (its code references resolve from there). */
  finalPath: string;
  agentsDir: string;
}

/**
 * Checks one YAML file the builder uploads before anything is written (400 naming the file
 * and field otherwise): it parses, holds no `args` key (it would call code with arguments of
 * the uploader's choice), every code reference stays inside the agents directory (a relative
 * file, an `app.module.export` path, or a bare built-in name; no package specifiers, no
 * absolute paths), every `config_path` too, and the document is a valid agent config.
 */
export async function checkBuilderYaml(text: string, target: BuilderFileTarget): Promise<void> {
  const { LineCounter, parseDocument } = await import("yaml");
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  const syntax = doc.errors[0];
  if (syntax) {
    const pos = lineCounter.linePos(syntax.pos[0]);
    throw invalid(
      target,
      undefined,
      `YAML syntax error at line ${pos.line}, column ${pos.col}: ${syntax.message.split("\n")[0]}`,
    );
  }
  const value: unknown = doc.toJS();
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid(target, undefined, "expected an agent config (a mapping)");
  walk(value, [], target);
  const agentClass = (value as { agent_class?: unknown }).agent_class ?? "LlmAgent";
  if (typeof agentClass !== "string" || !(agentClass in AGENT_CLASS_SCHEMAS)) {
    throw invalid(
      target,
      "agent_class",
      `unknown agent class ${JSON.stringify(agentClass)}; expected one of ${Object.keys(AGENT_CLASS_SCHEMAS).join(", ")}`,
    );
  }
  const parsed = AGENT_CLASS_SCHEMAS[agentClass as AgentClassName].safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues);
    // formatProblems already names each field.
    throw invalid(target, undefined, formatProblems(problems));
  }
}

function walk(node: unknown, path: (string | number)[], target: BuilderFileTarget): void {
  if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...path, i], target));
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    const here = [...path, key];
    if (key === "args")
      throw invalid(
        target,
        formatFieldPath(here),
        "builder uploads may not hold an args key (it would call code with arguments)",
      );
    if (CODE_KEYS.has(key))
      for (const reference of referencesIn(value)) checkReference(reference, formatFieldPath(here), target);
    if (key === "config_path" && typeof value === "string") checkConfigPath(value, formatFieldPath(here), target);
    walk(value, here, target);
  }
}

/** The names a code field carries: a string, `{name}`, or lists of those. */
function referencesIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string")
    return [(value as { name: string }).name];
  return [];
}

function checkReference(reference: string, field: string, target: BuilderFileTarget): void {
  const hash = reference.lastIndexOf("#");
  if (hash < 0) return; // A built-in name, or `app.module.export` (always under the agents directory).
  const modulePart = reference.slice(0, hash);
  const relativeFile = modulePart.startsWith("./") || modulePart.startsWith("../");
  if (relativeFile && isInside(target.agentsDir, resolve(dirname(target.finalPath), modulePart))) return;
  throw invalid(
    target,
    field,
    `code reference ${JSON.stringify(reference)} is refused: builder uploads may only reference files inside the agents directory (./file.ts#export), app.module.export paths or built-in names`,
  );
}

function checkConfigPath(configPath: string, field: string, target: BuilderFileTarget): void {
  if (!configPath.startsWith("/") && isInside(target.agentsDir, resolve(dirname(target.finalPath), configPath))) return;
  throw invalid(target, field, `config_path ${JSON.stringify(configPath)} leaves the agents directory`);
}

function invalid(target: BuilderFileTarget, field: string | undefined, problem: string): HttpRequestError {
  const where = field ? `${field}: ` : "";
  return new HttpRequestError(400, "INVALID_AGENT_CONFIG", `${target.label}: ${where}${problem}`);
}
