import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { ReadonlyContext } from "../context/readonly-context.js";
import type { Content } from "../content/content.js";
import type { GenerateContentConfig } from "../content/generate-content-config.js";
import { createEventActions, type EventActions } from "../events/event-actions.js";
import type { Event } from "../events/event.js";
import {
  appendInstructions,
  appendTools,
  createLlmRequest,
  setOutputSchema,
  type LiveConnectConfig,
  type LlmRequest,
} from "../models/llm-request.js";
import { BaseTool } from "../tools/base-tool.js";
import { BaseToolset, isToolset } from "../tools/base-toolset.js";
import { ToolContext } from "../context/tool-context.js";
import {
  getCurrentTurnContents,
  getLentContents,
  insertInstructionContents,
  type ContentsMemoSlot,
} from "./contents.js";
import { ownRequest } from "./shared-contents.js";
import { appendLentTools } from "./shared-declarations.js";
import { applyInstructions } from "./instructions.js";
import { outputSchemaToJson, SET_MODEL_RESPONSE_INSTRUCTION, SetModelResponseTool } from "./output-schema.js";
import { buildTransferInstructions, getTransferTargets, TransferToAgentTool } from "./transfer.js";
import { deepCopy } from "../content/deep-copy.js";
import { LastJsonKey } from "../content/last-json-key.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * Builds the model request for one step of an LlmAgent (ADK's request processors, in order):
 * model and config, instructions (global, static, agent, identity), contents from history,
 * the agent's tools (toolsets expanded), structured output, and agent transfer.
 *
 * Tools' `processLlmRequest` may write state or artifacts through their `ToolContext`: those
 * writes land in `actions`, which the caller must carry on the event it stores for this step
 * (as every other state write is persisted), so live and stored state never disagree.
 */
export async function buildLlmRequest(
  ctx: InvocationContext,
  agent: LlmAgent,
  actions: EventActions = createEventActions(),
): Promise<LlmRequest> {
  const request = await buildLlmRequestLendingContents(ctx, agent, actions);
  ownRequest(request);
  return request;
}

/**
 * `buildLlmRequest` whose `contents` may still be the lent history array (see
 * `getLentContents`) and whose tool declarations may be lent too (`shared-declarations.ts`): for
 * the text flow, which calls `ownRequest` before anything that may edit or keep them (callbacks,
 * plugins, a model that does not declare `readsContentsOnly`). Steps
 * of the build that may edit them (instruction contents, tools and toolsets that override
 * `processLlmRequest`) get a copy first. The request itself when nothing of the build waits
 * (instructions without providers, tools that only declare themselves: the usual agent), else a
 * promise of it: an async function would cost a promise and microtask turns per model call.
 */
export function buildLlmRequestLendingContents(
  ctx: InvocationContext,
  agent: LlmAgent,
  actions: EventActions = createEventActions(),
): LlmRequest | Promise<LlmRequest> {
  const model = agent.canonicalModel;
  const request = createLlmRequest({
    model: typeof model === "string" ? model : model.model,
    config: copyConfig(agent.generateContentConfig),
  });
  if (ctx.contextCacheConfig) {
    request.cacheConfig = { ...ctx.contextCacheConfig };
    // The cache state lives in the session, not only in the model object (ADK's rule: the
    // latest event of this agent that carries cache metadata), so a new process, runner or
    // model instance (a stateless server) reuses the cache the last response described.
    const prior = latestCacheMetadata(sessionEvents(ctx.session), agent.name);
    if (prior) request.cacheMetadata = deepCopy(prior);
  }
  const live = liveConnectConfigOf(ctx);
  if (live) request.liveConnectConfig = live;

  const applied = applyInstructions(ctx, agent, request);
  if (applied instanceof Promise) {
    return applied.then((instructionContents) => {
      addContents(ctx, agent, request, instructionContents);
      return addToolsAsync(ctx, agent, actions, request);
    });
  }
  addContents(ctx, agent, request, applied);
  // Tools that only add their declarations need nothing awaited.
  if (!agent.tools.every((union) => !isToolset(union) && onlyDeclares(union)))
    return addToolsAsync(ctx, agent, actions, request);
  appendLentTools(request, agent.tools as readonly BaseTool[]);
  return finishRequest(agent, request);
}

/** The history (shared while nothing edits it), after the instruction contents if there are any. */
function addContents(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
  instructionContents: Content[],
): void {
  request.contents =
    agent.includeContents === "none"
      ? getCurrentTurnContents(ctx.branch, sessionEvents(ctx.session), agent.name)
      : getLentContents(ctx.branch, sessionEvents(ctx.session), agent.name, contentsSlot(ctx, agent));
  if (instructionContents.length > 0) {
    ownRequest(request);
    insertInstructionContents(request.contents, instructionContents);
  }
}

