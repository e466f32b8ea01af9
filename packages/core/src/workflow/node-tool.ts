import { z } from "zod";
import type { Content } from "../content/content.js";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { lazySchema } from "../tools/lazy-schema.js";
import { zodInputJsonSchema } from "../tools/zod-input-json-schema.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { AgentTool } from "../tools/agent-tool.js";
import { AgentNode } from "./agent-node.js";
import { toNode, type NodeLike } from "./build-node.js";
import { START } from "./graph.js";
import { isZod4Schema, parseWithSchema, type SchemaLike } from "./schema-like.js";
import { Workflow } from "./workflow.js";

export interface NodeToolOptions {
  /** What the tool runs: a node, a workflow, any agent, a tool or a named function. */
  node: NodeLike;
  /** Tool name; default the node's name. */
  name?: string;
  /** What the model reads about the tool; default the node's (or its agent's) description. */
  description?: string;
  /**
   * The tool's arguments (a zod 4 object schema); the parsed arguments are the node's input.
   * Default: the node's (or its workflow's) `inputSchema`, else `{ request: string }` with the
   * request text as the input.
   */
  parameters?: z.ZodType;
  /** Return the node's output to the user as is, without another model turn. */
  skipSummarization?: boolean;
}

/** The default arguments: one request text, which is the node's input. */
const requestSchema = lazySchema(() => z.object({ request: z.string() }));

/**
 * A workflow (or any node) as a tool: the model's arguments are the node's input and the node's
 * output is the result. It runs as a child invocation like `AgentTool` (state flows back,
 * artifacts go to the caller), so a pause inside it (a confirmation, `ctx.requestInput()`, a
 * credential request) pauses the call, and the answer continues the node where it stopped.
 */
export class NodeTool extends AgentTool {
  private readonly parameters: z.ZodType | undefined;

  constructor(options: NodeToolOptions) {
    if (!options?.node) throw new ConfigurationError("NodeTool needs a node: new NodeTool({ node }).");
    const inner = toNode(options.node);
    const agent = inner instanceof AgentNode ? inner.agent : undefined;
    const declared = inner.inputSchema ?? (agent instanceof Workflow ? agent.inputSchema : undefined);
    const parameters = options.parameters ?? zod4Parameters(inner.name, declared);
    const name = options.name ?? inner.name;
    const wrapper = new Workflow({
      name,
      description: options.description ?? (inner.description || agent?.description || ""),
      edges: [[START, inner]],
      // The arguments arrive as JSON text; the wrapper parses and checks them into the node's input.
      inputSchema: parameters ?? requestSchema().transform((args) => args.request),
    });
    super({ agent: wrapper, skipSummarization: options.skipSummarization });
    this.parameters = parameters;
  }

  override getDeclaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: zodInputJsonSchema(this.parameters ?? requestSchema()),
    };
  }

  protected override buildMessage(args: Record<string, unknown>): { content: Content } | { error: string } {
    const parsed = parseWithSchema(this.parameters ?? requestSchema(), args ?? {});
    if (!parsed.success) return { error: `Invalid arguments for ${this.name}: ${parsed.detail}` };
    return { content: { role: "user", parts: [{ text: JSON.stringify(args ?? {}) }] } };
  }
}

/** A node's own input schema as the tool's parameters: only zod 4 can describe itself to a model. */
function zod4Parameters(nodeName: string, schema: SchemaLike | undefined): z.ZodType | undefined {
  if (schema === undefined) return undefined;
  if (isZod4Schema(schema)) return schema;
  throw new ConfigurationError(
    `NodeTool "${nodeName}": the node's inputSchema is not a zod 4 schema, so it cannot be declared to the model; ` +
      "give NodeTool `parameters` (a zod 4 schema).",
  );
}
