import { afterEach, describe, expect, it } from "@jest/globals";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RequestActivity } from "../src/http/request-activity.js";

/** Event-loop turns in which nothing of the test's can change what is in flight. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("RequestActivity", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** A real server whose responses wait until the test ends them. */
  async function serve(activity: RequestActivity) {
    const pending: ServerResponse[] = [];
    let arrived: () => void = () => {};
    server = createServer(
      activity.wrap((_req, res) => {
        pending.push(res);
        arrived();
      }),
    );
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    /** Sends a request and waits until the server has it; its response comes later. */
    const request = async (): Promise<{ response: Promise<Response> }> => {
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const response = fetch(url);
      await reached;
      return { response };
    };
    return { pending, request };
  }

  it("whenIdle waits until every request in flight has its response closed", async () => {
    const activity = new RequestActivity();
    const { pending, request } = await serve(activity);
    const first = (await request()).response;
    const second = (await request()).response;
    let idle = false;
    const waiting = activity.whenIdle().then(() => (idle = true));
    await turns(20);
    expect(idle).toBe(false);
    pending[0]!.end("one");
    expect(await (await first).text()).toBe("one");
    await turns(20);
    expect(idle).toBe(false);
    pending[1]!.end("two");
    expect(await (await second).text()).toBe("two");
    await waiting;
    expect(idle).toBe(true);
  });

  it("a request whose connection is gone stops counting", async () => {
    const activity = new RequestActivity();
    const { pending, request } = await serve(activity);
    const response = (await request()).response.catch(() => "aborted");
    const waiting = activity.whenIdle();
    pending[0]!.destroy();
    expect(await response).toBe("aborted");
    await waiting;
  });

  it("whenIdle resolves after a turn when nothing is in flight, and at once for good after close", async () => {
    const activity = new RequestActivity();
    const { request } = await serve(activity);
    await activity.whenIdle();
    void (await request()).response.catch(() => {});
    await turns(5);
    let idle = false;
    const waiting = activity.whenIdle().then(() => (idle = true));
    await turns(20);
    expect(idle).toBe(false);
    activity.close();
    await waiting;
    await activity.whenIdle();
  });
});
