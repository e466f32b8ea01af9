import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import type { CodeExecutionFile, CodeExecutorResult } from "../code-executors/base-code-executor.js";
import {
  buildCodeExecutionResultPart,
  convertCodeExecutionParts,
  extractCodeAndTruncateContent,
  extractInputFiles,
} from "../code-executors/code-execution-utils.js";
import {
  CODE_EXECUTION_CONTEXT_KEY,
  getErrorCount,
  readCodeExecutionContext,
  type CodeExecutionContextState,
} from "../code-executors/code-executor-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { RunAbortedError } from "../errors/run-errors.js";
import { ownRequest, returnContents } from "./shared-contents.js";
import type { Part } from "../content/content.js";
import type { EventActions } from "../events/event-actions.js";
import { createEvent, newEventId, type Event } from "../events/event.js";
import { appendInstructions, type LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import { deepCopy } from "../content/deep-copy.js";

/**
 * The code-execution request processor (ADK's `_code_execution` request side). A model-side
 * executor changes the request itself. For a local executor, the inline files of user
 * messages become input files (listed in the instruction; replaced by placeholders with
 * `optimizeDataFile`), and earlier code and results are shown to the model as fenced text.
 * Returns the input files for the executions of this step.
 */
export async function preprocessCodeExecution(agent: LlmAgent, request: LlmRequest): Promise<CodeExecutionFile[]> {
  const executor = agent.codeExecutor;
  if (!executor) return [];
  let files: CodeExecutionFile[] = [];
  if (executor.modelSide) {
    ownRequest(request); // the executor may edit the request's contents
    await executor.processLlmRequest(request);
  } else {
    files = extractInputFiles(request.contents, executor.optimizeDataFile);
    if (files.length > 0) {
      appendInstructions(request, [
        `Files available to your code in its working directory: ${files.map((f) => `\`${f.name}\``).join(", ")}.`,
      ]);
    }
  }
  const codeDelimiters = executor.codeBlockDelimiters[0] ?? (["", ""] as const);
  const source = request.contents;
  request.contents = source.map((content) =>
    convertCodeExecutionParts(content, codeDelimiters, executor.executionResultDelimiters),
  );
  returnContents(source); // the request now owns a new array
  return files;
}

/**
 * The code-execution response processor: when a (non-partial) model response holds code and
 * the invocation has error retries left, yields the model's event truncated after the code
 * (built by `makeModelEvent`), runs the code and yields its `codeExecutionResult` event (error
 * counter and output-file artifacts in its actions). Returns true when it did so: the
 * response is then consumed and the flow calls the model again.
 */
export async function* executeCodeInResponse(
  ctx: InvocationContext,
  agent: LlmAgent,
  response: LlmResponse,
  inputFiles: CodeExecutionFile[],
  makeModelEvent: (response: LlmResponse) => Event,
): AsyncGenerator<Event, boolean, void> {
  const executor = agent.codeExecutor;
  if (!executor || executor.modelSide || response.partial || !response.content) return false;
  const state = readCodeExecutionContext(ctx.session.state);
  if (getErrorCount(state, ctx.invocationId) >= executor.errorRetryAttempts) return false;

  // Function calls take precedence: running code would drop them and leave them unanswered.
  if (response.content.parts?.some((p) => p.functionCall)) return false;
  const content = deepCopy(response.content);
  const code = extractCodeAndTruncateContent(content, executor.codeBlockDelimiters);
  if (code === undefined) return false;
  yield makeModelEvent({ ...response, content });

  if (executor.stateful && !state.executionId) state.executionId = ctx.session.id;
  const input = { code, inputFiles, ...(executor.stateful ? { executionId: state.executionId } : {}) };
  let result: CodeExecutorResult;
  try {
    result = await executor.executeCode(ctx, input);
  } catch (error) {
    ctx.throwIfAborted();
    if (
      error instanceof RunAbortedError ||
      error instanceof ConfigurationError ||
      (error instanceof Error && error.name === "AbortError")
    )
      throw error;
    // An executor fault is shown to the model like a failed run, so it can react.
    result = {
      stdout: "",
      stderr: `Code executor failed: ${error instanceof Error ? error.message : String(error)}`,
      outputFiles: [],
    };
  }
  ctx.throwIfAborted();
  yield await resultEvent(ctx, agent, state, result);
  return true;
}

async function resultEvent(
  ctx: InvocationContext,
  agent: LlmAgent,
  state: CodeExecutionContextState,
  result: CodeExecutorResult,
): Promise<Event> {
  const context = new CallbackContext(ctx);
  const saved: string[] = [];
  const unsaved: string[] = [];
  for (const file of result.outputFiles) {
    if (!ctx.artifactService) {
      unsaved.push(file.name);
      continue;
    }
    await context.saveArtifact(file.name, {
      inlineData: { data: file.content, mimeType: file.mimeType ?? "application/octet-stream" },
    });
    saved.push(file.name);
  }
  const part = buildCodeExecutionResultPart(result, saved);
  if (unsaved.length > 0 && part.codeExecutionResult) {
    part.codeExecutionResult.output += `\n\nOutput files not saved (no artifact service configured): ${unsaved.map((n) => `\`${n}\``).join(",")}`;
  }
  // Only the current invocation's counter is kept: earlier invocations are over.
  const failures = result.stderr ? getErrorCount(state, ctx.invocationId) + 1 : 0;
  const next: CodeExecutionContextState = {
    ...state,
    errorCounts: failures > 0 ? { [ctx.invocationId]: failures } : {},
  };
  context.state.set(CODE_EXECUTION_CONTEXT_KEY, next);
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: { role: "model", parts: [part] },
    actions: context.actions,
  });
}

/**
 * Model-side code execution may return generated images (charts) as inline data. Like ADK,
 * each is saved as an artifact (recorded in `actions.artifactDelta`) and replaced in the
 * returned copy of the response by a `Saved as artifact: <name>.` text, so the history keeps
 * a reference instead of the bytes. The response is returned unchanged when there is nothing
 * to save or no artifact service.
 */
export async function saveModelSideImages(
  ctx: InvocationContext,
  response: LlmResponse,
  actions: EventActions,
  eventId: string | undefined,
): Promise<LlmResponse> {
  const parts = response.content?.parts;
  if (response.partial || !ctx.artifactService || !parts?.some(isImagePart)) return response;
  const context = new CallbackContext(ctx, actions);
  const stem = `code_output_${(eventId ?? newEventId()).slice(0, 8)}`;
  let n = 0;
  const newParts: Part[] = [];
  for (const part of parts) {
    if (!isImagePart(part)) {
      newParts.push(part);
      continue;
    }
    const blob = part.inlineData!;
    n++;
    const extension = (blob.mimeType ?? "image/png").split("/")[1]?.replace(/[^\w]/g, "") || "png";
    const name = `${stem}_${n}.${extension}`;
    await context.saveArtifact(name, { inlineData: { ...blob } });
    newParts.push({ text: `Saved as artifact: ${name}. ` });
  }
  return { ...response, content: { ...response.content, parts: newParts } };
}

function isImagePart(part: Part): boolean {
  return !!part.inlineData?.data && (part.inlineData.mimeType ?? "").startsWith("image/");
}
