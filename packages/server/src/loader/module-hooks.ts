// Node module resolution hooks for the agent loader. This file imports only node builtins, so
// it can be loaded on its own under plain Node type stripping before anything else.
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";
import { sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Query parameter that marks one load of an app; children of a marked module inherit it. */
export const RELOAD_PARAM = "agentkit-reload";

interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
interface ResolveContext {
  parentURL?: string;
  conditions?: readonly string[];
  importAttributes?: Record<string, string>;
}
type NextResolve = (specifier: string, context?: ResolveContext) => ResolveResult;
type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: ResolveContext, next: NextResolve) => ResolveResult;
}) => {
  deregister(): void;
};

/** What one loader asks of the hooks: the folders whose modules reload, and who to tell what loaded. */
export interface ModuleHooksClient {
  /** Absolute directories: modules inside them (outside node_modules) reload with their importer. */
  readonly roots: readonly string[];
  /** Called with the file path of every module resolved under a reload tag this client owns. */
  onResolved(tag: string, filePath: string): void;
  /** True when the tag belongs to this client. */
  ownsTag(tag: string): boolean;
}

const clients = new Set<ModuleHooksClient>();
let registration: { deregister(): void } | undefined;

const TS_FOR_JS: Readonly<Record<string, string>> = { ".js": ".ts", ".mjs": ".mts", ".cjs": ".cts" };

/**
 * Installs the process-wide resolve hook (once, shared by every client) and adds the client.
 * Returns false when this runtime has no usable `module.registerHooks` (then only the entry module of
 * an app reloads, not the siblings it imports). Remove the client with `removeModuleHooksClient`.
 */
export function addModuleHooksClient(client: ModuleHooksClient): boolean {
  const register = (nodeModule as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof register !== "function") return false;
  try {
    registration ??= register({ resolve: resolveHook });
  } catch {
    // Sandboxes that refuse hooks (Jest throws here): run without them.
    return false;
  }
  clients.add(client);
  return true;
}

/** Removes a client; the hook is deregistered when no client is left. */
export function removeModuleHooksClient(client: ModuleHooksClient): void {
  clients.delete(client);
  if (clients.size === 0 && registration) {
    registration.deregister();
    registration = undefined;
  }
}

/** The URL to import a file under a reload tag (no tag: the plain file URL). */
export function taggedFileUrl(filePath: string, tag: string | undefined): string {
  const url = pathToFileURL(filePath);
  if (tag !== undefined) url.searchParams.set(RELOAD_PARAM, tag);
  return url.href;
}

function resolveHook(specifier: string, context: ResolveContext, next: NextResolve): ResolveResult {
  const result = resolveWithTsFallback(specifier, context, next);
  const tag = tagOf(context.parentURL);
  if (tag === undefined || !isRelativeOrFile(specifier) || !result.url.startsWith("file:")) return result;
  const url = new URL(result.url);
  const path = fileURLToPath(url);
  if (path.includes(`${sep}node_modules${sep}`)) return result;
  for (const client of clients) {
    if (!client.ownsTag(tag)) continue;
    if (!client.roots.some((root) => path === root || path.startsWith(root + sep))) continue;
    client.onResolved(tag, path);
    url.searchParams.set(RELOAD_PARAM, tag);
    return { ...result, url: url.href };
  }
  return result;
}

/**
 * TypeScript sources import their siblings as `./x.js` (what tsc emits). Node's type stripping
 * does not map that to `./x.ts`, so when the `.js` file is missing and the `.ts` one exists,
 * resolve to the `.ts` file. Only for relative specifiers of modules outside node_modules.
 */
function resolveWithTsFallback(specifier: string, context: ResolveContext, next: NextResolve): ResolveResult {
  try {
    return next(specifier, context);
  } catch (error) {
    const fallback = tsFallback(specifier, context.parentURL);
    if (!fallback || (error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    return next(fallback, context);
  }
}

function tsFallback(specifier: string, parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith("file:") || !/^\.\.?\//.test(specifier)) return undefined;
  const match = /(\.[cm]?js)$/.exec(specifier);
  const ext = match?.[1];
  const tsExt = ext ? TS_FOR_JS[ext] : undefined;
  if (!ext || !tsExt || parentURL.includes("/node_modules/")) return undefined;
  const candidate = new URL(specifier.slice(0, -ext.length) + tsExt, parentURL);
  return existsSync(fileURLToPath(candidate)) ? candidate.href : undefined;
}

function tagOf(url: string | undefined): string | undefined {
  if (!url?.startsWith("file:") || !url.includes(RELOAD_PARAM)) return undefined;
  return new URL(url).searchParams.get(RELOAD_PARAM) ?? undefined;
}

function isRelativeOrFile(specifier: string): boolean {
  return (
    specifier.startsWith("./") ||
    specifier.startsWith("../") ||
    specifier.startsWith("file:") ||
    specifier.startsWith("/")
  );
}
