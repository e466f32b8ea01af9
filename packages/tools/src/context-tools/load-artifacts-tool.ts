import {
  appendInstructions,
  BaseTool,
  type FunctionDeclaration,
  type LlmRequest,
  type ToolContext,
  type ToolRunRequest,
} from "@agentkit/core";

const NAME = "load_artifacts";

/**
 * Lets the model read the session's artifacts: every request lists the artifact names in the
 * instruction; when the model calls `load_artifacts({ artifact_names })`, the next request
 * carries those artifacts' contents (after the call's response), for that request only.
 */
export class LoadArtifactsTool extends BaseTool {
  constructor() {
    super({ name: NAME, description: "Loads the artifacts and adds them to the session." });
  }

  override getDeclaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: {
        type: "object",
        properties: {
          artifact_names: { type: "array", items: { type: "string" }, description: "Names of the artifacts to load." },
        },
        required: ["artifact_names"],
      },
    };
  }

  override async runAsync({ args }: ToolRunRequest): Promise<unknown> {
    const names = Array.isArray(args.artifact_names)
      ? args.artifact_names.filter((n): n is string => typeof n === "string")
      : [];
    return {
      artifact_names: names,
      status:
        "artifact contents temporarily inserted and removed. to access these artifacts, call load_artifacts tool " +
        "again.",
    };
  }

  override async processLlmRequest({
    toolContext,
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    await super.processLlmRequest({ toolContext, llmRequest });
    const available = await toolContext.listArtifacts();
    if (available.length === 0) return;
    appendInstructions(llmRequest, [
      `You have a list of artifacts:\n  ${JSON.stringify(available)}\n\nWhen the user asks questions about any of the artifacts, you should call the \`${NAME}\` function to load the artifact. Do not generate any text other than the function call.`,
    ]);
    const last = llmRequest.contents[llmRequest.contents.length - 1];
    for (const part of last?.parts ?? []) {
      const response = part.functionResponse;
      if (response?.name !== NAME) continue;
      const requested = response.response?.artifact_names;
      if (!Array.isArray(requested)) continue;
      for (const name of requested) {
        if (typeof name !== "string") continue;
        const artifact = available.includes(name) ? await toolContext.loadArtifact(name) : undefined;
        llmRequest.contents.push({
          role: "user",
          parts: artifact
            ? [{ text: `Artifact ${name} is:` }, artifact]
            : [{ text: `Artifact ${name} does not exist.` }],
        });
      }
    }
  }
}

export const loadArtifactsTool: LoadArtifactsTool = new LoadArtifactsTool();
