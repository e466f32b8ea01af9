import type { z } from "zod";
import type { BaseCodeExecutor } from "../code-executors/base-code-executor.js";
import type { Content } from "../content/content.js";
import type { GenerateContentConfig } from "../content/generate-content-config.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import { LLM_AGENT_MARK, isLlmAgent } from "../flows/llm-agent-kind.js";
import { runLlmFlow } from "../flows/llm-flow.js";
import { runLiveFlow } from "../flows/live-flow.js";
import { outputSchemaToJson, type OutputSchema } from "../flows/output-schema.js";
import { saveOutputToState } from "../flows/output-key.js";
import type { BaseLlm } from "../models/base-llm.js";
import type { BaseTool } from "../tools/base-tool.js";
import { isToolset, type ToolUnion } from "../tools/base-toolset.js";
import { BaseAgent, type BaseAgentOptions } from "./base-agent.js";
import type {
  AfterModelCallback,
  AfterToolCallback,
  BeforeModelCallback,
  BeforeToolCallback,
  CallbackSlot,
  OnModelErrorCallback,
  OnToolErrorCallback,
} from "./callbacks.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { ReadonlyContext } from "../context/readonly-context.js";

/** An instruction: text (with `{state}` templating) or a function of the context (used as is). */
export type InstructionProvider = (context: ReadonlyContext) => string | Promise<string>;
export type Instruction = string | InstructionProvider;

/** Which history the model sees. */
export const IncludeContents = {
  /** The branch's whole conversation history. */
  DEFAULT: "default",
  /** Only the current turn (the latest user or other-agent message and what followed it). */
  NONE: "none",
} as const;
export type IncludeContents = (typeof IncludeContents)[keyof typeof IncludeContents];

export interface LlmAgentOptions extends BaseAgentOptions {
  /**
   * A model, or its name resolved through the runner's `ModelRegistry`;
   * inherited from the nearest LlmAgent ancestor when omitted.
   */
  model?: BaseLlm | string;
  instruction?: Instruction;
  /** Instruction for every agent of the tree; only the root agent's is used. */
  globalInstruction?: Instruction;
  /** Sent verbatim as system instruction (never templated); `instruction` then goes into the contents. */
  staticInstruction?: string | Content;
  tools?: ToolUnion[];
  /** Model settings; tools, system instruction and response schema come from the agent instead. */
  generateContentConfig?: GenerateContentConfig;
  includeContents?: IncludeContents;
  /** Saves the final response text (or parsed object with `outputSchema`) to this state key. */
  outputKey?: string;
  outputSchema?: OutputSchema;
  /** Arguments the agent takes when used as a tool (`AgentTool`). */
  inputSchema?: z.ZodType;
  /** Runs code blocks of the model's responses (or, model-side, lets the model run them). */
  codeExecutor?: BaseCodeExecutor;
  disallowTransferToParent?: boolean;
  disallowTransferToPeers?: boolean;
  beforeModelCallback?: CallbackSlot<BeforeModelCallback>;
  afterModelCallback?: CallbackSlot<AfterModelCallback>;
  onModelErrorCallback?: CallbackSlot<OnModelErrorCallback>;
  beforeToolCallback?: CallbackSlot<BeforeToolCallback>;
  afterToolCallback?: CallbackSlot<AfterToolCallback>;
  onToolErrorCallback?: CallbackSlot<OnToolErrorCallback>;
}

const FORBIDDEN_CONFIG_FIELDS: [keyof GenerateContentConfig, string][] = [
  ["tools", "pass tools through the agent's `tools` option"],
  ["systemInstruction", "use the agent's `instruction` option"],
  ["responseSchema", "use the agent's `outputSchema` option"],
  ["responseJsonSchema", "use the agent's `outputSchema` option"],
];

/**
 * An agent driven by a model: it builds a request from its instructions, tools and the
 * session history, calls the model, runs the tools the model calls and repeats until the
 * model gives a final answer. It can transfer the conversation to other agents of the tree.
 */