/** The agent's tools, toolsets expanded and each tool's `processLlmRequest` awaited; then `finishRequest`. */
async function addToolsAsync(
  ctx: InvocationContext,
  agent: LlmAgent,
  actions: EventActions,
  request: LlmRequest,
): Promise<LlmRequest> {
  let readonly: ReadonlyContext | undefined;
  for (const union of agent.tools) {
    // A plain tool only adds its declaration: no context is made for it.
    if (!isToolset(union) && onlyDeclares(union)) {
      appendLentTools(request, [union]);
      continue;
    }
    const toolContext = new ToolContext(ctx, { actions });
    let tools: readonly BaseTool[];
    if (isToolset(union)) {
      if (union.processLlmRequest !== BaseToolset.prototype.processLlmRequest) ownRequest(request);
      await union.processLlmRequest({ toolContext, llmRequest: request });
      tools = await union.getTools((readonly ??= new ReadonlyContext(ctx)));
    } else tools = [union];
    for (const tool of tools) {
      const processing = processWithTool(tool, toolContext, request);
      if (processing) await processing;
    }
  }
  return finishRequest(agent, request);
}

/** Structured output and agent transfer: the build's last steps. */
function finishRequest(agent: LlmAgent, request: LlmRequest): LlmRequest {
  const targets = getTransferTargets(agent);
  if (agent.outputSchema !== undefined) {
    // Models reject a response schema together with function calling, so an agent that has
    // tools (or transfer targets) answers through the set_model_response tool instead.
    if (agent.tools.length === 0 && targets.length === 0) {
      setOutputSchema(request, outputSchemaToJson(agent.name, agent.outputSchema));
    } else {
      appendTools(request, [new SetModelResponseTool(agent.name, agent.outputSchema)]);
      appendInstructions(request, [SET_MODEL_RESPONSE_INSTRUCTION]);
    }
  }
  if (targets.length > 0) {
    appendInstructions(request, [buildTransferInstructions(agent, targets)]);
    appendTools(request, [new TransferToAgentTool(agent, targets)]);
  }
  return request;
}

/** True for a tool whose `processLlmRequest` is the default: it only adds its declaration. */
function onlyDeclares(tool: BaseTool): boolean {
  return tool.processLlmRequest === BaseTool.prototype.processLlmRequest;
}

/**
 * A tool's `processLlmRequest`; one that overrides the default (which only adds the tool) may edit
 * the contents. The default is done here at once, with no promise to await (two promises and a
 * microtask turn per tool and model call otherwise).
 */
function processWithTool(tool: BaseTool, toolContext: ToolContext, request: LlmRequest): Promise<void> | undefined {
  if (onlyDeclares(tool)) {
    appendLentTools(request, [tool]);
    return undefined;
  }
  ownRequest(request);
  return tool.processLlmRequest({ toolContext, llmRequest: request });
}

/**
 * A history shorter than this is built in full on every request, without the runner's contents
 * memo. A full build of under 16 events costs about what finding, extending and storing a memo
 * does (10-15 µs), so a memo pays off only in a longer session; without this floor every short
 * session (one user turn with a tool call: 3 events at its second request) paid the memo's upkeep
 * for nothing, about 10% of such an invocation, and pushed longer sessions' memos out of the
 * bounded cache. From there on, what a request costs no longer grows with the session.
 */
export const MEMO_FROM_EVENTS = 16;

/** The memo slot of this session, branch and agent in the runner's cache (none without a cache). */
function contentsSlot(ctx: InvocationContext, agent: LlmAgent): ContentsMemoSlot | undefined {
  if (sessionEvents(ctx.session).length < MEMO_FROM_EVENTS) return undefined;
  return ctx.contentsCache?.slot(
    lastSlotKey.of([ctx.appName, ctx.userId, ctx.session.id, ctx.branch ?? "", agent.name]),
  );
}

const lastSlotKey = new LastJsonKey();

/** The cache metadata of this agent's most recent event that has some. */
function latestCacheMetadata(events: readonly Event[], agentName: string): Record<string, unknown> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author === agentName && event.cacheMetadata) return event.cacheMetadata;
  }
  return undefined;
}

/** A deep copy of the agent's config (so per-request changes never leak into the agent). */
function copyConfig(config: GenerateContentConfig | undefined): GenerateContentConfig {
  if (!config) return {};
  const { abortSignal, ...rest } = config;
  let copy: GenerateContentConfig;
  try {
    copy = deepCopy(rest);
  } catch {
    copy = { ...rest };
  }
  if (abortSignal) copy.abortSignal = abortSignal;
  return copy;
}

/**
 * Live settings from the run config (used by the live flow); none for a run that sets none of
 * them (a text run), without a record made for nothing.
 */
function liveConnectConfigOf(ctx: InvocationContext): LiveConnectConfig | undefined {
  const rc = ctx.runConfig;
  let live: LiveConnectConfig | undefined;
  if (rc.responseModalities) (live ??= {}).responseModalities = rc.responseModalities;
  if (rc.speechConfig) (live ??= {}).speechConfig = rc.speechConfig;
  if (rc.inputAudioTranscription) (live ??= {}).inputAudioTranscription = rc.inputAudioTranscription;
  if (rc.outputAudioTranscription) (live ??= {}).outputAudioTranscription = rc.outputAudioTranscription;
  if (rc.realtimeInputConfig) (live ??= {}).realtimeInputConfig = rc.realtimeInputConfig;
  if (rc.proactivity) (live ??= {}).proactivity = rc.proactivity;
  if (rc.enableAffectiveDialog !== undefined) (live ??= {}).enableAffectiveDialog = rc.enableAffectiveDialog;
  if (rc.sessionResumption) (live ??= {}).sessionResumption = rc.sessionResumption;
  if (rc.contextWindowCompression) (live ??= {}).contextWindowCompression = rc.contextWindowCompression;
  return live;
}
