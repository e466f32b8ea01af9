import type { Request, Response } from "express";
import { Router } from "../http/express-module.js";
import { z } from "zod";
import { HttpRequestError } from "../errors/server-errors.js";
import { isJsonObject } from "../http/is-json-object.js";
import type { ServerContext } from "../server-context.js";
import {
  EvalCaseAlreadyExistsError,
  EvalCaseNotFoundError,
  EvalResultNotFoundError,
  EvalSetAlreadyExistsError,
  EvalSetNotFoundError,
} from "./eval-errors.js";
import { createEvalMetrics, type EvalMetricsOptions } from "./eval-metrics.js";
import { assertSafeId, type EvalStore } from "./eval-store.js";
import {
  evalCaseSchema,
  evalMetricSchema,
  evalSetSchema,
  wireObject,
  type EvalCase,
  type EvalMetric,
  type EvalSet,
  type RunEvalResult,
} from "./eval-types.js";
import { invocationsFromSession } from "./invocations-from-events.js";
import { runEvalSet, type EvalProgress } from "./run-eval-set.js";
import { checkEvalMetrics } from "./score-eval-case.js";
import type { ToolSimulationPlugin } from "./tool-simulation-plugin.js";
import type { UserSimulatorOptions, UserSimulatorResolver } from "./user-simulator.js";
import { KeyedQueue } from "@agentkit/core/internal";

export type EvalRouterOptions = ServerContext &
  EvalMetricsOptions & {
    evalStore: EvalStore;
    /** Cases run at once (default 1). */
    parallel?: number;
    /**
     * Plays the user of conversation-scenario cases: one simulator for every app, or a function
     * giving each app's (called only when a run has a scenario case; `undefined`: none, and
     * those cases are NOT_EVALUATED, saying so).
     */
    userSimulator?: UserSimulatorOptions | UserSimulatorResolver;
    /** The tool simulation plugin installed in the app runners (`createAgentServer({plugins})`). */
    toolSimulator?: ToolSimulationPlugin;
  };

/** The dev UI's default metrics (used when a run names none). */
export const DEFAULT_EVAL_METRICS: readonly EvalMetric[] = [
  { metricName: "tool_trajectory_avg_score", threshold: 1 },
  { metricName: "response_match_score", threshold: 0.7 },
];

const createSetBody = wireObject({ evalSet: evalSetSchema.optional(), evalSetId: z.string().optional() });
const addSessionBody = wireObject({
  evalId: z.string().min(1),
  sessionId: z.string().min(1),
  userId: z.string().min(1),
});
const runBody = wireObject({
  evalIds: z.array(z.string()).optional(),
  evalCaseIds: z.array(z.string()).optional(),
  evalMetrics: z.array(evalMetricSchema).optional(),
});

type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * Every eval route of http-api.md 4.10 under `/dev/apps/:app/` (the underscore family the
 * compiled UI calls and the newer hyphenated one) and the `/apps/:app/` aliases: eval sets,
 * cases (added from a session or edited), runs scored by metrics, stored results, and the
 * metric catalogue. Bodies are validated (camelCase or snake_case); errors are JSON.
 */
