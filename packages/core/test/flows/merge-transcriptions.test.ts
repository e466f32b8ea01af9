// A live run's transcription chunks in the history become text contents: consecutive chunks of
// one side joined, in place of their events; an event with neither content nor transcription is
// left out; a history of contents only is the same list.
import { describe, expect, it } from "@jest/globals";
import { createEvent, type Event, type EventInit } from "../../src/index.js";
import { mergeTranscriptions } from "../../src/flows/merge-transcriptions.js";

const event = (init: Partial<EventInit>): Event => createEvent({ invocationId: "i1", author: "a", ...init });
const text = (role: "user" | "model", t: string) => event({ content: { role, parts: [{ text: t }] } });

describe("mergeTranscriptions", () => {
  it("joins consecutive chunks of each side after the contents before them", () => {
    const history = [
      text("user", "hi"),
      event({ inputTranscription: { text: "a " } }),
      event({ inputTranscription: { text: "b" } }),
      event({ outputTranscription: { text: "c" } }),
      event({ outputTranscription: { text: "d" } }),
      event({ turnComplete: true }),
      text("model", "done"),
    ];
    const merged = mergeTranscriptions(history);
    expect(merged.map((e) => e.content)).toEqual([
      { role: "user", parts: [{ text: "hi" }] },
      { role: "user", parts: [{ text: "a b" }] },
      { role: "model", parts: [{ text: "cd" }] },
      { role: "model", parts: [{ text: "done" }] },
    ]);
    expect(merged[0]).toBe(history[0]);
    expect(merged[1]!.inputTranscription).toBeUndefined();
  });

  it("gives a history of contents only back as it is", () => {
    const history = [text("user", "hi"), text("model", "hello")];
    expect(mergeTranscriptions(history)).toBe(history);
  });
});
