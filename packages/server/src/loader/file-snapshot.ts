import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Extensions whose changes reload an app (code and config; not editor swap files or data). */
const WATCHED_EXTENSIONS = /\.(ts|mts|cts|js|mjs|cjs|json|ya?ml)$/;

/** File path → "size:mtime-ns:inode" of the files an app depends on. */
export type FileSnapshot = Map<string, string>;

/** The code and config files of a folder tree (skipping node_modules and dot entries). */
export async function listSourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listSourceFiles(path)));
    else if (WATCHED_EXTENSIONS.test(entry.name)) out.push(path);
  }
  return out;
}

/** Stats the files (a missing file is recorded as missing, so its return is a change too). */
export async function takeSnapshot(files: Iterable<string>): Promise<FileSnapshot> {
  const snapshot: FileSnapshot = new Map();
  await Promise.all(
    [...new Set(files)].map(async (file) => {
      try {
        const s = await stat(file, { bigint: true });
        snapshot.set(file, `${s.size}:${s.mtimeNs}:${s.ino}`);
      } catch {
        snapshot.set(file, "missing");
      }
    }),
  );
  return snapshot;
}

/** True when both snapshots hold the same files with the same stats. */
export function sameSnapshot(a: FileSnapshot, b: FileSnapshot): boolean {
  if (a.size !== b.size) return false;
  for (const [file, value] of a) if (b.get(file) !== value) return false;
  return true;
}
