import type { BaseAgent } from "../agents/base-agent.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { BaseTool, type ToolRunRequest } from "../tools/base-tool.js";
import { isLlmAgent } from "./llm-agent-kind.js";

export const TRANSFER_TO_AGENT_TOOL_NAME = "transfer_to_agent";

/**
 * Agents this agent may hand the conversation to: its sub-agents, plus (when its parent is an
 * LlmAgent) the parent unless `disallowTransferToParent` and the peers unless
 * `disallowTransferToPeers`.
 */
export function getTransferTargets(agent: LlmAgent): BaseAgent[] {
  const targets: BaseAgent[] = [...agent.subAgents];
  const parent = agent.parentAgent;
  if (!parent || !isLlmAgent(parent)) return targets;
  if (!agent.disallowTransferToParent) targets.push(parent);
  if (!agent.disallowTransferToPeers) targets.push(...parent.subAgents.filter((peer) => peer.name !== agent.name));
  return targets;
}

/**
 * True when a new invocation may start at this agent (ADK's runner rule): it and every
 * ancestor are LlmAgents that allow transfer back to their parent.
 */
export function isTransferableAcrossAgentTree(agent: BaseAgent): boolean {
  let current: BaseAgent | undefined = agent;
  while (current) {
    if (!isLlmAgent(current) || current.disallowTransferToParent) return false;
    current = current.parentAgent;
  }
  return true;
}

/** The system-instruction text listing the transfer targets. */
export function buildTransferInstructions(agent: LlmAgent, targets: BaseAgent[]): string {
  const names = targets
    .map((t) => t.name)
    .sort()
    .map((n) => `\`${n}\``)
    .join(", ");
  const infos = targets.map((t) => `Agent name: ${t.name}\nAgent description: ${t.description}`).join("\n\n");
  let text = `You have a list of other agents to transfer to:

${infos}

If you are the best to answer the question according to your description, you can answer it.

If another agent is better for answering the question according to its description, call \`${TRANSFER_TO_AGENT_TOOL_NAME}\` function to transfer the question to that agent. When transferring, do not generate any text other than the function call.

**NOTE**: the only available agents for \`${TRANSFER_TO_AGENT_TOOL_NAME}\` function are ${names}.`;
  const parent = agent.parentAgent;
  if (parent && !agent.disallowTransferToParent) {
    text +=
      `\n\nIf neither you nor the other agents are best for the question, transfer to your parent ` +
      `agent ${parent.name}.`;
  }
  return text;
}

/**
 * `transfer_to_agent(agent_name)`: records the transfer in `actions.transferToAgent`; the flow
 * runs the target after the function response. An unknown name is answered with an error so
 * the model can pick again.
 */
export class TransferToAgentTool extends BaseTool {
  private readonly agent: LlmAgent;
  private readonly targetNames: string[];

  constructor(agent: LlmAgent, targets: BaseAgent[]) {
    super({
      name: TRANSFER_TO_AGENT_TOOL_NAME,
      description:
        "Transfer the question to another agent. This tool hands off control to another agent when it is more " +
        "suitable to answer the user's question according to the agent's description.",
    });
    this.agent = agent;
    this.targetNames = targets.map((t) => t.name);
  }

  override getDeclaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: {
        type: "object",
        properties: {
          agent_name: { type: "string", description: "The agent name to transfer to.", enum: [...this.targetNames] },
        },
        required: ["agent_name"],
      },
    };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const name = args.agent_name;
    const target = typeof name === "string" ? this.agent.rootAgent.findAgent(name) : undefined;
    if (!target || target === this.agent) {
      return {
        error:
          `Agent ${JSON.stringify(name)} cannot be transferred to. Available ` +
          `agents: ${this.targetNames.join(", ")}.`,
      };
    }
    toolContext.actions.transferToAgent = target.name;
    return undefined;
  }
}
