import { describe, expect, it } from "@jest/globals";
import { normalizeTestEvents } from "../../src/dev/normalize-test-events.js";

describe("normalizeTestEvents", () => {
  it("keeps an event's __proto__ key as a key, at the top and inside a call's arguments", () => {
    // As a stored event reads back from JSON (an imported event may carry any key); a nested
    // `id` is a call reference wherever it stands, so it is renamed too.
    const event = JSON.parse(
      '{"author":"a","id":"e1","__proto__":{"x":1},"content":{"role":"model","parts":' +
        '[{"functionCall":{"id":"c1","name":"f","args":{"__proto__":{"id":"c1"}}}}]}}',
    ) as Record<string, unknown>;
    const [normalized] = normalizeTestEvents([event]);
    expect(Object.getPrototypeOf(normalized)).toBe(Object.prototype);
    expect(JSON.stringify(normalized)).toBe(
      '{"__proto__":{"x":1},"author":"a","content":{"parts":[{"functionCall":' +
        '{"args":{"__proto__":{"id":"fc-1"}},"id":"fc-1","name":"f"}}],"role":"model"}}',
    );
  });
});
