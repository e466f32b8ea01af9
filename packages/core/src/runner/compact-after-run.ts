import type { BaseAgent } from "../agents/base-agent.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { createEvent, type Event } from "../events/event.js";
import { isLlmAgent } from "../flows/llm-agent-kind.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import type { EventsCompactionConfig, EventsSummarizer } from "./app.js";
import { compactEventsIfDue } from "./events-compaction.js";
import { LlmEventSummarizer } from "./llm-event-summarizer.js";

/** `errorCode` of the event a run yields when compaction after it failed. */
export const COMPACTION_FAILED = "EVENTS_COMPACTION_FAILED";

/**
 * Compacts after a completed run. Without a configured summarizer, an `LlmEventSummarizer` on
 * the root agent's own model is used (ADK's default); a root that is not an LlmAgent has no
 * model, so nothing is compacted. A failure (model error, bad model name) must not turn a run
 * that completed into an error: it comes back as an event with `errorCode`
 * `EVENTS_COMPACTION_FAILED`, which the runner yields without storing it in the session. An
 * abort during compaction ends it silently.
 */
export async function compactAfterRun(args: {
  config: EventsCompactionConfig;
  rootAgent: BaseAgent;
  ctx: InvocationContext;
  session: Session;
  sessionService: BaseSessionService;
  signal?: AbortSignal;
  fallback: { summarizer?: EventsSummarizer };
}): Promise<Event | undefined> {
  try {
    const summarizer = args.config.summarizer ?? defaultSummarizer(args);
    if (!summarizer) return undefined;
    await compactEventsIfDue({
      config: { ...args.config, summarizer },
      session: args.session,
      sessionService: args.sessionService,
      signal: args.signal,
    });
    return undefined;
  } catch (error) {
    if (args.signal?.aborted) return undefined;
    return createEvent({
      invocationId: args.ctx.invocationId,
      author: args.rootAgent.name,
      errorCode: COMPACTION_FAILED,
      errorMessage:
        `Events compaction failed (the run itself completed; history stays uncompacted until a later run ` +
        `compacts it): ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}

function defaultSummarizer(args: {
  rootAgent: BaseAgent;
  ctx: InvocationContext;
  fallback: { summarizer?: EventsSummarizer };
}): EventsSummarizer | undefined {
  if (args.fallback.summarizer) return args.fallback.summarizer;
  if (!isLlmAgent(args.rootAgent)) return undefined;
  args.fallback.summarizer = new LlmEventSummarizer({ model: args.rootAgent.resolveModel(args.ctx) });
  return args.fallback.summarizer;
}
