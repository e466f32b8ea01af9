import { connect, type Socket } from "node:net";

/** A raw TCP client of a test server: what it received, and when the server closed it. */
export interface RawClient {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Resolves with the milliseconds from connect to close; rejects if that takes longer than `boundMs`. */
  closed(boundMs: number): Promise<number>;
}

/** Connects to 127.0.0.1:port and resolves once connected. */
export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect({ host: "127.0.0.1", port });
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => {});
  const started = performance.now();
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now() - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return {
    socket,
    received: () => Buffer.concat(chunks).toString("latin1"),
    closed: (boundMs) => within(closed, boundMs, "the server to close the socket"),
  };
}

/** `promise`, or a rejection naming `what` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `condition` (every few ms) until it holds; rejects naming `what` after `boundMs`. */
export async function until(condition: () => boolean, boundMs: number, what: string): Promise<void> {
  const deadline = performance.now() + boundMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out after ${boundMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until `text` has arrived on the client. */
export function untilReceived(client: RawClient, text: string, boundMs: number): Promise<void> {
  return until(() => client.received().includes(text), boundMs, `${JSON.stringify(text)} from the server`);
}
