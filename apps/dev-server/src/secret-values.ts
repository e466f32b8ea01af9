import { readFileSync } from "node:fs";
import type { ServeOptions } from "./parse-cli-args.js";

/** Environment variables whose values are credentials (model keys, tokens, passwords, OTLP headers). */
const SECRET_VARIABLE = /(API_KEY|API_KEYS|_KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS|_HEADERS)$/i;

/**
 * The values this server must never write to its logs or export: the clients' API keys
 * (`--api-keys-file` or AGENTKIT_API_KEYS) and the values of credential-named environment
 * variables (`OPENAI_API_KEY`, `OTEL_EXPORTER_OTLP_HEADERS` and each header value in it, …).
 * Unreadable key files yield nothing here; authentication reports them.
 */
export function secretValues(options: ServeOptions, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || !SECRET_VARIABLE.test(name)) continue;
    out.push(value);
    // `k=v,k2=v2` lists (OTLP headers): each value on its own too.
    if (name.endsWith("_HEADERS"))
      for (const item of value.split(",")) {
        const v = item.slice(item.indexOf("=") + 1).trim();
        if (v) out.push(v, safeDecode(v));
      }
  }
  if (options.auth?.mode === "api-key") {
    let text = options.auth.keysText ?? "";
    if (options.auth.keysFile !== undefined) {
      try {
        text = readFileSync(options.auth.keysFile, "utf8");
      } catch {
        text = "";
      }
    }
    for (const entry of text.split(/[\n;]/)) {
      const key = entry.trim().split(/\s+/)[0];
      if (key && !key.startsWith("#")) out.push(key);
    }
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
