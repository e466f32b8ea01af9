import type { CorsOptions as CorsMiddlewareOptions } from "cors";

/** CORS of the spec's CORS properties; off unless given. */
export interface ServerCorsOptions {
  /** Allowed origins: exact origins, `*` for any, or `regex:<pattern>` entries. */
  allowOrigins: readonly string[];
  /** Default GET, HEAD, PUT, PATCH, POST, DELETE (PATCH is needed to rename sessions). */
  allowMethods?: readonly string[];
  /** Default: the headers the preflight asks for. */
  allowHeaders?: readonly string[];
  /** Default false. */
  allowCredentials?: boolean;
  /** Preflight cache in seconds. */
  maxAge?: number;
}

export const DEFAULT_CORS_METHODS = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"] as const;

/** A predicate over request origins for an allow-list (exact, `*`, or `regex:`). */
export function originMatcher(allowOrigins: readonly string[]): (origin: string) => boolean {
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  let any = false;
  for (const entry of allowOrigins) {
    const e = entry.trim();
    if (e === "*") any = true;
    else if (e.startsWith("regex:")) patterns.push(new RegExp(e.slice("regex:".length)));
    else if (e) exact.add(e.replace(/\/+$/, ""));
  }
  return (origin) => any || exact.has(origin) || patterns.some((p) => p.test(origin));
}

/** Options of the `cors` middleware: the matching origin is reflected, never a fixed string. */
export function corsMiddlewareOptions(options: ServerCorsOptions): CorsMiddlewareOptions {
  const matches = originMatcher(options.allowOrigins);
  return {
    origin: (origin, callback) => callback(null, origin !== undefined && matches(origin) ? origin : false),
    methods: [...(options.allowMethods ?? DEFAULT_CORS_METHODS)],
    ...(options.allowHeaders ? { allowedHeaders: [...options.allowHeaders] } : {}),
    credentials: options.allowCredentials ?? false,
    // The session list's next-page token (GET .../sessions?pageSize=N), readable by browser clients.
    exposedHeaders: ["X-Next-Page-Token"],
    ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
    optionsSuccessStatus: 204,
  };
}