export class LlmAgent extends BaseAgent {
  readonly [LLM_AGENT_MARK] = true;
  readonly model?: BaseLlm | string;
  readonly instruction: Instruction;
  readonly globalInstruction: Instruction;
  readonly staticInstruction?: string | Content;
  readonly tools: ToolUnion[];
  readonly generateContentConfig?: GenerateContentConfig;
  readonly includeContents: IncludeContents;
  readonly outputKey?: string;
  readonly outputSchema?: OutputSchema;
  readonly inputSchema?: z.ZodType;
  readonly codeExecutor?: BaseCodeExecutor;
  readonly disallowTransferToParent: boolean;
  readonly disallowTransferToPeers: boolean;
  readonly beforeModelCallback?: CallbackSlot<BeforeModelCallback>;
  readonly afterModelCallback?: CallbackSlot<AfterModelCallback>;
  readonly onModelErrorCallback?: CallbackSlot<OnModelErrorCallback>;
  readonly beforeToolCallback?: CallbackSlot<BeforeToolCallback>;
  readonly afterToolCallback?: CallbackSlot<AfterToolCallback>;
  readonly onToolErrorCallback?: CallbackSlot<OnToolErrorCallback>;

  constructor(options: LlmAgentOptions) {
    super(options);
    this.model = options.model;
    this.instruction = options.instruction ?? "";
    this.globalInstruction = options.globalInstruction ?? "";
    this.staticInstruction = options.staticInstruction;
    this.tools = [...(options.tools ?? [])];
    this.generateContentConfig = options.generateContentConfig;
    this.includeContents = options.includeContents ?? IncludeContents.DEFAULT;
    this.outputKey = options.outputKey;
    this.outputSchema = options.outputSchema;
    this.inputSchema = options.inputSchema;
    this.codeExecutor = options.codeExecutor;
    this.disallowTransferToParent = options.disallowTransferToParent ?? false;
    this.disallowTransferToPeers = options.disallowTransferToPeers ?? false;
    this.beforeModelCallback = options.beforeModelCallback;
    this.afterModelCallback = options.afterModelCallback;
    this.onModelErrorCallback = options.onModelErrorCallback;
    this.beforeToolCallback = options.beforeToolCallback;
    this.afterToolCallback = options.afterToolCallback;
    this.onToolErrorCallback = options.onToolErrorCallback;
    this.validate();
  }

  /**
   * The model this agent uses: its own, else the nearest LlmAgent ancestor's. A string is a
   * name still to be resolved (see `resolveModel`).
   */
  get canonicalModel(): BaseLlm | string {
    let agent: BaseAgent | undefined = this;
    while (agent) {
      if (isLlmAgent(agent) && agent.model !== undefined && agent.model !== "") return agent.model;
      agent = agent.parentAgent;
    }
    throw new ConfigurationError(`Agent "${this.name}" has no model: pass \`model\` to it or to an LlmAgent ancestor.`);
  }

  /** The model instance for a run: names resolve through the runner's `ModelRegistry`. */
  resolveModel(ctx: Pick<InvocationContext, "modelRegistry">): BaseLlm {
    const model = this.canonicalModel;
    if (typeof model !== "string") return model;
    if (!ctx.modelRegistry) {
      throw new ConfigurationError(
        `Agent "${this.name}" names its model "${model}" but no model registry is configured: pass \`modelRegistry\` ` +
          `to the Runner (e.g. createModelRegistry() from @agentkit/models) or give the agent a BaseLlm instance.`,
      );
    }
    return ctx.modelRegistry.resolve(model);
  }

