import { createEvent, InMemorySessionService, type Event } from "../src/index.js";
import { storedSnapshotOf } from "../src/sessions/stored-snapshots.js";
import { inspect } from "node:util";

async function append(event: Event): Promise<Event> {
  const service = new InMemorySessionService();
  const session = await service.createSession({ appName: "app", userId: "u" });
  await service.appendEvent({ session, event });
  return (await service.getSession({ appName: "app", userId: "u", sessionId: session.id }))!.events[0]!;
}

function userEvent(text: string): Event {
  return createEvent({ invocationId: "e-1", author: "user", content: { role: "user", parts: [{ text }] } });
}

describe("storedSnapshotOf", () => {
  it("gives the store's frozen copy of an appended event; the caller's event looks as before", async () => {
    const event = userEvent("hi");
    const keys = Reflect.ownKeys(event);
    const json = JSON.stringify(event);
    const shown = inspect(event, { showHidden: true, depth: 5 });
    expect(storedSnapshotOf(event)).toBeUndefined();
    const stored = await append(event);
    expect(storedSnapshotOf(event)).toBe(stored);
    expect(Object.isFrozen(stored)).toBe(true);
    // Nothing the caller can see was added: keys, symbols, JSON, inspection, a spread copy.
    expect(Reflect.ownKeys(event)).toEqual(keys);
    expect(JSON.stringify(event)).toBe(json);
    expect(inspect(event, { showHidden: true, depth: 5 })).toBe(shown);
    expect(storedSnapshotOf({ ...event })).toBeUndefined();
    expect(storedSnapshotOf(structuredClone(event))).toBeUndefined();
    // Still the caller's own, mutable event.
    event.content!.parts![0]!.text = "edited";
    expect(stored.content!.parts![0]!.text).toBe("hi");
  });

  it("the latest append of the same event object wins", async () => {
    const event = userEvent("again");
    const first = await append(event);
    const second = await append(event);
    expect(second).not.toBe(first);
    expect(storedSnapshotOf(event)).toBe(second);
  });

  it("works for events that cannot take new properties (non-extensible, frozen)", async () => {
    const sealed = Object.preventExtensions(userEvent("sealed"));
    expect(storedSnapshotOf(sealed)).toBeUndefined();
    expect(storedSnapshotOf(sealed)).toBeUndefined();
    const stored = await append(sealed);
    expect(storedSnapshotOf(sealed)).toBe(stored);
    expect(Object.isExtensible(sealed)).toBe(false);
  });
});
