// The tracker of runs in progress and of run answers, as shutdown uses it: what it waits for,
// what it aborts, what it reports as left behind.
import { describe, expect, it } from "@jest/globals";
import { ServerDrainingError } from "../src/errors/server-errors.js";
import { RunTracker } from "../src/runs/run-tracker.js";
import type { ServerLogger } from "../src/server-logger.js";

function recordingLogger(): { logger: ServerLogger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: ServerLogger = {
    info: () => {},
    warn: (message) => void warnings.push(message),
    error: () => {},
  };
  return { logger, warnings };
}

/** A promise with its resolver, for an answer the test writes when it chooses. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("RunTracker", () => {
  it("counts runs until each ends, and an end called twice counts once", () => {
    const tracker = new RunTracker();
    const ends = [0, 1, 2].map(() => tracker.start(new AbortController()));
    expect(tracker.size).toBe(3);
    ends[1]!();
    ends[1]!();
    expect(tracker.size).toBe(2);
    ends[0]!();
    ends[2]!();
    expect(tracker.size).toBe(0);
  });

  it("tracks two runs started with one controller as two runs", () => {
    const tracker = new RunTracker();
    const controller = new AbortController();
    const first = tracker.start(controller);
    tracker.start(controller);
    first();
    expect(tracker.size).toBe(1);
  });

  it("drains at once when nothing runs or answers", async () => {
    const tracker = new RunTracker();
    await tracker.drain(10_000);
    expect(tracker.isDraining).toBe(true);
  });

  it("waits for runs that end within the grace period without aborting them", async () => {
    const tracker = new RunTracker();
    const controllers = [new AbortController(), new AbortController()];
    const ends = controllers.map((c) => tracker.start(c));
    const drained = tracker.drain(10_000);
    ends[0]!();
    ends[1]!();
    await drained;
    expect(controllers.map((c) => c.signal.aborted)).toEqual([false, false]);
  });

  it("aborts the runs left after the grace period with ServerDrainingError, then waits for them and their answers", async () => {
    const { logger, warnings } = recordingLogger();
    const tracker = new RunTracker(logger, 10_000);
    const endedEarly = tracker.start(new AbortController());
    endedEarly();
    const controller = new AbortController();
    const end = tracker.start(controller, { appName: "a", userId: "u", sessionId: "s" });
    const answer = deferred();
    let written = false;
    tracker.answering(answer.promise.then(() => void (written = true)));
    // The run ends when it is aborted; its answer is written a turn of the event loop later.
    controller.signal.addEventListener("abort", () => {
      end();
      setImmediate(answer.resolve);
    });
    await tracker.drain(0);
    expect(controller.signal.reason).toBeInstanceOf(ServerDrainingError);
    expect(written).toBe(true);
    expect(tracker.size).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("logs each run that ignores its abort, and answers never written, and goes on", async () => {
    const { logger, warnings } = recordingLogger();
    const tracker = new RunTracker(logger, 20);
    tracker.start(new AbortController(), { appName: "a", userId: "u", sessionId: "stuck" });
    tracker.answering(new Promise(() => {}));
    await tracker.drain(0);
    expect(warnings).toEqual(["A run did not end within 20 ms of its abort by shutdown; closing without it"]);

    const answersOnly = recordingLogger();
    const second = new RunTracker(answersOnly.logger, 20);
    second.answering(new Promise(() => {}));
    second.answering(Promise.reject(new Error("failed answers count as written")));
    await second.drain(0);
    expect(answersOnly.warnings).toEqual(["1 run answer(s) not written within 20 ms; closing without them"]);
  });
});
