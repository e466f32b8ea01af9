import type { BaseAgent } from "../agents/base-agent.js";
import type { Content } from "../content/content.js";
import type { NodeScope } from "../context/invocation-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { getFunctionCalls, type Event } from "../events/event.js";
import { isLlmAgent } from "../flows/llm-agent-kind.js";
import { BaseNode, type BaseNodeOptions, type NodeYield } from "./base-node.js";
import type { NodeContext } from "./node-context.js";

export interface AgentNodeOptions extends Omit<BaseNodeOptions, "name" | "rerunOnResume"> {
  /** Node name; default the agent's name. */
  name?: string;
  /**
   * Show the node's input to an LLM agent as a user turn when the agent's history does not hold
   * it already (default true). Workflow agents (`SequentialAgent`, ...) turn it off: their
   * sub-agents read the conversation.
   */
  injectInput?: boolean;
}

/**
 * Runs an agent (an LLM agent, a workflow, any `BaseAgent`) as a node. Its events are the
 * node's events, unchanged. An LLM agent's output is its final answer text (parsed with its
 * `outputSchema` when it has one); a workflow's output is its own output; another agent's is its
 * last answer text. On resume the agent runs again and continues from its history.
 */
export class AgentNode extends BaseNode {
  readonly agent: BaseAgent;
  readonly injectInput: boolean;

  constructor(agent: BaseAgent, options: AgentNodeOptions = {}) {
    if (!agent || typeof (agent as BaseAgent).runAsync !== "function")
      throw new ConfigurationError("AgentNode needs an agent: new AgentNode(agent).");
    super({ ...options, name: options.name ?? agent.name });
    this.agent = agent;
    this.injectInput = options.injectInput ?? true;
  }

  protected override defaultRerunOnResume(): boolean {
    return true;
  }

  override async *runNode(ctx: NodeContext, input: unknown): AsyncGenerator<NodeYield, unknown, void> {
    let scopedOutput: { value: unknown } | undefined;
    const scope: NodeScope = {
      path: ctx.nodePath,
      resume: ctx.isResume,
      input,
      inputInHistory: ctx.inputInHistory,
      recordedByParent: true,
      setOutput: (value) => {
        scopedOutput = { value };
      },
    };
    if (this.injectInput && isLlmAgent(this.agent) && !ctx.isResume && !ctx.inputInHistory) {
      const content = toUserContent(input);
      if (content) yield ctx.createNodeEvent({ author: "user", content });
    }
    const agentContext = ctx.invocation.withAgent(this.agent, { nodeScope: scope });
    const run = ctx.live ? this.agent.runLive(agentContext) : this.agent.runAsync(agentContext);
    let answer: string | undefined;
    for await (const event of run) {
      const text = finalText(event);
      if (text !== undefined) answer = text;
      yield event;
    }
    if (scopedOutput) return scopedOutput.value;
    if (answer === undefined) return undefined;
    if (isLlmAgent(this.agent) && this.agent.outputSchema !== undefined) {
      try {
        return JSON.parse(answer);
      } catch {
        return answer;
      }
    }
    return answer;
  }
}

/** The answer text of a complete model event without function calls, or undefined. */
function finalText(event: Event): string | undefined {
  if (event.partial || event.author === "user" || !event.content || event.content.role === "user") return undefined;
  if (getFunctionCalls(event).length > 0) return undefined;
  const texts = (event.content.parts ?? []).flatMap((p) => (typeof p.text === "string" && !p.thought ? [p.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}

/** The node input as a user turn: content as is, text, or JSON; nothing for undefined/null. */
export function toUserContent(input: unknown): Content | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input === "object" && Array.isArray((input as Content).parts))
    return { role: "user", parts: (input as Content).parts };
  return { role: "user", parts: [{ text: typeof input === "string" ? input : JSON.stringify(input) }] };
}
