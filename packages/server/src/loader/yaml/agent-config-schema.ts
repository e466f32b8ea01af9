import { z } from "zod";

// ADK's agent config format (root_agent.yaml). Keys are snake_case as in ADK; every object is
// strict, so a misspelt key is reported instead of silently ignored.

const AGENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `{ name, value }` entries; entries without a name are positional arguments. */
const argumentSchema = z.strictObject({ name: z.string().min(1).optional(), value: z.unknown() });

/**
 * A reference to code: `./file.ts#exportName` (relative to the YAML file), `package#export`,
 * or ADK's dotted module path `app.module.export` (relative to the agents directory).
 * `args`, when given, calls the export (a factory) with them.
 */
export const codeConfigSchema = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1), args: z.array(argumentSchema).optional() }),
]);
export type CodeConfig = z.infer<typeof codeConfigSchema>;

/** A tool: a built-in name (`exit_loop`) or a code reference; `args` go to a factory or class as one object. */
export const toolConfigSchema = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }),
]);
export type ToolConfig = z.infer<typeof toolConfigSchema>;

/**
 * A code executor: a built-in name (`BuiltInCodeExecutor`) or a code reference. `args` are
 * ADK's `{ name?, value }` list or, for convenience, a mapping (the same as all-named entries).
 */
export const codeExecutorConfigSchema = z.union([
  z.string().min(1),
  z.strictObject({
    name: z.string().min(1),
    args: z.union([z.array(argumentSchema), z.record(z.string(), z.unknown())]).optional(),
  }),
]);
export type CodeExecutorConfig = z.infer<typeof codeExecutorConfigSchema>;

/** A sub-agent: another YAML file, an agent exported by code, or an inline config (checked separately). */
export const agentRefSchema = z.union([
  z.strictObject({ config_path: z.string().min(1) }),
  z.strictObject({ code: codeConfigSchema }),
]);

const thinkingConfigSchema = z.strictObject({
  include_thoughts: z.boolean().optional(),
  thinking_budget: z.number().int().optional(),
  thinking_level: z.string().optional(),
});

/** Model settings (snake_case); tools, system instruction and response schema come from the agent. */
export const generateContentConfigSchema = z.strictObject({
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().optional(),
  candidate_count: z.number().int().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  stop_sequences: z.array(z.string()).optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  seed: z.number().int().optional(),
  response_mime_type: z.string().optional(),
  response_modalities: z.array(z.string()).optional(),
  safety_settings: z.array(z.record(z.string(), z.unknown())).optional(),
  thinking_config: thinkingConfigSchema.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  cached_content: z.string().optional(),
  tool_config: z.record(z.string(), z.unknown()).optional(),
});
export type GenerateContentConfigYaml = z.infer<typeof generateContentConfigSchema>;

const callbackList = z.array(codeConfigSchema).optional();

const baseFields = {
  name: z.string().regex(AGENT_NAME, "must be an identifier (letters, digits, underscores; not starting with a digit)"),
  description: z.string().optional(),
  sub_agents: z.array(z.unknown()).optional(),
  before_agent_callbacks: callbackList,
  after_agent_callbacks: callbackList,
};

export const llmAgentConfigSchema = z.strictObject({
  agent_class: z.literal("LlmAgent").optional(),
  ...baseFields,
  model: z.string().min(1).optional(),
  model_code: codeConfigSchema.optional(),
  instruction: z.string().optional(),
  static_instruction: z.string().optional(),
  global_instruction: z.string().optional(),
  tools: z.array(toolConfigSchema).optional(),
  output_key: z.string().min(1).optional(),
  include_contents: z.enum(["default", "none"]).optional(),
  generate_content_config: generateContentConfigSchema.optional(),
  input_schema: codeConfigSchema.optional(),
  output_schema: codeConfigSchema.optional(),
  code_executor: codeExecutorConfigSchema.optional(),
  disallow_transfer_to_parent: z.boolean().optional(),
  disallow_transfer_to_peers: z.boolean().optional(),
  before_model_callbacks: callbackList,
  after_model_callbacks: callbackList,
  on_model_error_callbacks: callbackList,
  before_tool_callbacks: callbackList,
  after_tool_callbacks: callbackList,
  on_tool_error_callbacks: callbackList,
});
export type LlmAgentConfig = z.infer<typeof llmAgentConfigSchema>;

export const sequentialAgentConfigSchema = z.strictObject({ agent_class: z.literal("SequentialAgent"), ...baseFields });
export const parallelAgentConfigSchema = z.strictObject({ agent_class: z.literal("ParallelAgent"), ...baseFields });
export const loopAgentConfigSchema = z.strictObject({
  agent_class: z.literal("LoopAgent"),
  ...baseFields,
  max_iterations: z.number().int().positive().optional(),
});

const NODE_NAME = z
  .string()
  .regex(AGENT_NAME, "must be an identifier (letters, digits, underscores; not starting with a digit)");

/**
 * A node of a `Workflow`: exactly one of `code` (a function `(ctx, input) => output`, or an
 * exported node, agent or tool), `agent` (`{ config_path }`, `{ code }` or an inline agent
 * config), `tool` (as in an agent's `tools`) or `join` (a fan-in).
 */
export const workflowNodeConfigSchema = z.strictObject({
  name: NODE_NAME,
  description: z.string().optional(),
  code: codeConfigSchema.optional(),
  agent: z.unknown().optional(),
  tool: toolConfigSchema.optional(),
  join: z
    .union([
      z.literal(true),
      z.strictObject({
        wait_for: z.union([z.literal("all"), z.number().int().positive(), z.array(z.string().min(1)).min(1)]),
      }),
    ])
    .optional(),
  timeout_ms: z.number().int().positive().optional(),
});
export type WorkflowNodeConfig = z.infer<typeof workflowNodeConfigSchema>;

/** One element of a chain: `START`, a node name, a group of names (fan-out / fan-in), or a routing map. */
const chainElementSchema = z.union([
  z.string().min(1),
  z.array(z.string().min(1)).min(1),
  z.record(z.string().min(1), z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])),
]);

/** An edge item: a chain (`[START, a, b]`), or one edge with a route or a loop bound. */
export const workflowEdgeConfigSchema = z.union([
  z.array(chainElementSchema).min(2),
  z.strictObject({
    from: z.string().min(1),
    to: z.string().min(1),
    route: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
    max_traversals: z.number().int().positive().optional(),
  }),
]);
export type WorkflowEdgeConfig = z.infer<typeof workflowEdgeConfigSchema>;

export const workflowConfigSchema = z.strictObject({
  agent_class: z.literal("Workflow"),
  name: baseFields.name,
  description: baseFields.description,
  before_agent_callbacks: callbackList,
  after_agent_callbacks: callbackList,
  nodes: z.array(workflowNodeConfigSchema).min(1),
  edges: z.array(workflowEdgeConfigSchema).min(1),
  max_concurrency: z.number().int().positive().optional(),
  input_schema: codeConfigSchema.optional(),
  output_schema: codeConfigSchema.optional(),
});
export type WorkflowConfig = z.infer<typeof workflowConfigSchema>;

/** The schema of each `agent_class` (LlmAgent when omitted). */
export const AGENT_CLASS_SCHEMAS = {
  LlmAgent: llmAgentConfigSchema,
  SequentialAgent: sequentialAgentConfigSchema,
  ParallelAgent: parallelAgentConfigSchema,
  LoopAgent: loopAgentConfigSchema,
} as const;
export type AgentClassName = keyof typeof AGENT_CLASS_SCHEMAS;
