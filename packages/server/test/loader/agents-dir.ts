import { mkdir, mkdtemp, rm, symlink, writeFile, unlink } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const serverDir = resolve(import.meta.dirname, "../..");
const coreDir = resolve(serverDir, "../core");

/** A temporary agents directory with real files; `@agentkit/core` and `zod` resolve from it. */
export interface TempAgentsDir {
  readonly dir: string;
  write(relPath: string, content: string): Promise<void>;
  remove(relPath: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** `core`: the @agentkit/core package folder its node_modules links to (default: the workspace's). */
export async function makeAgentsDir(
  files: Record<string, string> = {},
  core: string = coreDir,
): Promise<TempAgentsDir> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-loader-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  await mkdir(join(dir, "node_modules", "@agentkit"), { recursive: true });
  await symlink(core, join(dir, "node_modules", "@agentkit", "core"), "dir");
  await symlink(realpathSync(join(serverDir, "node_modules", "zod")), join(dir, "node_modules", "zod"), "dir");
  const write = async (relPath: string, content: string): Promise<void> => {
    const path = join(dir, relPath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };
  for (const [path, content] of Object.entries(files)) await write(path, content);
  return {
    dir,
    write,
    remove: (relPath) => unlink(join(dir, relPath)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A TypeScript agent module exporting `rootAgent`; `description` is a TS expression (a marker tests read back). */
export function agentModule(name: string, description: string, imports = ""): string {
  return `import { LlmAgent } from "@agentkit/core";
${imports}
const marker: string = ${description};
export const rootAgent = new LlmAgent({ name: ${JSON.stringify(name)}, model: "some-model", description: marker });
`;
}
