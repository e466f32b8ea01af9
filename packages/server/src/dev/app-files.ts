import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { validateAppName } from "@agentkit/core/internal";
import { HttpRequestError } from "../errors/server-errors.js";
import { isIgnoredFolderName } from "../loader/app-discovery.js";
import { realOrSelf } from "../loader/code-scope.js";

/**
 * Paths of the dev routes that touch an app's files (builder, tests). Every caller-supplied
 * name goes through here, so no request can reach a file outside the agents directory.
 */

/** The folder of an app: `<agentsDir>/<app>`, for a valid app name only (400 otherwise). */
export function appDirOf(agentsDir: string, appName: string): string {
  try {
    validateAppName(appName);
  } catch (error) {
    throw new HttpRequestError(400, "INVALID_APP_NAME", (error as Error).message);
  }
  if (isIgnoredFolderName(appName))
    throw new HttpRequestError(
      400,
      "INVALID_APP_NAME",
      `Invalid app name "${appName}": the loader never loads that folder as an app.`,
    );
  return join(resolve(agentsDir), appName);
}

/** The builder's draft folder of an app (`<app>/tmp/<app>`, where ADK's dev server keeps it). */
export function draftDirOf(appDir: string, appName: string): string {
  return join(appDir, "tmp", appName);
}

const YAML_EXTENSIONS = /\.ya?ml$/i;

/**
 * A relative `.yaml` / `.yml` path inside an app, from an upload filename (`<app>/x.yaml`) or a
 * `file_path` query: backslashes become slashes, the `<app>/` prefix is dropped; absolute
 * paths, `..` and hidden (`.x`) segments and other extensions are refused (400).
 */
export function relativeYamlPath(input: string, appName?: string): string {
  let path = input.replace(/\\/g, "/");
  if (appName !== undefined && path.startsWith(`${appName}/`)) path = path.slice(appName.length + 1);
  const refuse = (why: string) => new HttpRequestError(400, "INVALID_PATH", `${why}: ${JSON.stringify(input)}`);
  if (path === "") throw refuse("Empty file path");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) throw refuse("Absolute file paths are refused");
  const segments = path.split("/");
  if (segments.some((s) => s === ".." || s === "")) throw refuse("Path traversal is refused");
  if (segments.some((s) => s.startsWith("."))) throw refuse("Hidden files and folders are refused");
  if (segments[0] === "tmp") throw refuse("The tmp folder holds the builder's draft; it cannot be written directly");
  if (!YAML_EXTENSIONS.test(path)) throw refuse("Only .yaml and .yml files are allowed");
  return segments.join("/");
}

/** `root/rel`, checked to stay inside `root` after resolving symbolic links of what exists. */
export function fileUnder(root: string, rel: string): string {
  const file = resolve(root, rel);
  if (!isInside(root, file) || !isInside(realOrSelf(root), realOrSelf(file))) {
    throw new HttpRequestError(400, "INVALID_PATH", `The path escapes its folder: ${JSON.stringify(rel)}`);
  }
  return file;
}

/** True when `path` is `root` or below it (lexically). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** `tests/<name>.json` inside an app: a bare file name only (400 for anything path-like). */
export function testFileOf(appDir: string, testName: string): string {
  if (
    !testName ||
    testName.includes("/") ||
    testName.includes("\\") ||
    testName === "." ||
    testName === ".." ||
    testName.startsWith(".")
  ) {
    throw new HttpRequestError(
      400,
      "INVALID_TEST_NAME",
      `Invalid test name ${JSON.stringify(testName)}: use the name of a file directly inside the app's tests folder.`,
    );
  }
  const name = testName.endsWith(".json") ? testName : `${testName}.json`;
  return fileUnder(join(appDir, "tests"), name);
}
