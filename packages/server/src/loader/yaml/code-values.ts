import {
  AgentTool,
  BaseAgent,
  BaseCodeExecutor,
  BaseLlm,
  BaseTool,
  isLlmAgent,
  isToolset,
  type BaseToolset,
  type OutputSchema,
} from "@agentkit/core";
import type { z } from "zod";
import {
  callWithArgs,
  describeValue,
  importReference,
  isClass,
  ReferenceProblem,
  type ConfigSource,
  type LoadContext,
} from "../load-context.js";
import type { CodeConfig } from "./agent-config-schema.js";

// Turns code references of a YAML config into the values an agent takes. Each function throws
// a `ReferenceProblem` (a message without file or field) that the builder turns into an
// `AgentLoadError` naming both.

function normalize(config: CodeConfig): { name: string; args?: { name?: string | undefined; value?: unknown }[] } {
  return typeof config === "string" ? { name: config } : config;
}

/** The referenced export, called with `args` when they are given. */
export async function resolveCode(
  ctx: LoadContext,
  config: CodeConfig,
  from: ConfigSource,
): Promise<{ value: unknown; name: string; called: boolean }> {
  const { name, args } = normalize(config);
  const value = await importReference(ctx, name, from);
  if (args === undefined) return { value, name, called: false };
  try {
    return { value: await callWithArgs(value, args, name), name, called: true };
  } catch (error) {
    if (error instanceof ReferenceProblem) throw error;
    throw new ReferenceProblem(
      `"${name}" threw when called with its args: ${(error as Error).message ?? String(error)}`,
      error,
    );
  }
}

/** A callback: the exported function itself, or what a factory returned when `args` are given. */
export async function resolveCallback(
  ctx: LoadContext,
  config: CodeConfig,
  from: ConfigSource,
): Promise<(...a: never[]) => unknown> {
  const { value, name } = await resolveCode(ctx, config, from);
  if (typeof value !== "function" || isClass(value))
    throw new ReferenceProblem(`"${name}" is ${describeValue(value)}, expected a callback function`);
  return value as (...a: never[]) => unknown;
}

/** A model: a BaseLlm instance, a BaseLlm class (constructed), or a factory returning a BaseLlm or a model name. */
export async function resolveModelCode(
  ctx: LoadContext,
  config: CodeConfig,
  from: ConfigSource,
): Promise<BaseLlm | string> {
  const resolved = await resolveCode(ctx, config, from);
  let value = resolved.value;
  if (!resolved.called && typeof value === "function") value = await callWithArgs(value, [], resolved.name);
  if (value instanceof BaseLlm || (typeof value === "string" && value !== "")) return value;
  throw new ReferenceProblem(
    `"${resolved.name}" gave ${describeValue(value)}, expected a model (a BaseLlm instance or a model name)`,
  );
}

/** A code executor: a BaseCodeExecutor instance, or a factory (or class) giving one. */
export async function resolveCodeExecutorCode(
  ctx: LoadContext,
  config: CodeConfig,
  from: ConfigSource,
): Promise<BaseCodeExecutor> {
  const resolved = await resolveCode(ctx, config, from);
  let value = resolved.value;
  if (!resolved.called && typeof value === "function") value = await callWithArgs(value, [], resolved.name);
  return checkCodeExecutor(value, `"${resolved.name}" gave`);
}

/** `value` when it is a code executor; a `ReferenceProblem` starting with `what` otherwise. */
export function checkCodeExecutor(value: unknown, what: string): BaseCodeExecutor {
  if (isCodeExecutor(value)) return value;
  throw new ReferenceProblem(
    `${what} ${describeValue(value)}, expected a code executor (a BaseCodeExecutor such as new ` +
      `LocalCodeExecutor({...}) from @agentkit/tools)`,
  );
}

/** instanceof, or the executor's shape when it comes from another copy of @agentkit/core. */
export function isCodeExecutor(value: unknown): value is BaseCodeExecutor {
  if (value instanceof BaseCodeExecutor) return true;
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Record<keyof BaseCodeExecutor, unknown>>;
  return (
    typeof v.executeCode === "function" &&
    typeof v.processLlmRequest === "function" &&
    typeof v.errorRetryAttempts === "number" &&
    Array.isArray(v.codeBlockDelimiters)
  );
}

