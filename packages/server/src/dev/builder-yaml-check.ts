import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { HttpRequestError } from "../errors/server-errors.js";
import { builderExecutorProblem, type BuilderPolicy } from "../loader/builder-policy.js";
import { codeReferenceProblem, configPathProblem } from "../loader/code-reference.js";
import type { CodeScope } from "../loader/code-scope.js";
import { AGENT_CLASS_SCHEMAS, type AgentClassName } from "../loader/yaml/agent-config-schema.js";
import { formatFieldPath, formatProblems, issuesToProblems } from "../loader/yaml/format-issues.js";

/** Agent config fields whose values name code the loader imports (and may call). */
const CODE_KEYS = new Set([
  "model_code",
  "input_schema",
  "output_schema",
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

const BARE_NAME = /^[A-Za-z_][\w]*$/;

/** What an uploaded file is checked against. */
export interface BuilderFileTarget {
  /** The upload's name as the client gave it (for messages). */
  label: string;
  /** Where the file will live once saved (its code references resolve from there). */
  finalPath: string;
  agentsDir: string;
  /** The folder of the app the file belongs to. */
  appDir: string;
  /** The built-in code executors and tools a builder-written config may name. */
  policy: BuilderPolicy;
  /** Final paths of the other files of the same save (checked on their own, not read from disk). */
  savedWith?: ReadonlySet<string>;
}

/**
 * Checks one YAML file the builder uploads before anything is written (400 naming the file
 * and field otherwise). The loader applies the same rules to the saved file (it carries the
 * builder's marker), so this check answers early and clearly; it is not the only line:
 * - it parses and is a valid agent config;
 * - no `args` key (it would call code with arguments of the uploader's choice);
 * - code references (tools, callbacks, model_code, schemas, agents from code) name files of
 *   the app's own folder (no packages, no `..` out of the app, no hidden folders);
 * - `code_executor` and bare tool names are ones the builder policy allows (never an executor
 *   that runs processes here, never a code reference as executor);
 * - `config_path` stays in the app folder, and the existing configs it reaches pass the same
 *   rules (a builder file cannot borrow a developer file's executor).
 */
export async function checkBuilderYaml(text: string, target: BuilderFileTarget): Promise<void> {
  const value = await parseConfig(text, target);
  const agentClass = (value as { agent_class?: unknown }).agent_class ?? "LlmAgent";
  if (typeof agentClass !== "string" || !(agentClass in AGENT_CLASS_SCHEMAS)) {
    throw invalid(
      target,
      "agent_class",
      `unknown agent class ${JSON.stringify(agentClass)}; expected one ` +
        `of ${Object.keys(AGENT_CLASS_SCHEMAS).join(", ")}`,
    );
  }
  await checkRules(value, target, new Set([resolve(target.finalPath)]));
  const parsed = AGENT_CLASS_SCHEMAS[agentClass as AgentClassName].safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues);
    // formatProblems already names each field.
    throw invalid(target, undefined, formatProblems(problems));
  }
}

async function parseConfig(text: string, target: BuilderFileTarget): Promise<object> {
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
  return value;
}

/** The builder's rules over one config, then over the existing configs its `config_path`s reach. */
async function checkRules(value: object, target: BuilderFileTarget, visited: Set<string>): Promise<void> {
  const configPaths: { field: string; file: string }[] = [];
  walk(value, [], target, configPaths);
  for (const { field, file } of configPaths) {
    if (visited.has(file) || target.savedWith?.has(file) || !existsSync(file)) continue;
    visited.add(file);
    const reached: BuilderFileTarget = { ...target, label: displayOf(target, file), finalPath: file };
    try {
      await checkRules(await parseConfig(await readFile(file, "utf8"), reached), reached, visited);
    } catch (error) {
      if (!(error instanceof HttpRequestError)) throw error;
      throw invalid(target, field, `reaches a config the builder's rules refuse: ${error.message}`);
    }
  }
}

function walk(
  node: unknown,
  path: (string | number)[],
  target: BuilderFileTarget,
  configPaths: { field: string; file: string }[],
): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) walk(item, [...path, i], target, configPaths);
    return;
  }
  const scope: CodeScope = { agentsDir: target.agentsDir, appDir: target.appDir, restricted: true };
  for (const [key, value] of Object.entries(node)) {
    const here = [...path, key];
    const field = formatFieldPath(here);
    if (key === "args")
      throw invalid(target, field, "builder uploads may not hold an args key (it would call code with arguments)");
    if (CODE_KEYS.has(key))
      for (const reference of referencesIn(value)) {
        const problem = codeReferenceProblem(reference, target.finalPath, scope);
        if (problem) throw invalid(target, field, `code reference ${problem}`);
      }
    if (key === "tools")
      for (const reference of referencesIn(value)) {
        const problem = BARE_NAME.test(reference)
          ? target.policy.tools.includes(reference)
            ? undefined
            : `the built-in tool "${reference}" is not allowed in configs written through the agent builder ` +
              `(allowed: ${target.policy.tools.join(", ") || "none"})`
          : prefixed(codeReferenceProblem(reference, target.finalPath, scope));
        if (problem) throw invalid(target, field, problem);
      }
    if (key === "code_executor")
      for (const name of referencesIn(value))
        if (!target.policy.codeExecutors.includes(name))
          throw invalid(target, field, builderExecutorProblem(name, target.policy.codeExecutors));
    if (key === "config_path" && typeof value === "string") {
      const problem = configPathProblem(value, target.finalPath, scope);
      if (problem) throw invalid(target, field, `config_path ${problem}`);
      configPaths.push({ field, file: resolve(dirname(target.finalPath), value) });
    }
    walk(value, here, target, configPaths);
  }
}

function prefixed(problem: string | undefined): string | undefined {
  return problem && `code reference ${problem}`;
}

/** The names a code field carries: a string, `{name}`, or lists of those. */
function referencesIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string")
    return [(value as { name: string }).name];
  return [];
}

/** `<app>/<path in the app>` for messages (never an absolute path). */
function displayOf(target: BuilderFileTarget, file: string): string {
  return [basename(target.appDir), ...relative(target.appDir, file).split(sep)].join("/");
}

function invalid(target: BuilderFileTarget, field: string | undefined, problem: string): HttpRequestError {
  const where = field ? `${field}: ` : "";
  return new HttpRequestError(400, "INVALID_AGENT_CONFIG", `${target.label}: ${where}${problem}`);
}