  /** The tools for this context, toolsets expanded. */
  async canonicalTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    const result: BaseTool[] = [];
    for (const union of this.tools) {
      if (isToolset(union)) result.push(...(await union.getTools(context)));
      else result.push(union);
    }
    return result;
  }

  /** The instruction text and whether to skip `{state}` templating (function instructions). */
  async canonicalInstruction(
    context: ReadonlyContext,
  ): Promise<{ instruction: string; bypassStateInjection: boolean }> {
    return resolveInstruction(this.instruction, context);
  }

  async canonicalGlobalInstruction(
    context: ReadonlyContext,
  ): Promise<{ instruction: string; bypassStateInjection: boolean }> {
    return resolveInstruction(this.globalInstruction, context);
  }

  /** Closes the agent's toolsets and code executor, then its sub-agents. */
  override async close(): Promise<void> {
    const toolsets = this.tools.filter(isToolset);
    const closing: Promise<void>[] = toolsets.map((t) => t.close());
    if (this.codeExecutor) closing.push(this.codeExecutor.close());
    const results = await Promise.allSettled(closing);
    await super.close();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** The flow itself (it saves the answer under `outputKey`): no layer forwarding each event. */
  protected override runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    return runLlmFlow(ctx, this);
  }

  protected override async *runLiveImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    for await (const event of runLiveFlow(ctx, this)) {
      saveOutputToState(this, event);
      yield event;
    }
  }

  private validate(): void {
    const config = this.generateContentConfig;
    if (config) {
      for (const [field, advice] of FORBIDDEN_CONFIG_FIELDS) {
        if (config[field] !== undefined) {
          throw new ConfigurationError(
            `Agent "${this.name}": generateContentConfig.${String(field)} is not allowed; ${advice}.`,
          );
        }
      }
    }
    if (this.includeContents !== IncludeContents.DEFAULT && this.includeContents !== IncludeContents.NONE) {
      throw new ConfigurationError(
        `Agent "${this.name}": includeContents must be "default" or "none", ` +
          `got ${JSON.stringify(this.includeContents)}.`,
      );
    }
    if (this.model !== undefined && typeof this.model !== "string" && !isModel(this.model)) {
      throw new ConfigurationError(`Agent "${this.name}": model must be a BaseLlm instance or a model name.`);
    }
    if (this.outputSchema !== undefined) outputSchemaToJson(this.name, this.outputSchema);
    const executor = this.codeExecutor as unknown;
    if (
      executor !== undefined &&
      (typeof executor !== "object" ||
        executor === null ||
        typeof (executor as BaseCodeExecutor).executeCode !== "function")
    ) {
      throw new ConfigurationError(
        `Agent "${this.name}": codeExecutor must be a BaseCodeExecutor (e.g. BuiltInCodeExecutor or ` +
          `LocalCodeExecutor from @agentkit/tools).`,
      );
    }
    for (const tool of this.tools) {
      if (
        !isToolset(tool) &&
        !(typeof tool === "object" && tool !== null && typeof (tool as BaseTool).runAsync === "function")
      ) {
        throw new ConfigurationError(
          `Agent "${this.name}": every tool must be a BaseTool or BaseToolset (wrap functions in a FunctionTool).`,
        );
      }
    }
  }
}

/**
 * A string instruction as it is, a function's once it has answered. Not async for a string: an
 * async method that returns a promise spends three more turns of the microtask queue than one
 * that returns a value.
 */
function resolveInstruction(
  instruction: Instruction,
  context: ReadonlyContext,
):
  | { instruction: string; bypassStateInjection: boolean }
  | Promise<{ instruction: string; bypassStateInjection: boolean }> {
  if (typeof instruction === "function") return resolveFunctionInstruction(instruction, context);
  return { instruction, bypassStateInjection: false };
}

async function resolveFunctionInstruction(
  instruction: Exclude<Instruction, string>,
  context: ReadonlyContext,
): Promise<{ instruction: string; bypassStateInjection: boolean }> {
  return { instruction: await instruction(context), bypassStateInjection: true };
}

/** Duck-typed so models built against another copy of core still count. */
function isModel(value: unknown): value is BaseLlm {
  return typeof value === "object" && value !== null && typeof (value as BaseLlm).generateContentAsync === "function";
}
