import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Absolute path of the built dev UI (`dist/ui`, produced by `pnpm run build:ui`), for
 * `createAgentServer({ devUi: { dir: devUiDir() } })`. Resolved from this module's own
 * location, so it is the same folder whether the package runs from `src` or from `dist`.
 */
export function devUiDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, "..", "dist", "ui");
}
