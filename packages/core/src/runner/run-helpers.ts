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
 *
 * One listener per run, and only the races still in progress are remembered (a settled race
 * forgets its step). Racing each step against one promise that stays pending for the whole run
 * (`Promise.race([step, aborted])`) added a reaction to that promise per step, so it held every
 * step's result, the events and the session read with its history-sized event list, until the
 * run ended; in a server those objects outlived young-generation collections, were promoted and
 * made V8 grow its young generation to the maximum (bench/HISTORY.md, "Server memory after
 * racing steps without a run-long promise").
 */
export class AbortWatch {
  /**
   * The rejecters of the races in progress: none, the one (a run's steps race one at a time), or a
   * set when several overlap. A set per run, added to and emptied at every step, cost an
   * allocation whenever its table shrank.
   */
  private racing: Rejecter | Set<Rejecter> | undefined;
  /** Removes the abort listener; none without a live signal (no closure made per run then). */
  private readonly dispose_: (() => void) | undefined;

  constructor(private readonly signal?: AbortSignal) {
    if (!signal || signal.aborted) return;
    const onAbort = () => {
      const error = new RunAbortedError({ cause: signal.reason });
      const racing = this.racing;
      this.racing = undefined;
      if (typeof racing === "function") racing(error);
      else if (racing) for (const reject of racing) reject(error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.dispose_ = () => signal.removeEventListener("abort", onAbort);
  }

  get isAborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  throwIfAborted(): void {
    if (this.signal?.aborted) throw new RunAbortedError({ cause: this.signal.reason });
  }

  race<T>(step: Promise<T>): Promise<T> {
    const signal = this.signal;
    if (!signal) return step;
    // Already aborted: the step still wins if it has settled (as a race with a rejected promise).
    if (signal.aborted) return Promise.race([step, Promise.reject(new RunAbortedError({ cause: signal.reason }))]);
    return new Promise<T>((resolve, reject) => {
      this.add(reject);
      step.then(
        (value) => {
          this.remove(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.remove(reject);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.dispose_?.();
  }

  private add(reject: Rejecter): void {
    const racing = this.racing;
    if (racing === undefined) this.racing = reject;
    else if (typeof racing === "function") this.racing = new Set([racing, reject]);
    else racing.add(reject);
  }

  private remove(reject: Rejecter): void {
    const racing = this.racing;
    if (racing === reject) this.racing = undefined;
    else if (racing !== undefined && typeof racing !== "function") racing.delete(reject);
  }
}

type Rejecter = (error: RunAbortedError) => void;
