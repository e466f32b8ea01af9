import type { Request } from "express";
import { camelizeKeys } from "@agentkit/core/internal";

/**
 * Who may call a route when the server authenticates:
 * - `public`: anyone, no credentials read;
 * - `authenticated`: any principal (app-level data, no user's data);
 * - `own-user`: the user the request acts for must be the principal's (or the principal is admin);
 * - `owner-scoped`: any principal; the route itself answers with the principal's data only
 *   (traces: they are found by session or event id, with no user in the path);
 * - `admin`: principals with the admin scope only.
 */
export type RouteAccess = "public" | "authenticated" | "own-user" | "owner-scoped" | "admin";

export interface RouteRule {
  /** Upper-case HTTP methods (GET also covers HEAD), or `"*"` for every method. */
  methods: readonly string[] | "*";
  /**
   * Express path patterns (`/apps/:app/users/:user/sessions{/*rest}`), matched by an Express
   * router: the same case-insensitivity, trailing-slash and parameter decoding as the routes.
   */
  paths: readonly string[];
  access: RouteAccess;
  /**
   * `own-user`: the user the request acts for. Default: the `:user` path parameter. Undefined
   * (no user in the request) lets the route answer its own 400.
   */
  userOf?: (req: Request, params: Readonly<Record<string, string>>) => string | undefined;
}

/** `userId` of a JSON body, read exactly as the routes read it (camelCase wins over snake_case). */
export function bodyUserOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const userId = camelizeKeys(body as Record<string, unknown>).userId;
  return typeof userId === "string" ? userId : undefined;
}

/** `/api/reasoning_engine`: the body may sit under `input` (as the route reads it). */
export function reasoningEngineUserOf(body: unknown): string | undefined {
  const raw = body as { input?: unknown } | undefined;
  const input = raw && typeof raw === "object" && raw.input && typeof raw.input === "object" ? raw.input : raw;
  return bodyUserOf(input);
}

/** The `/run_live` user, read as the live socket server reads it. */
export function liveUserOf(query: URLSearchParams): string | undefined {
  return query.get("user_id") ?? query.get("userId") ?? undefined;
}

const GET = ["GET"] as const;
const ANY = "*" as const;

/** `/apps/{app}` and `/dev/apps/{app}` forms of the eval routes' roots. */
const evalRoots = ["/dev/apps/:app", "/apps/:app"].flatMap((p) =>
  ["eval_sets", "eval-sets", "eval_results", "eval-results"].map((r) => `${p}/${r}{/*rest}`),
);

/**
 * The built-in routes' rules, first match wins; a request no rule matches is `admin` only
 * (fail closed: a route added without a rule is never open by accident). docs/server.md lists
 * which rule covers each route.
 */
export const BUILT_IN_ROUTE_RULES: readonly RouteRule[] = [
  // Health probes and the dev UI's static files (a browser cannot send a header when it navigates).
  { methods: GET, paths: ["/", "/health", "/healthz", "/readyz", "/dev-ui{/*rest}"], access: "public" },
  // App-level metadata: any principal.
  { methods: GET, paths: ["/list-apps", "/version", "/apps/:app/app-info"], access: "authenticated" },
  // One user's data: sessions, artifacts, event graphs, memory.
  {
    methods: ANY,
    paths: ["/apps/:app/users/:user{/*rest}", "/dev/apps/:app/users/:user{/*rest}"],
    access: "own-user",
  },
  { methods: ["POST"], paths: ["/run", "/run_sse"], access: "own-user", userOf: (req) => bodyUserOf(req.body) },
  {
    methods: ["POST"],
    paths: ["/api/reasoning_engine"],
    access: "own-user",
    userOf: (req) => reasoningEngineUserOf(req.body),
  },
  {
    methods: GET,
    paths: ["/run_live"],
    access: "own-user",
    userOf: (req) => liveUserOf(new URL(req.originalUrl, "http://localhost").searchParams),
  },
  // Traces are found by session or event id: the debug router answers with the principal's only.
  { methods: GET, paths: ["/debug/trace/*rest", "/dev/apps/:app/debug/trace/*rest"], access: "owner-scoped" },
  // Agent structure and graphs: app-level.
  {
    methods: GET,
    paths: [
      "/dev/apps/:app/build_graph",
      "/dev/apps/:app/build_graph_image",
      "/dev/apps/:app/graph",
      "/dev/build_graph/:app",
      "/dev/:app/graph",
    ],
    access: "authenticated",
  },
  // The metric catalogue is app-level; eval sets and results hold any user's conversations and
  // eval runs execute as the cases' users: dev tooling, admin only.
  {
    methods: GET,
    paths: [
      "/dev/apps/:app/metrics-info",
      "/dev/apps/:app/metrics_info",
      "/apps/:app/metrics-info",
      "/apps/:app/metrics_info",
    ],
    access: "authenticated",
  },
  { methods: ANY, paths: evalRoots, access: "admin" },
  // The builder and agent tests write files of the agents directory: admin only.
  { methods: ANY, paths: ["/dev/apps/:app/builder{/*rest}", "/dev/apps/:app/tests{/*rest}"], access: "admin" },
  // Telemetry consent: any principal reads it, only an admin changes the server-wide answer.
  // Telemetry consent is dev tooling (the dev tooling gate): admins only, like the builder.
  { methods: [...GET, "POST"], paths: ["/config/telemetry"], access: "admin" },
];
