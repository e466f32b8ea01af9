import { describe, expect, it } from "@jest/globals";
import {
  createEvent,
  FunctionTool,
  getFunctionCalls,
  getFunctionResponses,
  InMemoryRunner,
  LlmAgent,
  RunAbortedError,
  type Content,
  type Event,
} from "../../src/index.js";
import { getContents, PENDING_CALL_RESPONSE, UNANSWERED_CALL_RESPONSE } from "../../src/internal.js";
import { ScriptedModel } from "../../src/testing/index.js";

/** Every function call of the contents is followed by a content answering all of its ids. */
function expectWellFormed(contents: Content[]): void {
  contents.forEach((content, i) => {
    const ids = (content.parts ?? []).flatMap((p) => (p.functionCall?.id ? [p.functionCall.id] : []));
    if (ids.length === 0) return;
    const answered = (contents[i + 1]?.parts ?? []).flatMap((p) =>
      p.functionResponse?.id ? [p.functionResponse.id] : [],
    );
    expect(answered).toEqual(expect.arrayContaining(ids));
  });
}

describe("a run stopped between a call and its response", () => {
  it("is closed with a recorded error response, and later requests are well-formed", async () => {
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const slow = new FunctionTool({
      name: "slow",
      description: "never finishes on its own",
      execute: () => {
        started();
        return new Promise(() => {});
      },
    });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("slow", {}, "call-1"),
        {
          expect: (request) => expectWellFormed(request.contents),
          step: ScriptedModel.text("The earlier call failed; retrying later."),
        },
      ],
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "a", model, tools: [slow] }), appName: "app" });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });

    const controller = new AbortController();
    const first = (async () => {
      for await (const _ of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: "go",
        signal: controller.signal,
      })) {
        // drain
      }
    })();
    await toolStarted;
    controller.abort();
    await expect(first).rejects.toThrow(RunAbortedError);

    const key = { appName: "app", userId: "u", sessionId: session.id };
    const afterKill = await runner.sessionService.getSession(key);
    expect(afterKill!.events.map((e) => e.author)).toEqual(["user", "a"]); // the call, unanswered

    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "hello again" })) {
      // drain
    }
    const stored = (await runner.sessionService.getSession(key))!.events;
    const closing = stored[2]!;
    expect(closing.author).toBe("a");
    expect(closing.invocationId).toBe(stored[1]!.invocationId);
    expect(closing.errorCode).toBe("TOOL_CALLS_INTERRUPTED");
    expect(getFunctionResponses(closing)).toEqual([
      { id: "call-1", name: "slow", response: { ...UNANSWERED_CALL_RESPONSE } },
    ]);
    expect(stored[3]!.author).toBe("user");
    model.assertConsumed();

    // Closed once: a third run writes nothing more for it.
    const model2Steps = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const runner2 = new InMemoryRunner({
      agent: new LlmAgent({ name: "a", model: model2Steps, tools: [slow] }),
      appName: "app",
    });
    const copy = await runner2.sessionService.createSession({ appName: "app", userId: "u" });
    for (const event of stored) await runner2.sessionService.appendEvent({ session: copy, event: { ...event } });
    for await (const _ of runner2.runAsync({ userId: "u", sessionId: copy.id, newMessage: "third" })) {
      // drain
    }
    const again = (await runner2.sessionService.getSession({ ...key, sessionId: copy.id }))!.events;
    expect(again.filter((e) => e.errorCode === "TOOL_CALLS_INTERRUPTED")).toHaveLength(1);
  });
});

describe("getContents never sends a call without its response", () => {
  const call = (id: string, name: string, extra: Partial<Event> = {}) =>
    createEvent({
      invocationId: "e-1",
      author: "a",
      content: { role: "model", parts: [{ functionCall: { id, name, args: {} } }] },
      ...extra,
    });
  const user = (text: string) =>
    createEvent({ invocationId: "e-2", author: "user", content: { role: "user", parts: [{ text }] } });

  it("answers a paused long-running call with a pending stand-in", () => {
    const events = [
      user("start"),
      call("job-1", "start_job", { longRunningToolIds: ["job-1"] }),
      user("how is it going?"),
    ];
    const contents = getContents(undefined, events, "a");
    expectWellFormed(contents);
    expect(contents[2]).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "job-1", name: "start_job", response: { ...PENDING_CALL_RESPONSE } } }],
    });
    expect(contents[3]!.parts).toEqual([{ text: "how is it going?" }]);
  });

  it("answers calls left dangling in an old history, next to the responses that did arrive", () => {
    const both = createEvent({
      invocationId: "e-1",
      author: "a",
      content: {
        role: "model",
        parts: [
          { functionCall: { id: "c1", name: "x", args: {} } },
          { functionCall: { id: "c2", name: "y", args: {} } },
        ],
      },
    });
    const onlyOne = createEvent({
      invocationId: "e-1",
      author: "a",
      content: { role: "user", parts: [{ functionResponse: { id: "c1", name: "x", response: { ok: 1 } } }] },
    });
    const contents = getContents(undefined, [user("hi"), both, onlyOne, user("next")], "a");
    expectWellFormed(contents);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { id: "c1", name: "x", response: { ok: 1 } } },
      { functionResponse: { id: "c2", name: "y", response: { ...UNANSWERED_CALL_RESPONSE } } },
    ]);
    expect(getFunctionCalls(both)).toHaveLength(2); // the stored event is untouched
  });

  it("leaves a well-formed history as it is", () => {
    const events = [
      user("hi"),
      call("c1", "x"),
      createEvent({
        invocationId: "e-1",
        author: "a",
        content: { role: "user", parts: [{ functionResponse: { id: "c1", name: "x", response: {} } }] },
      }),
    ];
    expect(getContents(undefined, events, "a")).toHaveLength(3);
  });
});
