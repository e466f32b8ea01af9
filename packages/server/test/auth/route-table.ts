// The access rule every route of the server must get when auth is on, and the enumeration of
// a server's routes from Express's own router stack (shared with apps/dev-server's test of
// its extra mounts).

export type Access = "public" | "authenticated" | "own-user" | "owner-scoped" | "admin";

export const artifacts = "/apps/:app/users/:user/sessions/:sid/artifacts";
const evalRows = (): Record<string, Access> => {
  const rows: Record<string, Access> = {};
  for (const prefix of ["/dev/apps/:app", "/apps/:app"]) {
    for (const sets of [`${prefix}/eval_sets`, `${prefix}/eval-sets`]) {
      const one = `${sets}/:evalSetId`;
      Object.assign(rows, {
        [`GET ${sets}`]: "admin",
        [`POST ${sets}`]: "admin",
        [`GET ${one}`]: "admin",
        [`POST ${one}`]: "admin",
        [`DELETE ${one}`]: "admin",
        [`GET ${one}/evals`]: "admin",
        [`GET ${one}/eval-cases`]: "admin",
        [`POST ${one}/add_session`]: "admin",
        [`POST ${one}/add-session`]: "admin",
        [`POST ${one}/run_eval`]: "admin",
        [`POST ${one}/run-eval`]: "admin",
        [`POST ${one}/run`]: "admin",
        [`POST ${one}/run_stream`]: "admin",
        [`POST ${one}/run-stream`]: "admin",
      });
      for (const cases of [`${one}/evals/:evalCaseId`, `${one}/eval-cases/:evalCaseId`])
        Object.assign(rows, { [`GET ${cases}`]: "admin", [`PUT ${cases}`]: "admin", [`DELETE ${cases}`]: "admin" });
    }
    for (const results of [`${prefix}/eval_results`, `${prefix}/eval-results`])
      Object.assign(rows, { [`GET ${results}`]: "admin", [`GET ${results}/:resultId`]: "admin" });
    for (const info of [`${prefix}/metrics-info`, `${prefix}/metrics_info`]) rows[`GET ${info}`] = "authenticated";
  }
  return rows;
};

/** Every route (method and Express path) and its rule. `USE` rows are mounted handlers (static files). */
export const TABLE: Record<string, Access> = {
  // apps
  "GET /list-apps": "authenticated",
  "GET /version": "authenticated",
  "GET /health": "public",
  "GET /healthz": "public",
  "GET /readyz": "public",
  "GET /apps/:app/app-info": "authenticated",
  // sessions
  "POST /apps/:app/users/:user/sessions": "own-user",
  "POST /apps/:app/users/:user/sessions/:sid": "own-user",
  "GET /apps/:app/users/:user/sessions": "own-user",
  "GET /apps/:app/users/:user/sessions/:sid": "own-user",
  "DELETE /apps/:app/users/:user/sessions/:sid": "own-user",
  "PATCH /apps/:app/users/:user/sessions/:sid": "own-user",
  "GET /apps/:app/users/:user/sessions/:sid/usage": "own-user",
  "POST /apps/:app/users/:user/sessions/:sid/rewind": "own-user",
  "POST /apps/:app/users/:user/sessions/:sid/fork": "own-user",
  "POST /apps/:app/users/:user/sessions/:sid/resume": "own-user",
  // artifacts
  [`GET ${artifacts}`]: "own-user",
  [`POST ${artifacts}`]: "own-user",
  [`GET ${artifacts}/*name/versions/metadata`]: "own-user",
  [`GET ${artifacts}/*name/versions/:v/metadata`]: "own-user",
  [`GET ${artifacts}/*name/versions/:v`]: "own-user",
  [`GET ${artifacts}/*name/versions`]: "own-user",
  [`GET ${artifacts}/*name`]: "own-user",
  [`DELETE ${artifacts}/*name`]: "own-user",
  // memory and runs
  "PATCH /apps/:app/users/:user/memory": "own-user",
  "POST /run": "own-user",
  "POST /run_sse": "own-user",
  "POST /api/reasoning_engine": "own-user",
  // dev UI
  "GET /": "public",
  "GET /dev-ui": "public",
  "GET /dev-ui/assets/config/runtime-config.json": "public",
  "GET /dev-ui/config": "public",
  "GET /dev-ui/oauth/callback": "public",
  "USE /dev-ui": "public",
  // dev routes (web mode)
  "GET /config/telemetry": "admin",
  "POST /config/telemetry": "admin",
  "GET /dev/apps/:app/builder": "admin",
  "POST /dev/apps/:app/builder/save": "admin",
  "POST /dev/apps/:app/builder/cancel": "admin",
  "GET /dev/apps/:app/tests": "admin",
  "POST /dev/apps/:app/tests/run": "admin",
  "POST /dev/apps/:app/tests/rebuild": "admin",
  "GET /dev/apps/:app/tests/:name": "admin",
  "PUT /dev/apps/:app/tests/:name": "admin",
  "DELETE /dev/apps/:app/tests/:name": "admin",
  // debug traces (no user in the path: the router answers with the principal's traces only)
  "GET /debug/trace/session/:sessionId": "owner-scoped",
  "GET /dev/apps/:app/debug/trace/session/:sessionId": "owner-scoped",
  "GET /debug/trace/:eventId": "owner-scoped",
  "GET /dev/apps/:app/debug/trace/:eventId": "owner-scoped",
  // graphs
  "GET /apps/:app/users/:userId/sessions/:sessionId/events/:eventId/graph": "own-user",
  "GET /dev/apps/:app/users/:userId/sessions/:sessionId/events/:eventId/graph": "own-user",
  "GET /dev/apps/:app/build_graph": "authenticated",
  "GET /dev/build_graph/:app": "authenticated",
  "GET /dev/apps/:app/build_graph_image": "authenticated",
  "GET /dev/apps/:app/graph": "authenticated",
  "GET /dev/:app/graph": "authenticated",
  // evals
  ...evalRows(),
};

export interface Layer {
  route?: { methods: Record<string, boolean> };
  rawPath?: string | string[];
  handle: { stack?: Layer[] };
}

/** `METHOD path` of every route and `USE path` of every handler mounted on a path, from the router stack. */
export function enumerateRoutes(stack: Layer[]): string[] {
  const out: string[] = [];
  for (const layer of stack) {
    const paths = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath ?? "/"];
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((m) => m !== "_all");
      for (const method of methods) for (const path of paths) out.push(`${method.toUpperCase()} ${path}`);
    } else if (layer.handle.stack) {
      out.push(...enumerateRoutes(layer.handle.stack));
    } else if (paths.some((p) => p !== "/")) {
      for (const path of paths) out.push(`USE ${path}`);
    }
  }
  return out;
}
