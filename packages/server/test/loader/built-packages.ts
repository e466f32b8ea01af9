import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const serverDir = resolve(import.meta.dirname, "../..");
const coreDir = resolve(serverDir, "../core");

/**
 * @agentkit/core and the server's loader compiled to JavaScript in a temp dir (each file
 * transpiled on its own, as tsc would emit it), laid out like installed packages: what a user
 * gets from npm, so agents can be loaded by plain `node` with no flags and no source condition.
 */
export interface BuiltPackages {
  /** The compiled @agentkit/core package folder (package.json + dist). */
  readonly coreDir: string;
  /** URL of the compiled loader's index.js. */
  readonly loaderUrl: string;
  /** URL of the compiled core's index.js (the same module agents import as `@agentkit/core`). */
  readonly coreUrl: string;
  cleanup(): Promise<void>;
}

export async function buildPackages(): Promise<BuiltPackages> {
  const root = await mkdtemp(join(tmpdir(), "agentkit-built-"));
  const builtCore = join(root, "core");
  await transpileTree(join(coreDir, "src"), join(builtCore, "dist"));
  const corePackage = JSON.parse(await readFile(join(coreDir, "package.json"), "utf8")) as Record<string, unknown>;
  await writeFile(
    join(builtCore, "package.json"),
    JSON.stringify({
      name: corePackage.name,
      type: "module",
      // Every subpath the real package exports, at its compiled path.
      exports: Object.fromEntries(
        Object.entries(corePackage.exports as Record<string, { default: string }>).map(([k, v]) => [k, v.default]),
      ),
    }),
  );
  await linkPackage(join(builtCore, "node_modules", "zod"), realpathSync(join(coreDir, "node_modules", "zod")));
  const server = join(root, "server");
  for (const part of ["loader", "errors"]) await transpileTree(join(serverDir, "src", part), join(server, part));
  await writeFile(join(server, "package.json"), JSON.stringify({ type: "module", private: true }));
  await linkPackage(join(server, "node_modules", "@agentkit", "core"), builtCore);
  for (const dep of ["zod", "yaml"])
    await linkPackage(join(server, "node_modules", dep), realpathSync(join(serverDir, "node_modules", dep)));
  return {
    coreDir: builtCore,
    loaderUrl: `file://${join(server, "loader", "index.js")}`,
    coreUrl: `file://${join(builtCore, "dist", "index.js")}`,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

async function transpileTree(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const source = join(entry.parentPath, entry.name);
    const target = join(to, relative(from, source)).replace(/\.ts$/, ".js");
    const output = ts.transpileModule(await readFile(source, "utf8"), {
      fileName: source,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
    });
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, output.outputText);
  }
}

async function linkPackage(at: string, target: string): Promise<void> {
  await mkdir(dirname(at), { recursive: true });
  await symlink(target, at, "dir");
}
