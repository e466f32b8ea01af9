import type { Content, Part } from "../content/content.js";
import { RunAbortedError } from "../errors/run-errors.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import type { Event } from "../events/event.js";

/**
 * Stores the inline-data parts of a user message as artifacts `artifact_<invocationId>_<i>`
 * and replaces each by a text part naming it (ADK's `save_input_blobs_as_artifacts`).
 * Returns a new message (the caller's is left untouched) and the versions written.
 */
export async function saveInputBlobsAsArtifacts(args: {
  message: Content;
  artifactService: BaseArtifactService;
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
}): Promise<{ message: Content; artifactDelta: Record<string, number> }> {
  const { message, artifactService } = args;
  const parts: Part[] = [...(message.parts ?? [])];
  const artifactDelta: Record<string, number> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!part.inlineData) continue;
    const filename = `artifact_${args.invocationId}_${i}`;
    artifactDelta[filename] = await artifactService.saveArtifact({
      appName: args.appName,
      userId: args.userId,
      sessionId: args.sessionId,
      filename,
      artifact: part,
    });
    parts[i] = { text: `Uploaded file: ${filename}. It is saved into artifacts` };
  }
  return { message: { ...message, parts }, artifactDelta };
}

/** Merges the run's custom metadata under the event's own (the event's keys win). */
export function applyCustomMetadata(event: Event, metadata: Record<string, unknown> | undefined): void {
  if (!metadata || Object.keys(metadata).length === 0) return;
  event.customMetadata = { ...metadata, ...(event.customMetadata ?? {}) };
}

/**
 * Watches an AbortSignal for the length of a run: `race` settles with the first of a step
 * and the abort (as `RunAbortedError`), so a run stops promptly even while an agent waits.
 * `dispose` removes the listener.
 */
export class AbortWatch {
  private readonly aborted?: Promise<never>;
  private readonly dispose_: () => void = () => {};

  constructor(private readonly signal?: AbortSignal) {
    if (!signal) return;
    let onAbort: () => void = () => {};
    this.aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new RunAbortedError({ cause: signal.reason }));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    this.aborted.catch(() => {}); // observed through race(); never an unhandled rejection
    this.dispose_ = () => signal.removeEventListener("abort", onAbort);
  }

  get isAborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  throwIfAborted(): void {
    if (this.signal?.aborted) throw new RunAbortedError({ cause: this.signal.reason });
  }

  race<T>(step: Promise<T>): Promise<T> {
    return this.aborted ? Promise.race([step, this.aborted]) : step;
  }

  dispose(): void {
    this.dispose_();
  }
}
