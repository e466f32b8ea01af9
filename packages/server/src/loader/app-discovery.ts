import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Entry files of an app folder, in the order they are looked for. */
export const MODULE_ENTRY_FILES = [
  "agent.ts",
  "agent.mts",
  "agent.js",
  "agent.mjs",
  "index.ts",
  "index.mts",
  "index.js",
  "index.mjs",
] as const;
export const YAML_ENTRY_FILES = ["root_agent.yaml", "root_agent.yml"] as const;

export interface AppEntry {
  kind: "module" | "yaml";
  file: string;
  /** Other entry files present and ignored (for a warning). */
  shadowed: string[];
}

/** True for folders that are never apps: hidden, `_`-prefixed (shared code), node_modules. */
export function isIgnoredFolderName(name: string): boolean {
  return name.startsWith(".") || name.startsWith("_") || name === "node_modules";
}

/** The entry file of an app folder (a module wins over a YAML config), or undefined when it holds none. */
export async function findAppEntry(appDir: string): Promise<AppEntry | undefined> {
  let names: Set<string>;
  try {
    const entries = await readdir(appDir, { withFileTypes: true });
    names = new Set(entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name));
  } catch {
    return undefined;
  }
  const present = [...MODULE_ENTRY_FILES, ...YAML_ENTRY_FILES].filter((n) => names.has(n));
  const first = present[0];
  if (!first) return undefined;
  const kind = (YAML_ENTRY_FILES as readonly string[]).includes(first) ? "yaml" : "module";
  return { kind, file: join(appDir, first), shadowed: present.slice(1).map((n) => join(appDir, n)) };
}

/** Names of the app folders of an agents directory (folders holding an entry file), sorted. */
export async function listAppFolders(agentsDir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(agentsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const entry of entries) {
    if (isIgnoredFolderName(entry.name)) continue;
    if (!entry.isDirectory() && !(entry.isSymbolicLink() && (await isDirectory(join(agentsDir, entry.name))))) continue;
    if (await findAppEntry(join(agentsDir, entry.name))) names.push(entry.name);
  }
  return names.sort();
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
