import type { Request, Response } from "express";
import { Router } from "../http/express-module.js";
import { contentFromJson, InvalidJsonError, type ArtifactVersion, type Part } from "@agentkit/core";
import { HttpRequestError } from "../errors/server-errors.js";
import { parseBody, saveArtifactSchema } from "../http/request-schemas.js";
import type { RouteDeps } from "./route-deps.js";
import { checkSessionKeyParams } from "../http/session-key-params.js";
import { abortOnDisconnect } from "./run-routes.js";

/**
 * Artifact routes of http-api.md 4.7. Names may contain `/`, so they are wildcards. Every call
 * of the artifact service carries the request's disconnect signal (`scopeOf`): the persistent
 * services of `@agentkit/artifacts` stop their file or S3 I/O when the client leaves.
 */
export function artifactRoutes(deps: RouteDeps): Router {
  const router = checkSessionKeyParams(Router());
  const { artifactService } = deps.context;
  const base = "/apps/:app/users/:user/sessions/:sid/artifacts";

  router.get(base, async (req, res) => {
    res.json(await artifactService.listArtifactKeys(scopeOf(req, res)));
  });

  router.post(base, async (req, res) => {
    const body = parseBody(saveArtifactSchema, req.body);
    const artifact = partFromBody(body.artifact);
    const scope = scopeOf(req, res);
    const version = await artifactService.saveArtifact({
      ...scope,
      filename: body.filename,
      artifact,
      ...(body.customMetadata ? { customMetadata: body.customMetadata } : {}),
    });
    const metadata = await artifactService.getArtifactVersion({ ...scope, filename: body.filename, version });
    res.json(metadata ? publicVersion(metadata) : { version, createTime: Date.now() / 1000 });
  });

  // Version routes come before the catch-all name route (a name may end in "/versions").
  router.get(`${base}/*name/versions/metadata`, async (req, res) => {
    const versions = await artifactService.listArtifactVersions({ ...scopeOf(req, res), filename: nameOf(req) });
    res.json(versions.map(publicVersion));
  });

  router.get(`${base}/*name/versions/:v/metadata`, async (req, res) => {
    const filename = nameOf(req);
    const scope = scopeOf(req, res);
    const version = await versionOf(deps, scope, req.params.v, filename);
    const metadata =
      version === undefined ? undefined : await artifactService.getArtifactVersion({ ...scope, filename, version });
    if (!metadata) throw notFound(filename, req.params.v);
    res.json(publicVersion(metadata));
  });

  router.get(`${base}/*name/versions/:v`, async (req, res) => {
    const filename = nameOf(req);
    const scope = scopeOf(req, res);
    const version = await versionOf(deps, scope, req.params.v, filename);
    const part =
      version === undefined ? undefined : await artifactService.loadArtifact({ ...scope, filename, version });
    if (!part) throw notFound(filename, req.params.v);
    res.json(part);
  });

  router.get(`${base}/*name/versions`, async (req, res) => {
    res.json(await artifactService.listVersions({ ...scopeOf(req, res), filename: nameOf(req) }));
  });

  router.get(`${base}/*name`, async (req, res) => {
    const filename = nameOf(req);
    const raw = req.query.version;
    const scope = scopeOf(req, res);
    const version = raw === undefined ? undefined : await versionOf(deps, scope, raw, filename);
    const part =
      raw !== undefined && version === undefined
        ? undefined
        : await artifactService.loadArtifact({
            ...scope,
            filename,
            ...(version !== undefined ? { version } : {}),
          });
    if (!part) throw notFound(filename, typeof raw === "string" ? raw : undefined);
    res.json(part);
  });

  router.delete(`${base}/*name`, async (req, res) => {
    await artifactService.deleteArtifact({ ...scopeOf(req, res), filename: nameOf(req) });
    res.status(204).end();
  });

  return router;
}

/**
 * Version metadata as clients see it: a `file:` canonicalUri is an absolute path on the
 * server's disk, which no client can use and none should learn, so it is left out.
 */
function publicVersion(version: ArtifactVersion): ArtifactVersion {
  if (!version.canonicalUri?.startsWith("file:")) return version;
  const { canonicalUri: _hidden, ...rest } = version;
  return rest;
}

/** The session's scope plus the request's disconnect `signal` (which the core request types do not declare). */
interface CallScope {
  appName: string;
  userId: string;
  sessionId: string;
  signal: AbortSignal;
}

function scopeOf(req: Request, res: Response): CallScope {
  const p = req.params as Record<string, string>;
  return { appName: p.app!, userId: p.user!, sessionId: p.sid!, signal: abortOnDisconnect(req, res).signal };
}

function nameOf(req: Request): string {
  const raw = (req.params as Record<string, unknown>).name;
  return Array.isArray(raw) ? raw.join("/") : String(raw);
}

/** A version number, `latest` (resolved to the newest, undefined when none), or a 400. */
async function versionOf(
  deps: RouteDeps,
  scope: CallScope,
  raw: unknown,
  filename: string,
): Promise<number | undefined> {
  if (raw === "latest") {
    const versions = await deps.context.artifactService.listVersions({ ...scope, filename });
    return versions[versions.length - 1];
  }
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) {
    throw new HttpRequestError(
      400,
      "INVALID_REQUEST",
      `Invalid artifact version ${JSON.stringify(raw)}: expected a non-negative integer or "latest".`,
    );
  }
  return Number(raw);
}

function notFound(filename: string, version?: string): HttpRequestError {
  const message =
    version === undefined ? `Artifact not found: ${filename}` : `Artifact not found: ${filename} version ${version}`;
  return new HttpRequestError(404, "ARTIFACT_NOT_FOUND", message);
}

function partFromBody(raw: Record<string, unknown>): Part {
  try {
    const part = contentFromJson({ parts: [raw] }).parts?.[0];
    if (!part) throw new InvalidJsonError("artifact must be a Part");
    return part;
  } catch (error) {
    if (error instanceof InvalidJsonError)
      throw new HttpRequestError(400, "INVALID_REQUEST", `Invalid request body: artifact: ${error.message}`);
    throw error;
  }
}
