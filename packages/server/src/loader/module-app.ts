import { App, BaseAgent, isLlmAgent } from "@agentkit/core";
import { describeError } from "./agent-load-error.js";
import { describeValue, loadError, type LoadContext } from "./load-context.js";

/** What an agent module gives: its root agent, and the App when it exported one. */
export interface ModuleAppResult {
  rootAgent: BaseAgent;
  app?: App;
  /** The file really imported (a compiled one when a build output dir had it). */
  source: string;
}

/**
 * Export names looked up, in order: an App (`default`, `app`,
 * `App`), else an agent (`rootAgent`, `root_agent`, `default`).
 */
const APP_EXPORTS = ["default", "app", "App"] as const;
const AGENT_EXPORTS = ["rootAgent", "root_agent", "default"] as const;

/**
 * Imports an app's TypeScript/JavaScript module and finds its agent. Import failures (syntax
 * errors, a missing sibling, a throwing constructor), a missing export and a wrong type each
 * become an `AgentLoadError` naming the file.
 */
export async function loadModuleApp(ctx: LoadContext, file: string): Promise<ModuleAppResult> {
  let imported: { file: string; namespace: Record<string, unknown> };
  try {
    imported = await ctx.importer.importFile(file, ctx.tag);
  } catch (error) {
    throw loadError(
      ctx,
      file,
      undefined,
      `cannot load the module: ${describeError(error)}${locationOf(error, file)}`,
      error,
    );
  }
  const source = imported.file;
  ctx.track(source);
  const ns = imported.namespace;
  for (const key of APP_EXPORTS) {
    const value = ns[key];
    if (value instanceof App) return { rootAgent: value.rootAgent, app: value, source };
  }
  for (const key of AGENT_EXPORTS) {
    if (!(key in ns) || (key === "default" && !(ns[key] instanceof BaseAgent))) continue;
    const value = ns[key];
    if (value instanceof BaseAgent) return { rootAgent: value, source };
    throw loadError(
      ctx,
      source,
      undefined,
      `the export "${key}" is ${describeValue(value)}, expected an agent (a BaseAgent such as new ` +
        `LlmAgent({...}))${foreignHint(value)}`,
    );
  }
  const names = Object.keys(ns).filter((k) => k !== "__esModule");
  throw loadError(
    ctx,
    source,
    undefined,
    `exports no rootAgent or App (it exports: ${names.join(", ") || "nothing"}); add \`export const rootAgent = new ` +
      `LlmAgent({...})\` or \`export default new App({...})\``,
  );
}

/** An agent from another copy of @agentkit/core fails `instanceof`; say so instead of "wrong type". */
function foreignHint(value: unknown): string {
  const looksLikeAgent =
    typeof value === "object" && value !== null && typeof (value as { runAsync?: unknown }).runAsync === "function";
  return looksLikeAgent || isLlmAgent(value)
    ? "; it looks like an agent from another copy of @agentkit/core: make the agents directory and the server use " +
        "the same @agentkit/core"
    : "";
}

/** Syntax errors carry the position in their stack's first lines; add it when the message lacks it. */
function locationOf(error: unknown, file: string): string {
  if (!(error instanceof Error) || !error.stack) return "";
  const base = file.split(/[\\/]/).pop() ?? file;
  const line = error.stack.split("\n").find((l) => l.includes(base) && /:\d+/.test(l));
  const match = line ? /:(\d+)(?::(\d+))?/.exec(line.slice(line.indexOf(base))) : null;
  if (!match || error.message.includes(`:${match[1]}`)) return "";
  return ` (at line ${match[1]}${match[2] ? `, column ${match[2]}` : ""})`;
}
