import { sessionFromJson } from "@agentkit/core";
import {
  createFileEvalStore,
  EvalCaseAlreadyExistsError,
  EvalSetAlreadyExistsError,
  EvalSetNotFoundError,
  invocationsFromSession,
  type EvalCase,
  type EvalSet,
} from "@agentkit/server/devtools";
import { CliUsageError } from "./cli-usage-error.js";
import { readJsonFile } from "./read-json-file.js";
import { evalStoreDir, resolveEvalTarget } from "./eval-command.js";
import type { EvalSetCommandOptions } from "./parse-eval-args.js";

/**
 * `agentkit eval_set create | add_case`: writes eval sets where the dev UI and `agentkit eval`
 * find them (`<agents_dir>/.agentkit/evals/<app>/eval_sets/<id>.evalset.json`). `add_case`
 * turns a saved session into one case (its turns are the expected conversation), or each
 * scenario of an ADK scenarios file into a `conversationScenario` case for the user simulator.
 */
export async function runEvalSetCommand(options: EvalSetCommandOptions, output: NodeJS.WritableStream): Promise<void> {
  const target = await resolveEvalTarget(options.appDir);
  if (!target.appName)
    throw new CliUsageError(`${options.appDir}: not an app folder (no agent.ts, agent.js or root_agent.yaml in it)`);
  const appName = target.appName;
  const store = createFileEvalStore({ dir: evalStoreDir(target.agentsDir) });
  const now = Date.now() / 1000;
  if (options.action === "create") {
    if (await store.getEvalSet(appName, options.evalSetId)) throw new EvalSetAlreadyExistsError(options.evalSetId);
    const created: EvalSet = { evalSetId: options.evalSetId, evalCases: [], creationTimestamp: now };
    await store.putEvalSet(appName, created);
    output.write(`Created eval set ${options.evalSetId} of app ${appName}\n`);
    return;
  }
  const set = await store.getEvalSet(appName, options.evalSetId);
  if (!set) throw new EvalSetNotFoundError(appName, options.evalSetId);
  const added = options.sessionFile
    ? [await caseFromSessionFile(options.sessionFile, appName, options.evalId, now)]
    : await casesFromScenariosFile(options.scenariosFile!, set, now);
  for (const c of added)
    if (set.evalCases.some((e) => e.evalId === c.evalId)) throw new EvalCaseAlreadyExistsError(set.evalSetId, c.evalId);
  set.evalCases.push(...added);
  await store.putEvalSet(appName, set);
  output.write(`Added ${added.map((c) => c.evalId).join(", ")} to eval set ${set.evalSetId} of app ${appName}\n`);
}

async function caseFromSessionFile(
  file: string,
  appName: string,
  evalId: string | undefined,
  now: number,
): Promise<EvalCase> {
  let session: ReturnType<typeof sessionFromJson>;
  try {
    session = sessionFromJson(await readJsonFile(file));
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`${file}: not a session (${(error as Error).message})`);
  }
  const conversation = invocationsFromSession(session.events);
  if (conversation.length === 0) throw new CliUsageError(`${file}: the session has no user turn to make a case of`);
  return {
    evalId: evalId ?? session.id.replace(/[^A-Za-z0-9_.-]/g, "_"),
    conversation,
    sessionInput: { appName, userId: session.userId, state: {} },
    creationTimestamp: now,
  };
}

/** ADK's scenarios file: `{scenarios: [{starting_prompt, conversation_plan, user_persona?}]}`. */
async function casesFromScenariosFile(file: string, set: EvalSet, now: number): Promise<EvalCase[]> {
  const raw = await readJsonFile(file);
  const scenarios = (raw as { scenarios?: unknown } | null)?.scenarios;
  if (!Array.isArray(scenarios) || scenarios.length === 0)
    throw new CliUsageError(`${file}: scenarios: expected a non-empty array`);
  return scenarios.map((s: unknown, i) => {
    const o = (typeof s === "object" && s !== null ? s : {}) as Record<string, unknown>;
    const startingPrompt = o.starting_prompt ?? o.startingPrompt;
    const conversationPlan = o.conversation_plan ?? o.conversationPlan;
    if (typeof startingPrompt !== "string" || startingPrompt === "")
      throw new CliUsageError(`${file}: scenarios[${i}].starting_prompt: expected a string`);
    if (typeof conversationPlan !== "string" || conversationPlan === "")
      throw new CliUsageError(`${file}: scenarios[${i}].conversation_plan: expected a string`);
    const persona = o.user_persona ?? o.userPersona;
    if (persona !== undefined && typeof persona !== "string" && (typeof persona !== "object" || persona === null))
      throw new CliUsageError(`${file}: scenarios[${i}].user_persona: expected a persona id or an object`);
    const scenario = {
      startingPrompt,
      conversationPlan,
      ...(persona !== undefined ? { userPersona: persona as string | Record<string, unknown> } : {}),
    };
    let n = set.evalCases.length + i + 1;
    const taken = new Set(set.evalCases.map((c) => c.evalId));
    while (taken.has(`scenario_${n}`)) n += 1;
    return { evalId: `scenario_${n}`, conversationScenario: scenario, creationTimestamp: now };
  });
}
