import { BaseAgent } from "../agents/base-agent.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { BaseTool } from "../tools/base-tool.js";
import { AgentNode } from "./agent-node.js";
import { isBaseNode, type BaseNode, type BaseNodeOptions } from "./base-node.js";
import { FunctionNode, type FunctionNodeHandler } from "./function-node.js";
import { ToolNode } from "./tool-node.js";

/** Anything a workflow edge or `ctx.runNode` accepts: a node, an agent, a tool or a named function. */
export type NodeLike = BaseNode | BaseAgent | BaseTool | FunctionNodeHandler<never, unknown>;

/** True for a value `toNode` accepts. */
export function isNodeLike(value: unknown): value is NodeLike {
  return isBaseNode(value) || value instanceof BaseAgent || value instanceof BaseTool || typeof value === "function";
}

/**
 * The node for a node-like value: nodes as they are, agents as `AgentNode`, tools as `ToolNode`,
 * functions as `FunctionNode` named after the function.
 */
export function toNode(value: unknown): BaseNode {
  if (isBaseNode(value)) return value;
  if (value instanceof BaseAgent) return new AgentNode(value);
  if (value instanceof BaseTool) return new ToolNode(value);
  if (typeof value === "function") {
    if (!value.name || value.name === "anonymous")
      throw new ConfigurationError(
        "A workflow function must have a name (it names the node): use a named function, or new FunctionNode(name, fn).",
      );
    return new FunctionNode(value.name, value as FunctionNodeHandler);
  }
  throw new ConfigurationError(
    `Not a workflow node: ${describe(value)}. Use a node, an agent, a tool or a named function.`,
  );
}

/**
 * A node for a node-like value with options (ADK's `node()`): `node(fn, { name, retryConfig,
 * timeoutMs })`. Nodes are returned as they are (options cannot change a built node).
 */
export function node<I = unknown, O = unknown>(
  value: NodeLike | FunctionNodeHandler<I, O>,
  options: Partial<BaseNodeOptions<I, O>> = {},
): BaseNode {
  if (isBaseNode(value)) {
    if (Object.keys(options).length > 0)
      throw new ConfigurationError(`node(): "${value.name}" is already a node; pass its options to its constructor.`);
    return value;
  }
  if (value instanceof BaseAgent) return new AgentNode(value, options as BaseNodeOptions);
  if (value instanceof BaseTool) return new ToolNode(value, options as BaseNodeOptions);
  if (typeof value === "function") {
    const name = options.name ?? value.name;
    if (!name || name === "anonymous") throw new ConfigurationError("node(fn): name the function or pass { name }.");
    return new FunctionNode(name, value as FunctionNodeHandler<I, O>, options);
  }
  return toNode(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "Object"})`;
  return JSON.stringify(value) ?? typeof value;
}
