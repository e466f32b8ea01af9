import { cp, mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Request, Response as ExpressResponse } from "express";
import { loadExpress, Router } from "../http/express-module.js";
import { HttpRequestError } from "../errors/server-errors.js";
import {
  DEFAULT_BUILDER_POLICY,
  isBuilderWritten,
  markBuilderWritten,
  type BuilderPolicy,
} from "../loader/builder-policy.js";
import { appDirOf, draftDirOf, fileUnder, relativeYamlPath } from "./app-files.js";
import { checkBuilderYaml } from "./builder-yaml-check.js";

export interface BuilderRouterOptions {
  /** The agents directory whose apps the builder edits (the directory loader's). */
  agentsDir: string;
  /**
   * The built-in code executors and tools saved configs may name (the loader's
   * `builderPolicy`; default: no code executor, `exit_loop` only).
   */
  policy?: BuilderPolicy;
  /** Largest multipart upload of one save, in bytes or a string like "10mb". Default "10mb". */
  maxUploadBytes?: number | string;
  /** Called after a final save, before answering: the loader's `settled`, so the next request sees the app. */
  afterSave?: () => Promise<void>;
}

const ROOT_CONFIG = "root_agent.yaml";

/**
 * The dev UI's agent builder (http-api.md 4.11): read an app's YAML agent config, save the
 * edited files (multipart `files` parts named `<app>/<path>.yaml`), keep a draft while
 * editing (`?tmp=true`, in `<app>/tmp/<app>`), drop it. Uploads are checked before anything
 * is written (see `checkBuilderYaml`) and saved with the builder's marker, so the loader
 * applies the builder's rules to them too; saved files are picked up by the loader's hot
 * reload on the app's next request. Reads change nothing: the draft is created by the first
 * draft save, not by a GET.
 */
export function createBuilderRouter(options: BuilderRouterOptions): Router {
  const router = Router();
  const { agentsDir } = options;
  const policy = options.policy ?? DEFAULT_BUILDER_POLICY;

  router.get("/dev/apps/:app/builder", async (req, res) => {
    const appName = param(req, "app");
    const appDir = appDirOf(agentsDir, appName);
    const filePath =
      typeof req.query.file_path === "string" && req.query.file_path !== "" ? req.query.file_path : undefined;
    const rel = filePath ? relativeYamlPath(filePath, appName) : ROOT_CONFIG;
    // The draft's version when a draft exists, else the app's own file (a draft starts as a copy of it).
    const draft = draftDirOf(appDir, appName);
    const dir = flag(req, "tmp") && (await isDirectory(draft)) ? draft : appDir;
    sendYaml(res, await readIfPresent(fileUnder(dir, rel)));
  });

  router.post(
    "/dev/apps/:app/builder/save",
    loadExpress().raw({ type: () => true, limit: options.maxUploadBytes ?? "10mb" }),
    async (req, res) => {
      const appName = param(req, "app");
      const appDir = appDirOf(agentsDir, appName);
      const draft = draftDirOf(appDir, appName);
      const toDraft = flag(req, "tmp");
      const uploads = await readUploads(req, appName);
      // A final save also writes back the YAML files edited in the draft: the ones the builder
      // wrote there (the others are untouched copies of the app's files).
      const edited = toDraft ? [] : await draftEdits(draft, uploads);
      const files = [...edited, ...uploads];
      const savedWith = new Set(files.map((f) => fileUnder(appDir, f.rel)));
      // Every file is checked before the first one is written: a save is all or nothing.
      for (const file of files)
        await checkBuilderYaml(file.text, {
          label: `${appName}/${file.rel}`,
          finalPath: fileUnder(appDir, file.rel),
          agentsDir,
          appDir,
          policy,
          savedWith,
        });
      if (toDraft) {
        await ensureDraft(appDir, appName);
        for (const upload of uploads)
          await writeAtomically(fileUnder(draft, upload.rel), markBuilderWritten(upload.text));
        return void res.json(true);
      }
      await mkdir(appDir, { recursive: true });
      for (const file of files) await writeAtomically(fileUnder(appDir, file.rel), markBuilderWritten(file.text));
      await dropDraft(appDir, appName);
      await options.afterSave?.();
      res.json(true);
    },
  );

  router.post("/dev/apps/:app/builder/cancel", async (req, res) => {
    const appName = param(req, "app");
    await dropDraft(appDirOf(agentsDir, appName), appName);
    res.json(true);
  });

  return router;
}

interface Upload {
  rel: string;
  text: string;
}

async function readUploads(req: Request, appName: string): Promise<Upload[]> {
  const type = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data/i.test(type) || !Buffer.isBuffer(req.body)) {
    throw new HttpRequestError(
      400,
      "INVALID_UPLOAD",
      "Send the files as multipart/form-data, one `files` part per YAML file named <app>/<path>.yaml.",
    );
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(req.body), { headers: { "content-type": type } }).formData();
  } catch {
    throw new HttpRequestError(400, "INVALID_UPLOAD", "The multipart/form-data body could not be parsed.");
  }
  const files = form.getAll("files").filter((f): f is File => typeof f !== "string");
  if (files.length === 0) throw new HttpRequestError(400, "INVALID_UPLOAD", "No `files` part in the upload.");
  const uploads: Upload[] = [];
  for (const file of files) uploads.push({ rel: relativeYamlPath(file.name, appName), text: await file.text() });
  return uploads;
}

/** The draft folder, created as a copy of the app (minus tmp, hidden folders and node_modules) when missing. */
async function ensureDraft(appDir: string, appName: string): Promise<string> {
  const draft = draftDirOf(appDir, appName);
  if (await isDirectory(draft)) return draft;
  await mkdir(draft, { recursive: true });
  // Entry by entry: the draft lives inside the app, and cp refuses to copy a folder into itself.
  for (const entry of await readdir(appDir)) {
    if (entry === "tmp" || entry === "node_modules" || entry.startsWith(".")) continue;
    await cp(join(appDir, entry), join(draft, entry), {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|\.[^\\/]*)$/.test(source),
    });
  }
  return draft;
}

async function dropDraft(appDir: string, appName: string): Promise<void> {
  await rm(draftDirOf(appDir, appName), { recursive: true, force: true });
  // The tmp folder goes too when nothing else is in it.
  await rmdir(join(appDir, "tmp")).catch(() => undefined);
}

/** The builder-written YAML files of the draft that no upload of this save replaces. */
async function draftEdits(draft: string, uploads: readonly Upload[]): Promise<Upload[]> {
  const replaced = new Set(uploads.map((u) => u.rel));
  const edits: Upload[] = [];
  for (const rel of await yamlFilesIn(draft)) {
    if (replaced.has(rel)) continue;
    const text = await readFile(fileUnder(draft, rel), "utf8");
    if (isBuilderWritten(text)) edits.push({ rel, text });
  }
  return edits;
}

async function yamlFilesIn(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { recursive: true })) as string[];
  } catch {
    return [];
  }
  return entries.map((e) => e.split("\\").join("/")).filter((e) => /\.ya?ml$/i.test(e));
}

/** Writes through a temporary file and a rename, so the loader never reads half a file. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, text);
  await rename(temp, file);
}

async function readIfPresent(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EISDIR")
      return "";
    throw error;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function sendYaml(res: ExpressResponse, text: string): void {
  res.status(200).set({ "Content-Type": "application/x-yaml; charset=utf-8", "Cache-Control": "no-store" }).send(text);
}

function flag(req: Request, name: string): boolean {
  const value = req.query[name];
  return value === "true" || value === "1";
}

function param(req: Request, name: string): string {
  return String(req.params[name]);
}
