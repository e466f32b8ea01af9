import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  type AgentInterface,
  type AgentProvider,
  type AgentSkill,
} from "@a2a-js/sdk";
import { isLlmAgent, isToolset, type BaseAgent, type BaseTool } from "@agentkit/core";

/** Where each transport is served, relative to the router's base URL. */
export const A2A_JSONRPC_PATH = "/jsonrpc";
export const A2A_REST_PATH = "/rest";

export interface BuildAgentCardOptions {
  agent: BaseAgent;
  /** Base URL the A2A router is served at (e.g. `http://127.0.0.1:8000/a2a/my_app`). */
  url: string;
  /** Defaults to the agent's name. */
  name?: string;
  /** Defaults to the agent's description. */
  description?: string;
  /** Defaults to `0.0.1`. */
  version?: string;
  provider?: AgentProvider;
  documentationUrl?: string;
  /** Advertise streaming (`message:stream`); default true. */
  streaming?: boolean;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  /** Replaces the skills derived from the agent. */
  skills?: AgentSkill[];
}

function skill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return { id, name, description, tags, examples: [], inputModes: [], outputModes: [], securityRequirements: [] };
}

async function toolsOf(agent: BaseAgent): Promise<BaseTool[]> {
  if (!isLlmAgent(agent)) return [];
  const out: BaseTool[] = [];
  for (const tool of agent.tools) {
    if (isToolset(tool)) {
      out.push(...(await tool.getTools()));
    } else if (typeof tool === "object" && tool !== null && "name" in tool) {
      out.push(tool as BaseTool);
    }
  }
  return out;
}

/** The agent's skills: the agent itself, each of its tools, each sub-agent. */
export async function skillsOf(agent: BaseAgent): Promise<AgentSkill[]> {
  const skills = [
    skill(agent.name, agent.name, agent.description || `The ${agent.name} agent.`, [
      isLlmAgent(agent) ? "llm" : "agent",
    ]),
  ];
  for (const tool of await toolsOf(agent))
    skills.push(skill(`${agent.name}-${tool.name}`, tool.name, tool.description, ["llm", "tools"]));
  for (const sub of agent.subAgents)
    skills.push(
      skill(`${agent.name}-${sub.name}`, sub.name, sub.description || `The ${sub.name} agent.`, ["sub_agent"]),
    );
  return skills;
}

/** The v1.0 interfaces of a router served at `url`: JSON-RPC and HTTP+JSON. */
export function supportedInterfacesAt(url: string): AgentInterface[] {
  const base = url.replace(/\/+$/, "");
  return [
    {
      url: `${base}${A2A_JSONRPC_PATH}`,
      protocolBinding: "JSONRPC",
      tenant: "",
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
    { url: `${base}${A2A_REST_PATH}`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
  ];
}

/** An A2A v1.0 agent card describing an agentkit agent served by `createA2aRouter` at `url`. */
export async function buildAgentCard(options: BuildAgentCardOptions): Promise<AgentCard> {
  const { agent } = options;
  return {
    name: options.name ?? agent.name,
    description: options.description ?? agent.description,
    supportedInterfaces: supportedInterfacesAt(options.url),
    provider: options.provider,
    version: options.version ?? "0.0.1",
    ...(options.documentationUrl ? { documentationUrl: options.documentationUrl } : {}),
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: options.defaultInputModes ?? ["text/plain"],
    defaultOutputModes: options.defaultOutputModes ?? ["text/plain"],
    skills: options.skills ?? (await skillsOf(agent)),
    signatures: [],
  };
}
