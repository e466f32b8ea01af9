import type { z } from "zod";
import type { BaseAgent } from "../agents/base-agent.js";
import {
  BaseArtifactService,
  type ArtifactRequest,
  type ArtifactScope,
  type ArtifactVersion,
  type LoadArtifactRequest,
  type SaveArtifactRequest,
} from "../artifacts/base-artifact-service.js";
import type { Content, Part } from "../content/content.js";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { isLlmAgent } from "../flows/llm-agent-kind.js";
import { parseStructuredOutput } from "../flows/output-schema.js";
import { eventFromJson, eventToJson } from "../events/event-json.js";
import { pendingRequests } from "../flows/suspended-tools.js";
import { Runner } from "../runner/runner.js";
import { InMemorySessionService } from "../sessions/in-memory-session-service.js";
import { withoutTempKeys } from "../sessions/state.js";
import { readInvocationUsage } from "../usage/usage-walk.js";
import type { UsageRollup } from "../usage/usage-rollup.js";
import { BaseTool, type ToolRunRequest } from "./base-tool.js";
import { zodInputJsonSchema } from "./zod-input-json-schema.js";
import type { ToolContext } from "../context/tool-context.js";

export interface AgentToolOptions {
  /** The agent to call; the tool takes its name and description. */
  agent: BaseAgent;
  /** Return the agent's answer to the user as is, without another model turn. */
  skipSummarization?: boolean;
  /** Run the parent's plugins in the child run too (default true, as ADK). */
  includePlugins?: boolean;
}

/**
 * Lets a model call another agent as a function: `{ request: string }` (or the agent's
 * `inputSchema`). The agent runs in a child invocation on a fresh in-memory session that
 * starts with a copy of the caller's state; its state changes (except `temp:`) flow back
 * into the caller's state and the artifacts it saves go to the caller's artifact service
 * (recorded in the caller's `artifactDelta`). The result is the agent's last answer text,
 * parsed with its `outputSchema` when it has one. When the agent pauses for the client (a
 * confirmation, input, a long-running tool), the call pauses too: the client sees the agent's
 * requests under the calling agent, and the answer continues the agent's run where it stopped
 * (its session is checkpointed in the caller's session). A workflow's result is its output.
 */
export class AgentTool extends BaseTool {
  readonly agent: BaseAgent;
  readonly skipSummarization: boolean;
  readonly includePlugins: boolean;

  constructor(options: AgentToolOptions) {
    if (!options?.agent) throw new ConfigurationError("AgentTool needs an agent: new AgentTool({ agent }).");
    super({ name: options.agent.name, description: options.agent.description });
    this.agent = options.agent;
    this.skipSummarization = options.skipSummarization ?? false;
    this.includePlugins = options.includePlugins ?? true;
  }

  override getDeclaration(): FunctionDeclaration {
    const inputSchema = this.inputSchema;
    if (inputSchema) {
      return { name: this.name, description: this.description, parametersJsonSchema: zodInputJsonSchema(inputSchema) };
    }
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: { type: "object", properties: { request: { type: "string" } }, required: ["request"] },
    };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    if (this.skipSummarization) toolContext.actions.skipSummarization = true;
    const resumed = toolContext.resumedCall;
    const message = resumed
      ? { content: { role: "user", parts: resumed.answers } satisfies Content }
      : this.buildMessage(args);
    if ("error" in message) return { error: message.error };

    const parent = toolContext.invocation;
    const sessionService = new InMemorySessionService();
    // The child runner owns nothing: it is never closed (plugins and toolsets belong to the parent).
    const runner = new Runner({
      appName: parent.appName,
      agent: this.agent,
      sessionService,
      artifactService: parent.artifactService ? new ForwardingArtifactService(toolContext) : undefined,
      memoryService: parent.memoryService,
      modelRegistry: parent.modelRegistry,
      plugins: this.includePlugins ? [...parent.pluginManager.plugins] : [],
      resumability: parent.resumability,
    });
    const session = await sessionService.createSession({
      appName: parent.appName,
      userId: parent.userId,
      state: toolContext.state.toRecord(),
    });
    // A suspended call continues: the child session is rebuilt from the checkpoint, then answered.
    for (const stored of checkpointEvents(resumed?.checkpoint))
      await sessionService.appendEvent({ session, event: eventFromJson(stored) });

