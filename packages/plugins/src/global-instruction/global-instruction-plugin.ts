import {
  BasePlugin,
  ConfigurationError,
  getSystemInstructionText,
  type ReadonlyContext,
  type BeforeModelHookArgs,
} from "@agentkit/core";
import { injectSessionState } from "@agentkit/core/internal";

/** A fixed instruction (with `{state}` placeholders) or one computed per model call. */
export type GlobalInstruction = string | ((context: ReadonlyContext) => string | Promise<string>);

export interface GlobalInstructionPluginOptions {
  instruction: GlobalInstruction;
  /** Plugin name (default `global_instruction`). */
  name?: string;
}

/**
 * Puts one instruction in front of every agent's system instruction, app-wide (the plugin
 * form of ADK's deprecated `global_instruction` agent field). A string instruction fills
 * `{key}` / `{key?}` / `{artifact.name}` placeholders from the session like agent
 * instructions do; a function's result is used as is.
 */
export class GlobalInstructionPlugin extends BasePlugin {
  private readonly instruction: GlobalInstruction;

  constructor(options: GlobalInstructionPluginOptions) {
    super(options.name ?? "global_instruction");
    if (typeof options?.instruction !== "string" && typeof options?.instruction !== "function") {
      throw new ConfigurationError(
        "GlobalInstructionPlugin needs an instruction: a string or a function returning one.",
      );
    }
    this.instruction = options.instruction;
  }

  /**
   * It changes the system instruction only, never the contents: the flow may hand it the
   * session's shared history instead of a copy.
   */
  override get readsContentsOnly(): boolean {
    return true;
  }

  override async beforeModelCallback({ context, request }: BeforeModelHookArgs): Promise<undefined> {
    const text =
      typeof this.instruction === "string"
        ? await injectSessionState(this.instruction, context.invocation)
        : await this.instruction(context);
    if (typeof text !== "string") {
      throw new ConfigurationError(
        `GlobalInstructionPlugin: the instruction function returned ${typeof text}, expected a string.`,
      );
    }
    if (text.length === 0) return undefined;
    const existing = getSystemInstructionText(request);
    request.config.systemInstruction = existing ? `${text}\n\n${existing}` : text;
    return undefined;
  }
}
