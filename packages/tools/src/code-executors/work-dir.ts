import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import type { CodeExecutionFile } from "@agentkit/core";

const MIME_TYPES: Record<string, string> = {
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".md": "text/markdown",
  ".html": "text/html",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".tsv": "text/tab-separated-values",
};

export function mimeTypeOf(name: string): string {
  return MIME_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

/** Writes the input files into the working dir; returns their content hashes by name. Names may not escape the dir. */
export async function writeInputFiles(workDir: string, files: CodeExecutionFile[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const file of files) {
    const target = resolve(workDir, file.name);
    if (!target.startsWith(workDir + sep))
      throw new Error(`Input file name "${file.name}" leaves the working directory.`);
    const bytes = Buffer.from(file.content, "base64");
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
    hashes.set(relative(workDir, target).split(sep).join("/"), hash(bytes));
  }
  return hashes;
}

export interface OutputLimits {
  maxFiles: number;
  maxFileBytes: number;
}

/**
 * Files the code created or changed in the working dir (input files left as they were are
 * not outputs). Files past the limits are reported in `skipped`, not read.
 */
export async function collectOutputFiles(
  workDir: string,
  inputs: Map<string, string>,
  limits: OutputLimits,
): Promise<{ files: CodeExecutionFile[]; skipped: string[] }> {
  const files: CodeExecutionFile[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      if (!entry.isFile()) continue;
      const name = relative(workDir, path).split(sep).join("/");
      const size = (await stat(path)).size;
      if (files.length >= limits.maxFiles || size > limits.maxFileBytes) {
        if (!inputs.has(name)) skipped.push(name);
        continue;
      }
      const bytes = await readFile(path);
      if (inputs.get(name) === hash(bytes)) continue;
      files.push({ name, content: bytes.toString("base64"), mimeType: mimeTypeOf(name) });
    }
  };
  await walk(workDir);
  files.sort((a, b) => a.name.localeCompare(b.name));
  return { files, skipped };
}

function hash(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
