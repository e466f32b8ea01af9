import { describe, expect, it } from "@jest/globals";
import { compareSessionSnapshots } from "../src/index.js";

const session = (customMetadata?: Record<string, unknown>) => ({
  app_name: "app",
  user_id: "u",
  state: {},
  events: [
    { author: "user", content: { role: "user", parts: [{ text: "hi" }] } },
    {
      author: "agent",
      content: { role: "model", parts: [{ text: "hello" }] },
      ...(customMetadata ? { custom_metadata: customMetadata } : {}),
    },
  ],
});

describe("compareSessionSnapshots", () => {
  it("ignores agentkit's run-specific metadata (usage, answering model) but not the rest of custom_metadata", () => {
    const recorded = session({ tag: "x", "agentkit:usage": { invocation: { modelCalls: 2 } } });
    const replayed = session({
      tag: "x",
      "agentkit:usage": { invocation: { modelCalls: 0 } },
      "agentkit:model": "gpt-4o-mini",
      "agentkit:failover": [{ model: "gemini-2.5-flash", code: "RATE_LIMIT" }],
    });
    expect(compareSessionSnapshots(recorded, replayed)).toEqual([]);
    // An ADK-recorded session has no custom_metadata at all.
    expect(compareSessionSnapshots(session(), session({ "agentkit:usage": {} }))).toEqual([]);
    expect(compareSessionSnapshots(recorded, session({ tag: "y" }))).toEqual([
      'events[1].custom_metadata.tag: expected "x", got "y"',
    ]);
  });
});
