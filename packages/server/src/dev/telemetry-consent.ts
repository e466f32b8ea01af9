import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Router } from "../http/express-module.js";
import { z } from "zod";
import { HttpRequestError } from "../errors/server-errors.js";
import { lazySchema } from "@agentkit/core/internal";
import { parseBody } from "../http/request-schemas.js";

/**
 * The dev UI's telemetry consent answer (http-api.md 4.11/4.14). agentkit itself sends no
 * telemetry: the answer is only kept so the UI asks once.
 */
export interface TelemetryConsentStore {
  /** true / false once answered, null before. */
  read(): Promise<boolean | null>;
  write(consent: boolean): Promise<void>;
}

/** Kept in memory (lost on restart). */
export function memoryTelemetryConsent(): TelemetryConsentStore {
  let value: boolean | null = null;
  return {
    read: async () => value,
    write: async (consent) => {
      value = consent;
    },
  };
}

/** Kept in a JSON file (`{"telemetry": bool}`); a missing or unreadable file reads as null. */
export function fileTelemetryConsent(file: string): TelemetryConsentStore {
  return {
    async read() {
      try {
        const value = (JSON.parse(await readFile(file, "utf8")) as { telemetry?: unknown }).telemetry;
        return typeof value === "boolean" ? value : null;
      } catch {
        return null;
      }
    },
    async write(consent) {
      await mkdir(dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify({ telemetry: consent })}\n`);
      await rename(temp, file);
    },
  };
}

const consentSchema = lazySchema(() => z.object({ telemetry: z.boolean() }));

/**
 * GET `/config/telemetry` → `{"telemetry": true|false|null}`; POST with header
 * `X-ADK-Telemetry-Request: true` and `{"telemetry": bool}` stores the answer (400 without the
 * header, so a plain cross-site form cannot set it).
 */
export function createTelemetryRouter(store: TelemetryConsentStore): Router {
  const router = Router();
  router.get("/config/telemetry", async (_req, res) => {
    res.set("Cache-Control", "no-store").json({ telemetry: await store.read() });
  });
  router.post("/config/telemetry", async (req, res) => {
    if (req.get("x-adk-telemetry-request") !== "true") {
      throw new HttpRequestError(
        400,
        "MISSING_TELEMETRY_HEADER",
        "Forbidden: send the header X-ADK-Telemetry-Request: true to change the telemetry setting.",
      );
    }
    const { telemetry } = parseBody(consentSchema, req.body);
    await store.write(telemetry);
    res.json({ telemetry });
  });
  return router;
}