export function createEvalRouter(options: EvalRouterOptions): Router {
  const { evalStore: store } = options;
  const definitions = createEvalMetrics(options);
  const router = Router();
  /** Read-modify-write of one app's eval sets, one at a time. */
  const edits = new KeyedQueue();
  const exclusive = <T>(appName: string, work: () => Promise<T>): Promise<T> => edits.run(appName, work);

  const app = async (req: Request): Promise<string> => {
    const name = String(req.params.app);
    await options.loader.loadApp(name);
    return name;
  };
  const requireSet = async (appName: string, evalSetId: string): Promise<EvalSet> => {
    assertSafeId("eval set id", evalSetId);
    const set = await store.getEvalSet(appName, evalSetId);
    if (!set) throw new EvalSetNotFoundError(appName, evalSetId);
    return set;
  };
  const setId = (req: Request) => String(req.params.evalSetId);
  const caseId = (req: Request) => String(req.params.evalCaseId);

  const listSets: Handler = async (req, res) => {
    res.json(await store.listEvalSets(await app(req)));
  };

  const createSet: Handler = async (req, res) => {
    const appName = await app(req);
    const body = parse(createSetBody, req.body ?? {});
    const pathId = req.params.evalSetId === undefined ? undefined : String(req.params.evalSetId);
    // `{eval_set: {...}}` (current UI), a bare eval set, or only an id (path or body).
    const given = body.evalSet ?? (isEvalSetLike(req.body) ? parse(evalSetSchema, req.body) : undefined);
    const evalSetId = pathId ?? given?.evalSetId ?? body.evalSetId;
    if (!evalSetId) throw new HttpRequestError(400, "INVALID_REQUEST", "eval_set.eval_set_id: required");
    if (pathId && given && given.evalSetId !== pathId)
      throw new HttpRequestError(400, "INVALID_REQUEST", "eval_set_id in the body differs from the path");
    assertSafeId("eval set id", evalSetId);
    const created: EvalSet = {
      evalSetId,
      ...(given?.name ? { name: given.name } : {}),
      ...(given?.description ? { description: given.description } : {}),
      evalCases: (given?.evalCases ?? []) as EvalCase[],
      creationTimestamp: Date.now() / 1000,
    };
    await exclusive(appName, async () => {
      if (await store.getEvalSet(appName, evalSetId)) throw new EvalSetAlreadyExistsError(evalSetId);
      await store.putEvalSet(appName, created);
    });
    res.json(created);
  };

  const getSet: Handler = async (req, res) => {
    res.json(await requireSet(await app(req), setId(req)));
  };

  const deleteSet: Handler = async (req, res) => {
    const appName = await app(req);
    assertSafeId("eval set id", setId(req));
    const deleted = await exclusive(appName, () => store.deleteEvalSet(appName, setId(req)));
    if (!deleted) throw new EvalSetNotFoundError(appName, setId(req));
    res.json({});
  };

  const listCases: Handler = async (req, res) => {
    const set = await requireSet(await app(req), setId(req));
    res.json(set.evalCases.map((c) => c.evalId).sort());
  };

  const addSession: Handler = async (req, res) => {
    const appName = await app(req);
    const body = parse(addSessionBody, req.body ?? {});
    const session = await options.sessionService.getSession({
      appName,
      userId: body.userId,
      sessionId: body.sessionId,
    });
    if (!session) throw new HttpRequestError(404, "SESSION_NOT_FOUND", `Session not found: ${body.sessionId}`);
    const evalCase: EvalCase = {
      evalId: body.evalId,
      conversation: invocationsFromSession(session.events),
      sessionInput: { appName, userId: body.userId, state: {} },
      creationTimestamp: Date.now() / 1000,
    };
    await exclusive(appName, async () => {
      const set = await requireSet(appName, setId(req));
      if (set.evalCases.some((c) => c.evalId === body.evalId))
        throw new EvalCaseAlreadyExistsError(set.evalSetId, body.evalId);
      set.evalCases.push(evalCase);
      await store.putEvalSet(appName, set);
    });
    res.json(evalCase);
  };

  const getCase: Handler = async (req, res) => {
    const set = await requireSet(await app(req), setId(req));
    const found = set.evalCases.find((c) => c.evalId === caseId(req));
    if (!found) throw new EvalCaseNotFoundError(set.evalSetId, caseId(req));
    res.json(found);
  };

  const updateCase: Handler = async (req, res) => {
    const appName = await app(req);
    const raw = { evalId: caseId(req), ...(isJsonObject(req.body) ? req.body : {}) };
    const updated = parse(evalCaseSchema, raw) as unknown as EvalCase;
    if (updated.evalId !== caseId(req))
      throw new HttpRequestError(400, "INVALID_REQUEST", "evalId in the body differs from the path");
    await exclusive(appName, async () => {
      const set = await requireSet(appName, setId(req));
      const index = set.evalCases.findIndex((c) => c.evalId === caseId(req));
      if (index < 0) throw new EvalCaseNotFoundError(set.evalSetId, caseId(req));
      if (!updated.creationTimestamp) updated.creationTimestamp = set.evalCases[index]!.creationTimestamp;
      set.evalCases[index] = updated;
      await store.putEvalSet(appName, set);
    });
    res.json(updated);
  };

  const deleteCase: Handler = async (req, res) => {
    const appName = await app(req);
    await exclusive(appName, async () => {
      const set = await requireSet(appName, setId(req));
      const index = set.evalCases.findIndex((c) => c.evalId === caseId(req));
      if (index < 0) throw new EvalCaseNotFoundError(set.evalSetId, caseId(req));
      set.evalCases.splice(index, 1);
      await store.putEvalSet(appName, set);
    });
    res.json({});
  };

  /** Validates the run request, then (after `onStart`) runs it and stores the result. */
  const run = async (req: Request, onProgress?: (progress: EvalProgress) => void, onStart?: () => void) => {
    const appName = await app(req);
    const body = parse(runBody, req.body ?? {});
    const metrics = (body.evalMetrics ?? DEFAULT_EVAL_METRICS) as EvalMetric[];
    // What a client sends is data: a custom metric's code is named only in the developer's files.
    const named = metrics.find((m) => m.customFunctionPath !== undefined);
    if (named)
      throw new HttpRequestError(
        400,
        "INVALID_REQUEST",
        `eval_metrics.${named.metricName}.custom_function_path: custom metrics run from test_config.json (agentkit eval), not from a request`,
      );
    checkEvalMetrics(metrics, definitions);
    const set = await requireSet(appName, setId(req));
    const ids = body.evalCaseIds ?? body.evalIds;
    for (const id of ids ?? [])
      if (!set.evalCases.some((c) => c.evalId === id)) throw new EvalCaseNotFoundError(set.evalSetId, id);
    // As runEvalSet picks them: no ids (or an empty list) means every case.
    const selected = ids?.length ? set.evalCases.filter((c) => ids.includes(c.evalId)) : set.evalCases;
    const userSimulator =
      typeof options.userSimulator === "function"
        ? selected.some((c) => c.conversationScenario)
          ? await options.userSimulator(appName)
          : undefined
        : options.userSimulator;
    const controller = new AbortController();
    // Stop the agents when the client goes away before the run ends.
    const onClose = () => {
      if (!req.res?.writableEnded) controller.abort(new Error("client disconnected"));
    };
    req.res?.on("close", onClose);
    onStart?.();
    try {
      const result = await runEvalSet({
        runner: await options.runnerFor(appName),
        sessionService: options.sessionService,
        appName,
        evalSet: set,
        evalCaseIds: ids,
        metrics,
        definitions,
        signal: controller.signal,
        ...(options.parallel ? { parallel: options.parallel } : {}),
        ...(userSimulator ? { userSimulator } : {}),
        ...(options.toolSimulator ? { toolSimulator: options.toolSimulator } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
      await store.putEvalSetResult(appName, result);
      return { result, metrics };
    } finally {
      req.res?.off("close", onClose);
    }
  };

  const runLegacy: Handler = async (req, res) => {
    const { result, metrics } = await run(req);
    res.json(
      result.evalCaseResults.map(
        (r): RunEvalResult => ({ ...r, evalMetricResults: pairs(metrics, r.overallEvalMetricResults) }),
      ),
    );
  };

  const runCurrent: Handler = async (req, res) => {
    const { result, metrics } = await run(req);
    res.json({
      runEvalResults: result.evalCaseResults.map((r) => ({
        ...r,
        evalMetricResults: pairs(metrics, r.overallEvalMetricResults),
      })),
    });
  };

  /**
   * The run as server-sent events (agentkit's, for the dev UI's progress bar): a `{progress}`
   * frame as each case starts and ends, then `{result}` (the stored EvalSetResult), or `{error}`.
   * Bad requests are still plain 4xx answers, checked before the stream starts.
   */
  const runStream: Handler = async (req, res) => {
    const send = (frame: unknown) => res.write(`data: ${JSON.stringify(frame)}\n\n`);
    try {
      const { result } = await run(
        req,
        (p) =>
          send({
            progress: {
              kind: p.kind,
              evalId: p.evalId,
              done: p.done,
              total: p.total,
              ...(p.kind === "case_finished" ? { finalEvalStatus: p.result.finalEvalStatus } : {}),
            },
          }),
        () => res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }),
      );
      send({ result });
    } catch (error) {
      if (!res.headersSent) throw error;
      // Past the headers a failure can only be a frame; internals are not sent.
      send({ error: error instanceof HttpRequestError ? error.message : "The eval run failed." });
    }
    res.end();
  };

  const listResults: Handler = async (req, res) => {
    res.json(await store.listEvalSetResults(await app(req)));
  };

  const getResult: Handler = async (req, res) => {
    const appName = await app(req);
    const id = String(req.params.resultId);
    assertSafeId("eval result id", id);
    const found = await store.getEvalSetResult(appName, id);
    if (!found) throw new EvalResultNotFoundError(appName, id);
    res.json(found);
  };

  const metricsInfo: Handler = async (req, res) => {
    await app(req);
    // The UIs send a threshold for every metric they offer, which would turn an informational
    // figure (efficiency) into a gate: the catalogue lists the metrics that can run and gate.
    const offered = [...definitions.values()].filter((d) => !d.unavailableReason && !d.informational);
    res.json({ metricsInfo: offered.map((d) => d.info) });
  };

  for (const prefix of ["/dev/apps/:app", "/apps/:app"]) {
    const sets = [`${prefix}/eval_sets`, `${prefix}/eval-sets`];
    const one = sets.map((s) => `${s}/:evalSetId`);
    const cases = one.flatMap((s) => [`${s}/evals/:evalCaseId`, `${s}/eval-cases/:evalCaseId`]);
    router.get(sets, listSets);
    router.post(sets, createSet);
    router.get(one, getSet);
    router.post(one, createSet);
    router.delete(one, deleteSet);
    router.get(
      one.flatMap((s) => [`${s}/evals`, `${s}/eval-cases`]),
      listCases,
    );
    router.post(
      one.flatMap((s) => [`${s}/add_session`, `${s}/add-session`]),
      addSession,
    );
    router.get(cases, getCase);
    router.put(cases, updateCase);
    router.delete(cases, deleteCase);
    router.post(
      one.flatMap((s) => [`${s}/run_eval`, `${s}/run-eval`]),
      runLegacy,
    );
    router.post(
      one.map((s) => `${s}/run`),
      runCurrent,
    );
    router.post(
      one.flatMap((s) => [`${s}/run_stream`, `${s}/run-stream`]),
      runStream,
    );
    router.get([`${prefix}/eval_results`, `${prefix}/eval-results`], listResults);
    router.get([`${prefix}/eval_results/:resultId`, `${prefix}/eval-results/:resultId`], getResult);
    router.get([`${prefix}/metrics-info`, `${prefix}/metrics_info`], metricsInfo);
  }
  return router;
}

function pairs(
  metrics: EvalMetric[],
  results: RunEvalResult["overallEvalMetricResults"],
): RunEvalResult["evalMetricResults"] {
  return results.map((r, i) => [metrics[i] ?? { metricName: r.metricName, threshold: r.threshold }, r]);
}

function isEvalSetLike(value: unknown): boolean {
  return isJsonObject(value) && ("evalCases" in value || "eval_cases" in value);
}

/** Validates a body; a failure is a 400 naming the field. */
function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  throw new HttpRequestError(400, "INVALID_REQUEST", `${where}: ${issue?.message ?? "invalid"}`);
}