/** A zod schema (input_schema) or a zod/JSON object schema (output_schema). */
export async function resolveSchema(
  ctx: LoadContext,
  config: CodeConfig,
  from: ConfigSource,
  allowJson: boolean,
): Promise<OutputSchema> {
  const { value, name } = await resolveCode(ctx, config, from);
  if (isZod(value)) return value;
  if (
    allowJson &&
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { type?: unknown }).type === "object"
  ) {
    return value as Record<string, unknown>;
  }
  throw new ReferenceProblem(
    `"${name}" is ${describeValue(value)}, expected a zod ` +
      `schema${allowJson ? ' or a JSON Schema with type "object"' : ""}`,
  );
}

export function isZod(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/**
 * Tools from a code reference: a tool or toolset instance, a list of them, a BaseTool/BaseToolset
 * class (constructed with `args`), or a factory function (called with `args`) returning any of these.
 */
export async function resolveTools(
  ctx: LoadContext,
  name: string,
  args: Record<string, unknown> | undefined,
  from: ConfigSource,
): Promise<(BaseTool | BaseToolset)[]> {
  const exported = await importReference(ctx, name, from);
  let value: unknown = exported;
  if (typeof exported === "function") {
    try {
      value = isClass(exported)
        ? new (exported as new (a?: unknown) => unknown)(args)
        : await (exported as (a?: unknown) => unknown)(args);
    } catch (error) {
      throw new ReferenceProblem(
        `"${name}" threw ` +
          `when ${isClass(exported) ? "constructed" : "called"}: ${(error as Error).message ?? String(error)}`,
        error,
      );
    }
  } else if (args !== undefined) {
    throw new ReferenceProblem(`"${name}" has args but is ${describeValue(exported)}, not a tool factory or class`);
  }
  const list = Array.isArray(value) ? value : [value];
  for (const item of list) {
    if (!(item instanceof BaseTool) && !isToolset(item)) {
      const what =
        typeof exported === "function"
          ? `a ${isClass(exported) ? "class" : "function"} that gave ${describeValue(item)}`
          : describeValue(item);
      throw new ReferenceProblem(
        `"${name}" is ${what}, expected a tool (e.g. new FunctionTool({...})), a toolset, or a factory returning them`,
      );
    }
  }
  const tools = list as (BaseTool | BaseToolset)[];
  if (from.restricted) for (const tool of tools) if (tool instanceof AgentTool) refuseCodeExecutors(tool.agent, name);
  return tools;
}

/** An agent from code: a BaseAgent instance, or a factory (or class) giving one. */
export async function resolveAgentCode(ctx: LoadContext, config: CodeConfig, from: ConfigSource): Promise<BaseAgent> {
  const resolved = await resolveCode(ctx, config, from);
  let value = resolved.value;
  if (!resolved.called && typeof value === "function") value = await callWithArgs(value, [], resolved.name);
  if (value instanceof BaseAgent) {
    if (from.restricted) refuseCodeExecutors(value, resolved.name);
    return value;
  }
  throw new ReferenceProblem(
    `"${resolved.name}" gave ${describeValue(value)}, expected an agent (a BaseAgent such as new LlmAgent({...}))`,
  );
}

/**
 * For configs written through the agent builder: an agent made in code may not bring a code
 * executor (it may run processes here), in itself, its sub-agents or the agents of its AgentTools.
 */
function refuseCodeExecutors(agent: BaseAgent, reference: string, seen = new Set<BaseAgent>()): void {
  if (seen.has(agent)) return;
  seen.add(agent);
  if (isLlmAgent(agent)) {
    if (agent.codeExecutor)
      throw new ReferenceProblem(
        `"${reference}" gives agent "${agent.name}", which has a code executor: configs written through the agent ` +
          `builder may not use code executors from code (reference the agent from a config you write as a file)`,
      );
    for (const tool of agent.tools) if (tool instanceof AgentTool) refuseCodeExecutors(tool.agent, reference, seen);
  }
  for (const sub of agent.subAgents) refuseCodeExecutors(sub, reference, seen);
}

/** `AgentTool` as a built-in tool: `{ name: AgentTool, args: { agent: <agent>, skip_summarization? } }`. */
export function makeAgentTool(agent: BaseAgent, skipSummarization: boolean | undefined): AgentTool {
  return new AgentTool({ agent, skipSummarization });
}