    let lastContent: Content | undefined;
    let lastOutput: { value: unknown } | undefined;
    let childUsage: UsageRollup | undefined;
    for await (const event of runner.runAsync({
      userId: session.userId,
      sessionId: session.id,
      newMessage: message.content,
      signal: parent.signal,
    })) {
      for (const [key, value] of Object.entries(withoutTempKeys(event.actions.stateDelta)))
        toolContext.state.set(key, value);
      if (event.content && !event.partial) lastContent = event.content;
      // A workflow's result is its output (its nodes' output events, its own end record).
      if (event.output !== undefined && !event.partial) lastOutput = { value: event.output };
      childUsage = readInvocationUsage(event) ?? childUsage;
    }
    // The child run's model calls are this invocation's too (its usage and its budget).
    if (childUsage) parent.usage.addNested(childUsage);
    // The child paused for the client (a confirmation, input, a long-running tool): so does this call.
    const childEvents =
      (await sessionService.getSession({ appName: session.appName, userId: session.userId, sessionId: session.id }))
        ?.events ?? [];
    const requests = pendingRequests(childEvents);
    if (requests.length > 0) {
      toolContext.suspend({ requests, checkpoint: { events: childEvents.map(eventToJson) } });
      return undefined;
    }
    if (lastOutput) return lastOutput.value;
    const text = (lastContent?.parts ?? [])
      .flatMap((p) => (typeof p.text === "string" && !p.thought ? [p.text] : []))
      .join("\n");
    const outputSchema = isLlmAgent(this.agent) ? this.agent.outputSchema : undefined;
    if (outputSchema !== undefined && text !== "") return parseStructuredOutput(outputSchema, text);
    return text;
  }

  private get inputSchema(): z.ZodType | undefined {
    return isLlmAgent(this.agent) ? this.agent.inputSchema : undefined;
  }

  /** The child run's message for the call's arguments, or the error the call answers with. */
  protected buildMessage(args: Record<string, unknown>): { content: Content } | { error: string } {
    const inputSchema = this.inputSchema;
    if (inputSchema) {
      const parsed = inputSchema.safeParse(args ?? {});
      if (!parsed.success) {
        const detail = parsed.error.issues
          .map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
          .join("; ");
        return { error: `Invalid arguments for agent ${this.name}: ${detail}` };
      }
      return { content: { role: "user", parts: [{ text: JSON.stringify(parsed.data) }] } };
    }
    const request = args?.request;
    if (typeof request !== "string")
      return { error: `Invalid arguments for agent ${this.name}: "request" must be a string.` };
    return { content: { role: "user", parts: [{ text: request }] } };
  }
}

/** The stored child events of a suspended call's checkpoint. */
function checkpointEvents(checkpoint: unknown): unknown[] {
  const events = (checkpoint as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? events : [];
}

/**
 * The child run's artifact service: saves and loads go through the caller's ToolContext, so
 * they land in the caller's session and its `artifactDelta`.
 */
class ForwardingArtifactService extends BaseArtifactService {
  constructor(private readonly toolContext: ToolContext) {
    super();
  }

  override saveArtifact(request: SaveArtifactRequest): Promise<number> {
    return this.toolContext.saveArtifact(request.filename, request.artifact, request.customMetadata);
  }

  override loadArtifact(request: LoadArtifactRequest): Promise<Part | undefined> {
    return this.toolContext.loadArtifact(request.filename, request.version);
  }

  override listArtifactKeys(_request: ArtifactScope): Promise<string[]> {
    return this.toolContext.listArtifacts();
  }

  override listVersions(request: ArtifactRequest): Promise<number[]> {
    return this.parentService().listVersions(this.parentScope(request.filename));
  }

  override deleteArtifact(request: ArtifactRequest): Promise<void> {
    return this.parentService().deleteArtifact(this.parentScope(request.filename));
  }

  override listArtifactVersions(request: ArtifactRequest): Promise<ArtifactVersion[]> {
    return this.parentService().listArtifactVersions(this.parentScope(request.filename));
  }

  private parentService(): BaseArtifactService {
    return this.toolContext.invocation.artifactService!;
  }

  private parentScope(filename: string): ArtifactRequest {
    const ctx = this.toolContext.invocation;
    return { appName: ctx.appName, userId: ctx.userId, sessionId: ctx.session.id, filename };
  }
}
